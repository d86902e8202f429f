//! Joints: endpoints (`body_frame_pairs` or `parent`/`child`), type, initial state, `active`,
//! and the joint-level `stiffness` / `damping` arrays (which become restraints).

use super::assembly::{Layout, check_name};
use super::fields::Reader;
use crate::raw::Node;
use crate::spec::{
    CHILD_FRAME_KEY, FIXED, FORMAT, OFFSET_AID, ORIGIN, PARENT_FRAME_KEY, PATH_SEPARATOR, ROWS_AID,
    pose_numbers, primitive_axis, rows_of_rotation_vector,
};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::format::kit::aids;
use mbconv_ir::report::path;
use mbconv_ir::rotation::rotation_vector;
use mbconv_ir::{
    Body, BodyRef, Extras, ForceElement, ForceKind, Frame, Joint, JointKind, PiecewisePolynomial, Pose,
    Restraint, RestraintTarget, RestraintType, Value,
};
use nalgebra::Vector3;
use std::collections::HashMap;

const JOINT_KEYS: &[&str] = &[
    "name",
    "type",
    "body_frame_pairs",
    "parent",
    "child",
    "axis",
    "initial_displacement",
    "initial_velocity",
    "active",
    "stiffness",
    "damping",
    "damping_coefficients",
];

/// One end of a joint: the body, the frame name and its pose on the body.
pub(crate) struct End {
    pub body: BodyRef,
    pub frame: String,
    pub pose: Pose,
}

/// Each body's frames by name (the first body of a repeated name), so that resolving a
/// joint end costs a lookup, not a scan of the bodies.
pub(crate) type BodyFrames<'a> = HashMap<&'a str, &'a [Frame]>;

/// The frames of every body, by name.
pub(crate) fn body_frames(bodies: &[Body]) -> BodyFrames<'_> {
    let mut frames = HashMap::new();
    for b in bodies {
        frames.entry(b.name.as_str()).or_insert(&b.frames[..]);
    }
    frames
}

/// A joint and the restraints its `stiffness` / `damping` arrays define.
pub(crate) fn read_joint(
    reader: &mut Reader,
    layout: &Layout,
    assembly: usize,
    node: &Node,
    bodies: &BodyFrames,
    world_frames: &[Frame],
) -> SourceResult<(Joint, Vec<ForceElement>)> {
    let name_node = node
        .get("name")
        .ok_or_else(|| reader.error(node, "missing", "a joint needs a `name`"))?;
    let written_name = check_name(reader, name_node, "joint")?;
    let qualifier = match layout.assemblies[assembly].path.as_str() {
        "" => "model",
        p => p,
    }
    .replace(PATH_SEPARATOR, "/");
    let name = reader.session.unique_name("joints", written_name, &qualifier);
    let ir_path = path::item("joints", &name);
    reader.session.record(ir_path.clone(), reader.span(node));
    let type_node = node
        .get("type")
        .ok_or_else(|| reader.error(node, "missing", format!("joint {written_name:?} needs a `type`")))?;
    let type_name = reader.string(type_node, "type")?;
    let (parent, child) = read_ends(reader, layout, assembly, node, bodies, world_frames)?;
    let mut extras = Extras::default();
    let displacement = node.get("initial_displacement");
    let velocity = node.get("initial_velocity");
    let mut parent_frame = parent.pose;
    let (kind, q0, v0) = match type_name {
        "rigid" => {
            if let Some(d) = displacement.filter(|d| d.number() != Some(0.0)) {
                let offset = reader.pose(d, &ir_path, &mut Extras::default(), "offset")?;
                parent_frame = parent_frame * offset;
                let written = offset_numbers(reader, d)?;
                let fresh = pose_numbers(&(parent.pose.inverse() * parent_frame));
                aids::keep(&mut extras, FORMAT, OFFSET_AID, &written, &fresh);
            }
            (JointKind::Fixed, vec![], vec![])
        }
        "float" => {
            let (q0, v0) = free_state(reader, true, displacement, velocity, &ir_path, &mut extras)?;
            (JointKind::Free, q0, v0)
        }
        "spherical" => {
            let (q0, v0) = free_state(reader, false, displacement, velocity, &ir_path, &mut extras)?;
            (JointKind::Spherical, q0, v0)
        }
        other => one_dof(reader, node, type_node, other, displacement, velocity)?,
    };
    let mut joint = Joint::new(name.clone(), kind, parent.body, child.body);
    joint.parent_frame = parent_frame;
    joint.child_frame = child.pose;
    joint.q0 = q0;
    joint.v0 = v0;
    if let Some(active) = node.get("active") {
        joint.enabled = reader.bool(active, "active")?;
    }
    extras.insert(PARENT_FRAME_KEY, Value::String(parent.frame));
    extras.insert(CHILD_FRAME_KEY, Value::String(child.frame));
    reader.keep_unknown(node, JOINT_KEYS, &mut extras);
    joint.extras = extras;
    let restraints = joint_restraints(reader, node, &joint)?;
    Ok((joint, restraints))
}

/// A float (`with_translation`: translation, then rotation vector) or spherical (rotation
/// vector) joint's initial position and rates.
fn free_state(
    reader: &mut Reader,
    with_translation: bool,
    displacement: Option<&Node>,
    velocity: Option<&Node>,
    ir_path: &str,
    extras: &mut Extras,
) -> SourceResult<(Vec<f64>, Vec<f64>)> {
    let units = reader.units;
    let n = if with_translation { 6 } else { 3 };
    let mut q0 = vec![0.0; n];
    if let Some(d) = displacement.filter(|d| d.number() != Some(0.0)) {
        let offset = reader.pose(d, ir_path, &mut Extras::default(), "displacement")?;
        let r = rotation_vector::from_quaternion(&offset.rotation);
        q0 = if with_translation {
            vec![
                offset.translation.x,
                offset.translation.y,
                offset.translation.z,
                r[0],
                r[1],
                r[2],
            ]
        } else {
            r.to_vec()
        };
        keep_rows(reader, d, r, extras)?;
    }
    let mut v0 = rates(reader, velocity, n)?;
    let (l, a) = (units.length / units.time, units.angle / units.time);
    v0.iter_mut()
        .enumerate()
        .for_each(|(i, v)| *v *= if with_translation && i < 3 { l } else { a });
    Ok((q0, v0))
}

/// A joint of one coordinate (`Rx` ... `Tz`, `revolute`, `prismatic` with an `axis`; `other` is
/// its type): its kind, initial position and rate. An unknown type is an error.
fn one_dof(
    reader: &Reader,
    node: &Node,
    type_node: &Node,
    other: &str,
    displacement: Option<&Node>,
    velocity: Option<&Node>,
) -> SourceResult<(JointKind, Vec<f64>, Vec<f64>)> {
    let units = reader.units;
    let (revolute, axis) = match (primitive_axis(other), other) {
        (Some(found), _) => found,
        (None, "revolute") => (true, read_axis(reader, node)?),
        (None, "prismatic") => (false, read_axis(reader, node)?),
        _ => {
            let err = reader.error(type_node, "joint_type", format!("unknown joint type {other:?}"));
            return Err(Box::new(err.with_help(
                "Shift joints are Rx, Ry, Rz, Tx, Ty, Tz, revolute, prismatic, spherical, rigid and float",
            )));
        }
    };
    let scale = units.coordinate(revolute);
    let q = match displacement {
        Some(d) => reader.number(d, "initial_displacement")? * scale,
        None => 0.0,
    };
    let v = rates(reader, velocity, 1)?[0] * scale / units.time;
    let kind = if revolute {
        JointKind::Revolute { axis }
    } else {
        JointKind::Prismatic { axis }
    };
    Ok((kind, vec![q], vec![v]))
}

/// The rows of a displacement's `R` as written, kept when the writer would not give them back
/// from the rotation vector.
fn keep_rows(
    reader: &Reader,
    node: &Node,
    rotation_vector: [f64; 3],
    extras: &mut Extras,
) -> SourceResult<()> {
    if let Some(r) = node.get("R") {
        let written: Vec<f64> = reader.rows(r, "R")?.iter().flatten().copied().collect();
        let fresh = rows_of_rotation_vector(rotation_vector);
        aids::keep(extras, FORMAT, ROWS_AID, &written, &fresh);
    }
    Ok(())
}

/// `[T, R rows]` of a rigid offset as written (translation scaled to SI).
fn offset_numbers(reader: &Reader, node: &Node) -> SourceResult<Vec<f64>> {
    let mut out = match node.get("T") {
        Some(t) => (reader.vec3(t, "T")? * reader.units.length).as_slice().to_vec(),
        None => vec![0.0; 3],
    };
    match node.get("R") {
        Some(r) => out.extend(reader.rows(r, "R")?.iter().flatten()),
        None => out.extend([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]),
    }
    Ok(out)
}

/// `initial_velocity`: a number (`0` stands for all zeros) or an array of `n` numbers.
fn rates(reader: &Reader, node: Option<&Node>, n: usize) -> SourceResult<Vec<f64>> {
    let Some(node) = node else { return Ok(vec![0.0; n]) };
    if let Some(x) = node.number()
        && (n == 1 || x == 0.0)
    {
        return Ok(vec![x; n]);
    }
    let v = reader.numbers(node, "initial_velocity")?;
    if v.len() != n {
        return Err(reader.expected(node, "initial_velocity", &format!("{n} numbers")));
    }
    Ok(v)
}

/// `axis`: a 3-vector or a letter `x`, `y`, `z`.
fn read_axis(reader: &Reader, node: &Node) -> SourceResult<Vector3<f64>> {
    let Some(axis) = node.get("axis") else {
        return Err(reader.error(node, "missing", "a revolute or prismatic joint needs an `axis`"));
    };
    if let Some(letter) = axis.str() {
        return match letter {
            "x" | "X" => Ok(Vector3::x()),
            "y" | "Y" => Ok(Vector3::y()),
            "z" | "Z" => Ok(Vector3::z()),
            _ => Err(reader.expected(axis, "axis", "x, y, z or a 3-vector")),
        };
    }
    let v = reader.vec3(axis, "axis")?;
    if v.norm() == 0.0 {
        return Err(reader.error(axis, "axis", "the axis is zero"));
    }
    Ok(v)
}

fn read_ends(
    reader: &Reader,
    layout: &Layout,
    assembly: usize,
    node: &Node,
    bodies: &BodyFrames,
    world_frames: &[Frame],
) -> SourceResult<(End, End)> {
    if let Some(pairs) = node.get("body_frame_pairs") {
        let items = reader.array(pairs, "body_frame_pairs")?;
        if items.len() != 2 {
            return Err(reader.expected(pairs, "body_frame_pairs", "two [body, frame] pairs"));
        }
        let parent = read_end(reader, layout, assembly, &items[0], bodies, world_frames)?;
        let child = read_end(reader, layout, assembly, &items[1], bodies, world_frames)?;
        return Ok((parent, child));
    }
    match (node.get("parent"), node.get("child")) {
        (Some(p), Some(c)) => Ok((
            read_end(reader, layout, assembly, p, bodies, world_frames)?,
            read_end(reader, layout, assembly, c, bodies, world_frames)?,
        )),
        _ => Err(reader.error(
            node,
            "missing",
            "a joint needs `body_frame_pairs` or `parent` and `child`",
        )),
    }
}

/// `[body, frame]` where body is a name, a `:` path, or a list of path segments.
pub(crate) fn read_end(
    reader: &Reader,
    layout: &Layout,
    assembly: usize,
    node: &Node,
    bodies: &BodyFrames,
    world_frames: &[Frame],
) -> SourceResult<End> {
    let items = reader.array(node, "body-frame pair")?;
    if items.len() != 2 {
        return Err(reader.expected(node, "body-frame pair", "[body, frame]"));
    }
    let reference = match items[0].items() {
        Some(segments) => segments
            .iter()
            .map(|s| reader.string(s, "body path").map(str::to_owned))
            .collect::<SourceResult<Vec<_>>>()?
            .join(&PATH_SEPARATOR.to_string()),
        None => reader.string(&items[0], "body")?.to_owned(),
    };
    let frame = reader.string(&items[1], "frame")?;
    let body = layout.resolve(assembly, &reference).ok_or_else(|| {
        reader.error(
            &items[0],
            "unknown_body",
            format!(
                "no body {reference:?} (searched from assembly {:?} outward)",
                layout.assemblies[assembly].path
            ),
        )
    })?;
    let frames = match &body {
        BodyRef::World => world_frames,
        BodyRef::Body(name) => bodies.get(name.as_str()).copied().unwrap_or(&[]),
    };
    let pose = if frame == ORIGIN {
        Pose::identity()
    } else {
        frames
            .iter()
            .find(|f| f.name == frame)
            .map(|f| f.pose)
            .ok_or_else(|| {
                let owner = if body == BodyRef::World {
                    FIXED.to_owned()
                } else {
                    reference.clone()
                };
                reader.error(
                    &items[1],
                    "unknown_frame",
                    format!("body {owner:?} has no frame {frame:?}"),
                )
            })?
    };
    Ok(End {
        body,
        frame: frame.to_owned(),
        pose,
    })
}

/// `stiffness`, `damping`, `damping_coefficients`: polynomials of the joint coordinate (or its
/// rate) in **ascending** powers, as restraints named `<joint>.<key>`.
fn joint_restraints(reader: &mut Reader, node: &Node, joint: &Joint) -> SourceResult<Vec<ForceElement>> {
    let mut out = Vec::new();
    for (key, restraint_type) in [
        ("stiffness", RestraintType::Spring),
        ("damping", RestraintType::Damper),
        ("damping_coefficients", RestraintType::Damper),
    ] {
        let Some(list) = node.get(key) else { continue };
        let coefficients = reader.numbers(list, key)?;
        if joint.kind.nv() != 1 {
            return Err(reader.error(
                list,
                "restraint",
                format!("`{key}` needs a one-degree-of-freedom joint"),
            ));
        }
        let angular = joint.kind.is_angular(0);
        let pieces = vec![scale_coefficients(reader, &coefficients, restraint_type, angular)];
        let name = format!("{}.{key}", joint.name);
        reader
            .session
            .record(path::item("force_elements", &name), reader.span(list));
        out.push(ForceElement {
            name,
            kind: ForceKind::Restraint(Restraint {
                restraint_type,
                target: RestraintTarget::Joint {
                    joint: joint.name.clone(),
                    dof: 0,
                },
                function: PiecewisePolynomial {
                    knots: vec![],
                    pieces,
                },
            }),
            extras: Extras::default(),
        });
    }
    Ok(out)
}

/// Ascending coefficients in file units to SI: `c_k · s_F / s_x^k`, where `s_x` scales the
/// variable (coordinate or rate) and `s_F` the force.
pub(crate) fn scale_coefficients(
    reader: &Reader,
    ascending: &[f64],
    restraint_type: RestraintType,
    angular: bool,
) -> Vec<f64> {
    let units = reader.units;
    if units == super::fields::Units::SI {
        return ascending.to_vec();
    }
    let coordinate = units.coordinate(angular);
    let variable = match restraint_type {
        RestraintType::Spring => coordinate,
        RestraintType::Damper | RestraintType::Friction => coordinate / units.time,
    };
    let force = units.force(angular);
    ascending
        .iter()
        .enumerate()
        .map(|(k, c)| c * force / variable.powi(k as i32))
        .collect()
}
