//! Joints as UsdPhysics says them: the four typed joints, and the generic `PhysicsJoint` for
//! the other kinds; axes along X, Y or Z of the joint frames (the frames turned where they are
//! not); limits, springs and damping where UsdPhysics has them.

use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{BodyRef, ConstraintKind, DofProperties, Joint, JointKind, Limits, Model};
use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3};

/// Free joints constrain nothing: they are left out and the body floats (its initial velocity
/// was baked into the body's before).
pub(super) fn free_joints(s: &mut LowerSession, m: &mut Model) {
    let mut kept = Vec::new();
    for joint in std::mem::take(&mut m.joints) {
        if matches!(joint.kind, JointKind::Free) {
            let at = path::item("joints", &joint.name);
            s.note(
                "free_joint",
                Feature::FreeJoint,
                &at,
                "a free joint constrains nothing: not written, the body floats",
            );
            // Whatever the joint's coordinates carry goes with it: an armature (MuJoCo's default
            // class gives one to a free joint too) makes the floating body heavier to turn.
            for (feature, what) in free_joint_data(&joint) {
                s.lost(
                    "free_joint_data",
                    feature,
                    &at,
                    format!("a free joint's {what} are lost with it"),
                );
            }
            if let Some(actuator) = joint.actuator {
                // A prescribed free joint (DART's `acceleration`, `velocity`, `locked`) holds
                // its body; without the joint the body falls.
                s.lost(
                    "joint_actuator_lost",
                    Feature::JointActuators,
                    &at,
                    format!("UsdPhysics joints cannot say the actuator ({actuator:?}) of a free joint, which is not written"),
                );
            }
        } else {
            kept.push(joint);
        }
    }
    m.joints = kept;
}

/// What the coordinates of a free joint carry, each with its feature row.
fn free_joint_data(joint: &Joint) -> Vec<(Feature, &'static str)> {
    let any = |has: fn(&DofProperties) -> bool| joint.dofs.iter().any(has);
    let rows: [(bool, Feature, &'static str); 6] = [
        (
            any(|d| !d.position_limits.is_unlimited()),
            Feature::JointLimits,
            "position limits",
        ),
        (
            any(|d| {
                !(d.velocity_limits.is_unlimited()
                    && d.acceleration_limits.is_unlimited()
                    && d.effort_limits.is_unlimited())
            }),
            Feature::JointVelocityEffortLimits,
            "velocity, acceleration and effort limits",
        ),
        (
            any(|d| d.spring_stiffness != 0.0),
            Feature::JointSprings,
            "springs",
        ),
        (any(|d| d.damping != 0.0), Feature::JointDamping, "dampers"),
        (
            any(|d| d.friction != 0.0),
            Feature::JointFriction,
            "Coulomb frictions",
        ),
        (
            any(|d| d.rotor_inertia != 0.0),
            Feature::JointActuators,
            "armatures (rotor inertias)",
        ),
    ];
    let mut data: Vec<_> = rows.into_iter().filter(|r| r.0).map(|r| (r.1, r.2)).collect();
    if joint.bushing.is_some() {
        data.push((Feature::Bushings, "bushing constants"));
    }
    data
}

/// The rotation taking X to `a` and Y to `b` (made perpendicular to `a`).
fn frame_from_axes(a: &Vector3<f64>, b: Option<&Vector3<f64>>) -> UnitQuaternion<f64> {
    let x = a.normalize();
    let y = match b {
        Some(b) => (b - x * x.dot(b)).normalize(),
        None => {
            let helper = if x.x.abs() < 0.9 {
                Vector3::x()
            } else {
                Vector3::y()
            };
            (helper - x * x.dot(&helper)).normalize()
        }
    };
    let z = x.cross(&y);
    UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(Matrix3::from_columns(&[
        x, y, z,
    ])))
}

/// Turns both joint frames by `q` (the joint's motion about the new axes is the old one).
fn turn_frames(joint: &mut Joint, q: UnitQuaternion<f64>) {
    joint.parent_frame.rotation *= q;
    joint.child_frame.rotation *= q;
}

/// Each joint kind as UsdPhysics has it.
pub(super) fn joint_kinds(s: &mut LowerSession, m: &mut Model) {
    for joint in &mut m.joints {
        let at = path::item("joints", &joint.name);
        let unit_axis = |a: &Vector3<f64>| crate::spec::axis_token(a).is_some();
        match joint.kind.clone() {
            JointKind::Fixed
            | JointKind::Spherical
            | JointKind::Translational
            | JointKind::PointLine
            | JointKind::PointPlane => {}
            JointKind::Revolute { axis }
            | JointKind::Prismatic { axis }
            | JointKind::Cylindrical { axis } => {
                // A generic joint's free axes are fixed (X): a cylindrical joint's too.
                let cylindrical = matches!(joint.kind, JointKind::Cylindrical { .. });
                if !unit_axis(&axis) || (cylindrical && axis != Vector3::x()) {
                    turn_frames(joint, frame_from_axes(&axis, None));
                    let x = Vector3::x();
                    joint.kind = match joint.kind {
                        JointKind::Revolute { .. } => JointKind::Revolute { axis: x },
                        JointKind::Prismatic { .. } => JointKind::Prismatic { axis: x },
                        _ => JointKind::Cylindrical { axis: x },
                    };
                    s.note("axis_in_frames", Feature::RevoluteJoint, &at, "the axis is not one UsdPhysics can name here: both joint frames are turned to put it along X");
                }
            }
            JointKind::Universal { axis1, axis2 } | JointKind::Planar { axis1, axis2 } => {
                let perpendicular = axis1.dot(&axis2).abs() < 1e-12;
                if !(axis1 == Vector3::x() && axis2 == Vector3::y()) {
                    turn_frames(joint, frame_from_axes(&axis1, Some(&axis2)));
                    s.note(
                        "axes_in_frames",
                        Feature::UniversalJoint,
                        &at,
                        "the axes are turned into the joint frames' X and Y",
                    );
                }
                if !perpendicular {
                    s.approximated(
                        "axes_perpendicular",
                        Feature::UniversalJoint,
                        &at,
                        "the two axes are not perpendicular: the second is made perpendicular to the first",
                    );
                }
                let (x, y) = (Vector3::x(), Vector3::y());
                joint.kind = match joint.kind {
                    JointKind::Universal { .. } => JointKind::Universal { axis1: x, axis2: y },
                    _ => JointKind::Planar { axis1: x, axis2: y },
                };
            }
            JointKind::Screw { axis, pitch } => {
                s.approximated("screw_as_revolute", Feature::ScrewJoint, &at, format!("a screw joint (pitch {pitch} m per turn) is written as a revolute joint: the coupled translation is lost"));
                joint.kind = JointKind::Revolute { axis };
                joint.dofs.truncate(1);
                joint.q0.truncate(1);
                joint.v0.truncate(1);
                if !unit_axis(&axis) {
                    turn_frames(joint, frame_from_axes(&axis, None));
                    joint.kind = JointKind::Revolute { axis: Vector3::x() };
                }
            }
            JointKind::Euler { .. } => {
                s.approximated("euler_as_spherical", Feature::EulerJoint, &at, "an euler joint is written as a spherical joint: its per-angle limits, springs and damping are lost");
                joint.kind = JointKind::Spherical;
                joint.dofs.clear();
            }
            JointKind::PseudoContinuousTrack { .. } => {
                s.approximated(
                    "track_as_fixed",
                    Feature::FixedJoint,
                    &at,
                    "a continuous track is written as a fixed joint: its surface motion is lost",
                );
                joint.kind = JointKind::Fixed;
            }
            JointKind::Free => {}
        }
        if joint.q0.len() != joint.kind.nq() {
            joint.q0 = vec![0.0; joint.kind.nq()];
            joint.v0 = vec![0.0; joint.kind.nv()];
        }
    }
}

/// The per-coordinate data UsdPhysics has: position limits (not on spherical or point
/// joints), and on single-axis joints a spring and a damper (a drive). The rest is lost.
pub(super) fn joint_data(s: &mut LowerSession, m: &mut Model) {
    for joint in &mut m.joints {
        let at = path::item("joints", &joint.name);
        let single = matches!(
            joint.kind,
            JointKind::Revolute { .. } | JointKind::Prismatic { .. }
        );
        let limits_said = !matches!(
            joint.kind,
            JointKind::Spherical | JointKind::PointLine | JointKind::PointPlane
        );
        let mut lost = Vec::new();
        for dof in &mut joint.dofs {
            let plain = DofProperties {
                position_limits: dof.position_limits,
                ..DofProperties::default()
            };
            if !limits_said && !dof.position_limits.is_unlimited() {
                dof.position_limits = Default::default();
                lost.push(("limits", Feature::JointLimits));
            }
            // PhysX's maximum joint velocity holds a single-axis joint's symmetric bound.
            let velocity_said = single
                && matches!(dof.velocity_limits, Limits { lower: Some(lo), upper: Some(hi) } if lo == -hi && hi > 0.0);
            let velocity_lost = !velocity_said && !dof.velocity_limits.is_unlimited();
            if velocity_lost || !dof.effort_limits.is_unlimited() || !dof.acceleration_limits.is_unlimited() {
                lost.push((
                    "velocity, acceleration and effort limits",
                    Feature::JointVelocityEffortLimits,
                ));
            }
            if !single && dof.friction != 0.0 {
                lost.push(("friction", Feature::JointFriction));
            }
            if !single && (dof.rotor_inertia != 0.0 || dof.gear_ratio != 1.0) {
                lost.push(("rotor inertia and gear ratio", Feature::JointActuators));
            }
            if !single && (dof.spring_stiffness != 0.0 || dof.damping != 0.0) {
                lost.push(("springs and damping", Feature::JointSprings));
            }
            let mut kept = DofProperties {
                position_limits: plain.position_limits,
                ..DofProperties::default()
            };
            if single {
                kept.spring_stiffness = dof.spring_stiffness;
                kept.spring_rest_position = dof.spring_rest_position;
                kept.damping = dof.damping;
                // Friction and armature in Newton's attributes; the armature is the inertia the
                // rotor reflects through its gear (`gear_ratio² · rotor_inertia`).
                kept.friction = dof.friction;
                if velocity_said {
                    kept.velocity_limits = dof.velocity_limits;
                }
                kept.rotor_inertia = dof.rotor_inertia * dof.gear_ratio * dof.gear_ratio;
            }
            if !limits_said {
                kept.position_limits = Default::default();
            }
            *dof = kept;
        }
        if joint.actuator.take().is_some() {
            lost.push(("actuator", Feature::JointActuators));
        }
        if joint.bushing.take().is_some() {
            lost.push(("bushing", Feature::Bushings));
        }
        if joint.joint_id.take().is_some() {
            lost.push(("joint id", Feature::FormatExtras));
        }
        lost.sort_unstable();
        lost.dedup();
        for (what, feature) in lost {
            let code = format!("joint_{}_lost", what.split([' ', ',']).next().unwrap_or(what));
            s.lost(
                &code,
                feature,
                &at,
                format!("UsdPhysics joints cannot say the {what}"),
            );
        }
        if joint.dofs.iter().all(|d| *d == DofProperties::default()) {
            joint.dofs.clear();
        }
        let mut extras = std::mem::take(&mut joint.extras);
        s.strip_foreign_extras(&mut extras, &at);
        joint.extras = extras;
    }
}

/// Distance constraints as `PhysicsDistanceJoint`s whose `minDistance` and `maxDistance` are
/// the distance (the distance in the stored configuration when the model leaves it to that);
/// other constraints have no UsdPhysics joint and are lost; a switched-off one is not written.
pub(super) fn constraints(s: &mut LowerSession, m: &mut Model) {
    let mut kept = Vec::new();
    for mut constraint in std::mem::take(&mut m.constraints) {
        let at = path::item("constraints", &constraint.name);
        if !constraint.enabled {
            s.note(
                "disabled_constraint_omitted",
                Feature::Constraints,
                &at,
                "a switched-off constraint is not written (without it the bodies move the same)",
            );
            continue;
        }
        let world = |body: &BodyRef, point: &Vector3<f64>| match body {
            BodyRef::World => Some(*point),
            BodyRef::Body(n) => m.body(n).map(|b| b.pose.transform_point(point)),
        };
        match &mut constraint.kind {
            ConstraintKind::Distance {
                body1,
                point1,
                body2,
                point2,
                distance,
            } => {
                if distance.is_none()
                    && let (Some(a), Some(b)) = (world(body1, point1), world(body2, point2))
                {
                    *distance = Some((a - b).norm());
                }
                kept.push(constraint);
            }
            other => s.lost(
                "constraint_lost",
                Feature::Constraints,
                &at,
                format!("a {} constraint: UsdPhysics has no such joint", other.type_name()),
            ),
        }
    }
    m.constraints = kept;
}
