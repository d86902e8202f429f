//! IR -> what Shift can say, as a sequence of named passes on a [`LowerSession`] (traced for
//! the check's replay on request), each change a finding with its feature row and IR path.
//!
//! Order: fixed bodies get rigid joints from `fixed`; immobile groups (DART skeletons) become
//! inactive assemblies with their bodies where they start; body velocities become joint
//! rates; rotated inertia frames become products; the time step goes into the integrator
//! settings; joints become Shift's (a universal joint is `Rx` + `Ry` through a massless cross
//! body, an euler joint a spherical one; in the spec dialect a skewed axis turns the joint
//! frames so that it is a coordinate axis); RSDAs about a revolute axis and TSDAs along a
//! prismatic axis become the joint's spring; joint springs, dampers and friction become
//! restraints; what Shift cannot say is dropped; a floating body that moves or sits away from
//! the origin gets a `float` joint; then assemblies, names and the frames each joint names
//! are settled, and other formats' extras dropped.

mod joints;
mod names;

use crate::spec::{Dialect, FORMAT};
use mbconv_ir::format::Lowered;
use mbconv_ir::format::kit::{LowerSession, Tracing};
use mbconv_ir::format::support::Feature;
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::lower::{JointSpringSupport, disable_immobile_groups, explicit_free_joints, fit_joint_rates};
use mbconv_ir::report::path;
use mbconv_ir::{
    BodyRef, DistanceType, Extras, ForceElement, ForceKind, Frame, FrameKind, Geometry, Joint, JointKind,
    Model, PiecewisePolynomial, Pose, Restraint, RestraintTarget, RestraintType, SpringDamperLaw, Value,
    ValueMap,
};
use nalgebra::UnitQuaternion;

/// Lowers `model` for the given dialect; with [`Tracing::On`] the result holds the model
/// after each pass.
pub(crate) fn lower(model: &Model, dialect: Dialect, tracing: Tracing) -> Lowered {
    let mut s = LowerSession::with_table(FORMAT, &super::support::FEATURE_SUPPORT, model, tracing);
    s.run("fixed_bodies_as_rigid_joints", fixed_bodies);
    // Before any joint is split or removed: no motor is left naming a joint that is gone.
    // Bushing elements are dropped with the other force elements Shift cannot say, below;
    // every constraint is lost, a switched-off one too (`drop_constraints`).
    s.lose_unsayable_items(&[Feature::Bushings, Feature::Constraints]);
    s.run("drop_constraints", drop_constraints);
    s.run_shared("disable_immobile_groups", disable_immobile_groups);
    s.run_shared("jointed_contact", mbconv_ir::lower::filter_jointed_contact);
    s.run_shared("fit_joint_rates", fit_joint_rates);
    // Before any joint is split, turned or dropped: the elements are compared with the joints
    // as the model gives them.
    s.run_joint_springs(JointSpringSupport::SpringAndDamper);
    s.run("inertia_frames_as_products", inertia_frames);
    s.run("symmetric_inertia", symmetric_inertia);
    s.run("time_step_in_integrator", |s| time_step(s, dialect));
    s.run("split_universal_joints", joints::split_universal_joints);
    s.run("euler_as_spherical", joints::euler_as_spherical);
    s.run("drop_unsupported_joints", joints::drop_unsupported_joints);
    s.run("turn_skewed_axes", |s| joints::turn_skewed_axes(s, dialect));
    s.run("drop_joint_actuators", joints::drop_actuators);
    s.run("drop_joint_bushings", joints::drop_bushings);
    s.run("drop_joint_ids", joints::drop_joint_ids);
    s.run("fill_joint_coordinates", joints::fill_coordinates);
    s.run("joint_dofs_as_restraints", joints::dofs_as_restraints);
    // After the joints Shift cannot say are dropped: their bodies float from where they are.
    s.run("float_joints", |s| {
        if floating_bodies_need_joints(&s.model) {
            let findings = explicit_free_joints(&mut s.model, FORMAT);
            s.absorb(findings);
        }
    });
    s.run("drop_shapes", drop_shapes);
    s.run("drop_body_gravity_flags", drop_body_gravity_flags);
    s.run("markers_as_frames", markers_as_frames);
    s.run("drop_body_velocities", drop_body_velocities);
    s.run("tsda_as_restraints", tsda_restraints);
    s.run("drop_force_elements", drop_force_elements);
    s.run("place_inactive_bodies", place_inactive_bodies);
    s.run("assemblies", names::assemblies);
    s.run("settle_names", names::settle_names);
    s.run("joint_frames", names::joint_frames);
    s.run("drop_foreign_extras", foreign_extras);
    s.finish()
}

/// A body welded to the world becomes a body with a `rigid` joint from `fixed`.
fn fixed_bodies(s: &mut LowerSession) {
    let m = &mut s.model;
    let mut fixed = Vec::new();
    for b in 0..m.bodies.len() {
        if !m.bodies[b].fixed {
            continue;
        }
        m.bodies[b].fixed = false;
        let body = &m.bodies[b];
        let mut name = format!("{}_weld", body.name);
        while m.joints.iter().any(|j| j.name == name) {
            name.push('_');
        }
        let mut joint = Joint::new(name, JointKind::Fixed, BodyRef::World, BodyRef::body(&body.name));
        joint.parent_frame = body.pose;
        fixed.push(path::item("bodies", &body.name));
        m.joints.push(joint);
    }
    for at in fixed {
        s.note(
            "fixed_body_as_rigid_joint",
            Feature::FixedBodies,
            &at,
            "a fixed body is written with a rigid joint from `fixed`",
        );
    }
}

/// Shift floats an unconnected body from the origin at rest: only a body elsewhere or moving
/// needs an explicit `float` joint.
fn floating_bodies_need_joints(m: &Model) -> bool {
    let tree = SpanningTree::new(m);
    tree.attachments.iter().zip(&m.bodies).any(|(a, body)| {
        *a == Attachment::Floating && (!body.pose.is_exact_identity() || body.initial_velocity.is_some())
    })
}

/// Shift places a body only through joints, switched off or not: a switched-off body away
/// from the origin that no joint places gets a `rigid` joint from `fixed` at its pose. The
/// joint moves nothing (the body stays where it is either way); it says where the body is.
fn place_inactive_bodies(s: &mut LowerSession) {
    let m = &mut s.model;
    let active = m.active_bodies();
    let mut all_on = m.clone();
    all_on.bodies.iter_mut().for_each(|b| b.enabled = true);
    all_on.groups.iter_mut().for_each(|g| g.enabled = true);
    let tree = SpanningTree::new(&all_on);
    let unplaced: Vec<usize> = (0..m.bodies.len())
        .filter(|&b| {
            !active[b] && !m.bodies[b].pose.is_exact_identity() && tree.attachments[b] == Attachment::Floating
        })
        .collect();
    let mut placed = Vec::new();
    for b in unplaced {
        let body = &m.bodies[b];
        let mut name = format!("{}_place", body.name);
        while m.joints.iter().any(|j| j.name == name) {
            name.push('_');
        }
        let mut joint = Joint::new(name, JointKind::Fixed, BodyRef::World, BodyRef::body(&body.name));
        joint.parent_frame = body.pose;
        placed.push(path::item("bodies", &body.name));
        m.joints.push(joint);
    }
    for at in placed {
        s.note(
            "inactive_body_placed",
            Feature::FixedBodies,
            &at,
            "a switched-off body is placed by a rigid joint from `fixed` (Shift places bodies only through joints)",
        );
    }
}

/// A linear TSDA without end stops pushes its points apart with `preload − k(L − L0) − c·L̇`:
/// exactly a spring restraint `k·L − (k·L0 + preload)` and a damper restraint `c·L̇` on the
/// Euclidean distance of two new frames at its points.
fn tsda_restraints(s: &mut LowerSession) {
    let m = &mut s.model;
    let mut kept = Vec::with_capacity(m.force_elements.len());
    let mut rewritten = Vec::new();
    for element in std::mem::take(&mut m.force_elements) {
        let ForceKind::Tsda(tsda) = &element.kind else {
            kept.push(element);
            continue;
        };
        let SpringDamperLaw::Linear { stiffness, damping } = tsda.law else {
            kept.push(element);
            continue;
        };
        if tsda.min_length.is_some() || tsda.max_length.is_some() {
            kept.push(element);
            continue;
        }
        let (Some(frame1), Some(frame2)) = (
            point_frame(m, &tsda.body1, tsda.point1, &format!("{}_1", element.name)),
            point_frame(m, &tsda.body2, tsda.point2, &format!("{}_2", element.name)),
        ) else {
            kept.push(element);
            continue;
        };
        let target = RestraintTarget::FramePair {
            body1: tsda.body1.clone(),
            frame1,
            body2: tsda.body2.clone(),
            frame2,
            distance: DistanceType::Euclidean,
        };
        let k = stiffness.unwrap_or(0.0);
        let mut add = |suffix: &str, restraint_type: RestraintType, coefficients: Vec<f64>| {
            let mut name = format!("{}{suffix}", element.name);
            while kept
                .iter()
                .chain(&m.force_elements)
                .any(|e: &ForceElement| e.name == name)
            {
                name.push('_');
            }
            kept.push(ForceElement {
                name,
                kind: ForceKind::Restraint(Restraint {
                    restraint_type,
                    target: target.clone(),
                    function: PiecewisePolynomial {
                        knots: vec![],
                        pieces: vec![coefficients],
                    },
                }),
                extras: Extras::default(),
            });
        };
        if k != 0.0 || tsda.preload != 0.0 {
            add(
                "",
                RestraintType::Spring,
                vec![-(k * tsda.free_length + tsda.preload), k],
            );
        }
        if let Some(c) = damping.filter(|c| *c != 0.0) {
            add(".damping", RestraintType::Damper, vec![0.0, c]);
        }
        rewritten.push(path::item("force_elements", &element.name));
    }
    m.force_elements = kept;
    for at in rewritten {
        s.note(
            "tsda_as_restraints",
            Feature::Tsda,
            &at,
            "the linear spring-damper is written as restraints on the distance of two new frames at its points",
        );
    }
}

/// A new frame at `point` on `body` (or the world), named `wanted` made unique.
fn point_frame(m: &mut Model, body: &BodyRef, point: nalgebra::Vector3<f64>, wanted: &str) -> Option<String> {
    let frames = match body {
        BodyRef::World => &mut m.world_frames,
        BodyRef::Body(name) => &mut m.bodies.iter_mut().find(|b| &b.name == name)?.frames,
    };
    let mut name = wanted.to_owned();
    while frames.iter().any(|f| f.name == name) {
        name.push('_');
    }
    frames.push(Frame {
        name: name.clone(),
        pose: Pose::from_translation(point),
        kind: FrameKind::Frame,
        extras: Extras::default(),
    });
    Some(name)
}

/// Other formats' extras (and their exactness aids) have no place in a Shift file.
fn foreign_extras(s: &mut LowerSession) {
    let mut m = std::mem::replace(&mut s.model, Model::new(""));
    s.strip_foreign_extras(&mut m.extras, "model");
    s.strip_foreign_extras(&mut m.simulation.extras, "simulation");
    for frame in &mut m.world_frames {
        s.strip_foreign_extras(&mut frame.extras, &path::item("world_frames", &frame.name));
    }
    for body in &mut m.bodies {
        let body_path = path::item("bodies", &body.name);
        s.strip_foreign_extras(&mut body.extras, &body_path);
        for frame in &mut body.frames {
            let at = format!("{body_path}.frames[{:?}]", frame.name);
            s.strip_foreign_extras(&mut frame.extras, &at);
        }
    }
    for joint in &mut m.joints {
        s.strip_foreign_extras(&mut joint.extras, &path::item("joints", &joint.name));
    }
    for group in &mut m.groups {
        s.strip_foreign_extras(&mut group.extras, &path::item("groups", &group.name));
    }
    for element in &mut m.force_elements {
        s.strip_foreign_extras(&mut element.extras, &path::item("force_elements", &element.name));
    }
    s.model = m;
}

/// Shift keeps the time step in the integrator settings: a model without Shift settings gets
/// `simulation: {time_step}` (spec) or `integrators: [{time_step}]` (2.0).
fn time_step(s: &mut LowerSession, dialect: Dialect) {
    let Some(step) = s.model.simulation.time_step else {
        return;
    };
    let extras = &mut s.model.simulation.extras;
    let keys = ["shift.simulation", "shift.integrators", "shift.integrator"];
    if keys.iter().any(|k| extras.get(k).is_some()) {
        return;
    }
    let settings = Value::Map(ValueMap(vec![("time_step".to_owned(), Value::Float(step))]));
    match dialect {
        Dialect::Spec => extras.insert("shift.simulation", settings),
        Dialect::V2 => extras.insert("shift.integrators", Value::List(vec![settings])),
    }
    s.note(
        "time_step_in_integrator",
        Feature::TimeStep,
        "simulation.time_step",
        "the time step is written in Shift's integrator settings",
    );
}

/// Shift's inertia is given in body axes: a rotated inertia frame becomes products of inertia.
fn inertia_frames(s: &mut LowerSession) {
    let mut turned = Vec::new();
    for body in &mut s.model.bodies {
        if body.inertial.inertia_rotation != UnitQuaternion::identity() {
            body.inertial.inertia = mbconv_ir::Inertia::from_matrix(&body.inertial.inertia_in_body_axes());
            body.inertial.inertia_rotation = UnitQuaternion::identity();
            turned.push(path::field(&path::item("bodies", &body.name), "inertial"));
        }
    }
    for at in turned {
        s.note(
            "inertia_frame_as_products",
            Feature::InertiaProducts,
            &at,
            "the rotated inertia frame is written as products of inertia in body axes",
        );
    }
}

/// Relative asymmetry (of the largest entry) above which an inertia tensor is data rather than
/// rounding (rotating a symmetric tensor leaves about 1e-16).
const INERTIA_SYMMETRY_TOLERANCE: f64 = 1e-9;

/// Shift stores six inertia numbers (`Ixy`, `Iyz`, `Izx` the entries `[0][1]`, `[1][2]`,
/// `[2][0]`): an asymmetric tensor becomes the symmetric one those six numbers give.
fn symmetric_inertia(s: &mut LowerSession) {
    let mut changed = Vec::new();
    for body in &mut s.model.bodies {
        let i = body.inertial.inertia.0;
        let tensor = body.inertial.inertia.matrix();
        let asymmetry = (tensor - tensor.transpose()).abs().max();
        if asymmetry <= INERTIA_SYMMETRY_TOLERANCE * tensor.abs().max() {
            continue;
        }
        body.inertial.inertia = mbconv_ir::Inertia::from_moments_products(
            [i[0][0], i[1][1], i[2][2]],
            [i[0][1], i[2][0], i[1][2]],
        );
        changed.push(path::field(&path::item("bodies", &body.name), "inertial"));
    }
    for at in changed {
        s.approximated(
            "inertia_asymmetric",
            Feature::InertiaProducts,
            &at,
            "the inertia tensor is not symmetric; Shift stores six numbers: Ixy, Iyz and Izx are written and \
             mirrored",
        );
    }
}

/// Shift has no constraints besides joints.
fn drop_constraints(s: &mut LowerSession) {
    for constraint in std::mem::take(&mut s.model.constraints) {
        s.lost(
            "constraint_lost",
            Feature::Constraints,
            &path::item("constraints", &constraint.name),
            "Shift has no constraints besides joints",
        );
    }
}

/// IR shapes (meshes among them, and their colours) and contact materials: Shift names mesh
/// files only, in its own body data.
fn drop_shapes(s: &mut LowerSession) {
    let mut lost: Vec<(&'static str, Feature, String, &'static str)> = Vec::new();
    for body in &mut s.model.bodies {
        let at = path::item("bodies", &body.name);
        let shapes = std::mem::take(&mut body.shapes);
        let meshes = shapes.iter().any(|x| matches!(x.geometry, Geometry::Mesh(_)));
        let others = shapes.iter().any(|x| !matches!(x.geometry, Geometry::Mesh(_)));
        let coloured = shapes.iter().any(|x| x.appearance.is_some());
        let shapes_at = path::field(&at, "shapes");
        if others {
            lost.push((
                "shapes_lost",
                Feature::Shapes,
                shapes_at.clone(),
                "shapes are not written (Shift names mesh files only)",
            ));
        }
        if meshes {
            lost.push((
                "mesh_lost",
                Feature::Meshes,
                shapes_at.clone(),
                "IR mesh shapes are not written (Shift names mesh files in its own body data only)",
            ));
        }
        if coloured {
            lost.push((
                "appearance_lost",
                Feature::Appearance,
                shapes_at,
                "the shapes' colours and materials are not written",
            ));
        }
        if !body.contact_materials.is_empty() {
            body.contact_materials.clear();
            lost.push((
                "contact_materials_lost",
                Feature::ContactMaterials,
                path::field(&at, "contact_materials"),
                "Shift has no contact materials",
            ));
        }
    }
    for (what, feature, at, message) in lost {
        s.lost(what, feature, &at, message);
    }
}

/// Shift applies gravity to every body.
fn drop_body_gravity_flags(s: &mut LowerSession) {
    let mut exempt = Vec::new();
    for body in &mut s.model.bodies {
        if !body.gravity {
            body.gravity = true;
            exempt.push(path::item("bodies", &body.name));
        }
    }
    for at in exempt {
        s.lost(
            "body_gravity_exemption_lost",
            Feature::Gravity,
            &at,
            "Shift applies gravity to every body; the body's exemption is lost",
        );
    }
}

/// Markers become frames (Shift has frames only; a marker is a frame with a name).
fn markers_as_frames(s: &mut LowerSession) {
    let mut markers = Vec::new();
    for body in &mut s.model.bodies {
        for frame in body.frames.iter_mut().filter(|f| f.kind != FrameKind::Frame) {
            frame.kind = FrameKind::Frame;
            markers.push((path::item("bodies", &body.name), frame.name.clone()));
        }
    }
    for (at, name) in markers {
        s.note(
            "marker_as_frame",
            Feature::NamedFrames,
            &at,
            format!("the marker {name:?} is written as a frame"),
        );
    }
}

/// Body velocities no joint carries (the passes before give every moving body a joint).
fn drop_body_velocities(s: &mut LowerSession) {
    let mut lost = Vec::new();
    for body in &mut s.model.bodies {
        if body.initial_velocity.take().is_some() {
            lost.push(path::item("bodies", &body.name));
        }
    }
    for at in lost {
        s.lost(
            "body_velocity_lost",
            Feature::InitialBodyVelocities,
            &at,
            "Shift cannot give this body an initial velocity",
        );
    }
}

/// Force elements Shift cannot say: restraints on joints other than one-degree-of-freedom
/// ones, RSDAs, bushings, TSDAs with other laws or end stops.
fn drop_force_elements(s: &mut LowerSession) {
    let joints: Vec<(String, usize)> = s
        .model
        .joints
        .iter()
        .map(|j| (j.name.clone(), j.kind.nv()))
        .collect();
    for element in std::mem::take(&mut s.model.force_elements) {
        let at = path::item("force_elements", &element.name);
        let (what, feature, message) = match &element.kind {
            ForceKind::Restraint(r) => match &r.target {
                RestraintTarget::Joint { joint, dof } => {
                    if *dof == 0 && joints.iter().any(|(name, nv)| name == joint && *nv == 1) {
                        s.model.force_elements.push(element);
                        continue;
                    }
                    (
                        "restraint_lost",
                        Feature::Restraints,
                        "a Shift restraint acts on a one-degree-of-freedom joint".to_owned(),
                    )
                }
                RestraintTarget::FramePair { .. } => {
                    s.model.force_elements.push(element);
                    continue;
                }
            },
            ForceKind::Tsda(_) => (
                "tsda_lost",
                Feature::Tsda,
                "only a linear spring-damper without end stops becomes Shift restraints".to_owned(),
            ),
            ForceKind::Rsda(_) => (
                "rsda_lost",
                Feature::Rsda,
                "Shift has no rotational spring-damper (only a linear one about a revolute joint's axis, as the \
                 joint's spring and damper restraints)"
                    .to_owned(),
            ),
            ForceKind::Bushing(_) => ("bushing_lost", Feature::Bushings, "Shift has no bushings".to_owned()),
        };
        s.lost(what, feature, &at, message);
    }
}
