//! IR -> IR: the model as URDF can say it, as a sequence of named passes on a
//! [`LowerSession`], every change a finding `urdf.<what>` with its feature row and IR path.
//! Emitting the result ([`super::emit`]) loses nothing more.
//!
//! The passes, in order: `disable_immobile_groups` and `fix_inactive_bodies` (URDF can
//! neither hold a group's joints nor switch a link off); `simulation_settings` (URDF has no
//! gravity and no time step: a gravity other than (0, 0, -9.81) is reported); items URDF has
//! no element for (`force_elements`, `motors`, `loads`, `groups_and_frames`, `constraints`,
//! `devices`); `omit_disabled_joints`; `initial_state` (URDF has no initial positions or
//! velocities: lost, except a free joint's position, baked into its origin);
//! `weld_fixed_bodies` and `explicit_free_joints` (one tree: a fixed body is welded to the
//! `world` link unless it is the only root, a floating body hangs from `world` by a
//! `floating` joint); `reverse_joints` (the tree hangs from its root, the kit's
//! `reverse_joints_towards_root`); `cut_loops` (URDF is a tree: a loop-closing joint is lost);
//! `joints_as_chains` (ball, universal, Euler, cylindrical, translational, point joints, a
//! free joint below another link and a planar joint whose axes are not URDF's, as chains of
//! massless links); `body_frames_on_joints` (a link's frame is its joint's frame);
//! `joint_data`, `body_data` (what URDF lacks per item, and what urdfdom and MuJoCo need: named
//! materials, effort and velocity in every `<limit>`, a `<limit>` on every prismatic joint);
//! `massless_moving_links` (MuJoCo refuses a moving body without mass, and any link whose
//! inertia has a principal moment near zero); `root_link` (a model
//! without bodies gets one massless link); `free_root` (with `root=free` only);
//! `reference_poses` (body poses recomputed from the tree).

use crate::spec;
use mbconv_ir::format::Lowered;
use mbconv_ir::format::kit::{
    CollisionSwitch, ItemFindings, LowerSession, Tracing, body_frames_on_joints, joints_as_chains_where,
    reverse_joints_towards_root,
};
use mbconv_ir::format::support::Feature;
use mbconv_ir::kinematics::{SpanningTree, joint_motion};
use mbconv_ir::lower::{UpAxis, explicit_free_joints, turn_hint};
use mbconv_ir::report::path;
use mbconv_ir::{
    ActuatorKind, Body, Category, Geometry, Inertia, Joint, JointKind, Limits, Model, Pose, Severity,
    ShapeRole, Value,
};
use nalgebra::{UnitQuaternion, Vector3};
use std::path::Path;

/// The format name, the prefix of every finding.
const FORMAT: &str = "urdf";

/// The bound written where URDF needs one and the model has none (a prismatic joint's
/// position, the effort and velocity of a limited joint): far beyond any motion, finite for
/// every parser.
pub(crate) const UNREACHED: f64 = 1e30;

/// The gravity the URDF loaders (and mbconv's solver, for a model without one) apply.
pub(crate) const GRAVITY: [f64; 3] = [0.0, 0.0, -9.81];

/// How a floating root is written (the write setting [`spec::WRITE_ROOT`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum RootWriting {
    /// A `floating` joint from a `world` link: free in every loader.
    #[default]
    FloatingJoint,
    /// The root link alone: free in DART and Drake (and in mbconv with `root=free`), welded
    /// by Pinocchio and MuJoCo.
    Free,
}

impl RootWriting {
    /// The choice `options` make (the default when they make none).
    pub(crate) fn from_options(options: &mbconv_ir::format::Options) -> Self {
        match options.choice(spec::WRITE_ROOT, spec::WRITE_ROOT_CHOICES) {
            Some("free") => Self::Free,
            _ => Self::FloatingJoint,
        }
    }
}

/// Lowers `model` for URDF, writing a floating root as `root` says and relative mesh names
/// relative to `output` (the file to be written, if any); `tracing` keeps the model after every
/// pass.
pub(crate) fn lower_with(
    model: &Model,
    root: RootWriting,
    output: Option<&Path>,
    tracing: Tracing,
) -> Lowered {
    let mut s = LowerSession::with_table(FORMAT, &super::support::FEATURE_SUPPORT, model, tracing);
    s.run_settling_passes();
    s.run("simulation_settings", simulation);
    s.run("force_elements", force_elements);
    s.lose_unsayable_items(&[
        Feature::Tsda,
        Feature::Rsda,
        Feature::Bushings,
        Feature::Restraints,
    ]);
    s.run("omit_disabled_joints", LowerSession::omit_disabled_joints);
    s.run("initial_state", initial_state);
    s.run("weld_fixed_bodies", fixed_bodies);
    // A free joint that closes a loop constrains nothing: left out before the joints are
    // turned towards the root, or the joints that hold its body would be turned towards it.
    s.run_shared("free_loop_joints", mbconv_ir::lower::drop_free_loop_joints);
    s.run_shared("explicit_free_joints", explicit_free_joints);
    s.run("reverse_joints", reverse_joints_towards_root);
    s.run("cut_loops", cut_loops);
    s.run("joints_as_chains", |s| joints_as_chains_where(s, needs_chain));
    s.run("body_frames_on_joints", body_frames_on_joints);
    s.run("joint_data", joint_data);
    s.run("body_data", body_data);
    s.run("massless_moving_links", massless_moving_links);
    s.run("root_link", root_link);
    if root == RootWriting::Free {
        s.run("free_root", free_root);
    }
    s.run("reference_poses", reference_poses);
    s.run("mesh_paths", |s| {
        s.rebase_mesh_paths(output, "a URDF loader");
    });
    s.finish()
}

/// The multi-dof joints URDF has no element for: all but a `planar` joint whose axes are
/// the ones URDF derives from its normal, and a `floating` joint from the world.
fn needs_chain(j: &Joint) -> bool {
    match &j.kind {
        JointKind::Planar { axis1, axis2 } => spec::plane_axes(&axis1.cross(axis2)) != Some((*axis1, *axis2)),
        JointKind::Free => !j.parent.is_world(),
        _ => true,
    }
}

fn simulation(s: &mut LowerSession) {
    let sim = std::mem::take(&mut s.model.simulation);
    if let Some(g) = sim.gravity {
        let down = g.x == 0.0 && g.y == 0.0 && g.z < 0.0;
        if g == Vector3::from(GRAVITY) {
            s.note(
                "gravity_not_written",
                Feature::Gravity,
                "simulation.gravity",
                "URDF has no gravity; its loaders apply (0, 0, -9.81), the model's own",
            );
        } else if down {
            s.approximated(
                "gravity_magnitude_lost",
                Feature::Gravity,
                "simulation.gravity",
                format!(
                    "URDF has no gravity: its loaders apply (0, 0, -9.81), not (0, 0, {})",
                    g.z
                ),
            );
        } else {
            s.lost(
                "gravity_lost",
                Feature::Gravity,
                "simulation.gravity",
                format!(
                    "URDF has no gravity and its loaders pull along -z: the model's {:?} is lost{}",
                    [g.x, g.y, g.z],
                    turn_hint(&g, UpAxis::Z)
                ),
            );
        }
    }
    s.lose_simulation_settings(&sim, |what| format!("URDF has no {what}"));
    s.strip_foreign_model_extras();
}

/// A pure linear damper on a joint's own axis is that joint's damping (URDF joints have no
/// spring); every other force element is lost.
fn force_elements(s: &mut LowerSession) {
    let f = mbconv_ir::lower::force_elements_as_joint_springs(
        &mut s.model,
        FORMAT,
        mbconv_ir::lower::JointSpringSupport::DamperOnly,
    );
    s.absorb(f);
    s.lose_all_force_elements(|kind| format!("URDF has no {} force elements", kind));
}

/// URDF states the reference configuration only: a free joint's initial position goes into
/// its origin, every other initial position and every velocity is lost.
fn initial_state(s: &mut LowerSession) {
    s.lose_unsayable_velocities();
    for i in 0..s.model.joints.len() {
        let j = &mut s.model.joints[i];
        let at = path::item("joints", &j.name);
        let moved = j.q0.iter().any(|q| *q != 0.0);
        let free = j.kind == JointKind::Free;
        if moved {
            if free {
                j.parent_frame = j.parent_frame * joint_motion(&j.kind, &j.q0);
            }
            j.q0.iter_mut().for_each(|q| *q = 0.0);
        }
        if moved && free {
            s.note(
                "free_joint_position_baked",
                Feature::InitialJointPositions,
                &at,
                "the free joint's initial position is baked into its origin (the body starts where it did)",
            );
        } else if moved {
            s.lost(
                "joint_position_lost",
                Feature::InitialJointPositions,
                &at,
                "URDF has no initial joint positions: the joint starts at 0",
            );
        }
    }
}

/// A fixed body that is the model's only root and sits at the world origin stays a fixed root
/// link (URDF loaders weld the root by default, mbconv's reader with `root=fixed`, and the root
/// link's frame is the world frame); any other fixed body, a root placed elsewhere included, is
/// welded to the `world` link by a fixed joint that carries its pose.
fn fixed_bodies(s: &mut LowerSession) {
    let held = |m: &Model, name: &str| {
        m.joints
            .iter()
            .any(|j| j.child.name() == Some(name) || j.parent.name() == Some(name) && j.child.is_world())
    };
    let roots: Vec<usize> = (0..s.model.bodies.len())
        .filter(|&b| !held(&s.model, &s.model.bodies[b].name))
        .collect();
    let world = s
        .model
        .joints
        .iter()
        .any(|j| j.parent.is_world() || j.child.is_world());
    if let [root] = roots.as_slice()
        && !world
        && s.model.bodies[*root].fixed
        && s.model.bodies[*root].pose == Pose::identity()
        && s.model.bodies.iter().filter(|b| b.fixed).count() == 1
    {
        return;
    }
    s.weld_fixed_bodies("the world link");
}

/// URDF is a tree: the joints that close loops are lost.
fn cut_loops(s: &mut LowerSession) {
    let tree = SpanningTree::new(&s.model);
    let mut cut = tree.loop_joints.clone();
    cut.sort_unstable();
    for &index in cut.iter().rev() {
        let j = s.model.joints.remove(index);
        s.lost(
            "loop_joint_lost",
            Feature::KinematicLoops,
            &path::item("joints", &j.name),
            format!(
                "URDF is a tree: the loop-closing {} joint is cut",
                j.kind.type_name()
            ),
        );
    }
}

/// True when `value` holds the string `name` anywhere.
fn mentions(value: &Value, name: &str) -> bool {
    match value {
        Value::String(s) => s == name,
        Value::List(items) => items.iter().any(|v| mentions(v, name)),
        Value::Map(map) => map.iter().any(|(_, v)| mentions(v, name)),
        _ => false,
    }
}

// Long: one walk over a joint's data and then its coordinates, each check in the order urdfdom
// needs the <limit> written (limits completed last, once every other value is settled).
fn joint_data(s: &mut LowerSession) {
    let transmissions = s
        .model
        .extras
        .get("urdf.transmission")
        .cloned()
        .unwrap_or_default();
    for j in 0..s.model.joints.len() {
        let joint = &mut s.model.joints[j];
        let mut found = ItemFindings::new("URDF");
        found.weld_track(joint, "a fixed joint");
        found.lose_bushing(joint);
        // A force, velocity or position actuator is what a kept <transmission> naming the
        // joint says (its hardware interface); any other is lost.
        let said = matches!(
            joint.actuator,
            Some(ActuatorKind::Force | ActuatorKind::Velocity | ActuatorKind::Position)
        ) && mentions(&transmissions, &joint.name);
        if !said && joint.actuator.take().is_some() {
            let data = "the actuator type (transmissions say it outside the joint)";
            found.lose("joint_actuator_lost", Feature::JointActuators, data);
        }
        let multi = joint.kind.nv() != 1;
        if multi && !joint.dofs.is_empty() {
            let data = joint
                .dofs
                .iter()
                .any(|d| *d != mbconv_ir::DofProperties::default());
            joint.dofs.clear();
            if data {
                let data = "limits, damping or springs of a multi-dof joint";
                found.lose("multi_dof_data_lost", Feature::of_joint(&joint.kind), data);
            }
        }
        let prismatic = matches!(joint.kind, JointKind::Prismatic { .. });
        if prismatic && joint.dofs.is_empty() {
            // An unbounded prismatic joint needs its <limit> too (below).
            joint.dofs.push(mbconv_ir::DofProperties::default());
        }
        for dof in &mut joint.dofs {
            if dof.spring_stiffness != 0.0 {
                found.lose("joint_springs_lost", Feature::JointSprings, "joint springs");
            }
            dof.spring_stiffness = 0.0;
            dof.spring_rest_position = 0.0;
            if dof.rotor_inertia != 0.0 {
                dof.rotor_inertia = 0.0;
                found.lose("rotor_inertia_lost", Feature::JointActuators, "rotor inertia");
            }
            found.lose_acceleration_limits(dof);
            found.lose_coordinate_name(dof);
            let p = dof.position_limits;
            if p.lower.is_some() != p.upper.is_some() {
                dof.position_limits = Limits::default();
                let message = "a one-sided position limit is dropped (URDF reads a missing bound as 0)";
                found.approximate("one_sided_limit_dropped", Feature::JointLimits, message);
            }
            for (limits, what) in [
                (&mut dof.effort_limits, "effort"),
                (&mut dof.velocity_limits, "velocity"),
            ] {
                if !limits.is_unlimited() && limits.lower.map(|x| -x) != limits.upper {
                    let bound = limits
                        .upper
                        .map_or(f64::INFINITY, f64::abs)
                        .min(limits.lower.map_or(f64::INFINITY, f64::abs));
                    *limits = Limits::new(-bound, bound);
                    let (code, message) = if what == "effort" {
                        (
                            "effort_limits_symmetrised",
                            "asymmetric effort limits made symmetric with the smaller bound",
                        )
                    } else {
                        (
                            "velocity_limits_symmetrised",
                            "asymmetric velocity limits made symmetric with the smaller bound",
                        )
                    };
                    found.approximate(code, Feature::JointVelocityEffortLimits, message);
                }
            }
            // urdfdom (so Pinocchio, DART and ROS) refuses a revolute or prismatic joint
            // without <limit>, and a <limit> without effort and velocity; a continuous joint
            // (revolute without position limits) needs none. The missing bounds are written as
            // UNREACHED, which no motion reaches.
            if prismatic && dof.position_limits.is_unlimited() {
                dof.position_limits = Limits::new(-UNREACHED, UNREACHED);
                found.approximate(
                    "unbounded_prismatic_bounded",
                    Feature::JointLimits,
                    "an unbounded prismatic joint is written with position limits ±1e30 (urdfdom refuses a prismatic joint without <limit>; no motion reaches them)",
                );
            }
            let writes_limit = !(dof.position_limits.is_unlimited()
                && dof.effort_limits.is_unlimited()
                && dof.velocity_limits.is_unlimited());
            if writes_limit && (dof.effort_limits.is_unlimited() || dof.velocity_limits.is_unlimited()) {
                for limits in [&mut dof.effort_limits, &mut dof.velocity_limits] {
                    if limits.is_unlimited() {
                        *limits = Limits::new(-UNREACHED, UNREACHED);
                    }
                }
                found.note(
                    "effort_velocity_limits_completed",
                    Feature::JointVelocityEffortLimits,
                    "a <limit> is written and the joint has no effort or no velocity limit: it is written as ±1e30 (urdfdom refuses a <limit> without effort and velocity)",
                );
            }
        }
        found.lose_joint_id(joint);
        s.finish_joint(j, found);
    }
}

/// The extra holding a visual's material name.
const MATERIAL: &str = "urdf.material";

/// `base`, or `base_2`, `base_3`, ... : the first not in `taken`.
fn unique_name(base: &str, taken: &[String]) -> String {
    let mut name = base.to_owned();
    let mut k = 1;
    while taken.contains(&name) {
        k += 1;
        name = format!("{base}_{k}");
    }
    name
}

// Long: one pass over each body and its shapes, their URDF-specific checks in report order.
fn body_data(s: &mut LowerSession) {
    s.lose_unsayable_body_data(CollisionSwitch::Lost);
    s.symmetrise_inertias();
    let mut material_names: Vec<String> = s
        .model
        .bodies
        .iter()
        .flat_map(|b| &b.shapes)
        .filter_map(|shape| match shape.extras.get(MATERIAL) {
            Some(Value::String(name)) => Some(name.clone()),
            _ => None,
        })
        .collect();
    for b in 0..s.model.bodies.len() {
        let body = &mut s.model.bodies[b];
        let mut found = ItemFindings::new("URDF");
        let mut shapes = Vec::new();
        for mut shape in std::mem::take(&mut body.shapes) {
            if let Geometry::Ellipsoid { radii } = shape.geometry {
                if radii[0] == radii[1] && radii[1] == radii[2] {
                    // The same shape, in an element every loader knows.
                    shape.geometry = Geometry::Sphere { radius: radii[0] };
                    found.note(
                        "ellipsoid_as_sphere",
                        Feature::Shapes,
                        "an ellipsoid with three equal radii is written as a <sphere>",
                    );
                } else {
                    let (cylinder, turn, volume_ratio) = ellipsoid_as_cylinder(radii);
                    shape.geometry = cylinder;
                    shape.pose = shape.pose * Pose::from_rotation(turn);
                    found.approximate(
                        "ellipsoid_as_cylinder",
                        Feature::Shapes,
                        format!(
                            "an ellipsoid of radii {radii:?} is written as the <cylinder> around it (its extents kept, {volume_ratio:.3} times its volume): URDF has no ellipsoid every loader reads (Drake's <drake:ellipsoid> is refused by urdfdom, Pinocchio and MuJoCo, \"visual geometry specification not found\")"
                        ),
                    );
                }
            }
            if !writable(&shape.geometry) {
                found.lose(
                    "shape_lost",
                    Feature::Shapes,
                    "planes, pyramids, multi-spheres, fitted primitives and mesh sub-nodes",
                );
                continue;
            }
            if shape.role != ShapeRole::Visual
                && shape.appearance.is_some()
                && shape.role == ShapeRole::Collision
            {
                shape.appearance = None;
                found.lose(
                    "collision_appearance_lost",
                    Feature::Appearance,
                    "the colour of a collision shape",
                );
            }
            if let Some(a) = &mut shape.appearance
                && a.take_shading() | (a.diffuse.is_none() && a.alpha.take().is_some())
            {
                let data = "appearance beyond a colour and a texture";
                found.lose("appearance_reduced", Feature::Appearance, data);
            }
            if shape
                .appearance
                .as_ref()
                .is_some_and(|a| a.diffuse.is_none() && a.texture.is_none())
            {
                // Nothing left to write: no <material> (an empty one names nothing).
                shape.appearance = None;
            }
            if shape.role != ShapeRole::Collision
                && shape.appearance.is_some()
                && !matches!(shape.extras.get(MATERIAL), Some(Value::String(_)))
            {
                let name = unique_name(&format!("{}_material", body.name), &material_names);
                material_names.push(name.clone());
                shape.extras.insert(MATERIAL.to_owned(), Value::String(name));
                found.note(
                    "material_named",
                    Feature::Appearance,
                    "an unnamed colour or texture is written as a named <material> (urdfdom and MuJoCo refuse an unnamed one)",
                );
            }
            if shape.role == ShapeRole::Both {
                let mut collision = shape.clone();
                collision.role = ShapeRole::Collision;
                collision.appearance = None;
                shape.role = ShapeRole::Visual;
                shapes.push(shape);
                shapes.push(collision);
                found.note(
                    "shape_split",
                    Feature::Shapes,
                    "a shape that is drawn and collides is written as a <visual> and a <collision>",
                );
            } else {
                shapes.push(shape);
            }
        }
        body.shapes = shapes;
        s.finish_body(b, found);
    }
}

/// The cylinder around an ellipsoid of `radii` (URDF's loaders share no ellipsoid): along the
/// axis whose radius differs most from the other two (a flat rotor's thickness, a rod's length),
/// as wide as the larger of those two; the turn that lays the IR's cylinder (along z) on that
/// axis; and the cylinder's volume over the ellipsoid's.
fn ellipsoid_as_cylinder(radii: [f64; 3]) -> (Geometry, UnitQuaternion<f64>, f64) {
    let apart = |k: usize| {
        let (a, b) = (radii[(k + 1) % 3], radii[(k + 2) % 3]);
        (radii[k] - a).abs().min((radii[k] - b).abs())
    };
    let axis = (0..3).max_by(|&i, &j| apart(i).total_cmp(&apart(j))).unwrap_or(2);
    let radius = radii[(axis + 1) % 3].max(radii[(axis + 2) % 3]);
    let half = radii[axis];
    let turn = UnitQuaternion::rotation_between(&Vector3::z(), &Vector3::ith(axis, 1.0))
        .unwrap_or_else(|| UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI));
    let ratio = (radius * radius * 2.0 * half) / (4.0 / 3.0 * radii[0] * radii[1] * radii[2]);
    let cylinder = Geometry::Cylinder {
        radius,
        length: 2.0 * half,
    };
    (cylinder, turn, ratio)
}

/// Adds `extra` to each diagonal entry of `inertia` (each principal moment grows by it).
fn add_to_moments(inertia: &mut Inertia, extra: f64) {
    for (k, row) in inertia.0.iter_mut().enumerate() {
        row[k] += extra;
    }
}

/// The mass given to a moving link that has none (kg): MuJoCo refuses a moving body whose
/// mass or principal moments are below its `mjMINVAL` (1e-15).
pub(crate) const MIN_MOVING_MASS: f64 = 1e-9;
/// The principal moment given to such a link (kg m²): the radius of gyration of
/// [`MIN_MOVING_MASS`] is then about 3 cm.
pub(crate) const MIN_MOVING_INERTIA: f64 = 1e-12;

/// The mass written for a link that no joint moves whose mass is zero but whose inertia is not
/// (kg; a link moved by a joint gets [`MIN_MOVING_MASS`]). Drake's parser cannot make a spatial
/// inertia of a zero mass under a non-zero inertia and reads a 1 kg solid sphere of water at the
/// centre of mass instead (a warning, "condition 'mass > 0' failed"), where Pinocchio keeps the
/// inertia: Drake keeps any positive mass with the inertia as written, and this one adds 1e-30 of
/// a kilogram's weight and momentum, nothing a motion shows.
pub(crate) const MASS_UNDER_INERTIA: f64 = 1e-30;

/// A link moved by a joint with no mass or a zero principal moment (a massless link of a
/// joint chain, a source's massless link or point mass) gets [`MIN_MOVING_MASS`] and
/// [`MIN_MOVING_INERTIA`] added, so that MuJoCo loads the file; links welded to their parent
/// are fused into it by MuJoCo and keep their mass. A welded (or fixed root) link whose inertia
/// is not zero but has a principal moment below [`MIN_MOVING_INERTIA`] (a thin rod's 1e-15
/// kg m²) gets [`MIN_MOVING_INERTIA`] more on each principal moment: MuJoCo's URDF import turns
/// every `<inertia>` into a `fullinertia`, whose eigen-decomposition refuses a moment below about
/// 1e-14 ("inertia must have positive eigenvalues") before it fuses the link into its parent;
/// an all-zero `<inertia>` (a massless link) it loads. A link no joint moves whose mass is zero
/// under a non-zero inertia (example-robot-data's Bolt feet) gets [`MASS_UNDER_INERTIA`]. An
/// inertia with a negative principal moment is written as read, with a note: the URDF loaders
/// keep it, and no floor would make MuJoCo's import take it.
fn massless_moving_links(s: &mut LowerSession) {
    // The children of moving joints, gathered once (a scan of the joints per body is
    // quadratic in the model's size).
    let moved: std::collections::HashSet<String> = s
        .model
        .joints
        .iter()
        .filter(|j| j.kind != JointKind::Fixed)
        .filter_map(|j| j.child.name().map(str::to_owned))
        .collect();
    for b in 0..s.model.bodies.len() {
        let name = s.model.bodies[b].name.clone();
        let moved = moved.contains(&name);
        let inertial = &mut s.model.bodies[b].inertial;
        let moments = nalgebra::SymmetricEigen::new(inertial.inertia.matrix()).eigenvalues;
        let smallest = moments.min();
        if smallest < -MIN_MOVING_INERTIA {
            // A negative principal moment (romeo_laas_small's hips, -2.7e-3 kg m²): urdfdom,
            // Pinocchio and Drake read it as written, and no floor makes MuJoCo's import take it.
            s.finding(
                "inertia_indefinite",
                Feature::MassProperties,
                Severity::Info,
                Category::Note,
                &path::item("bodies", &name),
                format!(
                    "the inertia of link {name:?} has a negative principal moment of {smallest:e} kg m², written as read: urdfdom, Pinocchio and Drake read it (Drake with a warning); MuJoCo's URDF import refuses it (\"inertia must have positive eigenvalues\")"
                ),
            );
            continue;
        }
        let light = inertial.mass < MIN_MOVING_MASS || moments.iter().any(|m| *m < MIN_MOVING_INERTIA);
        if !moved {
            if inertial.mass == 0.0 && inertial.inertia.matrix() != nalgebra::Matrix3::zeros() {
                inertial.mass = MASS_UNDER_INERTIA;
                s.finding(
                    "zero_mass_given",
                    Feature::MassProperties,
                    Severity::Info,
                    Category::Approximated,
                    &path::item("bodies", &name),
                    format!("mass 0 under a non-zero inertia on a link that no joint moves: Drake would read a 1 kg sphere of water there (Pinocchio and MuJoCo keep it); {MASS_UNDER_INERTIA:e} kg is written, which Drake keeps with the inertia as written"),
                );
            }
            let inertial = &mut s.model.bodies[b].inertial;
            let degenerate = inertial.inertia.matrix() != nalgebra::Matrix3::zeros()
                && moments.iter().any(|m| *m < MIN_MOVING_INERTIA);
            if degenerate {
                add_to_moments(&mut inertial.inertia, MIN_MOVING_INERTIA);
                s.approximated(
                    "welded_link_inertia_floor",
                    Feature::MassProperties,
                    &path::item("bodies", &name),
                    "a link on a fixed joint whose inertia has a principal moment below 1e-12 kg m² gets 1e-12 kg m² more on each (MuJoCo's URDF import refuses such an inertia before it fuses the link)",
                );
            }
            continue;
        }
        if !light {
            continue;
        }
        inertial.mass += MIN_MOVING_MASS;
        add_to_moments(&mut inertial.inertia, MIN_MOVING_INERTIA);
        s.approximated(
            "moving_link_mass_floor",
            Feature::MassProperties,
            &path::item("bodies", &name),
            "a link moved by a joint gets 1e-9 kg and 1e-12 kg m² more (MuJoCo refuses a moving body without mass or inertia)",
        );
    }
}

/// URDF needs a link: a model without bodies gets one massless link (the fixed root).
fn root_link(s: &mut LowerSession) {
    if !s.model.bodies.is_empty() {
        return;
    }
    let mut root = Body::new("base_link");
    root.inertial.mass = 0.0;
    root.inertial.inertia = Inertia::zero();
    root.fixed = true;
    s.model.bodies.push(root);
    s.note(
        "root_link_added",
        Feature::FixedBodies,
        "bodies",
        "the model has no bodies and URDF needs a link: a fixed massless link is written",
    );
}

/// `root=free`: the `floating` joint that holds the only root is left out, so that the root
/// link stands alone (read back with `root=free`). The root link's frame is the world frame
/// at the reference configuration: a root placed elsewhere is moved to the world origin.
fn free_root(s: &mut LowerSession) {
    let from_world: Vec<usize> = (0..s.model.joints.len())
        .filter(|&j| s.model.joints[j].parent.is_world())
        .collect();
    let [only] = from_world.as_slice() else {
        if from_world
            .iter()
            .any(|&j| s.model.joints[j].kind == JointKind::Free)
        {
            s.note(
                "root_kept_floating_joint",
                Feature::FreeJoint,
                "joints",
                "root=free writes one root link alone; this model hangs several links from the world, so its floating joints are written",
            );
        }
        return;
    };
    if s.model.joints[*only].kind != JointKind::Free {
        return;
    }
    let joint = s.model.joints.remove(*only);
    let Some(name) = joint.child.name().map(str::to_owned) else {
        return;
    };
    let at = path::item("joints", &joint.name);
    if joint.parent_frame == mbconv_ir::Pose::identity() {
        s.note(
            "root_written_free",
            Feature::FreeJoint,
            &at,
            format!("the floating joint of root link {name:?} is left out (root=free): DART and Drake read the link free, Pinocchio and MuJoCo weld it"),
        );
    } else {
        s.approximated(
            "root_moved_to_origin",
            Feature::InitialJointPositions,
            &at,
            format!("the floating joint of root link {name:?} is left out (root=free), and URDF's root link frame is the world frame: the link starts at the world origin, not where the model placed it"),
        );
    }
}

/// Body poses from the joint frames (the reference configuration the file states): the
/// passes above change joint frames, add links and move body frames without touching poses.
fn reference_poses(s: &mut LowerSession) {
    let tree = SpanningTree::new(&s.model);
    s.reset_reference_poses(&tree);
}

fn writable(g: &Geometry) -> bool {
    match g {
        Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh) => mesh.node.is_none(),
        _ => g.is_basic_solid(),
    }
}
