//! Joints as Shift says them: kinds, axes and joint-level springs, dampers and friction.

use crate::spec::{Dialect, primitive_name};
use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::kinematics::{Configuration, SpanningTree, joint_motion, world_poses};
use mbconv_ir::report::path;
use mbconv_ir::rotation::rotation_vector;
use mbconv_ir::{
    Body, BodyRef, Category, DofProperties, Extras, ForceElement, ForceKind, Inertia, Inertial, Joint,
    JointKind, Limits, Model, PiecewisePolynomial, Pose, Restraint, RestraintTarget, RestraintType, Severity,
};
use nalgebra::{UnitQuaternion, Vector3};

/// The rate (rad/s or m/s) over which a joint's Coulomb friction, written as a friction
/// restraint, rises from −f to +f. A restraint that stepped at zero rate would make every
/// simulator that integrates it with error control chatter at each reversal (and take steps
/// without end where the joint sticks); the ramp's slope at zero, f/0.01, is the slope of the
/// regularised friction `f·tanh(v/0.01)` mbconv's solver applies to the joint's own friction,
/// so the restraint is no stiffer than the friction it replaces.
const FRICTION_RAMP_RATE: f64 = 1e-2;

/// An euler joint moves its child like a spherical joint: the angles become the rotation
/// vector of the same rotation and the angle rates the angular velocity in the child joint
/// frame. Per-angle DOF data has no spherical equivalent and is lost here.
pub(super) fn euler_as_spherical(s: &mut LowerSession) {
    for j in 0..s.model.joints.len() {
        let joint = &mut s.model.joints[j];
        if !matches!(joint.kind, JointKind::Euler { .. }) {
            continue;
        }
        let motion = joint_motion(&joint.kind, &joint.q0).rotation;
        let twist = mbconv_ir::kinematics::velocity::joint_twist(&joint.kind, &joint.q0, &joint.v0);
        let w = motion.inverse() * twist.angular;
        joint.q0 = rotation_vector::from_quaternion(&motion).to_vec();
        joint.v0 = vec![w.x, w.y, w.z];
        joint.kind = JointKind::Spherical;
        let at = path::item("joints", &joint.name);
        // Damping, springs, limits and friction act on the angles, which the spherical joint
        // does not have: they are lost here, in the pass that changes the coordinates.
        let blank = vec![DofProperties::default(); joint.dofs.len()];
        let dofs = std::mem::replace(&mut joint.dofs, blank);
        if dofs.iter().any(|d| *d != DofProperties::default()) {
            lose_dofs(s, &at, &dofs, "an euler joint's");
        }
        s.note(
            "euler_as_spherical",
            Feature::EulerJoint,
            &at,
            "the euler joint is written as a spherical joint (its angles as the rotation vector of the same \
             rotation, their rates as the angular velocity)",
        );
    }
}

/// Joint kinds Shift has no joint for are left out: their child floats (see `float_joints`).
/// The restraints on a joint that is left out go with it (`shift.restraint_lost`).
pub(super) fn drop_unsupported_joints(s: &mut LowerSession) {
    let mut dropped = Vec::new();
    let mut kept = Vec::with_capacity(s.model.joints.len());
    for joint in std::mem::take(&mut s.model.joints) {
        match joint.kind {
            JointKind::Fixed
            | JointKind::Free
            | JointKind::Spherical
            | JointKind::Revolute { .. }
            | JointKind::Prismatic { .. } => kept.push(joint),
            JointKind::PseudoContinuousTrack { .. } => {
                let mut weld = joint;
                weld.kind = JointKind::Fixed;
                weld.q0.clear();
                weld.v0.clear();
                weld.dofs.clear();
                let at = path::item("joints", &weld.name);
                s.lost(
                    "track_as_rigid_joint",
                    Feature::FixedJoint,
                    &at,
                    "Shift has no continuous track; written as a rigid joint (the surface motion is lost)",
                );
                kept.push(weld);
            }
            ref other => {
                let at = path::item("joints", &joint.name);
                s.lost(
                    "joint_lost",
                    Feature::of_joint(other),
                    &at,
                    format!("Shift has no {} joint; the joint is left out", other.type_name()),
                );
                dropped.push(joint.name.clone());
            }
        }
    }
    let on_dropped = |e: &ForceElement| {
        matches!(&e.kind, ForceKind::Restraint(Restraint { target: RestraintTarget::Joint { joint, .. }, .. })
            if dropped.contains(joint))
    };
    let (lost, others): (Vec<_>, Vec<_>) = std::mem::take(&mut s.model.force_elements)
        .into_iter()
        .partition(|e| on_dropped(e));
    for element in lost {
        let at = path::item("force_elements", &element.name);
        s.lost(
            "restraint_lost",
            Feature::Restraints,
            &at,
            "the restraint acts on a joint Shift has no joint for",
        );
    }
    s.model.force_elements = others;
    s.model.joints = kept;
}

/// Spec dialect: a revolute or prismatic axis that is not a coordinate axis turns both joint
/// frames so that it is z (`Rz`/`Tz`).
pub(super) fn turn_skewed_axes(s: &mut LowerSession, dialect: Dialect) {
    if dialect != Dialect::Spec {
        return;
    }
    for j in 0..s.model.joints.len() {
        let joint = &mut s.model.joints[j];
        let (revolute, axis) = match joint.kind {
            JointKind::Revolute { axis } => (true, axis),
            JointKind::Prismatic { axis } => (false, axis),
            _ => continue,
        };
        if primitive_name(revolute, &axis).is_some() {
            continue;
        }
        let feature = Feature::of_joint(&joint.kind);
        turn_to_z(joint, axis);
        joint.kind = if revolute {
            JointKind::Revolute { axis: Vector3::z() }
        } else {
            JointKind::Prismatic { axis: Vector3::z() }
        };
        let at = path::item("joints", &joint.name);
        s.note(
            "axis_turned_to_z",
            feature,
            &at,
            "the axis is not a coordinate axis: both joint frames are turned so that it is z (Rz/Tz)",
        );
    }
}

/// Joint actuators: Shift has none.
pub(super) fn drop_actuators(s: &mut LowerSession) {
    s.drop_from_joints(
        "actuator_lost",
        Feature::JointActuators,
        Category::Dropped,
        "Shift has no joint actuators",
        |j| j.actuator.take().is_some(),
    );
}

/// Compliant joints: Shift joints are ideal.
pub(super) fn drop_bushings(s: &mut LowerSession) {
    s.drop_joint_bushings("Shift joints are ideal: the bushing compliance is left out");
}

/// Joint ids (Choreonoid's): Shift has none.
pub(super) fn drop_joint_ids(s: &mut LowerSession) {
    s.drop_joint_ids("Shift has no joint ids");
}

/// Missing initial coordinates are zero (as the IR reads them).
pub(super) fn fill_coordinates(s: &mut LowerSession) {
    for j in 0..s.model.joints.len() {
        let joint = &mut s.model.joints[j];
        let (nq, nv) = (joint.kind.nq(), joint.kind.nv());
        if joint.q0.len() == nq && joint.v0.len() == nv {
            continue;
        }
        joint.q0.resize(nq, 0.0);
        joint.v0.resize(nv, 0.0);
        let at = path::item("joints", &joint.name);
        s.note(
            "coordinates_zeroed",
            Feature::InitialJointPositions,
            &at,
            "missing initial coordinates are taken as zero",
        );
    }
}

/// Turns both joint frames by the rotation taking z onto `axis`: the joint moves the same.
fn turn_to_z(joint: &mut Joint, axis: Vector3<f64>) {
    let turn = UnitQuaternion::rotation_between(&Vector3::z(), &axis)
        .unwrap_or_else(|| UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI));
    joint.parent_frame = joint.parent_frame * Pose::from_rotation(turn);
    joint.child_frame = joint.child_frame * Pose::from_rotation(turn);
}

/// A universal joint becomes a revolute about `axis1` to a massless cross body and a revolute
/// about `axis2` from it: `R = Rot(axis1, q1)·Rot(axis2, q2)` exactly.
pub(super) fn split_universal_joints(s: &mut LowerSession) {
    let mut notes = Vec::new();
    split_universal(&mut s.model, &mut notes);
    for (at, cross_name) in notes {
        s.note(
            "universal_as_two_revolutes",
            Feature::UniversalJoint,
            &at,
            format!(
                "the universal joint is written as two revolute joints through the massless body {cross_name:?}"
            ),
        );
    }
}

fn split_universal(m: &mut Model, notes: &mut Vec<(String, String)>) {
    let tree = SpanningTree::new(m);
    let poses = world_poses(m, &tree, Configuration::Reference);
    let mut joints = Vec::with_capacity(m.joints.len());
    for joint in std::mem::take(&mut m.joints) {
        let JointKind::Universal { axis1, axis2 } = joint.kind else {
            joints.push(joint);
            continue;
        };
        let mut cross_name = format!("{}_cross", joint.name);
        while m.bodies.iter().any(|b| b.name == cross_name) {
            cross_name.push('_');
        }
        let parent_pose = match &joint.parent {
            BodyRef::World => Pose::identity(),
            BodyRef::Body(name) => m.body_index(name).map_or_else(Pose::identity, |i| poses[i]),
        };
        let mut cross = Body::new(&cross_name);
        cross.pose = parent_pose * joint.parent_frame;
        cross.inertial = Inertial {
            mass: 0.0,
            inertia: Inertia::zero(),
            ..Inertial::default()
        };
        let dof = |i: usize| joint.dofs.get(i).cloned().into_iter().collect::<Vec<_>>();
        let mut first = Joint::new(
            format!("{}_1", joint.name),
            JointKind::Revolute { axis: axis1 },
            joint.parent.clone(),
            BodyRef::body(&cross_name),
        );
        first.parent_frame = joint.parent_frame;
        first.q0 = vec![joint.q0.first().copied().unwrap_or(0.0)];
        first.v0 = vec![joint.v0.first().copied().unwrap_or(0.0)];
        first.dofs = dof(0);
        first.enabled = joint.enabled;
        let mut second = Joint::new(
            format!("{}_2", joint.name),
            JointKind::Revolute { axis: axis2 },
            BodyRef::body(&cross_name),
            joint.child.clone(),
        );
        second.child_frame = joint.child_frame;
        second.q0 = vec![joint.q0.get(1).copied().unwrap_or(0.0)];
        second.v0 = vec![joint.v0.get(1).copied().unwrap_or(0.0)];
        second.dofs = dof(1);
        second.enabled = joint.enabled;
        notes.push((path::item("joints", &joint.name), cross_name.clone()));
        // A restraint on coordinate k of the universal joint acts on revolute k + 1.
        for element in &mut m.force_elements {
            if let ForceKind::Restraint(Restraint {
                target: RestraintTarget::Joint { joint: target, dof },
                ..
            }) = &mut element.kind
                && *target == joint.name
                && *dof < 2
            {
                *target = if *dof == 0 {
                    first.name.clone()
                } else {
                    second.name.clone()
                };
                *dof = 0;
            }
        }
        for group in &mut m.groups {
            if let Some(i) = group.joints.iter().position(|j| *j == joint.name) {
                group
                    .joints
                    .splice(i..=i, [first.name.clone(), second.name.clone()]);
                group.bodies.push(cross_name.clone());
            }
        }
        m.bodies.push(cross);
        joints.push(first);
        joints.push(second);
    }
    m.joints = joints;
}

/// Joint springs, dampers and friction become restraints on one-degree-of-freedom joints;
/// what else a degree of freedom carries (limits, rotor inertia), and everything a
/// multi-degree-of-freedom joint's carry, is dropped.
pub(super) fn dofs_as_restraints(s: &mut LowerSession) {
    for j in 0..s.model.joints.len() {
        let dofs = std::mem::take(&mut s.model.joints[j].dofs);
        if dofs.iter().all(|d| *d == DofProperties::default()) {
            continue;
        }
        let joint = s.model.joints[j].clone();
        let at = path::item("joints", &joint.name);
        if joint.kind.nv() != 1 {
            lose_dofs(s, &at, &dofs, "a multi-degree-of-freedom joint's");
            continue;
        }
        let d = &dofs[0];
        add_restraints(&mut s.model.force_elements, &joint.name, d);
        note_restraints(s, &at, d);
        let rest = DofProperties {
            spring_stiffness: 0.0,
            spring_rest_position: 0.0,
            damping: 0.0,
            friction: 0.0,
            name: None,
            ..d.clone()
        };
        lose_dofs(s, &at, std::slice::from_ref(&rest), "Shift joints'");
    }
}

/// The spring, damper and friction restraints a joint's one degree of freedom `d` carries,
/// each named `JOINT.KEY` (with `_` appended until the name is free).
fn add_restraints(elements: &mut Vec<ForceElement>, joint: &str, d: &DofProperties) {
    let mut add = |key: &str, restraint_type: RestraintType, knots: Vec<f64>, pieces: Vec<Vec<f64>>| {
        let mut name = format!("{joint}.{key}");
        while elements.iter().any(|e| e.name == name) {
            name.push('_');
        }
        elements.push(ForceElement {
            name,
            kind: ForceKind::Restraint(Restraint {
                restraint_type,
                target: RestraintTarget::Joint {
                    joint: joint.to_owned(),
                    dof: 0,
                },
                function: PiecewisePolynomial { knots, pieces },
            }),
            extras: Extras::default(),
        });
    };
    if d.spring_stiffness != 0.0 {
        add(
            "stiffness",
            RestraintType::Spring,
            vec![],
            vec![vec![
                -d.spring_stiffness * d.spring_rest_position,
                d.spring_stiffness,
            ]],
        );
    }
    if d.damping != 0.0 {
        add(
            "damping",
            RestraintType::Damper,
            vec![],
            vec![vec![0.0, d.damping]],
        );
    }
    if d.friction != 0.0 {
        add(
            "friction",
            RestraintType::Friction,
            vec![-FRICTION_RAMP_RATE, FRICTION_RAMP_RATE],
            vec![
                vec![-d.friction],
                vec![0.0, d.friction / FRICTION_RAMP_RATE],
                vec![d.friction],
            ],
        );
    }
}

/// The findings for the restraints [`add_restraints`] wrote for `d` on the joint at `at`.
fn note_restraints(s: &mut LowerSession, at: &str, d: &DofProperties) {
    if d.spring_stiffness != 0.0 {
        s.note(
            "joint_spring_as_restraint",
            Feature::JointSprings,
            at,
            "the joint spring is written as a spring restraint on the joint",
        );
    }
    if d.damping != 0.0 {
        s.note(
            "joint_damping_as_restraint",
            Feature::JointDamping,
            at,
            "the joint damping is written as a damper restraint on the joint",
        );
    }
    if d.friction != 0.0 {
        s.approximated(
            "joint_friction_as_restraint",
            Feature::JointFriction,
            at,
            format!(
                "Coulomb friction is written as a friction restraint rising linearly from -f to +f between rates -{FRICTION_RAMP_RATE} and +{FRICTION_RAMP_RATE} (rad/s or m/s)"
            ),
        );
    }
}

/// One loss finding per kind of DOF data `dofs` carry (`whose` says whose it is).
fn lose_dofs(s: &mut LowerSession, at: &str, dofs: &[DofProperties], whose: &str) {
    let any = |f: &dyn Fn(&DofProperties) -> bool| dofs.iter().any(f);
    let limited = |l: &Limits| !l.is_unlimited();
    let losses = [
        (
            any(&|d| d.spring_stiffness != 0.0),
            "joint_springs_lost",
            Feature::JointSprings,
            "springs",
        ),
        (
            any(&|d| d.damping != 0.0),
            "joint_damping_lost",
            Feature::JointDamping,
            "damping",
        ),
        (
            any(&|d| d.friction != 0.0),
            "joint_friction_lost",
            Feature::JointFriction,
            "friction",
        ),
        (
            any(&|d| limited(&d.position_limits)),
            "joint_limits_lost",
            Feature::JointLimits,
            "position limits",
        ),
        (
            any(&|d| {
                limited(&d.velocity_limits) || limited(&d.acceleration_limits) || limited(&d.effort_limits)
            }),
            "joint_velocity_effort_limits_lost",
            Feature::JointVelocityEffortLimits,
            "velocity, acceleration or effort limits",
        ),
        (
            any(&|d| d.rotor_inertia != 0.0 || (d.gear_ratio != 0.0 && d.gear_ratio != 1.0)),
            "rotor_inertia_lost",
            Feature::JointActuators,
            "rotor inertia or gear ratio",
        ),
    ];
    let mut reported = false;
    for (found, what, feature, data) in losses {
        if found {
            s.lost(what, feature, at, format!("{whose} {data} cannot be written"));
            reported = true;
        }
    }
    let named_only = dofs.iter().all(|d| {
        DofProperties {
            name: None,
            ..d.clone()
        } == DofProperties::default()
    });
    if !reported && !named_only {
        s.finding(
            "joint_dof_data_lost",
            Feature::FormatExtras,
            Severity::Info,
            Category::Dropped,
            at,
            format!("{whose} other DOF data cannot be written"),
        );
    }
}
