//! Replacing an ideal joint by a penalty bushing (`mbconv bushing replace`), so that a closed
//! loop can be carried by a format without loop joints.
//!
//! The joint is removed and a [`BushingLaw::DrakeRollPitchYaw`] force element takes its place
//! between the same two joint frames (frame A on the parent, frame C on the child). Directions
//! the joint leaves free get zero stiffness and damping; constrained directions get constants
//! from the design rules of [`mod@crate::design`]:
//!
//! - translations: a characteristic mass, the reduced mass `m_p·m_c/(m_p + m_c)` of the two
//!   bodies (the world and fixed bodies count as infinitely heavy), unless given;
//! - rotation about bushing axis `i`: a characteristic inertia, the reduced moment of inertia
//!   of the two bodies about the joint origin along that axis, unless given;
//! - stiffness `k = m·ωₙ²` (or as given, or `max load / max displacement`), damping
//!   `d = 2ζ·k/ωₙ` (or `2ζ·√(m·k)` when no frequency is given), with `ωₙ` from a settling
//!   time (default 0.01 s to 1 %, critically damped) or given directly.
//!
//! The joint frames are turned, where needed, so that the joint's free motions fall on the
//! bushing's axes as in Drake's table: a revolute or cylindrical axis on z, a prismatic axis
//! on x, a universal joint's first axis on z (yaw) and second on y (pitch), a planar joint's
//! normal on z.

use crate::convert::{ChronoBody1, chrono_bushing_from_joint, convert_law};
use crate::design::{DesignInputs, design};
use crate::{BushingError, FrameState, LawConstants, drake};
use mbconv_ir::kinematics::{Attachment, Configuration, SpanningTree, world_poses};
use mbconv_ir::report::path;
use mbconv_ir::rotation::{from_columns, unit_vector};
use mbconv_ir::{
    BodyRef, Bushing, BushingLaw, Category, Finding, ForceElement, ForceKind, Joint, JointKind, Model,
    MotorTarget, Pose, RestraintTarget, Severity,
};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};

/// Settling time used when neither a frequency, a settling time nor a stiffness is given (s).
pub const DEFAULT_SETTLING_TIME: f64 = 0.01;

/// Choices for [`replace_joint_with_bushing`] (what `mbconv bushing replace` takes; SI
/// units). Everything is optional.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ReplaceParams {
    /// Name of the new force element (default: the joint's name).
    pub name: Option<String>,
    /// Settling time tₛ (s) the bushing should settle in.
    pub settling_time: Option<f64>,
    /// Settling ratio (default 0.01).
    pub settling_ratio: Option<f64>,
    /// Damping ratio ζ (default 1).
    pub damping_ratio: Option<f64>,
    /// Natural frequency ωₙ (rad/s), instead of a settling time.
    pub omega_n: Option<f64>,
    /// Characteristic mass for the translations (kg).
    pub mass: Option<f64>,
    /// Characteristic moment of inertia for the rotations (kg·m²), all three axes.
    pub inertia: Option<f64>,
    /// Force stiffness of the constrained translations (N/m).
    pub force_stiffness: Option<f64>,
    /// Torque stiffness of the constrained rotations (N·m/rad).
    pub torque_stiffness: Option<f64>,
    /// Largest expected force (N), with `max_displacement`.
    pub max_force: Option<f64>,
    /// Largest allowed displacement under `max_force` (m).
    pub max_displacement: Option<f64>,
    /// Largest expected moment (N·m), with `max_angle`.
    pub max_torque: Option<f64>,
    /// Largest allowed rotation under `max_torque` (rad).
    pub max_angle: Option<f64>,
}

/// How a joint kind maps onto the bushing's axes: the turn of the joint frames and which of
/// the rotations (roll, pitch, yaw) and translations (x, y, z) are constrained.
struct Mapping {
    turn: UnitQuaternion<f64>,
    rotations: [bool; 3],
    translations: [bool; 3],
    gimbal_note: bool,
}

fn mapping(joint: &Joint) -> Result<Mapping, BushingError> {
    let error = |reason: &str| BushingError::Joint {
        joint: joint.name.clone(),
        reason: reason.to_owned(),
    };
    let axis = |v: &Vector3<f64>| unit_vector(v).ok_or_else(|| error("has a zero or non-finite axis"));
    // The turn whose z axis is `a`.
    let z_along = |a: Vector3<f64>| frame_with_z(&a);
    let all = [true; 3];
    let none = [false; 3];
    let m = |turn, rotations, translations, gimbal_note| Mapping {
        turn,
        rotations,
        translations,
        gimbal_note,
    };
    Ok(match &joint.kind {
        JointKind::Fixed => m(UnitQuaternion::identity(), all, all, false),
        JointKind::Revolute { axis: a } => m(z_along(axis(a)?), [true, true, false], all, false),
        JointKind::Cylindrical { axis: a } => {
            m(z_along(axis(a)?), [true, true, false], [true, true, false], false)
        }
        JointKind::Prismatic { axis: a } => {
            let x = axis(a)?;
            // z_along(x) puts x on z; turn a further −90° about y so that x lands on x.
            let turn = z_along(x)
                * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -std::f64::consts::FRAC_PI_2);
            m(turn, all, [false, true, true], false)
        }
        JointKind::Universal { axis1, axis2 } => {
            let z = axis(axis1)?;
            let y = unit_vector(&(axis(axis2)? - z * z.dot(axis2)))
                .ok_or_else(|| error("has parallel universal axes"))?;
            m(
                from_columns(&y.cross(&z), &y, &z),
                [true, false, false],
                all,
                true,
            )
        }
        JointKind::Planar { axis1, axis2 } => {
            let x = axis(axis1)?;
            let z = unit_vector(&x.cross(&axis(axis2)?)).ok_or_else(|| error("has parallel planar axes"))?;
            m(
                from_columns(&x, &z.cross(&x), &z),
                [true, true, false],
                [false, false, true],
                false,
            )
        }
        JointKind::Spherical | JointKind::Euler { .. } => m(UnitQuaternion::identity(), none, all, true),
        JointKind::Translational => m(UnitQuaternion::identity(), all, none, false),
        JointKind::PointLine => m(UnitQuaternion::identity(), none, [false, true, true], true),
        JointKind::PointPlane => m(UnitQuaternion::identity(), none, [false, false, true], true),
        JointKind::Free => {
            return Err(error(
                "is a free joint: it constrains nothing, there is nothing to replace",
            ));
        }
        JointKind::Screw { .. } => {
            return Err(error(
                "is a screw joint: its coupled rotation and translation has no diagonal bushing",
            ));
        }
        JointKind::PseudoContinuousTrack { .. } => {
            return Err(error(
                "is a continuous track: its surface motion has no bushing equivalent",
            ));
        }
    })
}

/// A rotation whose z axis is the unit vector `z` (the identity when `z` is +z).
fn frame_with_z(z: &Vector3<f64>) -> UnitQuaternion<f64> {
    UnitQuaternion::rotation_between(&Vector3::z(), z)
        .unwrap_or_else(|| UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI))
}

/// Mass properties of one side of the joint: `None` for the world or a fixed body.
struct Side {
    mass: f64,
    com: Vector3<f64>,
    inertia_com: Matrix3<f64>,
}

fn side(model: &Model, body: &BodyRef) -> Result<Option<Side>, BushingError> {
    let Some(name) = body.name() else { return Ok(None) };
    let b = model.body(name).ok_or_else(|| BushingError::Joint {
        joint: String::new(),
        reason: format!("refers to unknown body '{name}'"),
    })?;
    if b.fixed {
        return Ok(None);
    }
    Ok(Some(Side {
        mass: b.inertial.mass,
        com: b.inertial.com,
        inertia_com: b.inertial.inertia_in_body_axes(),
    }))
}

/// Reduced value of two sides (`None` = infinite).
fn reduced(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) if x + y > 0.0 => Some(x * y / (x + y)),
        (Some(_), Some(_)) => Some(0.0),
        (Some(x), None) | (None, Some(x)) => Some(x),
        (None, None) => None,
    }
}

/// Moment of inertia of a side about the frame's origin along the frame's axis `i`.
fn inertia_about(side: &Side, frame: &Pose, i: usize) -> f64 {
    let r = side.com - frame.translation;
    let about_origin =
        side.inertia_com + side.mass * (Matrix3::identity() * r.norm_squared() - r * r.transpose());
    let e = frame.rotation * Vector3::ith(i, 1.0);
    (e.transpose() * about_origin * e)[(0, 0)]
}

fn design_group(
    what: &str,
    characteristic: f64,
    given_stiffness: Option<f64>,
    load: Option<(f64, f64)>,
    params: &ReplaceParams,
    defaulted: &mut bool,
) -> Result<(f64, f64), BushingError> {
    let mut inputs = DesignInputs {
        omega_n: params.omega_n,
        settling_time: params.settling_time,
        settling_ratio: params.settling_ratio,
        damping_ratio: params.damping_ratio,
        mass: Some(characteristic),
        stiffness: given_stiffness,
        load: load.map(|l| l.0),
        displacement: load.map(|l| l.1),
        ..DesignInputs::default()
    };
    if inputs.omega_n.is_none()
        && inputs.settling_time.is_none()
        && given_stiffness.is_none()
        && load.is_none()
    {
        inputs.settling_time = Some(DEFAULT_SETTLING_TIME);
        *defaulted = true;
    }
    let result = design(&inputs).map_err(|e| match e {
        BushingError::Design(m) => BushingError::Design(format!("{what}: {m}")),
        other => other,
    })?;
    Ok((result.stiffness, result.damping))
}

fn pair(a: Option<f64>, b: Option<f64>, what: &str) -> Result<Option<(f64, f64)>, BushingError> {
    match (a, b) {
        (Some(x), Some(y)) => Ok(Some((x, y))),
        (None, None) => Ok(None),
        _ => Err(BushingError::Design(format!("{what} must be given together"))),
    }
}

/// Replaces joint `joint_name` of `model` by a Drake roll-pitch-yaw penalty bushing (see the
/// module documentation) and returns the new model with the findings: the approximation,
/// defaults applied, and anything about the initial state that could not be kept.
///
/// A joint that already carries Chrono `bushing_data` keeps its own constants (converted to
/// Drake's law). Errors: unknown joint, a joint kind without a bushing equivalent (free,
/// screw, track), a motor or restraint acting on the joint, a name taken by another force
/// element, or design inputs that do not determine the constants.
///
/// ```
/// use mbconv_bushing::{replace_joint_with_bushing, ReplaceParams};
/// use mbconv_ir::{Body, BodyRef, ForceKind, Joint, JointKind, Model};
/// use nalgebra::Vector3;
/// let mut model = Model::new("pendulum");
/// model.bodies.push(Body::new("bob"));
/// model.joints.push(Joint::new("pivot", JointKind::Revolute { axis: Vector3::z() }, BodyRef::World, BodyRef::body("bob")));
/// let (out, findings) = replace_joint_with_bushing(&model, "pivot", &ReplaceParams::default()).unwrap();
/// assert!(out.joints.is_empty());
/// let ForceKind::Bushing(b) = &out.force_elements[0].kind else { panic!() };
/// assert_eq!(b.torque_stiffness[2], 0.0); // free about the hinge axis
/// assert!(findings.iter().any(|f| f.code == "bushing.replaced_joint"));
/// ```
pub fn replace_joint_with_bushing(
    model: &Model,
    joint_name: &str,
    params: &ReplaceParams,
) -> Result<(Model, Vec<Finding>), BushingError> {
    let joint_error = |reason: String| BushingError::Joint {
        joint: joint_name.to_owned(),
        reason,
    };
    let index = model
        .joint_index(joint_name)
        .ok_or_else(|| joint_error("no joint of that name in the model".into()))?;
    let joint = &model.joints[index];
    let name = params.name.clone().unwrap_or_else(|| joint.name.clone());
    if model.force_elements.iter().any(|f| f.name == name) {
        return Err(joint_error(format!(
            "a force element named '{name}' already exists; choose another name"
        )));
    }
    if let Some(motor) = model
        .motors
        .iter()
        .find(|m| matches!(&m.target, MotorTarget::Joint { joint, .. } if joint == joint_name))
    {
        return Err(joint_error(format!(
            "motor '{}' drives it; a bushing cannot be driven",
            motor.name
        )));
    }
    for element in &model.force_elements {
        if let ForceKind::Restraint(r) = &element.kind
            && matches!(&r.target, RestraintTarget::Joint { joint, .. } if joint == joint_name)
        {
            return Err(joint_error(format!(
                "restraint '{}' acts on its coordinate",
                element.name
            )));
        }
    }
    let element_path = path::item("force_elements", &name);
    let mut findings = Vec::new();

    let bushing = if joint.bushing.is_some() {
        let chrono = chrono_bushing_from_joint(joint, ChronoBody1::Parent)?;
        let (drake, finding) = convert_law(&name, &chrono, BushingLaw::DrakeRollPitchYaw)?;
        findings.extend(finding);
        drake
    } else {
        design_bushing(model, joint, params, &element_path, &mut findings)?
    };

    let mut out = model.clone();
    out.joints.remove(index);
    for group in &mut out.groups {
        if let Some(i) = group.joints.iter().position(|j| j == joint_name) {
            group.joints.remove(i);
            findings.push(
                Finding::new(
                    "bushing.group_member_removed",
                    Severity::Info,
                    Category::Note,
                    format!(
                        "joint '{joint_name}' left group '{}' (it is now force element '{name}')",
                        group.name
                    ),
                )
                .at(path::item("groups", &group.name)),
            );
        }
    }
    out.force_elements.push(ForceElement {
        name: name.clone(),
        kind: ForceKind::Bushing(bushing.clone()),
        extras: Default::default(),
    });
    findings.push(
        Finding::new(
            "bushing.replaced_joint",
            Severity::Warning,
            Category::Approximated,
            format!(
                "{} joint '{joint_name}' replaced by a penalty bushing (Drake LinearBushingRollPitchYaw): \
                 torque stiffness {:?} N·m/rad, torque damping {:?} N·m·s/rad, force stiffness {:?} N/m, \
                 force damping {:?} N·s/m; the constraint is only enforced approximately",
                joint.kind.type_name(),
                bushing.torque_stiffness,
                bushing.torque_damping,
                bushing.force_stiffness,
                bushing.force_damping
            ),
        )
        .at(element_path.clone()),
    );
    keep_initial_state(model, &mut out, joint, &bushing, &element_path, &mut findings);
    Ok((out, findings))
}

fn design_bushing(
    model: &Model,
    joint: &Joint,
    params: &ReplaceParams,
    path: &str,
    findings: &mut Vec<Finding>,
) -> Result<Bushing, BushingError> {
    let with_joint = |e: BushingError| match e {
        BushingError::Joint { reason, .. } => BushingError::Joint {
            joint: joint.name.clone(),
            reason,
        },
        other => other,
    };
    let map = mapping(joint)?;
    let turn = Pose::from_rotation(map.turn);
    let frame_a = joint.parent_frame * turn;
    let frame_c = joint.child_frame * turn;
    let parent = side(model, &joint.parent).map_err(with_joint)?;
    let child = side(model, &joint.child).map_err(with_joint)?;
    let mut defaulted = false;

    let mut force_stiffness = [0.0; 3];
    let mut force_damping = [0.0; 3];
    if map.translations.contains(&true) {
        let mass = match params.mass {
            Some(m) => m,
            None => {
                reduced(parent.as_ref().map(|s| s.mass), child.as_ref().map(|s| s.mass)).ok_or_else(|| {
                    with_joint(BushingError::Joint {
                        joint: String::new(),
                        reason: "joins two immovable bodies; give a characteristic mass".into(),
                    })
                })?
            }
        };
        let load = pair(
            params.max_force,
            params.max_displacement,
            "max force and max displacement",
        )?;
        let (k, d) = design_group(
            "translations",
            mass,
            params.force_stiffness,
            load,
            params,
            &mut defaulted,
        )?;
        for i in 0..3 {
            if map.translations[i] {
                force_stiffness[i] = k;
                force_damping[i] = d;
            }
        }
    }
    let mut torque_stiffness = [0.0; 3];
    let mut torque_damping = [0.0; 3];
    let load = pair(params.max_torque, params.max_angle, "max torque and max angle")?;
    for i in 0..3 {
        if !map.rotations[i] {
            continue;
        }
        let inertia = match params.inertia {
            Some(value) => value,
            None => reduced(
                parent.as_ref().map(|s| inertia_about(s, &frame_a, i)),
                child.as_ref().map(|s| inertia_about(s, &frame_c, i)),
            )
            .ok_or_else(|| {
                with_joint(BushingError::Joint {
                    joint: String::new(),
                    reason: "joins two immovable bodies; give a characteristic inertia".into(),
                })
            })?,
        };
        let what = [
            "rotation about x (roll)",
            "rotation about y (pitch)",
            "rotation about z (yaw)",
        ][i];
        let (k, d) = design_group(
            what,
            inertia,
            params.torque_stiffness,
            load,
            params,
            &mut defaulted,
        )?;
        torque_stiffness[i] = k;
        torque_damping[i] = d;
    }
    if defaulted {
        findings.push(
            Finding::new(
                "bushing.default_settling_time",
                Severity::Info,
                Category::Defaulted,
                format!(
                    "no settling time, natural frequency or stiffness given: designed for a settling time of \
                     {DEFAULT_SETTLING_TIME} s"
                ),
            )
            .at(path.to_owned()),
        );
    }
    if map.gimbal_note {
        findings.push(
            Finding::new(
                "bushing.gimbal_lock_risk",
                Severity::Warning,
                Category::Note,
                format!(
                    "the {} joint leaves the bushing's pitch free: Drake's law cannot be evaluated if the pitch \
                     of frame C in frame A comes within 0.008 rad of ±90°",
                    joint.kind.type_name()
                ),
            )
            .at(path.to_owned()),
        );
    }
    Ok(Bushing {
        law: BushingLaw::DrakeRollPitchYaw,
        body_a: joint.parent.clone(),
        frame_a,
        body_c: joint.child.clone(),
        frame_c,
        torque_stiffness,
        torque_damping,
        force_stiffness,
        force_damping,
    })
}

/// Keeps the initial pose of bodies the removal detached from the world (moving their stored
/// reference poses to where the joint's `q0` put them) and reports what could not be kept.
fn keep_initial_state(
    before: &Model,
    after: &mut Model,
    joint: &Joint,
    bushing: &Bushing,
    path: &str,
    findings: &mut Vec<Finding>,
) {
    let old_tree = SpanningTree::new(before);
    let old_initial = world_poses(before, &old_tree, Configuration::Initial);
    let new_tree = SpanningTree::new(after);
    let new_initial = world_poses(after, &new_tree, Configuration::Initial);
    let root = |tree: &SpanningTree, mut b: usize| {
        while let Attachment::Joint { parent: Some(p), .. } = tree.attachments[b] {
            b = p;
        }
        b
    };
    for body in 0..after.bodies.len() {
        let r = root(&new_tree, body);
        if new_tree.attachments[r] == Attachment::Floating && old_tree.attachments[r] != Attachment::Floating
        {
            let delta = old_initial[r] * new_initial[r].inverse();
            after.bodies[body].pose = delta * after.bodies[body].pose;
        }
    }
    let check_tree = SpanningTree::new(after);
    let check = world_poses(after, &check_tree, Configuration::Initial);
    let moved: Vec<&str> = (0..after.bodies.len())
        .filter(|&b| check[b].distance(&old_initial[b]) > 1e-9)
        .map(|b| after.bodies[b].name.as_str())
        .collect();
    if !moved.is_empty() {
        findings.push(
            Finding::new(
                "bushing.initial_pose_changed",
                Severity::Warning,
                Category::Approximated,
                format!(
                    "the initial pose of {} changed when the joint was removed",
                    moved.join(", ")
                ),
            )
            .at(path.to_owned()),
        );
    }
    let moving = before.joints.iter().any(|j| j.v0.iter().any(|v| *v != 0.0))
        || before.bodies.iter().any(|b| b.initial_velocity.is_some());
    if moving {
        findings.push(
            Finding::new(
                "bushing.initial_velocity_dropped",
                Severity::Warning,
                Category::Dropped,
                format!(
                    "the model starts moving; the initial velocity of joint '{}' (v0) and of bodies detached by \
                     its removal is not carried over",
                    joint.name
                ),
            )
            .at(path.to_owned()),
        );
    }
    // Preload: the bushing is deflected at the initial state when q0 moved its frames apart.
    let frame_state = |body: &BodyRef, frame: &Pose| {
        let pose = body
            .name()
            .and_then(|n| after.body_index(n))
            .map_or_else(Pose::identity, |i| check[i]);
        FrameState::at_rest(pose * *frame)
    };
    let a = frame_state(&bushing.body_a, &bushing.frame_a);
    let c = frame_state(&bushing.body_c, &bushing.frame_c);
    if let Ok((on_a, _)) = drake::evaluate(&LawConstants::of(bushing), &a, &c)
        && (on_a.force.norm() > 1e-9 || on_a.torque.norm() > 1e-9)
    {
        findings.push(
            Finding::new(
                "bushing.initial_preload",
                Severity::Warning,
                Category::Note,
                format!(
                    "the bushing starts deflected (the joint's q0 is not its neutral state): force {} N, torque {} N·m",
                    on_a.force.norm(),
                    on_a.torque.norm()
                ),
            )
            .at(path.to_owned()),
        );
    }
}
