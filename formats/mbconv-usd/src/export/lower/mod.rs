//! IR -> what UsdPhysics can say, IR to IR, as named passes on a [`LowerSession`]; every
//! change is a finding `usd.<what>` with its feature row and IR path.
//!
//! In order: the settling passes (immobile groups, switched-off bodies, contact between jointed
//! bodies, which PhysX filters as the IR's solver does); RSDAs and TSDAs that are a joint's
//! spring; the initial state baked into body poses and velocities (USD has no joint
//! coordinates); free joints dropped (they constrain nothing); joint kinds and their data; tree joints turned away from their roots (`reverse_joints`)
//! (`joints`); body data and shapes (`bodies`); what the table says is lost; other formats'
//! extras; the simulation settings; names that are not prim names.

mod bodies;
mod joints;

use crate::spec::FORMAT;
use mbconv_ir::format::Lowered;
use mbconv_ir::format::kit::{CollisionSwitch, LowerSession, Tracing, reverse_joints_towards_root};
use mbconv_ir::format::support::Feature;
use mbconv_ir::lower::JointSpringSupport;
use mbconv_ir::report::path;
use mbconv_ir::{ForceKind, Model};

/// Runs the pass `name` with the session's model taken out of it, so that `f` can report while
/// changing it.
fn pass(s: &mut LowerSession, name: &'static str, f: impl FnOnce(&mut LowerSession, &mut Model)) {
    s.run(name, |s| {
        let mut model = std::mem::take(&mut s.model);
        f(s, &mut model);
        s.model = model;
    });
}

/// Turns `model` into what a UsdPhysics stage can say; `tracing` keeps the model after every
/// pass.
pub(crate) fn lower(model: &Model, tracing: Tracing) -> Lowered {
    let mut s = LowerSession::with_table(FORMAT, &super::FEATURE_SUPPORT, model, tracing);
    s.run_settling_passes();
    s.run_joint_springs(JointSpringSupport::SpringAndDamper);
    pass(&mut s, "other_spring_dampers", other_spring_dampers);
    s.run_shared("bake_initial_state", mbconv_ir::lower::bake_initial_state);
    pass(&mut s, "free_joints", joints::free_joints);
    pass(&mut s, "joint_kinds", joints::joint_kinds);
    pass(&mut s, "joint_data", joints::joint_data);
    // Articulations hang from their roots: Newton refuses a tree joint met from its child side.
    // After the kinds (a track is fixed by then); a joint that cannot be turned is a free one.
    s.run("reverse_joints", reverse_joints_towards_root);
    pass(&mut s, "reversed_free_joints", joints::free_joints);
    // A turned universal or planar joint has its axes swapped (Y, X): the kinds again put them
    // on X and Y, the order a generic joint's free rotations (translations) have.
    pass(&mut s, "reversed_joint_kinds", joints::joint_kinds);
    s.run("body_data", |s| s.lose_unsayable_body_data(CollisionSwitch::Said));
    pass(&mut s, "bodies", bodies::bodies);
    pass(&mut s, "shapes", bodies::shapes);
    s.lose_unsayable_items(&[Feature::Constraints]);
    pass(&mut s, "constraints", joints::constraints);
    s.run("model_extras", LowerSession::strip_foreign_model_extras);
    pass(&mut s, "simulation_settings", |s, m| {
        let sim = m.simulation.clone();
        s.lose_simulation_settings(&sim, |what| format!("a UsdPhysics scene has no {what}"));
        m.simulation.time_step = None;
        m.simulation.end_time = None;
        m.simulation.extras = Default::default();
    });
    pass(&mut s, "prim_names", prim_names);
    s.finish()
}

/// The TSDAs and RSDAs that are not a joint's spring (the shared pass took those): UsdPhysics
/// has no force elements, so they are lost.
fn other_spring_dampers(s: &mut LowerSession, m: &mut Model) {
    let mut kept = Vec::new();
    for element in std::mem::take(&mut m.force_elements) {
        let feature = match element.kind {
            ForceKind::Tsda(_) => Feature::Tsda,
            ForceKind::Rsda(_) => Feature::Rsda,
            _ => {
                kept.push(element);
                continue;
            }
        };
        let at = path::item("force_elements", &element.name);
        s.lost(
            "spring_damper_lost",
            feature,
            &at,
            "a spring-damper that is not a joint's own spring: UsdPhysics has no force elements",
        );
    }
    m.force_elements = kept;
}

/// Reports the items whose names are not valid prim names: the writer makes them valid and
/// keeps the name in `mbconv:name`, which this reader takes back.
fn prim_names(s: &mut LowerSession, m: &mut Model) {
    let lists: [(&str, Vec<&str>); 2] = [
        ("bodies", m.bodies.iter().map(|b| b.name.as_str()).collect()),
        (
            "joints",
            m.joints
                .iter()
                .map(|j| j.name.as_str())
                .chain(m.constraints.iter().map(|c| c.name.as_str()))
                .collect(),
        ),
    ];
    for (list, names) in lists {
        let written = super::prim_names(names.iter().copied());
        for (name, prim) in names.iter().zip(written) {
            if *name != prim {
                s.note(
                    "prim_name",
                    Feature::FormatExtras,
                    &path::item(list, name),
                    format!(
                        "{name:?} is not a valid prim name: written as {prim:?}, the name kept in mbconv:name"
                    ),
                );
            }
        }
    }
}
