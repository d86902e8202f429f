//! IR -> what Chrono YAML can say, IR to IR, as a sequence of named passes on a
//! [`LowerSession`]. Every change is a finding `chrono.<what>` with its feature row and IR
//! path: items Chrono has no place for are removed (`dropped`), values it can only say roughly
//! are replaced by what Chrono will build (`approximated`), and exact re-expressions (a fixed
//! ground body for the world, frames rebuilt from axes) are notes. After the last pass the
//! emitter writes the model as it is and loses nothing more.
//!
//! The passes, in order: `disable_immobile_groups`, `fix_inactive_bodies`,
//! `force_elements`, `motors`, `loads`, `bake_initial_state`, `omit_disabled_joints`,
//! `joint_kinds`, `joint_data`, `constraints`, `ground_for_the_world`, `joint_frames`,
//! `joint_springs`, `rsda_frames`, `motor_frames`, `body_data`, `shapes`,
//! `quantise_body_velocities`, `mesh_paths`, `contact_between_jointed_bodies`,
//! `devices_groups_and_frames`, `simulation_settings`.

mod bodies;
mod drives;
mod forces;
mod links;
mod meshes;
mod simulation;
mod springs;

use crate::spec::FORMAT;
use mbconv_ir::format::Lowered;
use mbconv_ir::format::kit::{CollisionSwitch, LowerSession, Tracing};
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{Body, BodyRef, Model, Pose};

/// Settings of one lowering.
#[derive(Clone, Debug, Default)]
pub(crate) struct LowerSettings {
    /// The simulation file asked for with the `sim-out` setting.
    pub simulation_file: Option<String>,
    /// True when the model file goes to a file (companions can be written beside it).
    pub to_file: bool,
    /// The model file to be written, when known (mesh names are made relative to it).
    pub output_path: Option<std::path::PathBuf>,
    /// Keep the collision shapes that make jointed bodies touch (the `keep-jointed-contact`
    /// setting).
    pub keep_jointed_contact: bool,
}

impl LowerSettings {
    /// The settings a write with `options` asks for.
    pub(crate) fn from_options(options: &mbconv_ir::format::Options) -> Self {
        Self {
            simulation_file: options.text("sim-out").map(str::to_owned),
            to_file: options.output_path.is_some(),
            output_path: options.output_path.clone(),
            keep_jointed_contact: options.flag("keep-jointed-contact"),
        }
    }
}

/// Runs the pass `name`, handing it the session (for findings) and the model apart.
fn pass(s: &mut LowerSession, name: &'static str, f: impl FnOnce(&mut LowerSession, &mut Model)) {
    s.run(name, |s| with_model(s, f));
}

/// Runs `f` on the session's model taken out of it (so that `f` can report while changing it).
fn with_model(s: &mut LowerSession, f: impl FnOnce(&mut LowerSession, &mut Model)) {
    let mut model = std::mem::take(&mut s.model);
    f(s, &mut model);
    s.model = model;
}

/// Turns `model` into what Chrono YAML can say; `tracing` keeps the model after every pass.
pub(crate) fn lower(model: &Model, settings: &LowerSettings, tracing: Tracing) -> Lowered {
    let mut s = LowerSession::with_table(FORMAT, &super::FEATURE_SUPPORT, model, tracing);
    // Chrono can neither hold a group's joints nor switch a body off: an immobile group's
    // bodies, like switched-off bodies, are fixed where they start.
    pass(&mut s, "disable_immobile_groups", |s, m| {
        s.absorb(mbconv_ir::lower::disable_immobile_groups(m, FORMAT));
    });
    pass(&mut s, "fix_inactive_bodies", |s, m| {
        s.absorb(mbconv_ir::lower::fix_inactive_bodies(m, FORMAT));
    });
    // What acts on joint coordinates (restraints, joint motors) goes before the coordinates
    // are rebased, so that its loss is reported where the motion changes.
    pass(&mut s, "force_elements", forces::force_elements);
    pass(&mut s, "motors", drives::motors);
    pass(&mut s, "loads", drives::loads);
    // Chrono has no joint coordinates: the initial state goes into body poses and velocities.
    pass(&mut s, "bake_initial_state", |s, m| {
        s.absorb(mbconv_ir::lower::bake_initial_state(m, FORMAT));
    });
    pass(&mut s, "omit_disabled_joints", links::disabled_joints);
    pass(&mut s, "joint_kinds", links::joint_kinds);
    pass(&mut s, "joint_data", links::joint_data);
    pass(&mut s, "constraints", links::constraints);
    pass(&mut s, "ground_for_the_world", ground_for_the_world);
    pass(&mut s, "joint_frames", links::joint_frames);
    pass(&mut s, "joint_springs", springs::joint_springs);
    pass(&mut s, "rsda_frames", forces::rsda_frames);
    pass(&mut s, "motor_frames", drives::motor_frames);
    s.run("body_data", |s| {
        s.lose_unsayable_body_data(CollisionSwitch::Said);
        with_model(s, bodies::body_data);
    });
    pass(&mut s, "shapes", bodies::shapes);
    // Last for bodies: the velocity conversion depends on the pose and the centre-of-mass frame.
    pass(&mut s, "quantise_body_velocities", |_, m| {
        m.bodies.iter_mut().for_each(crate::spec::velocity::quantise);
    });
    pass(&mut s, "mesh_paths", |s, m| {
        meshes::mesh_paths(s, m, settings.output_path.as_deref());
    });
    pass(&mut s, "contact_between_jointed_bodies", |s, m| {
        let touching = if settings.keep_jointed_contact {
            mbconv_ir::lower::TouchingShapes::Keep
        } else {
            mbconv_ir::lower::TouchingShapes::Remove
        };
        s.absorb(mbconv_ir::lower::separate_jointed_shapes(m, FORMAT, touching));
    });
    s.lose_unsayable_items(&[]);
    pass(&mut s, "model_extras", |s, m| {
        s.strip_foreign_extras(&mut m.extras, "")
    });
    pass(&mut s, "simulation_settings", |s, m| {
        simulation::simulation(s, m, settings);
    });
    s.finish()
}

/// The reference pose of a body (identity for the world and for unknown bodies).
pub(crate) fn pose_of(model: &Model, r: &BodyRef) -> Pose {
    r.name()
        .and_then(|n| model.body(n))
        .map_or(Pose::identity(), |b| b.pose)
}

/// Chrono YAML has no world body: items attached to the world are attached to an added fixed
/// body at the origin (an exact equivalent).
fn ground_for_the_world(s: &mut LowerSession, model: &mut Model) {
    if !super::uses_world(model) {
        return;
    }
    let mut name = "ground".to_owned();
    while model.body(&name).is_some() {
        name.push('_');
    }
    s.note(
        "world_as_ground_body",
        Feature::FixedBodies,
        &path::item("bodies", &name),
        format!("items attached to the world are attached to an added fixed body {name:?} (Chrono YAML has no world body)"),
    );
    let mut ground = Body::new(name.clone());
    ground.fixed = true;
    model.bodies.insert(0, ground);
    let to_ground = |r: &mut BodyRef| {
        if r.is_world() {
            *r = BodyRef::Body(name.clone());
        }
    };
    for_each_body_ref(model, to_ground);
}

/// Calls `f` on every body reference of the items Chrono writes between bodies.
fn for_each_body_ref(model: &mut Model, mut f: impl FnMut(&mut BodyRef)) {
    for j in &mut model.joints {
        f(&mut j.parent);
        f(&mut j.child);
    }
    for c in &mut model.constraints {
        use mbconv_ir::ConstraintKind as C;
        match &mut c.kind {
            C::Distance { body1, body2, .. }
            | C::RevoluteSpherical { body1, body2, .. }
            | C::RevoluteTranslational { body1, body2, .. }
            | C::ExtraJoint { body1, body2, .. } => {
                f(body1);
                f(body2);
            }
        }
    }
    for e in &mut model.force_elements {
        match &mut e.kind {
            mbconv_ir::ForceKind::Tsda(t) => {
                f(&mut t.body1);
                f(&mut t.body2);
            }
            mbconv_ir::ForceKind::Rsda(r) => {
                f(&mut r.body1);
                f(&mut r.body2);
            }
            _ => {}
        }
    }
    for m in &mut model.motors {
        if let mbconv_ir::MotorTarget::BodyPair { body1, body2, .. } = &mut m.target {
            f(body1);
            f(body2);
        }
    }
}
