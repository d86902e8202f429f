//! IR -> what Shift can say, each change a finding with its IR path.
//!
//! Order: fixed bodies get rigid joints from `fixed`; immobile groups (DART skeletons) become
//! inactive assemblies with their bodies where they start; body velocities become joint
//! rates; rotated inertia
//! frames become products; joints become Shift's (a universal joint is `Rx` + `Ry` through a
//! massless cross body; in the spec dialect a skewed axis turns the joint frames so that it is a
//! coordinate axis); joint springs, dampers and friction become restraints; what Shift cannot
//! say is dropped; a floating body that moves or sits away from the origin gets a `float`
//! joint; then assemblies, names and the frames each joint names are settled.

mod joints;
mod names;

use crate::spec::{Dialect, FORMAT};
use mbconv_ir::format::Lowered;
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::lower::{disable_immobile_groups, explicit_free_joints, fit_joint_rates};
use mbconv_ir::report::path;
use mbconv_ir::{
    BodyRef, Category, DistanceType, Extras, Finding, ForceElement, ForceKind, Frame, FrameKind, Joint,
    JointKind, Model, PiecewisePolynomial, Pose, Report, Restraint, RestraintTarget, RestraintType, Severity,
    SpringDamperLaw, Value, ValueMap,
};
use nalgebra::UnitQuaternion;

/// Lowers `model` for the given dialect.
pub(crate) fn lower(model: &Model, dialect: Dialect) -> Lowered {
    let mut m = model.clone();
    let mut report = Report::default();
    fixed_bodies(&mut m, &mut report);
    report.findings.extend(disable_immobile_groups(&mut m, FORMAT));
    report.findings.extend(fit_joint_rates(&mut m, FORMAT));
    inertia_frames(&mut m, &mut report);
    time_step(&mut m, dialect, &mut report);
    joints::lower_joints(&mut m, dialect, &mut report);
    // After the joints Shift cannot say are dropped: their bodies float from where they are.
    if floating_bodies_need_joints(&m) {
        report.findings.extend(explicit_free_joints(&mut m, FORMAT));
    }
    unsupported_items(&mut m, &mut report);
    place_inactive_bodies(&mut m, &mut report);
    names::settle(&mut m, &mut report);
    foreign_extras(&mut m, &mut report);
    Lowered::new(m, report)
}

pub(crate) fn note(report: &mut Report, code: &str, ir_path: &str, message: impl Into<String>) {
    report.push(
        Finding::new(
            format!("{FORMAT}.{code}"),
            Severity::Info,
            Category::Note,
            message,
        )
        .at(ir_path),
    );
}

pub(crate) fn loss(
    report: &mut Report,
    category: Category,
    code: &str,
    ir_path: &str,
    message: impl Into<String>,
) {
    report.push(Finding::new(format!("{FORMAT}.{code}"), Severity::Warning, category, message).at(ir_path));
}

/// A body welded to the world becomes a body with a `rigid` joint from `fixed`.
fn fixed_bodies(m: &mut Model, report: &mut Report) {
    for b in 0..m.bodies.len() {
        if !m.bodies[b].fixed {
            continue;
        }
        let body = &mut m.bodies[b];
        body.fixed = false;
        let mut name = format!("{}_weld", body.name);
        while m.joints.iter().any(|j| j.name == name) {
            name.push('_');
        }
        let body = &m.bodies[b];
        let mut joint = Joint::new(name, JointKind::Fixed, BodyRef::World, BodyRef::body(&body.name));
        joint.parent_frame = body.pose;
        note(
            report,
            "fixed_body",
            &path::item("bodies", &body.name),
            "a fixed body is written with a rigid joint from `fixed`",
        );
        m.joints.push(joint);
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
/// from the origin that no joint places gets a `rigid` joint from `fixed` at its pose. The joint moves nothing (the
/// body stays where it is either way); it says where the body is.
fn place_inactive_bodies(m: &mut Model, report: &mut Report) {
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
    for b in unplaced {
        let body = &m.bodies[b];
        let mut name = format!("{}_place", body.name);
        while m.joints.iter().any(|j| j.name == name) {
            name.push('_');
        }
        let mut joint = Joint::new(name, JointKind::Fixed, BodyRef::World, BodyRef::body(&body.name));
        joint.parent_frame = body.pose;
        note(
            report,
            "inactive_body",
            &path::item("bodies", &body.name),
            "a switched-off body is placed by a rigid joint from `fixed` (Shift places bodies only through joints)",
        );
        m.joints.push(joint);
    }
}

/// A linear TSDA without end stops pushes its points apart with `preload − k(L − L0) − c·L̇`:
/// exactly a spring restraint `k·L − (k·L0 + preload)` and a damper restraint `c·L̇` on the
/// Euclidean distance of two new frames at its points.
fn tsda_restraints(m: &mut Model, report: &mut Report) {
    let mut kept = Vec::with_capacity(m.force_elements.len());
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
        note(
            report,
            "tsda",
            &path::item("force_elements", &element.name),
            "the linear spring-damper is written as restraints on the distance of two new frames at its points",
        );
    }
    m.force_elements = kept;
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
fn foreign_extras(m: &mut Model, report: &mut Report) {
    let mut strip = |extras: &mut Extras, ir_path: &str| {
        let foreign = extras.take_foreign(FORMAT);
        if !foreign.is_empty() {
            loss(
                report,
                Category::Dropped,
                "extras",
                ir_path,
                format!("other formats' data not written: {}", foreign.join(", ")),
            );
        }
    };
    strip(&mut m.extras, "model");
    strip(&mut m.simulation.extras, "simulation");
    for frame in &mut m.world_frames {
        strip(&mut frame.extras, &format!("world_frames[{:?}]", frame.name));
    }
    for body in &mut m.bodies {
        let body_path = path::item("bodies", &body.name);
        strip(&mut body.extras, &body_path);
        for frame in &mut body.frames {
            strip(
                &mut frame.extras,
                &format!("{body_path}.frames[{:?}]", frame.name),
            );
        }
    }
    for joint in &mut m.joints {
        strip(&mut joint.extras, &path::item("joints", &joint.name));
    }
    for group in &mut m.groups {
        strip(&mut group.extras, &path::item("groups", &group.name));
    }
    for element in &mut m.force_elements {
        strip(&mut element.extras, &path::item("force_elements", &element.name));
    }
}

/// Shift keeps the time step in the integrator settings: a model without Shift settings gets
/// `simulation: {time_step}` (spec) or `integrators: [{time_step}]` (2.0).
fn time_step(m: &mut Model, dialect: Dialect, report: &mut Report) {
    let Some(step) = m.simulation.time_step else {
        return;
    };
    let extras = &mut m.simulation.extras;
    let keys = ["shift.simulation", "shift.integrators", "shift.integrator"];
    if keys.iter().any(|k| extras.get(k).is_some()) {
        return;
    }
    let settings = Value::Map(ValueMap(vec![("time_step".to_owned(), Value::Float(step))]));
    match dialect {
        Dialect::Spec => extras.insert("shift.simulation", settings),
        Dialect::V2 => extras.insert("shift.integrators", Value::List(vec![settings])),
    }
    note(
        report,
        "time_step",
        "simulation",
        "the time step is written in Shift's integrator settings",
    );
}

/// Shift's inertia is given in body axes: a rotated inertia frame becomes products of inertia.
fn inertia_frames(m: &mut Model, report: &mut Report) {
    for body in &mut m.bodies {
        if body.inertial.inertia_rotation != UnitQuaternion::identity() {
            body.inertial.inertia = mbconv_ir::Inertia::from_matrix(&body.inertial.inertia_in_body_axes());
            body.inertial.inertia_rotation = UnitQuaternion::identity();
            note(
                report,
                "inertia_products",
                &path::field(&path::item("bodies", &body.name), "inertial"),
                "the rotated inertia frame is written as products of inertia in body axes",
            );
        }
    }
}

/// Motors, loads, constraints, devices, shapes and force elements other than restraints:
/// Shift has no place for them.
fn unsupported_items(m: &mut Model, report: &mut Report) {
    for motor in std::mem::take(&mut m.motors) {
        loss(
            report,
            Category::Dropped,
            "dropped",
            &path::item("motors", &motor.name),
            "Shift has no motors",
        );
    }
    for load in std::mem::take(&mut m.loads) {
        loss(
            report,
            Category::Dropped,
            "dropped",
            &path::item("loads", &load.name),
            "Shift has no body loads",
        );
    }
    for constraint in std::mem::take(&mut m.constraints) {
        loss(
            report,
            Category::Dropped,
            "dropped",
            &path::item("constraints", &constraint.name),
            "Shift has no constraints besides joints",
        );
    }
    for device in std::mem::take(&mut m.devices) {
        loss(
            report,
            Category::Dropped,
            "dropped",
            &path::item("devices", &device.name),
            "Shift has no sensors or cameras (lights are kept only when read from Shift)",
        );
    }
    for body in &mut m.bodies {
        if !body.shapes.is_empty() || !body.contact_materials.is_empty() {
            body.shapes.clear();
            body.contact_materials.clear();
            loss(
                report,
                Category::Dropped,
                "dropped",
                &path::field(&path::item("bodies", &body.name), "shapes"),
                "shapes are not written (Shift names mesh files only)",
            );
        }
        if !body.gravity {
            body.gravity = true;
            loss(
                report,
                Category::Dropped,
                "dropped",
                &path::item("bodies", &body.name),
                "Shift applies gravity to every body",
            );
        }
        for frame in body.frames.iter_mut().filter(|f| f.kind != FrameKind::Frame) {
            frame.kind = FrameKind::Frame;
            note(
                report,
                "frame",
                &path::item("bodies", &body.name),
                format!("the marker {:?} is written as a frame", frame.name),
            );
        }
        if body.initial_velocity.take().is_some() {
            loss(
                report,
                Category::Dropped,
                "dropped",
                &path::item("bodies", &body.name),
                "Shift cannot give this body an initial velocity",
            );
        }
    }
    tsda_restraints(m, report);
    let joints: Vec<(String, usize)> = m.joints.iter().map(|j| (j.name.clone(), j.kind.nv())).collect();
    m.force_elements.retain(|element| {
        let ir_path = path::item("force_elements", &element.name);
        match &element.kind {
            ForceKind::Restraint(r) => match &r.target {
                mbconv_ir::RestraintTarget::Joint { joint, dof } => {
                    let ok = *dof == 0 && joints.iter().any(|(name, nv)| name == joint && *nv == 1);
                    if !ok {
                        loss(
                            report,
                            Category::Dropped,
                            "dropped",
                            &ir_path,
                            "a Shift restraint acts on a one-degree-of-freedom joint",
                        );
                    }
                    ok
                }
                mbconv_ir::RestraintTarget::FramePair { .. } => true,
            },
            other => {
                loss(
                    report,
                    Category::Dropped,
                    "dropped",
                    &ir_path,
                    format!("Shift has no {} force element", other.type_name()),
                );
                false
            }
        }
    });
}
