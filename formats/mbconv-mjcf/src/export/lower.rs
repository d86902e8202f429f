//! IR -> IR: the model as MJCF can say it, as named passes on a [`LowerSession`], every change
//! a finding `mjcf.<what>` with its feature row and IR path. [`super::emit::emit_exported`]
//! writes the result and loses nothing more.
//!
//! The passes, in order: `disable_immobile_groups`, `fix_inactive_bodies` (MJCF can switch
//! neither a group nor a body off); `simulation_settings` (gravity and time step kept, an end
//! time lost); `force_elements`, `motors` (a zero-force motor on a hinge or slide coordinate is
//! a `<motor>` at zero control; others lost), `loads`, `groups`, `constraints`, `devices`;
//! `disabled_joints` (left out, except switched-off ball and weld loops, written as inactive
//! equalities); `initial_state` (initial positions baked into the reference configuration,
//! which is MuJoCo's state at load, exactly; velocities lost: MuJoCo starts at rest);
//! `explicit_free_joints`; `reverse_joints` (the tree hangs from the world);
//! `free_joints_below_bodies` (MuJoCo's free joints hang from the world only: others as six
//! single-dof joints, approximated); `loops` (ball and fixed loop joints are `<connect>` and
//! `<weld>` equalities; other loop joints are cut); `joints_as_chains` (universal, Euler,
//! cylindrical, planar and translational joints as chains, exact; screw and point joints
//! approximated); `joint_data`, `mesh_files` (every mesh file one MuJoCo opens: referenced by
//! path, converted beside the output, or lost, [`super::meshes`]), `body_data` (what MJCF lacks per item; site and geom names made
//! unique, as MuJoCo wants; a plane on a body that moves left out, since MuJoCo allows planes
//! only on bodies welded to the world); `reference_poses`; `mass_properties` (an inertia
//! breaking the triangle inequality balanced, a moving body without mass or with a zero
//! principal moment given a floor, both approximated); `chain_links` (the massless links MJCF
//! writes as joints of one body named and placed as MJCF's reader will give them back:
//! renamed, frames moved, exactly).
//!
//! ```
//! use mbconv_ir::format::{Format, Options};
//! use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
//! let mut model = Model::new("u");
//! model.bodies.push(Body::new("b"));
//! let u = JointKind::Universal { axis1: nalgebra::Vector3::x(), axis2: nalgebra::Vector3::y() };
//! model.joints.push(Joint::new("u", u, BodyRef::World, BodyRef::body("b")));
//! let lowered = mbconv_mjcf::MjcfFormat.lower(&model, &Options::default()).unwrap();
//! assert_eq!(lowered.model.joints.len(), 2);
//! assert!(lowered.report.contains("mjcf.joint_as_chain"));
//! ```

use super::{MJ_MINVAL, Plan};
use mbconv_ir::format::Lowered;
use mbconv_ir::format::kit::{
    CollisionSwitch, ItemFindings, LowerSession, Tracing, joints_as_chains_where, qualified_unique_name,
    reverse_joints_towards_root,
};
use mbconv_ir::format::support::Feature;
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::lower::{bake_initial_state, explicit_free_joints};
use mbconv_ir::report::path;
use mbconv_ir::{
    Category, DofProperties, Geometry, Inertia, JointKind, Limits, MotorActuation, MotorTarget, Severity,
    ShapeRole, TimeFunction,
};

const FORMAT: &str = "mjcf";

/// Bodies of a moving MJCF body get at least this mass (kg) and principal moment (kg m²)
/// when they have none: far above MuJoCo's [`MJ_MINVAL`], far below any real part.
pub(crate) const MASS_FLOOR: f64 = 1e-10;

/// Principal moments whose triangle inequality holds or fails by at most this fraction of
/// their sum are on its edge (rounding decides), and get [`TRIANGLE_NUDGE`].
const TRIANGLE_SLACK: f64 = 1e-12;

/// The moment, as a fraction of the principal moments' sum, added about every axis of an inertia
/// on the edge of the triangle inequality: far above rounding, far below anything physical.
pub(crate) const TRIANGLE_NUDGE: f64 = 1e-9;

/// The smallest principal moment (kg m²) MuJoCo accepts in a `fullinertia` (its compiler's
/// `mjEPS`); a `diaginertia` in the principal axes has no such floor.
const FULLINERTIA_FLOOR: f64 = 1e-14;

/// Lowers `model` for MJCF, mesh files made ones MuJoCo opens for a file written at `output`
/// ([`super::meshes`]); `tracing` keeps the model after every pass.
pub(crate) fn lower(model: &mbconv_ir::Model, output: Option<&std::path::Path>, tracing: Tracing) -> Lowered {
    let mut s = LowerSession::with_table(FORMAT, &super::support::FEATURE_SUPPORT, model, tracing);
    s.run_settling_passes();
    s.run("simulation_settings", simulation);
    s.run_joint_springs(mbconv_ir::lower::JointSpringSupport::SpringAndDamper);
    s.run("force_elements", |s| {
        s.lose_all_force_elements(|k| format!("MJCF has no {k} force element (tendons are not written)"))
    });
    s.run("motors", motors);
    // What is left of the spring-dampers after `joint_springs` is lost above.
    s.lose_unsayable_items(&[
        Feature::Tsda,
        Feature::Rsda,
        Feature::Bushings,
        Feature::Restraints,
    ]);
    s.run("disabled_joints", disabled_joints);
    s.run("initial_state", initial_state);
    s.run_shared("explicit_free_joints", explicit_free_joints);
    s.run("reverse_joints", reverse_joints);
    s.run("free_joints_below_bodies", |s| {
        joints_as_chains_where(s, |j| j.kind == JointKind::Free && !j.parent.is_world())
    });
    s.run("loops", loops);
    s.run("joints_as_chains", |s| {
        joints_as_chains_where(s, |j| {
            !matches!(
                j.kind,
                JointKind::Fixed
                    | JointKind::Revolute { .. }
                    | JointKind::Prismatic { .. }
                    | JointKind::Spherical
                    | JointKind::Free
            )
        })
    });
    s.run("joint_data", joint_data);
    s.run("mesh_files", |s| super::meshes::mesh_files(s, output));
    s.run("body_data", body_data);
    s.run("reference_poses", reference_poses);
    s.run_shared("welded_mass", mbconv_ir::lower::lump_unphysical_inertias);
    s.run("mass_properties", mass_properties);
    s.run("chain_links", chain_links);
    s.finish()
}

/// Reverses every joint MJCF's tree ([`super::tree`]) meets from its child side; one that
/// cannot be turned round is written as a free joint from the other side (the kit's rule).
fn reverse_joints(s: &mut LowerSession) {
    if super::tree(&s.model) == SpanningTree::new(&s.model) {
        return reverse_joints_towards_root(s);
    }
    let tree = super::tree(&s.model);
    let mut reversed: Vec<usize> = tree
        .attachments
        .iter()
        .filter_map(|a| match *a {
            mbconv_ir::kinematics::Attachment::Joint {
                joint,
                reversed: true,
                ..
            } => Some(joint),
            _ => None,
        })
        .collect();
    // Highest index first, so that a joint taken out leaves the others' indices alone.
    reversed.sort_unstable_by(|a, b| b.cmp(a));
    for joint in reversed {
        match mbconv_ir::lower::reverse_joint(&mut s.model, joint, FORMAT) {
            Ok(f) => s.absorb(f),
            Err(e) => {
                let at = path::item("joints", &s.model.joints[joint].name);
                let feature = Feature::of_joint(&s.model.joints[joint].kind);
                s.lost(
                    "joint_not_reversed",
                    feature,
                    &at,
                    format!("the joint cannot be written from its child side: {e}"),
                );
                s.model.joints.remove(joint);
            }
        }
    }
}

fn simulation(s: &mut LowerSession) {
    s.lose_end_time("MJCF has no end time");
    s.strip_foreign_model_extras();
}

/// A motor MJCF says exactly: a force motor on the coordinate of a hinge or slide joint with
/// a constant zero force, MuJoCo's `<motor>` at its initial control.
fn motors(s: &mut LowerSession) {
    for m in std::mem::take(&mut s.model.motors) {
        let on_single = match &m.target {
            MotorTarget::Joint { joint, dof: 0 } => s
                .model
                .joint(joint)
                .is_some_and(|j| matches!(j.kind, JointKind::Revolute { .. } | JointKind::Prismatic { .. })),
            _ => false,
        };
        let zero = matches!(m.function, TimeFunction::Constant { value } if value == 0.0);
        if on_single && zero && m.actuation == MotorActuation::Force {
            s.model.motors.push(m);
        } else {
            s.lost(
                "motor_lost",
                Feature::Motors,
                &path::item("motors", &m.name),
                "MJCF actuators follow a control signal outside the model: only a joint force motor at zero force is written (<motor> at ctrl 0)",
            );
        }
    }
}

/// Switched-off joints constrain nothing: left out, except ball and fixed joints between two
/// bodies, written as `<connect>`/`<weld>` equalities with `active="false"`.
fn disabled_joints(s: &mut LowerSession) {
    for j in std::mem::take(&mut s.model.joints) {
        let equality = matches!(j.kind, JointKind::Spherical | JointKind::Fixed)
            && (j.parent.name().is_some() || j.child.name().is_some());
        if !j.enabled && !equality {
            s.note(
                "disabled_joint_omitted",
                Feature::of_joint(&j.kind),
                &path::item("joints", &j.name),
                "a switched-off joint is not written (without it the bodies move the same)",
            );
            continue;
        }
        s.model.joints.push(j);
    }
}

/// MuJoCo starts from qpos0, the configuration the file writes: initial positions go into the
/// body poses and joint frames (exact). Initial velocities stay on the bodies, and the writer
/// states them as the keyframe `initial` (MJCF's only place for velocities; MuJoCo starts at
/// rest at load and `mj_resetDataKeyframe` applies the key): a note on each.
fn initial_state(s: &mut LowerSession) {
    for j in 0..s.model.joints.len() {
        let joint = &s.model.joints[j];
        if joint.v0.iter().any(|v| *v != 0.0) {
            let at = path::item("joints", &joint.name);
            s.note(
                "initial_velocity_as_keyframe",
                Feature::InitialJointVelocities,
                &at,
                "the initial rates are written as the keyframe `initial` (qvel): MuJoCo starts at rest at load, and from this state after mj_resetDataKeyframe",
            );
        }
    }
    for b in 0..s.model.bodies.len() {
        if let Some(v) = s.model.bodies[b].initial_velocity
            && (v.linear.norm() > 0.0 || v.angular.norm() > 0.0)
        {
            let at = path::item("bodies", &s.model.bodies[b].name);
            s.note(
                "initial_velocity_as_keyframe",
                Feature::InitialBodyVelocities,
                &at,
                "the initial velocity is written as the keyframe `initial` (qvel): MuJoCo starts at rest at load, and from this state after mj_resetDataKeyframe",
            );
        }
    }
    let f = bake_initial_state(&mut s.model, FORMAT);
    s.absorb(f);
}

/// Ball and fixed joints that close loops are MJCF's `<connect>` and `<weld>` equalities; other
/// loop-closing joints are cut.
fn loops(s: &mut LowerSession) {
    let tree = super::tree(&s.model);
    let reference = world_poses(&s.model, &tree, Configuration::Reference);
    let mut cut = tree.loop_joints.clone();
    cut.sort_unstable();
    for &index in cut.iter().rev() {
        let kind = s.model.joints[index].kind.clone();
        let at = path::item("joints", &s.model.joints[index].name);
        match kind {
            JointKind::Spherical | JointKind::Fixed => {
                // MuJoCo puts a connect's point on body2 where body1's anchor is at qpos0 (a
                // weld states its relative pose): the child's anchor is moved there.
                let j = &s.model.joints[index];
                let world = |r: &mbconv_ir::BodyRef| {
                    r.name()
                        .and_then(|n| s.model.body_index(n))
                        .map_or(mbconv_ir::Pose::identity(), |b| reference[b])
                };
                let anchor = (world(&j.parent) * j.parent_frame).translation;
                let child = world(&j.child);
                let gap = (anchor - (child * j.child_frame).translation).norm();
                if kind == JointKind::Spherical && gap > 1e-9 {
                    s.model.joints[index].child_frame.translation = child.inverse_transform_point(&anchor);
                    s.approximated(
                        "loop_anchor_moved",
                        Feature::KinematicLoops,
                        &at,
                        format!("the loop is open by {gap} m in the written configuration: MuJoCo's <connect> joins body1's anchor to the point of body2 at that place"),
                    );
                }
                s.model.joints[index].q0.iter_mut().for_each(|q| *q = 0.0);
                s.model.joints[index].v0.iter_mut().for_each(|v| *v = 0.0);
                let what = if kind == JointKind::Fixed {
                    "weld"
                } else {
                    "connect"
                };
                s.note(
                    "loop_as_equality",
                    Feature::KinematicLoops,
                    &at,
                    format!("the loop-closing joint is an <equality><{what}> (MuJoCo keeps it soft, by solref/solimp)"),
                );
            }
            _ => {
                let j = s.model.joints.remove(index);
                s.lost(
                    "loop_joint_lost",
                    Feature::KinematicLoops,
                    &at,
                    format!(
                        "MJCF closes loops with connect (ball) and weld (fixed) equalities only: the loop-closing {} joint is cut",
                        j.kind.type_name()
                    ),
                );
            }
        }
    }
}

// Long: one check per joint field MJCF cannot say, in the order its findings are reported.
fn joint_data(s: &mut LowerSession) {
    let tree = super::tree(&s.model);
    let in_tree: std::collections::HashSet<usize> = tree.tree_joints().collect();
    for j in 0..s.model.joints.len() {
        let tree_joint = in_tree.contains(&j);
        let joint = &mut s.model.joints[j];
        let mut found = ItemFindings::new("MJCF");
        found.weld_track(joint, "a weld");
        found.lose_bushing(joint);
        if joint.actuator.take().is_some() {
            let data = "the joint's actuator type (MJCF actuators are elements of their own)";
            found.lose("joint_actuator_lost", Feature::JointActuators, data);
        }
        found.lose_joint_id(joint);
        let data = joint.dofs.iter().any(|d| *d != DofProperties::default());
        match joint.kind {
            JointKind::Revolute { .. } | JointKind::Prismatic { .. } if tree_joint => {}
            JointKind::Spherical | JointKind::Free if tree_joint => {
                // A ball or free joint has one damping, friction and armature for all its axes.
                let first = joint.dof(0);
                let mut same = first.clone();
                same.spring_stiffness = 0.0;
                same.spring_rest_position = 0.0;
                same.position_limits = Limits::default();
                let uniform = joint.dofs.iter().all(|d| {
                    d.damping == first.damping
                        && d.friction == first.friction
                        && d.reflected_inertia() == first.reflected_inertia()
                });
                if joint.dofs.iter().any(|d| d.spring_stiffness != 0.0) {
                    let data = "springs on a ball or free joint's axes";
                    found.lose("ball_spring_lost", Feature::JointSprings, data);
                }
                if joint.dofs.iter().any(|d| !d.position_limits.is_unlimited()) {
                    let data = "per-axis limits of a ball joint (MJCF's is a cone) or of a free joint";
                    found.lose("ball_limits_lost", Feature::JointLimits, data);
                }
                if !uniform {
                    found.approximate(
                        "ball_dofs_averaged",
                        Feature::JointDamping,
                        "a ball or free joint's damping, friction and armature differ per axis: the first axis's are written for all",
                    );
                }
                if data {
                    joint.dofs = vec![same; joint.kind.nv()];
                }
            }
            _ => {
                if data {
                    let data = "limits, springs, damping, friction or armature of a loop-closing joint";
                    found.lose("joint_data_lost", Feature::of_joint(&joint.kind), data);
                }
                joint.dofs.clear();
            }
        }
        for dof in &mut joint.dofs {
            found.lose_coordinate_name(dof);
            if !dof.velocity_limits.is_unlimited()
                || !dof.effort_limits.is_unlimited()
                || !dof.acceleration_limits.is_unlimited()
            {
                dof.velocity_limits = Limits::default();
                dof.effort_limits = Limits::default();
                dof.acceleration_limits = Limits::default();
                let data = "velocity, effort and acceleration limits";
                found.lose(
                    "rate_effort_limits_lost",
                    Feature::JointVelocityEffortLimits,
                    data,
                );
            }
            let p = dof.position_limits;
            if p.lower.is_some() != p.upper.is_some() {
                dof.position_limits = Limits::default();
                let message = "a one-sided position limit is dropped (MJCF's range has both bounds)";
                found.approximate("one_sided_limit_dropped", Feature::JointLimits, message);
            }
            if let (Some(lower), Some(upper)) = (p.lower, p.upper)
                && lower >= upper
            {
                dof.position_limits = Limits::default();
                found.approximate(
                    "empty_range_dropped",
                    Feature::JointLimits,
                    "a position limit whose lower bound is not below its upper bound is dropped \
                     (MuJoCo refuses such a range; its URDF import ignores equal limits too)",
                );
            }
            if dof.gear_ratio != 1.0 {
                dof.rotor_inertia = dof.reflected_inertia();
                dof.gear_ratio = 1.0;
            }
        }
        s.finish_joint(j, found);
    }
}

fn writable(g: &Geometry) -> bool {
    match g {
        Geometry::Mesh(m) | Geometry::ConvexHull(m) => m.node.is_none(),
        Geometry::Plane { .. } => true,
        _ => g.is_basic_solid(),
    }
}

// Long: one check per body field MJCF cannot say, in the order its findings are reported.
fn body_data(s: &mut LowerSession) {
    s.lose_unsayable_body_data(CollisionSwitch::Said);
    s.symmetrise_inertias();
    let mut sites = std::collections::HashSet::new();
    let mut geoms = std::collections::HashSet::new();
    for f in &s.model.world_frames {
        sites.insert(f.name.clone());
    }
    // What moves each body as MuJoCo nests them: a plane is allowed only on static bodies.
    let plan = Plan::new(&s.model);
    let moved_by: Vec<Option<String>> = (0..s.model.bodies.len())
        .map(|b| plan.moved_by(&s.model, b).map(|j| s.model.joints[j].name.clone()))
        .collect();
    for (b, moved_by) in moved_by.iter().enumerate() {
        let body_name = s.model.bodies[b].name.clone();
        let body = &mut s.model.bodies[b];
        let mut found = ItemFindings::new("MJCF");
        for frame in &mut body.frames {
            if !sites.insert(frame.name.clone()) {
                let mut name = format!("{body_name}.{}", frame.name);
                while !sites.insert(name.clone()) {
                    name.push('_');
                }
                frame.name = name;
                found.note(
                    "site_renamed",
                    Feature::NamedFrames,
                    "a named frame is renamed: MuJoCo's site names are unique in the model",
                );
            }
        }
        let mut shapes = Vec::new();
        let mut planes_lost: Vec<Option<String>> = Vec::new();
        for mut shape in std::mem::take(&mut body.shapes) {
            if !writable(&shape.geometry) {
                found.lose(
                    "shape_lost",
                    Feature::Shapes,
                    "cones, pyramids, multi-spheres, fitted primitives, inline meshes, extrusions and grids",
                );
                continue;
            }
            if matches!(shape.geometry, Geometry::Plane { .. }) && moved_by.is_some() {
                planes_lost.push(shape.name.clone());
                continue;
            }
            match positive_sizes(&mut shape.geometry) {
                Sizes::Positive => {}
                Sizes::Negated => found.approximate(
                    "shape_size_negated",
                    Feature::Shapes,
                    "a primitive shape with a negative size (MuJoCo refuses it) is written with the size's magnitude",
                ),
                Sizes::Degenerate => {
                    found.lose(
                        "shape_lost",
                        Feature::Shapes,
                        "primitive shapes with a zero or non-finite size (MuJoCo refuses them)",
                    );
                    continue;
                }
            }
            if shape.role == ShapeRole::Collision {
                shape.role = ShapeRole::Both;
                found.note(
                    "collision_shape_drawn",
                    Feature::Shapes,
                    "a collision shape is a geom, which MuJoCo also draws",
                );
            }
            if !shape.collidable && shape.role == ShapeRole::Both {
                shape.role = ShapeRole::Visual;
                shape.collidable = true;
                found.note(
                    "non_colliding_shape_visual",
                    Feature::Shapes,
                    "a shape that does not collide is a geom with contype and conaffinity 0",
                );
            }
            if let Some(a) = &mut shape.appearance {
                if a.take_shading() | a.texture.take().is_some() {
                    found.lose(
                        "appearance_reduced",
                        Feature::Appearance,
                        "appearance beyond a colour (rgba)",
                    );
                }
                if a.diffuse.is_none() {
                    shape.appearance = None;
                }
            }
            if let Some(name) = shape.name.clone()
                && !geoms.insert(name.clone())
            {
                let mut fresh = format!("{body_name}.{name}");
                while !geoms.insert(fresh.clone()) {
                    fresh.push('_');
                }
                shape.name = Some(fresh);
                found.note(
                    "geom_renamed",
                    Feature::Shapes,
                    "a shape is renamed: MuJoCo's geom names are unique in the model",
                );
            }
            shapes.push(shape);
        }
        body.shapes = shapes;
        if let (false, Some(joint)) = (planes_lost.is_empty(), moved_by) {
            let message = planes_lost_message(&planes_lost, joint);
            found.lose_in_words("plane_lost", Feature::Shapes, message);
        }
        s.finish_body(b, found);
    }
}

/// Why the planes `names` (a shape's name, `None` when unnamed) of a body that joint `joint`
/// moves are left out, and what the user can do.
fn planes_lost_message(names: &[Option<String>], joint: &str) -> String {
    let named: Vec<String> = names.iter().flatten().map(|n| format!("{n:?}")).collect();
    let what = match (names.len(), named.len()) {
        (1, 1) => format!("the plane {}", named[0]),
        (1, _) => "a plane".to_owned(),
        (n, 0) => format!("{n} planes"),
        (n, _) => format!("{n} planes ({})", named.join(", ")),
    };
    format!(
        "MJCF cannot say {what} on a body that moves (joint {joint:?} moves it): MuJoCo accepts a \
         plane geom only on a body welded to the world (\"plane only allowed in static bodies\"), \
         and no finite geom stands in for an infinite plane, so it is left out; to keep it, put it \
         on a body welded to the world (a ground plane belongs to the world)"
    )
}

/// What [`positive_sizes`] did to a shape.
enum Sizes {
    /// Every size was positive (or the shape has none MuJoCo checks).
    Positive,
    /// A negative size was replaced by its magnitude.
    Negated,
    /// A size is zero or not finite: no geom can say the shape.
    Degenerate,
}

/// MuJoCo refuses a box, sphere, capsule, cylinder or ellipsoid geom whose size is not
/// positive. A negative size (DART reads a box of size `-0.21` and draws it as `0.21`) becomes
/// its magnitude.
fn positive_sizes(g: &mut Geometry) -> Sizes {
    let sizes: Vec<&mut f64> = match g {
        Geometry::Box { size } => size.iter_mut().collect(),
        Geometry::Ellipsoid { radii } => radii.iter_mut().collect(),
        Geometry::Sphere { radius } => vec![radius],
        Geometry::Cylinder { radius, length } | Geometry::Capsule { radius, length } => vec![radius, length],
        _ => Vec::new(),
    };
    let mut outcome = Sizes::Positive;
    for size in sizes {
        if !size.is_finite() || *size == 0.0 {
            return Sizes::Degenerate;
        }
        if *size < 0.0 {
            *size = -*size;
            outcome = Sizes::Negated;
        }
    }
    outcome
}

/// Body poses from the joint frames: the passes above add links and turn joints round
/// without touching poses.
fn reference_poses(s: &mut LowerSession) {
    let tree = super::tree(&s.model);
    s.reset_reference_poses(&tree);
}

/// MuJoCo refuses an inertia whose principal moments break the triangle inequality (as its
/// compiler decomposes it, [`crate::spec::arith::eig3`]): the tensor becomes the mean moment on
/// every axis (MuJoCo's `balanceinertia`). It refuses a moving body unless it or a body
/// welded to it has a mass and smallest principal moment above [`MJ_MINVAL`]: the moving body
/// then gets [`MASS_FLOOR`] of mass, or of inertia on every axis, where its own is missing.
fn mass_properties(s: &mut LowerSession) {
    for b in 0..s.model.bodies.len() {
        let inertial = &mut s.model.bodies[b].inertial;
        let m = inertial.inertia_in_body_axes();
        let (moments, _) =
            crate::spec::arith::eig3(&[m[(0, 0)], m[(1, 1)], m[(2, 2)], m[(0, 1)], m[(0, 2)], m[(1, 2)]]);
        let [x, y, z] = moments;
        let sum = x + y + z;
        let margin = (x + y - z).min(x + z - y).min(y + z - x);
        if margin >= -TRIANGLE_SLACK * sum && margin <= TRIANGLE_SLACK * sum && sum > 0.0 {
            // On the edge (a flat body: Izz = Ixx + Iyy exactly): MuJoCo's own rounding may
            // find it on the wrong side and refuse it. A moment of TRIANGLE_NUDGE of the sum
            // added about every axis keeps the axes and moves it inside.
            let nudge = TRIANGLE_NUDGE * sum;
            inertial.inertia.add_about_every_axis(nudge);
            approximated_mass_properties(
                s,
                b,
                "inertia_nudged",
                format!(
                    "principal moments {moments:?} on the edge of the triangle inequality, which MuJoCo's rounding may refuse: {nudge} kg m² added about every axis"
                ),
            );
            continue;
        }
        let t = inertial.inertia.0;
        let products = t[0][1] != 0.0 || t[0][2] != 0.0 || t[1][2] != 0.0;
        let smallest = x.min(y).min(z);
        if products && margin >= 0.0 && (0.0..FULLINERTIA_FLOOR).contains(&smallest) {
            // MuJoCo refuses a `fullinertia` whose smallest principal moment is below 1e-14
            // ("inertia must have positive eigenvalues") and reads the same moments as
            // `diaginertia` in their axes (unitree B2's lidar link: 1.6e-15 kg m², products of
            // 1e-47): the tensor is written in its principal axes.
            let (moments, axes) = inertial.principal_axes();
            inertial.inertia = Inertia::from_moments_products(moments, [0.0; 3]);
            inertial.inertia_rotation = axes;
            approximated_mass_properties(
                s,
                b,
                "inertia_principal_axes",
                format!(
                    "MuJoCo refuses a fullinertia whose smallest principal moment ({smallest:e} kg m²) is below {FULLINERTIA_FLOOR:e}: the principal moments {moments:?} are written as diaginertia in their axes (the same tensor to rounding)"
                ),
            );
            continue;
        }
        if margin < 0.0 {
            let mean = (x + y + z) / 3.0;
            let change = moments.iter().map(|m| (m - mean).abs()).fold(0.0, f64::max);
            let largest = x.max(y).max(z);
            inertial.inertia = Inertia::from_moments_products([mean; 3], [0.0; 3]);
            inertial.inertia_rotation = nalgebra::UnitQuaternion::identity();
            approximated_mass_properties(
                s,
                b,
                "inertia_balanced",
                format!(
                    "MuJoCo refuses principal moments {moments:?} (they break the triangle inequality; \"inertia must satisfy A + B >= C\"): the mean moment {mean} on every axis is written (MuJoCo's balanceinertia), {change:e} kg m² or {:.2e} of the largest moment away",
                    change / largest
                ),
            );
        }
    }
    let plan = Plan::new(&s.model);
    // MuJoCo's rule (measured on MuJoCo 4.0): a moving body is accepted when it or one of the
    // bodies welded to it has, on its own, a mass and three principal moments above
    // `mjMINVAL`. Masses and moments are not combined: a massless child's inertia, or a heavy
    // child's mass at an offset, does not make its moving parent acceptable.
    for b in 0..s.model.bodies.len() {
        if !plan.moves(&s.model, b)
            || plan
                .welded_group(&s.model, b)
                .into_iter()
                .any(|g| super::plan::weighs_on_its_own(&s.model.bodies[g]))
        {
            continue;
        }
        let inertial = &mut s.model.bodies[b].inertial;
        let light = inertial.mass <= MJ_MINVAL;
        let flat = super::plan::smallest_moment(inertial) <= MJ_MINVAL;
        let added = match (light, flat) {
            (true, true) => format!("{MASS_FLOOR:e} kg of mass and {MASS_FLOOR:e} kg m² about every axis"),
            (true, false) => format!("{MASS_FLOOR:e} kg of mass"),
            _ => format!("{MASS_FLOOR:e} kg m² about every axis"),
        };
        if light {
            inertial.mass = MASS_FLOOR;
        }
        if flat {
            inertial.inertia.add_about_every_axis(MASS_FLOOR);
        }
        approximated_mass_properties(
            s,
            b,
            "moving_body_mass_floor",
            format!(
                "MuJoCo refuses a moving body unless it or a body welded to it has a mass and three principal moments above mjMINVAL ({MJ_MINVAL:e}), and none has: {added} given to it"
            ),
        );
    }
}

/// Reports that the mass properties of body `b` are written approximated (`code`, `message`).
fn approximated_mass_properties(s: &mut LowerSession, b: usize, code: &str, message: String) {
    let at = path::item("bodies", &s.model.bodies[b].name);
    s.approximated(code, Feature::MassProperties, &at, message);
}

/// The massless links of a joint chain that [`Plan`] writes as joints of one `<body>` come back
/// from MJCF's reader as bodies named `<body>.<joint>` (`<body>.joint` for an unnamed joint;
/// when that name is taken, `<body>/<body>.<joint>`, then `#2`, `#3`, … as the reader's
/// uniquifier goes) at the body's frame: each is renamed so (a rename finding) and its frame
/// moved there (exact: the link carries nothing, and its joints' frames are re-expressed).
fn chain_links(s: &mut LowerSession) {
    let plan = Plan::new(&s.model);
    let n = s.model.bodies.len();
    let holder = |mut b: usize| {
        while plan.merged[b] {
            match plan.tree.order.iter().find(|&&c| {
                matches!(plan.tree.attachments[c], mbconv_ir::kinematics::Attachment::Joint { parent: Some(p), .. } if p == b)
            }) {
                Some(&c) => b = c,
                None => break,
            }
        }
        b
    };
    let mut moves = Vec::new();
    let mut renames = Vec::new();
    for b in (0..n).filter(|&b| plan.merged[b]) {
        let held_by = holder(b);
        let mbconv_ir::kinematics::Attachment::Joint { joint, .. } = plan.tree.attachments[b] else {
            continue;
        };
        let body = &s.model.bodies[held_by];
        let written = &s.model.joints[joint].name;
        let default = format!("{}.joint", body.name);
        let unnamed = *written == default || written.starts_with(&format!("{}/{default}", body.name));
        let joint_name = if unnamed { "joint" } else { written.as_str() };
        let wanted = format!("{}.{joint_name}", body.name);
        let frame = s.model.bodies[b].pose.inverse() * body.pose;
        moves.push((b, frame));
        renames.push((
            b,
            wanted,
            body.name.clone(),
            Feature::of_joint(&s.model.joints[joint].kind),
        ));
    }
    let notes = mbconv_ir::lower::move_body_frames(&mut s.model, &moves, FORMAT);
    s.absorb(notes);
    // A massless link has no centre of mass: the reader gives it the body frame's origin.
    for &(b, _) in &moves {
        let inertial = &mut s.model.bodies[b].inertial;
        inertial.com = nalgebra::Vector3::zeros();
        inertial.inertia_rotation = nalgebra::UnitQuaternion::identity();
    }
    for (b, wanted, holder_name, feature) in renames {
        // The reader's uniquifier, with every other body's name taken.
        let old = s.model.bodies[b].name.clone();
        let name = qualified_unique_name(&wanted, &holder_name, |n| {
            n != old && s.model.bodies.iter().any(|x| x.name == n)
        });
        if name == old {
            continue;
        }
        let rename = mbconv_ir::lower::rename_body(&mut s.model, &old, &name);
        s.report.renames.push(rename);
        s.finding(
            "link_renamed",
            feature,
            Severity::Warning,
            Category::Renamed,
            &path::item("bodies", &name),
            format!("body {old:?} renamed to {name:?}: MJCF writes it as a joint of one body, and MuJoCo's reader names the link between that body's joints so"),
        );
    }
}
