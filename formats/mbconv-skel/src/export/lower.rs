//! IR -> IR: the model as SKEL can say it, and a finding for every change, as a sequence of
//! named passes on a [`LowerSession`] (traced for the check's replay on request).
//!
//! In order: switched-off bodies fixed where they are; the simulation settings; constraints;
//! loop-closing and unusable joints; RSDAs and TSDAs that are a joint's spring (the shared
//! `force_elements_as_joint_springs`)
//! and the other force elements; motors, loads, devices and world frames; body velocities
//! (tree bodies: fitted joint rates; floating bodies: an explicit free joint carrying them);
//! joint actuators, kinds, bushings, ids and DOF data SKEL lacks (`joints`); skeletons (groups
//! a joint joins merged, a group for every tree outside a skeleton group);
//! joints met from their child side turned round; parent-side joint frames that agree with
//! the stored body poses; body and shape data SKEL lacks (`bodies`); bodies DART never checks
//! for contact (`collisions`); other formats' extras. Emitting the result loses nothing more.

mod bodies;
mod collisions;
mod joints;
mod skeleton_groups;
mod tree;

use crate::spec::FORMAT;
use mbconv_ir::format::Lowered;
use mbconv_ir::format::kit::{LowerSession, Tracing};
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{ForceKind, Model};

/// Distance (the pose metric: the larger of metres and radians) above which a joint's
/// parent-side frame is reported as disagreeing with the stored body poses.
const POSE_MISMATCH: f64 = 1e-6;

/// Lowers `model` for SKEL; with [`Tracing::On`] the result holds the model after each pass.
pub(crate) fn lower(model: &Model, tracing: Tracing) -> Lowered {
    let mut s = LowerSession::with_table(FORMAT, &super::FEATURE_SUPPORT, model, tracing);
    // DART cannot switch a body off: a switched-off body is fixed where it is.
    s.run_shared("fix_inactive_bodies", mbconv_ir::lower::fix_inactive_bodies);
    s.run_shared("jointed_contact", mbconv_ir::lower::filter_jointed_contact);
    s.run("simulation_settings", simulation_settings);
    s.run("drop_constraints", drop_constraints);
    // Before any joint is removed: nothing is left naming a joint that is gone. Restraints
    // go with the motors; the other force elements may become joint springs first.
    s.lose_unsayable_items(&[
        Feature::Constraints,
        Feature::Tsda,
        Feature::Rsda,
        Feature::Bushings,
    ]);
    s.run("drop_world_frames", drop_world_frames);
    s.run("drop_unusable_joints", tree::drop_unusable_joints);
    s.run_joint_springs(mbconv_ir::lower::JointSpringSupport::SpringAndDamper);
    s.run("drop_force_elements", drop_force_elements);
    s.run_shared("fit_joint_rates", mbconv_ir::lower::fit_joint_rates);
    s.run("explicit_free_joints", tree::explicit_free_joints);
    s.run("drop_fixed_body_velocities", tree::drop_fixed_body_velocities);
    s.run("drop_joint_actuators", joints::drop_actuators);
    s.run("joint_stand_ins", joints::stand_ins);
    s.run("perpendicular_planar_axes", joints::perpendicular_planar_axes);
    s.run("drop_joint_bushings", joints::drop_bushings);
    s.run("drop_joint_ids", joints::drop_joint_ids);
    s.run("drop_rotor_inertia", joints::drop_rotor_inertia);
    s.run(
        "drop_non_skeleton_groups",
        skeleton_groups::drop_non_skeleton_groups,
    );
    s.run("join_jointed_skeletons", skeleton_groups::join_jointed_skeletons);
    s.run("skeletons", skeleton_groups::skeletons);
    s.run("reversed_joints", tree::reversed_joints);
    s.run("parent_frames_from_poses", tree::parent_frames_from_poses);
    s.run("asymmetric_inertia", bodies::asymmetric_inertia);
    s.run("marker_rotations", bodies::marker_rotations);
    s.run("drop_contact_materials", bodies::drop_contact_materials);
    s.run("drop_unsayable_shapes", bodies::drop_unsayable_shapes);
    s.run("shape_details", bodies::shape_details);
    let source = model.clone();
    s.run("unchecked_contact", |s| collisions::report(s, &source));
    s.run("drop_foreign_extras", drop_foreign_extras);
    s.finish()
}

/// Gravity (DART's default when the model gives none) and the end time SKEL lacks.
fn simulation_settings(s: &mut LowerSession) {
    if s.model.simulation.gravity.is_none() {
        s.note(
            "gravity_default",
            Feature::Gravity,
            "simulation.gravity",
            "the model gives no gravity; DART will use 0 0 -9.81 (as mbconv does)",
        );
    }
    if s.model.simulation.end_time.take().is_some() {
        s.finding(
            "end_time_lost",
            Feature::TimeStep,
            mbconv_ir::Severity::Info,
            mbconv_ir::Category::Dropped,
            "simulation.end_time",
            "SKEL has no end time",
        );
    }
}

/// Constraints: SKEL has none.
fn drop_constraints(s: &mut LowerSession) {
    for c in std::mem::take(&mut s.model.constraints) {
        s.lost(
            "constraint_lost",
            Feature::Constraints,
            &path::item("constraints", &c.name),
            "SKEL has no constraints",
        );
    }
}

/// The force elements left: SKEL has no spring-dampers between points, bushings or
/// restraints.
fn drop_force_elements(s: &mut LowerSession) {
    for element in std::mem::take(&mut s.model.force_elements) {
        let (what, feature, message) = match element.kind {
            ForceKind::Tsda(_) => (
                "tsda_lost",
                Feature::Tsda,
                "SKEL has no spring-damper between points (only along a prismatic joint's axis, as its spring)",
            ),
            ForceKind::Rsda(_) => (
                "rsda_lost",
                Feature::Rsda,
                "SKEL has no rotational spring-damper (only a linear one about a revolute joint's axis, as its \
                 spring)",
            ),
            ForceKind::Bushing(_) => ("bushing_lost", Feature::Bushings, "SKEL has no bushings"),
            ForceKind::Restraint(_) => ("restraint_lost", Feature::Restraints, "SKEL has no restraints"),
        };
        s.lost(
            what,
            feature,
            &path::item("force_elements", &element.name),
            message,
        );
    }
}

/// Frames fixed to the world: SKEL has markers on bodies only.
fn drop_world_frames(s: &mut LowerSession) {
    for x in std::mem::take(&mut s.model.world_frames) {
        s.lost(
            "world_frame_lost",
            Feature::NamedFrames,
            &path::item("world_frames", &x.name),
            "SKEL has no world frames",
        );
    }
}

/// Other formats' extras: the model's, the simulation's, and every group's, body's, shape's
/// and joint's.
fn drop_foreign_extras(s: &mut LowerSession) {
    let mut m = std::mem::replace(&mut s.model, Model::new(""));
    s.strip_foreign_extras(&mut m.simulation.extras, "simulation");
    s.strip_foreign_extras(&mut m.extras, "model");
    for g in &mut m.groups {
        s.strip_foreign_extras(&mut g.extras, &path::item("groups", &g.name));
    }
    for body in &mut m.bodies {
        let at = path::item("bodies", &body.name);
        for (k, shape) in body.shapes.iter_mut().enumerate() {
            s.strip_foreign_extras(&mut shape.extras, &path::index(&at, "shapes", k));
        }
        s.strip_foreign_extras(&mut body.extras, &at);
    }
    for joint in &mut m.joints {
        s.strip_foreign_extras(&mut joint.extras, &path::item("joints", &joint.name));
    }
    s.model = m;
}
