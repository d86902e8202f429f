//! IR -> IR: the model as a Choreonoid body can say it, as a sequence of named passes on a
//! [`LowerSession`], every change a finding `body.<what>` with its feature row and IR path.
//!
//! The passes, in order: `disable_immobile_groups`, `fix_inactive_bodies`,
//! `simulation_settings` (gravity, time step, model extras); items a body file has no key for
//! (`force_elements`, `motors`, `loads`, `groups_and_frames`, `constraints`, `devices`,
//! `omit_disabled_joints`); `velocities` (a body file has none); `weld_fixed_bodies` and
//! `explicit_free_joints` (bodies attached to the world by explicit joints);
//! `reverse_joints` (joints met from their child side, the kit's shared
//! `reverse_joints_towards_root`, which mirrors limits); `single_root` (several world joints under one fixed massless root
//! link); `loops_as_extra_joints`; `joints_as_chains` (multi-dof joints as chains of massless
//! links) and `body_frames_on_joints` (the kit's shared passes); `joint_data` and `body_data` (what
//! the format lacks); `reference_poses` (recomputed from the tree). Emitting the result loses
//! nothing more.

mod topology;

use crate::spec::{DEFAULT_TIME_STEP, FORMAT, GRAVITY};
use mbconv_ir::format::Lowered;
use mbconv_ir::format::kit::{
    CollisionSwitch, ItemFindings, LowerSession, Tracing, body_frames_on_joints, joints_as_chains,
    reverse_joints_towards_root,
};
use mbconv_ir::format::support::Feature;
use mbconv_ir::kinematics::{SpanningTree, joint_motion};
use mbconv_ir::lower::{UpAxis, explicit_free_joints, turn_hint};
use mbconv_ir::report::path;
use mbconv_ir::{ConstraintKind, DofProperties, Geometry, Inertia, JointKind, Limits, Model};
use nalgebra::{UnitQuaternion, Vector3};

/// Lowers `model` for the Choreonoid Body format; `project`: a project is written beside the
/// body file (it carries gravity, time step and end time); `tracing` keeps the model after
/// every pass.
pub(crate) fn lower(model: &Model, project: bool, tracing: Tracing) -> Lowered {
    let mut s = LowerSession::with_table(FORMAT, &super::support::FEATURE_SUPPORT, model, tracing);
    // A body file can neither hold a group's joints nor switch a link off: an immobile
    // group's bodies, like switched-off bodies, are fixed where they start.
    s.run_settling_passes();
    if project {
        s.run("simulation_settings", simulation_in_project);
    } else {
        s.run("simulation_settings", simulation);
    }
    // Extra joints are kept, other constraints lost (`constraints` below).
    s.lose_unsayable_items(&[Feature::Constraints]);
    s.run("constraints", constraints);
    s.run("devices", devices);
    s.run("omit_disabled_joints", LowerSession::omit_disabled_joints);
    s.run_shared("free_loop_joints", mbconv_ir::lower::drop_free_loop_joints);
    s.run("velocities", LowerSession::lose_unsayable_velocities);
    s.run("weld_fixed_bodies", |s| s.weld_fixed_bodies("the world"));
    s.run_shared("explicit_free_joints", explicit_free_joints);
    s.run("reverse_joints", reverse_joints_towards_root);
    s.run("single_root", topology::single_root);
    s.run("loops_as_extra_joints", topology::loops);
    s.run("joints_as_chains", joints_as_chains);
    s.run("body_frames_on_joints", body_frames_on_joints);
    s.run("joint_data", joint_data);
    s.run("body_data", bodies);
    s.run("reference_poses", reference_poses);
    s.finish()
}

/// Without a project (standard output): a body file has no gravity, time step or solver.
fn simulation(s: &mut LowerSession) {
    let sim = std::mem::take(&mut s.model.simulation);
    const NO_PROJECT: &str = "written to standard output, a body file has no gravity: Choreonoid applies";
    match sim.gravity {
        Some(g) if g == Vector3::from(GRAVITY) => {}
        Some(g) if g.x == 0.0 && g.y == 0.0 && g.z < 0.0 => s.approximated(
            "gravity_magnitude_lost",
            Feature::Gravity,
            "simulation.gravity",
            format!(
                "{NO_PROJECT} (0, 0, -9.80665), not (0, 0, {}); write to a file for a project that carries it",
                g.z
            ),
        ),
        Some(g) => s.lost(
            "gravity_lost",
            Feature::Gravity,
            "simulation.gravity",
            format!(
                "{NO_PROJECT} (0, 0, -9.80665), not {:?}; write to a file for a project that carries it{}",
                [g.x, g.y, g.z],
                turn_hint(&g, UpAxis::Z)
            ),
        ),
        None => s.approximated_note(
            "gravity_defaulted",
            Feature::Gravity,
            "simulation.gravity",
            "the model gives no gravity; Choreonoid applies (0, 0, -9.80665)",
        ),
    }
    s.lose_simulation_settings(&sim, |what| {
        format!("the {what} would go in the Choreonoid project, which is written only beside a body file written to a file")
    });
    s.model.simulation.gravity = Some(Vector3::from(GRAVITY));
    s.strip_foreign_model_extras();
}

/// With a project beside the body file: its simulator item carries gravity (any direction),
/// time step, end time and Choreonoid's integration mode; other formats' solver settings are
/// dropped.
fn simulation_in_project(s: &mut LowerSession) {
    let unstated = s.state_unstated_simulation(Vector3::from(GRAVITY), DEFAULT_TIME_STEP);
    if unstated.gravity {
        let message = "the model gives no gravity; the project states Choreonoid's default (0, 0, -9.80665)";
        s.approximated_note(
            "gravity_defaulted",
            Feature::Gravity,
            "simulation.gravity",
            message,
        );
    }
    if unstated.time_step {
        let message = format!("the project states Choreonoid's default time step {DEFAULT_TIME_STEP}");
        s.note(
            "default_time_step",
            Feature::TimeStep,
            "simulation.time_step",
            message,
        );
    }
    s.strip_foreign_model_extras();
}

/// Keeps extra joints; a switched-off constraint is left out (it constrains nothing), any
/// other is lost.
fn constraints(s: &mut LowerSession) {
    for c in std::mem::take(&mut s.model.constraints) {
        let at = path::item("constraints", &c.name);
        if !c.enabled {
            s.note(
                "disabled_constraint_omitted",
                Feature::Constraints,
                &at,
                "a switched-off constraint is not written (without it the bodies move the same)",
            );
        } else if matches!(c.kind, ConstraintKind::ExtraJoint { .. }) {
            s.model.constraints.push(c);
        } else {
            s.lost(
                "constraint_lost",
                Feature::Constraints,
                &at,
                format!("a body file has no {} constraint", c.kind.type_name()),
            );
        }
    }
}

fn devices(s: &mut LowerSession) {
    for d in std::mem::take(&mut s.model.devices) {
        if d.body.is_world() || s.model.body(d.body.name().unwrap_or_default()).is_none() {
            s.lost(
                "device_lost",
                Feature::Devices,
                &path::item("devices", &d.name),
                "a device must sit on a link",
            );
        } else {
            s.model.devices.push(d);
        }
    }
}

fn joint_data(s: &mut LowerSession) {
    for j in 0..s.model.joints.len() {
        let joint = &mut s.model.joints[j];
        let mut found = ItemFindings::new("a body file");
        if joint.kind == JointKind::Free && joint.q0.iter().any(|q| *q != 0.0) {
            let motion = joint_motion(&joint.kind, &joint.q0);
            joint.parent_frame = joint.parent_frame * motion;
            joint.q0 = vec![0.0; 6];
            found.note(
                "free_joint_position_baked",
                Feature::InitialJointPositions,
                "the free joint's initial position is baked into its offset (the body starts where it did)",
            );
        }
        if joint.kind == JointKind::Free {
            // A free joint's link is the root, and the reader takes none of its coordinates'
            // data: what the loop below does not already drop goes here.
            let dofs = &mut joint.dofs;
            if dofs.iter().any(|d| d.rotor_inertia != 0.0 || d.gear_ratio != 1.0) {
                let data = "rotor inertia or a gear ratio on a free joint";
                found.lose("rotor_inertia_lost", Feature::JointActuators, data);
            }
            let limited = |d: &DofProperties| {
                [d.position_limits, d.velocity_limits, d.effort_limits]
                    .iter()
                    .any(|l| !l.is_unlimited())
            };
            if dofs.iter().any(limited) {
                found.lose(
                    "joint_limits_lost",
                    Feature::JointLimits,
                    "limits on a free joint",
                );
            }
            for dof in dofs.iter_mut() {
                *dof = DofProperties {
                    damping: dof.damping,
                    friction: dof.friction,
                    spring_stiffness: dof.spring_stiffness,
                    spring_rest_position: dof.spring_rest_position,
                    ..DofProperties::default()
                };
            }
        }
        found.lose_bushing(joint);
        for dof in &mut joint.dofs {
            if dof.damping != 0.0 {
                dof.damping = 0.0;
                found.lose("joint_damping_lost", Feature::JointDamping, "damping");
            }
            if dof.friction != 0.0 {
                dof.friction = 0.0;
                found.lose("joint_friction_lost", Feature::JointFriction, "friction");
            }
            // A rest position without stiffness means nothing.
            if dof.spring_stiffness != 0.0 {
                found.lose("joint_springs_lost", Feature::JointSprings, "springs");
            }
            dof.spring_stiffness = 0.0;
            dof.spring_rest_position = 0.0;
            found.lose_acceleration_limits(dof);
            found.lose_coordinate_name(dof);
            let e = dof.effort_limits;
            if !e.is_unlimited() && e.lower.map(|x| -x) != e.upper {
                let bound = e.upper.unwrap_or(0.0).abs().max(e.lower.unwrap_or(0.0).abs());
                dof.effort_limits = Limits::new(-bound, bound);
                let message = "asymmetric effort limits made symmetric with the larger bound";
                found.approximate(
                    "effort_limits_symmetrised",
                    Feature::JointVelocityEffortLimits,
                    message,
                );
            }
        }
        if matches!(
            joint.actuator,
            Some(
                mbconv_ir::ActuatorKind::Passive
                    | mbconv_ir::ActuatorKind::Servo
                    | mbconv_ir::ActuatorKind::Acceleration
                    | mbconv_ir::ActuatorKind::Locked
            )
        ) {
            joint.actuator = None;
            found.lose(
                "joint_actuator_lost",
                Feature::JointActuators,
                "the actuator type",
            );
        }
        s.finish_joint(j, found);
    }
}

fn bodies(s: &mut LowerSession) {
    s.lose_unsayable_body_data(CollisionSwitch::Lost);
    for b in 0..s.model.bodies.len() {
        let body = &mut s.model.bodies[b];
        let mut found = ItemFindings::new("a body file");
        if body.inertial.inertia_rotation != UnitQuaternion::identity() {
            body.inertial.inertia = Inertia::from_matrix(&body.inertial.inertia_in_body_axes());
            body.inertial.inertia_rotation = UnitQuaternion::identity();
            found.note(
                "inertia_rotated_into_link_axes",
                Feature::InertiaProducts,
                "the inertia tensor is rotated into the link axes",
            );
        }
        let before = body.shapes.len();
        body.shapes.retain(|s| writable(&s.geometry));
        if body.shapes.len() != before {
            found.lose(
                "shape_lost",
                Feature::Shapes,
                "shapes of geometry types the format has no node for (plane, pyramid, multi-sphere, convex hull, fitted)",
            );
        }
        s.finish_body(b, found);
    }
}

/// Body poses from the joint frames (the reference configuration the file states): the
/// passes above change joint frames, add links and move body frames without touching poses.
fn reference_poses(s: &mut LowerSession) {
    let tree = SpanningTree::new(&s.model);
    s.reset_reference_poses(&tree);
}

fn writable(g: &Geometry) -> bool {
    !matches!(
        g,
        Geometry::Plane { .. }
            | Geometry::Pyramid { .. }
            | Geometry::MultiSphere { .. }
            | Geometry::ConvexHull(_)
            | Geometry::FittedPrimitive { .. }
    )
}
