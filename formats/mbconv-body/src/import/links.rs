//! One link's keys as Choreonoid's `readLinkContents` reads them: name, offset, joint, mass
//! properties (merged with the `RigidBody` elements) and elements.

use super::elements::{ElementWalk, RigidPart};
use super::fields::{self, Doc, get};
use crate::raw::{Node, NodeKind};
use crate::spec::FORMAT;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::format::kit::aids;
use mbconv_ir::report::SourceSpan;
use mbconv_ir::{ActuatorKind, Device, Extras, Limits, Pose, Shape};
use nalgebra::{Matrix3, Vector3};

/// The joint types a link can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LinkJoint {
    Fixed,
    Revolute,
    Prismatic,
    Free,
    Track,
}

/// A link as read, before the tree is built.
#[derive(Clone, Debug)]
pub(crate) struct LinkSpec {
    pub name: String,
    pub joint_name: Option<String>,
    pub parent: Option<String>,
    /// Where the link is written (main file only).
    pub span: Option<SourceSpan>,
    pub offset: Pose,
    pub joint: LinkJoint,
    pub axis: Vector3<f64>,
    pub joint_id: Option<i64>,
    pub actuation: Option<ActuatorKind>,
    pub q0: f64,
    pub range: Limits,
    pub velocity_range: Limits,
    pub effort_range: Limits,
    pub rotor_inertia: f64,
    pub gear_ratio: f64,
    pub mass: f64,
    pub com: Vector3<f64>,
    pub inertia: Matrix3<f64>,
    pub shapes: Vec<Shape>,
    pub devices: Vec<Device>,
    pub body_extras: Extras,
    pub joint_extras: Extras,
    /// What the element walk noticed.
    pub notes: Vec<super::elements::Note>,
}

impl LinkSpec {
    fn new() -> Self {
        Self {
            name: String::new(),
            joint_name: None,
            parent: None,
            span: None,
            offset: Pose::identity(),
            joint: LinkJoint::Fixed,
            axis: Vector3::z(),
            joint_id: None,
            actuation: None,
            q0: 0.0,
            range: Limits::default(),
            velocity_range: Limits::default(),
            effort_range: Limits::default(),
            rotor_inertia: 0.0,
            gear_ratio: 1.0,
            mass: 1.0,
            com: Vector3::zeros(),
            inertia: Matrix3::identity(),
            shapes: Vec::new(),
            devices: Vec::new(),
            body_extras: Extras::default(),
            joint_extras: Extras::default(),
            notes: Vec::new(),
        }
    }
}

/// Keys `readLinkContents` consumes; every other key of a link goes to the body's extras.
const LINK_KEYS: [&str; 26] = [
    "type",
    "name",
    "jointName",
    "parent",
    "translation",
    "rotation",
    "jointId",
    "jointType",
    "jointAxis",
    "actuationMode",
    "jointAngle",
    "jointDisplacement",
    "jointRange",
    "maxJointVelocity",
    "jointVelocityRange",
    "maxJointEffort",
    "joint_axis_inertia",
    "rotorInertia",
    "gearRatio",
    "mass",
    "centerOfMass",
    "inertia",
    "elements",
    // ContinuousTrack and SubBody keys.
    "numJoints",
    "jointOffset",
    "initialJointAngles",
];

/// Reads a link mapping (`type: Link` or a ContinuousTrack's link keys).
pub(crate) fn read_link(doc: &Doc, node: &Node) -> SourceResult<LinkSpec> {
    if !matches!(node.kind, NodeKind::Map(_)) {
        return Err(doc.error(
            "link",
            node,
            format!("a link must be a mapping, found {}", node.describe()),
        ));
    }
    let mut link = LinkSpec::new();
    link.span = doc.main_span(node);
    match get(node, "name") {
        Some(n) => link.name = fields::text(doc, n)?,
        None => return Err(doc.error("link_name", node, "the link has no name")),
    }
    if let Some(n) = node.get("joint_name") {
        link.joint_name = Some(fields::text(doc, n)?);
    }
    if let Some(n) = node.get("parent") {
        link.parent = Some(fields::text(doc, n)?);
    }
    read_contents(doc, node, &mut link, false)?;
    for (key, value) in node.entries() {
        if !LINK_KEYS.iter().any(|k| fields::is_key(&key.name, k))
            && key.name != "joint_name"
            && key.name != "max_joint_effort"
        {
            link.body_extras
                .insert(format!("{FORMAT}.{}", key.name), value.to_value());
        }
    }
    Ok(link)
}

/// Applies the keys `readLinkContents` reads to `link`; `sub_body_root` is true when the
/// mapping is a SubBody node overriding a sub-body's root link (mass keys then stay unread).
pub(crate) fn read_contents(
    doc: &Doc,
    node: &Node,
    link: &mut LinkSpec,
    sub_body_root: bool,
) -> SourceResult<()> {
    if let Some(t) = get(node, "translation") {
        link.offset.translation = fields::translation(doc, t)?;
    }
    if let Some(r) = get(node, "rotation") {
        link.offset.rotation = fields::rotation(doc, r, &mut link.body_extras, "rotation")?;
    }
    read_joint(doc, node, link)?;
    let mut walk = ElementWalk::new(link.name.clone());
    if let Some(elements) = node.get("elements") {
        walk.elements(doc, elements)?;
    }
    link.shapes.extend(walk.shapes);
    link.devices.extend(walk.devices);
    link.notes.extend(walk.notes);
    if !sub_body_root {
        read_mass(doc, node, link, walk.rigid_parts)?;
    }
    Ok(())
}

/// The link's joint keys, in the order they depend on each other: type and axis, actuation
/// mode, initial position, ranges, rotor.
fn read_joint(doc: &Doc, node: &Node, link: &mut LinkSpec) -> SourceResult<()> {
    read_joint_type(doc, node, link)?;
    read_actuation_mode(doc, node, link)?;
    read_initial_position(doc, node, link)?;
    read_ranges(doc, node, link)?;
    read_rotor(doc, node, link)
}

/// `jointId`, `jointType` and `jointAxis`.
fn read_joint_type(doc: &Doc, node: &Node, link: &mut LinkSpec) -> SourceResult<()> {
    if let Some(n) = get(node, "jointId") {
        link.joint_id = Some(fields::integer(doc, n)?);
    }
    if let Some(n) = get(node, "jointType") {
        let text = fields::text(doc, n)?;
        link.joint = match text.as_str() {
            "revolute" => LinkJoint::Revolute,
            "prismatic" | "slide" => LinkJoint::Prismatic,
            "free" => LinkJoint::Free,
            "fixed" => LinkJoint::Fixed,
            "pseudo_continuous_track" | "pseudoContinuousTrack" => {
                link.actuation = Some(ActuatorKind::Velocity);
                LinkJoint::Track
            }
            other => {
                return Err(doc
                    .error("joint_type", n, format!("unknown jointType {other:?}"))
                    .with_help(
                        "Choreonoid knows revolute, prismatic (slide), free, fixed and \
                         pseudo_continuous_track",
                    )
                    .into());
            }
        };
        if text == "slide" || text == "pseudoContinuousTrack" {
            link.joint_extras
                .insert(aids::key(FORMAT, "joint_type"), mbconv_ir::Value::String(text));
        }
    }
    if let Some(n) = get(node, "jointAxis") {
        link.axis = axis(doc, n)?;
        if link.axis.norm() == 0.0 && matches!(link.joint, LinkJoint::Revolute | LinkJoint::Prismatic) {
            return Err(doc.error("zero_axis", n, "the joint axis is zero"));
        }
    }
    Ok(())
}

/// `actuationMode` (a surface velocity also makes the joint a track).
fn read_actuation_mode(doc: &Doc, node: &Node, link: &mut LinkSpec) -> SourceResult<()> {
    if let Some(n) = get(node, "actuationMode") {
        let mode = fields::text(doc, n)?;
        link.actuation = Some(match mode.as_str() {
            "joint_effort" | "jointEffort" | "jointTorque" | "jointForce" => ActuatorKind::Force,
            "joint_displacement" | "jointDisplacement" | "jointAngle" => ActuatorKind::Position,
            "joint_velocity" | "jointVelocity" => ActuatorKind::Velocity,
            "jointSurfaceVelocity" => {
                link.joint = LinkJoint::Track;
                ActuatorKind::Velocity
            }
            "link_position" | "linkPosition" => ActuatorKind::LinkPosition,
            other => return Err(doc.error("actuation_mode", n, format!("unknown actuationMode {other:?}"))),
        });
    }
    Ok(())
}

/// `jointAngle` and `jointDisplacement`: the initial joint position.
fn read_initial_position(doc: &Doc, node: &Node, link: &mut LinkSpec) -> SourceResult<()> {
    if let Some(n) = get(node, "jointAngle") {
        // Converted whatever the joint type (Choreonoid's own quirk).
        let written = fields::number(doc, n)?;
        link.q0 = fields::angle(doc, written, true, &mut link.joint_extras, "joint_angle");
    }
    if let Some(n) = get(node, "jointDisplacement") {
        let written = fields::number(doc, n)?;
        let revolute = link.joint == LinkJoint::Revolute;
        link.q0 = fields::angle(doc, written, revolute, &mut link.joint_extras, "joint_angle");
    }
    Ok(())
}

/// `jointRange`, `maxJointVelocity` or `jointVelocityRange`, and the effort bound.
fn read_ranges(doc: &Doc, node: &Node, link: &mut LinkSpec) -> SourceResult<()> {
    let revolute = link.joint == LinkJoint::Revolute;
    link.range = Limits::default();
    if let Some(n) = get(node, "jointRange") {
        let (lo, hi) = match &n.kind {
            NodeKind::Seq(items) if items.len() == 2 => (
                fields::bound(doc, &items[0], false)?,
                fields::bound(doc, &items[1], true)?,
            ),
            NodeKind::Seq(_) => return Err(doc.error("joint_range", n, "jointRange must have two elements")),
            _ => {
                let hi = fields::bound(doc, n, true)?;
                (hi.map(|x| -x), hi)
            }
        };
        link.range = angle_limits(doc, lo, hi, revolute, &mut link.joint_extras, "joint_range");
    }
    link.velocity_range = Limits::default();
    if let Some(n) = get(node, "maxJointVelocity") {
        let hi = fields::bound(doc, n, true)?;
        link.velocity_range = angle_limits(
            doc,
            hi.map(|x| -x),
            hi,
            revolute,
            &mut link.joint_extras,
            "velocity_range",
        );
    } else if let Some(n) = get(node, "jointVelocityRange") {
        let [lo, hi] = match n.items() {
            [a, b] => [fields::bound(doc, a, false)?, fields::bound(doc, b, true)?],
            _ => return Err(doc.error("joint_range", n, "jointVelocityRange must have two elements")),
        };
        link.velocity_range = angle_limits(doc, lo, hi, revolute, &mut link.joint_extras, "velocity_range");
    }
    link.effort_range = Limits::default();
    if let Some(n) = node
        .get("max_joint_effort")
        .or_else(|| node.get("maxJointEffort"))
    {
        let hi = fields::bound(doc, n, true)?;
        link.effort_range = Limits {
            lower: hi.map(|x| -x),
            upper: hi,
        };
    }
    Ok(())
}

/// `joint_axis_inertia`, or `rotorInertia` and `gearRatio`.
fn read_rotor(doc: &Doc, node: &Node, link: &mut LinkSpec) -> SourceResult<()> {
    link.rotor_inertia = 0.0;
    link.gear_ratio = 1.0;
    if let Some(n) = node.get("joint_axis_inertia") {
        link.rotor_inertia = fields::number(doc, n)?;
    } else {
        if let Some(n) = get(node, "rotorInertia") {
            link.rotor_inertia = fields::number(doc, n)?;
        }
        if let Some(n) = get(node, "gearRatio") {
            link.gear_ratio = fields::number(doc, n)?;
        }
    }
    Ok(())
}

/// A joint axis: a 3-vector (not normalised) or a letter `X`, `-Y`, ... (any case).
pub(crate) fn axis(doc: &Doc, node: &Node) -> SourceResult<Vector3<f64>> {
    if let NodeKind::Seq(_) = node.kind {
        return fields::vector3(doc, node);
    }
    let letter = fields::text(doc, node)?.to_ascii_uppercase();
    Ok(match letter.as_str() {
        "X" => Vector3::x(),
        "-X" => -Vector3::x(),
        "Y" => Vector3::y(),
        "-Y" => -Vector3::y(),
        "Z" => Vector3::z(),
        "-Z" => -Vector3::z(),
        other => {
            return Err(doc.error(
                "axis",
                node,
                format!("unknown axis {other:?}; expected X, Y, Z, -X, -Y, -Z or a vector"),
            ));
        }
    })
}

fn angle_limits(
    doc: &Doc,
    lo: Option<f64>,
    hi: Option<f64>,
    convert: bool,
    extras: &mut Extras,
    aid: &str,
) -> Limits {
    let mut lower_extras = Extras::default();
    let mut upper_extras = Extras::default();
    let lower = lo.map(|x| fields::angle(doc, x, convert, &mut lower_extras, aid));
    let upper = hi.map(|x| fields::angle(doc, x, convert, &mut upper_extras, aid));
    if !(lower_extras.is_empty() && upper_extras.is_empty()) {
        let written: Vec<f64> = [lo, hi].into_iter().flatten().collect();
        extras.insert(aids::key(FORMAT, aid), aids::numbers_value(&written));
    }
    Limits { lower, upper }
}

/// `mass`, `centerOfMass` and `inertia`, merged with the RigidBody elements as
/// `setMassParameters` does.
fn read_mass(doc: &Doc, node: &Node, link: &mut LinkSpec, mut parts: Vec<RigidPart>) -> SourceResult<()> {
    let had_rigid_bodies = !parts.is_empty();
    let com = get(node, "centerOfMass")
        .map(|n| fields::vector3(doc, n))
        .transpose()?;
    let mass = node.get("mass").map(|n| fields::number(doc, n)).transpose()?;
    let inertia = node.get("inertia").map(|n| inertia(doc, n)).transpose()?;
    if com.is_some() || mass.is_some() || inertia.is_some() {
        let own = if parts.is_empty() {
            RigidPart {
                mass: mass.unwrap_or(link.mass),
                com: com.unwrap_or(link.com),
                inertia: inertia.unwrap_or(link.inertia),
            }
        } else {
            RigidPart {
                mass: mass.unwrap_or(0.0),
                com: com.unwrap_or_else(Vector3::zeros),
                inertia: inertia.unwrap_or_else(Matrix3::zeros),
            }
        };
        parts.push(own);
    }
    if parts.len() == 1 && !had_rigid_bodies && parts[0].mass > 0.0 {
        // `setMassParameters` on the link's own values alone gives them back (up to the
        // rounding of `m·c/m`, which the file's numbers are kept without).
        let own = &parts[0];
        link.mass = own.mass;
        link.com = own.com;
        link.inertia = own.inertia;
    } else if !parts.is_empty() {
        let merged = merge(&parts);
        link.mass = merged.mass;
        link.com = merged.com;
        link.inertia = merged.inertia;
    }
    Ok(())
}

/// Total mass, mass-weighted centre and parallel-axis inertia; zero mass gives zeros.
pub(crate) fn merge(parts: &[RigidPart]) -> RigidPart {
    let mut m = 0.0;
    let mut c = Vector3::zeros();
    for p in parts {
        m += p.mass;
        c += p.mass * p.com;
    }
    let mut inertia = Matrix3::zeros();
    if m > 0.0 {
        c /= m;
        for p in parts {
            inertia += p.inertia;
            let o = c - p.com;
            let (x, y, z) = (o.x, o.y, o.z);
            let pm = p.mass;
            inertia[(0, 0)] += pm * (y * y + z * z);
            inertia[(0, 1)] += -pm * (x * y);
            inertia[(0, 2)] += -pm * (x * z);
            inertia[(1, 0)] += -pm * (y * x);
            inertia[(1, 1)] += pm * (z * z + x * x);
            inertia[(1, 2)] += -pm * (y * z);
            inertia[(2, 0)] += -pm * (z * x);
            inertia[(2, 1)] += -pm * (z * y);
            inertia[(2, 2)] += pm * (x * x + y * y);
        }
    }
    RigidPart {
        mass: m,
        com: c,
        inertia,
    }
}

/// An inertia tensor: nine numbers row by row, or six `[Ixx, Ixy, Ixz, Iyy, Iyz, Izz]`.
pub(crate) fn inertia(doc: &Doc, node: &Node) -> SourceResult<Matrix3<f64>> {
    let v = fields::numbers(doc, node)?;
    match v.len() {
        9 => Ok(Matrix3::from_row_slice(&v)),
        6 => Ok(Matrix3::new(v[0], v[1], v[2], v[1], v[3], v[4], v[2], v[4], v[5])),
        n => Err(doc.error(
            "inertia",
            node,
            format!("an inertia must have six or nine numbers, found {n}"),
        )),
    }
}
