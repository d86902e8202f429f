//! The IR model of a loaded body: one body per link (pose = parent pose · offset), one joint per
//! link from its parent (the world for the root link), devices with unique names, extra joints
//! as constraints, and the findings of the load.

use super::body::load;
use super::elements::Note;
use super::fields::Doc;
use super::links::{LinkJoint, LinkSpec};
use crate::spec::{self, FORMAT};
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::format::{Imported, Source};
use mbconv_ir::report::path;
use mbconv_ir::{
    Body, BodyRef, Category, Constraint, ConstraintKind, DofProperties, Inertia, Joint, JointKind, Model,
    Pose, Severity, Value,
};
use nalgebra::Vector3;
use std::collections::BTreeMap;

/// The IR model of a loaded body.
pub(crate) fn import(source: &Source, doc: Doc) -> SourceResult<Imported> {
    let mut chain = Vec::new();
    if let Some(path) = &source.path {
        chain.push(path.canonicalize().unwrap_or_else(|_| path.clone()));
    }
    let root_span = doc.span(&doc.root);
    let loaded = load(doc, &mut chain)?;
    let mut session = ImportSession::new(FORMAT, source);
    let name = loaded.name.clone().unwrap_or_else(|| {
        source
            .path
            .as_deref()
            .and_then(|p| p.file_stem())
            .map_or_else(|| source.name.clone(), |s| s.to_string_lossy().into_owned())
    });
    let mut model = Model::new(name);
    model.extras = loaded.extras.clone();
    model.simulation.gravity = Some(Vector3::from(spec::GRAVITY));
    session.defaulted(
        "simulation.gravity",
        Some(root_span),
        "the file has no gravity: Choreonoid's simulators apply (0, 0, -9.80665)",
    );
    for note in &loaded.notes {
        add_note(&mut session, "", note);
    }
    // Tree order (Choreonoid's link order): depth first from the root, children in file order.
    let mut children: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, link) in loaded.links.iter().enumerate() {
        if let Some(p) = &link.parent
            && i != loaded.root
        {
            children.entry(p.as_str()).or_default().push(i);
        }
    }
    let mut order = Vec::new();
    let mut stack = vec![loaded.root];
    while let Some(i) = stack.pop() {
        order.push(i);
        if let Some(kids) = children.get(loaded.links[i].name.as_str()) {
            stack.extend(kids.iter().rev());
        }
    }
    let mut world: BTreeMap<&str, Pose> = BTreeMap::new();
    for &i in &order {
        let link = &loaded.links[i];
        let parent_pose = if i == loaded.root {
            Pose::identity()
        } else {
            link.parent
                .as_deref()
                .and_then(|p| world.get(p))
                .copied()
                .unwrap_or_else(Pose::identity)
        };
        let pose = parent_pose * link.offset;
        world.insert(link.name.as_str(), pose);
        add_link(&mut session, &mut model, link, i == loaded.root, pose);
    }
    for (n, spec) in loaded.extra_joints.iter().enumerate() {
        let wanted = spec.name.clone().unwrap_or_else(|| format!("extra_joint{n}"));
        let name = session.unique_name("constraints", &wanted, "extra");
        let ir_path = path::item("constraints", &name);
        if spec.name.is_none() {
            session.defaulted(
                &ir_path,
                spec.span.clone(),
                format!("the extra joint has no name; named {name:?}"),
            );
        }
        if spec.joint_type == mbconv_ir::ExtraJointType::Fixed {
            session.finding(
                "fixed_extra_joint",
                Severity::Warning,
                Category::Note,
                &ir_path,
                spec.span.clone(),
                "a fixed extra joint welds the two links in the IR (and in mbconv's solver); \
                 Choreonoid's AIST simulator adds no constraint for it",
            );
        }
        if let Some(span) = &spec.span {
            session.record(ir_path, span.clone());
        }
        model.constraints.push(Constraint {
            name,
            kind: ConstraintKind::ExtraJoint {
                joint_type: spec.joint_type,
                body1: BodyRef::body(&spec.link1),
                frame1: spec.frame1,
                body2: BodyRef::body(&spec.link2),
                frame2: spec.frame2,
                axis: spec.axis,
            },
            enabled: true,
            extras: spec.extras.clone(),
        });
    }
    Ok(session.finish(model))
}

fn add_note(session: &mut ImportSession<'_>, ir_path: &str, note: &Note) {
    let (severity, category) = if note.approximated {
        (Severity::Warning, Category::Approximated)
    } else if note.code == "missing_mesh" || note.code == "lenient_number" {
        (Severity::Warning, Category::Note)
    } else {
        (Severity::Info, Category::Ignored)
    };
    session.finding(note.code, severity, category, ir_path, None, note.message.clone());
}

fn add_link(session: &mut ImportSession<'_>, model: &mut Model, link: &LinkSpec, is_root: bool, pose: Pose) {
    session.take_name("bodies", &link.name);
    for note in &link.notes {
        add_note(session, &path::item("bodies", &link.name), note);
    }
    let body_path = path::item("bodies", &link.name);
    if let Some(span) = &link.span {
        session.record(body_path.clone(), span.clone());
    }
    let body = link_body(link, pose);
    let kind = joint_kind(session, link, is_root, &body_path);
    let joint = link_joint(session, link, is_root, kind);
    add_devices(session, model, link);
    model.bodies.push(body);
    model.joints.push(joint);
}

/// The body of `link` at `pose`: its mass properties, shapes and extras.
fn link_body(link: &LinkSpec, pose: Pose) -> Body {
    let mut body = Body::new(&link.name);
    body.pose = pose;
    body.inertial.mass = link.mass;
    body.inertial.com = link.com;
    body.inertial.inertia = Inertia::from_matrix(&link.inertia);
    body.shapes = link.shapes.clone();
    body.extras = link.body_extras.clone();
    body
}

/// The IR kind of `link`'s joint, noting a moving root (read as free) and an axis that is not
/// of unit length.
fn joint_kind(session: &mut ImportSession<'_>, link: &LinkSpec, is_root: bool, body_path: &str) -> JointKind {
    let root_moves = is_root && !matches!(link.joint, LinkJoint::Fixed | LinkJoint::Free);
    if root_moves {
        // Body::initializePosition places the root at its offset and ignores its joint value;
        // the dynamics treat every root that is not fixed as free.
        session.finding(
            "root_joint",
            Severity::Warning,
            Category::Approximated,
            body_path,
            link.span.clone(),
            "the root link's joint is neither fixed nor free: Choreonoid treats such a root as \
             free and ignores its joint value; read as a free joint",
        );
    }
    let kind = match link.joint {
        _ if root_moves => JointKind::Free,
        LinkJoint::Fixed => JointKind::Fixed,
        LinkJoint::Revolute => JointKind::Revolute { axis: link.axis },
        LinkJoint::Prismatic => JointKind::Prismatic { axis: link.axis },
        LinkJoint::Free => JointKind::Free,
        LinkJoint::Track => JointKind::PseudoContinuousTrack { axis: link.axis },
    };
    if matches!(link.joint, LinkJoint::Revolute | LinkJoint::Prismatic)
        && (link.axis.norm() - 1.0).abs() > 1e-12
    {
        session.finding(
            "axis_norm",
            Severity::Warning,
            Category::Approximated,
            body_path,
            link.span.clone(),
            format!(
                "the joint axis has length {}; Choreonoid uses it unnormalised, the IR normalises it",
                link.axis.norm()
            ),
        );
    }
    kind
}

/// The joint of `link` (to the world for the root): its name, frame, initial position and
/// one coordinate's limits (ranges on a joint without a coordinate are noted as ignored).
fn link_joint(session: &mut ImportSession<'_>, link: &LinkSpec, is_root: bool, kind: JointKind) -> Joint {
    let joint_name = link.joint_name.clone().unwrap_or_else(|| link.name.clone());
    let joint_name = session.unique_name("joints", &joint_name, &link.name);
    let parent = if is_root {
        BodyRef::World
    } else {
        BodyRef::body(link.parent.clone().unwrap_or_default())
    };
    let mut joint = Joint::new(joint_name, kind, parent, BodyRef::body(&link.name));
    joint.parent_frame = link.offset;
    joint.joint_id = link.joint_id;
    joint.actuator = link.actuation;
    joint.extras = link.joint_extras.clone();
    let one_dof = matches!(
        joint.kind,
        JointKind::Revolute { .. } | JointKind::Prismatic { .. }
    );
    if one_dof {
        joint.q0 = vec![link.q0];
    } else if link.q0 != 0.0 {
        // A value Choreonoid keeps but does not use (fixed, free, track, or root joints).
        joint
            .extras
            .insert(format!("{FORMAT}.joint_angle"), Value::Float(link.q0));
    }
    if one_dof {
        let dof = DofProperties {
            position_limits: link.range,
            velocity_limits: link.velocity_range,
            effort_limits: link.effort_range,
            rotor_inertia: link.rotor_inertia,
            gear_ratio: link.gear_ratio,
            ..DofProperties::default()
        };
        if dof != DofProperties::default() {
            joint.dofs = vec![dof];
        }
    } else if !(link.range.is_unlimited()
        && link.velocity_range.is_unlimited()
        && link.effort_range.is_unlimited())
    {
        session.finding(
            "ignored",
            Severity::Info,
            Category::Ignored,
            &path::item("joints", &joint.name),
            link.span.clone(),
            "joint ranges on a joint without a coordinate have no effect",
        );
    }
    if let Some(span) = &link.span {
        session.record(path::item("joints", &joint.name), span.clone());
    }
    joint
}

/// `link`'s devices, attached to its body and named (a device without a name gets one).
fn add_devices(session: &mut ImportSession<'_>, model: &mut Model, link: &LinkSpec) {
    for (n, device) in link.devices.iter().enumerate() {
        let mut device = device.clone();
        device.body = BodyRef::body(&link.name);
        let wanted = if device.name.is_empty() {
            format!("{}_{}{n}", link.name, device_type_name(&device.device_type))
        } else {
            device.name.clone()
        };
        let name = session.unique_name("devices", &wanted, &link.name);
        if device.name.is_empty() {
            session.defaulted(
                &path::item("devices", &name),
                link.span.clone(),
                format!("a device of {:?} has no name; named {name:?}", link.name),
            );
        }
        device.name = name;
        model.devices.push(device);
    }
}

fn device_type_name(t: &mbconv_ir::DeviceType) -> String {
    match t {
        mbconv_ir::DeviceType::Other(name) => name.clone(),
        other => format!("{other:?}"),
    }
}
