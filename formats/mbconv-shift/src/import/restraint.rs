//! `restraints`: springs, dampers and friction as piecewise polynomials (descending powers in
//! the file) on a joint coordinate or on the distance between two frames.

use super::assembly::{Layout, check_name, unique_by_last_segment};
use super::fields::Reader;
use super::joint::{BodyFrames, read_end, scale_coefficients};
use crate::raw::Node;
use crate::spec::{FIXED, PATH_SEPARATOR, ascending};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::path;
use mbconv_ir::{
    DistanceType, Extras, ForceElement, ForceKind, Frame, Joint, PiecewisePolynomial, Restraint,
    RestraintTarget, RestraintType,
};
use std::collections::BTreeMap;

const RESTRAINT_KEYS: &[&str] = &[
    "name",
    "type",
    "joint",
    "body_frame_pair",
    "distance_type",
    "knot_points",
    "coefficients",
];

/// Where the restraint's names point.
pub(crate) struct Names<'a> {
    pub layout: &'a Layout<'a>,
    /// Full `:` path of each joint as written -> IR joint index.
    pub joints: &'a BTreeMap<String, usize>,
    pub all_joints: &'a [Joint],
    /// Each body's frames, by IR name.
    pub bodies: &'a BodyFrames<'a>,
    pub world_frames: &'a [Frame],
}

pub(crate) fn read_restraint(
    reader: &mut Reader,
    names: &Names,
    assembly: usize,
    node: &Node,
) -> SourceResult<ForceElement> {
    let name_node = node
        .get("name")
        .ok_or_else(|| reader.error(node, "missing", "a restraint needs a `name`"))?;
    let written = check_name(reader, name_node, "restraint")?;
    let qualifier = match names.layout.assemblies[assembly].path.as_str() {
        "" => "model",
        p => p,
    }
    .replace(PATH_SEPARATOR, "/");
    let name = reader.session.unique_name("force_elements", written, &qualifier);
    reader
        .session
        .record(path::item("force_elements", &name), reader.span(node));
    let type_node = node
        .get("type")
        .ok_or_else(|| reader.error(node, "missing", "a restraint needs a `type`"))?;
    let restraint_type = match reader.string(type_node, "type")? {
        "spring" => RestraintType::Spring,
        "damper" => RestraintType::Damper,
        "friction" => RestraintType::Friction,
        other => {
            return Err(reader.error(
                type_node,
                "restraint_type",
                format!("unknown restraint type {other:?}; expected spring, damper or friction"),
            ));
        }
    };
    let (target, angular) = match (node.get("joint"), node.get("body_frame_pair")) {
        (Some(j), None) => joint_target(reader, names, assembly, j)?,
        (None, Some(pair)) => frame_pair_target(reader, names, assembly, node, pair)?,
        _ => {
            return Err(reader.error(
                node,
                "restraint",
                "a restraint needs either `joint` or `body_frame_pair`",
            ));
        }
    };
    let function = polynomial(reader, node, restraint_type, angular)?;
    let mut extras = Extras::default();
    reader.keep_unknown(node, RESTRAINT_KEYS, &mut extras);
    Ok(ForceElement {
        name,
        kind: ForceKind::Restraint(Restraint {
            restraint_type,
            target,
            function,
        }),
        extras,
    })
}

/// A restraint on the one-coordinate joint `j` names, and whether that coordinate is an angle.
fn joint_target(
    reader: &Reader,
    names: &Names,
    assembly: usize,
    j: &Node,
) -> SourceResult<(RestraintTarget, bool)> {
    let reference = reader.string(j, "joint")?;
    let index = resolve_joint(names, assembly, reference)
        .ok_or_else(|| reader.error(j, "unknown_joint", format!("no joint {reference:?}")))?;
    let joint = &names.all_joints[index];
    if joint.kind.nv() != 1 {
        return Err(reader.error(
            j,
            "restraint",
            format!(
                "joint {reference:?} has {} degrees of freedom; a restraint needs one",
                joint.kind.nv()
            ),
        ));
    }
    Ok((
        RestraintTarget::Joint {
            joint: joint.name.clone(),
            dof: 0,
        },
        joint.kind.is_angular(0),
    ))
}

/// A restraint on the distance between the two frames `body_frame_pair` names (`pair`).
fn frame_pair_target(
    reader: &mut Reader,
    names: &Names,
    assembly: usize,
    node: &Node,
    pair: &Node,
) -> SourceResult<(RestraintTarget, bool)> {
    let items = reader.array(pair, "body_frame_pair")?;
    if items.len() != 2 {
        return Err(reader.expected(pair, "body_frame_pair", "two [body, frame] pairs"));
    }
    let first = read_end(
        reader,
        names.layout,
        assembly,
        &items[0],
        names.bodies,
        names.world_frames,
    )?;
    let second = read_end(
        reader,
        names.layout,
        assembly,
        &items[1],
        names.bodies,
        names.world_frames,
    )?;
    let distance = distance_type(reader, node)?;
    Ok((
        RestraintTarget::FramePair {
            body1: first.body,
            frame1: first.frame,
            body2: second.body,
            frame2: second.frame,
            distance,
        },
        false,
    ))
}

/// `distance_type`: `Tx`, `Ty`, `Tz` or (the default) `euclidean`.
fn distance_type(reader: &Reader, node: &Node) -> SourceResult<DistanceType> {
    Ok(match node.get("distance_type") {
        None => DistanceType::Euclidean,
        Some(d) => match reader.string(d, "distance_type")? {
            "Tx" => DistanceType::X,
            "Ty" => DistanceType::Y,
            "Tz" => DistanceType::Z,
            "euclidean" | "Euclidean" => DistanceType::Euclidean,
            other => {
                return Err(reader.error(
                    d,
                    "distance_type",
                    format!("unknown distance_type {other:?}; expected Tx, Ty, Tz or euclidean"),
                ));
            }
        },
    })
}

/// `knot_points` and `coefficients` (descending powers, one array per piece), in IR units.
fn polynomial(
    reader: &Reader,
    node: &Node,
    restraint_type: RestraintType,
    angular: bool,
) -> SourceResult<PiecewisePolynomial> {
    let knots = match node.get("knot_points") {
        Some(k) => reader.numbers(k, "knot_points")?,
        None => Vec::new(),
    };
    let coefficients_node = node
        .get("coefficients")
        .ok_or_else(|| reader.error(node, "missing", "a restraint needs `coefficients`"))?;
    let mut pieces = Vec::new();
    for piece in reader.array(coefficients_node, "coefficients")? {
        let descending = reader.numbers(piece, "coefficients")?;
        pieces.push(scale_coefficients(
            reader,
            &ascending(&descending),
            restraint_type,
            angular,
        ));
    }
    if pieces.len() != knots.len() + 1 {
        return Err(reader.error(
            coefficients_node,
            "restraint",
            format!(
                "{} knot points need {} coefficient arrays, found {}",
                knots.len(),
                knots.len() + 1,
                pieces.len()
            ),
        ));
    }
    if knots.windows(2).any(|w| w[0] >= w[1]) {
        return Err(reader.error(node, "restraint", "`knot_points` must be strictly ascending"));
    }
    let variable_scale = if angular {
        reader.units.angle
    } else {
        reader.units.length
    };
    let variable_scale = match restraint_type {
        RestraintType::Spring => variable_scale,
        _ => variable_scale / reader.units.time,
    };
    let knots = knots.iter().map(|k| k * variable_scale).collect();
    Ok(PiecewisePolynomial { knots, pieces })
}

fn resolve_joint(names: &Names, assembly: usize, reference: &str) -> Option<usize> {
    if reference.contains(PATH_SEPARATOR) || reference == FIXED {
        return names.joints.get(reference).copied();
    }
    let mut at = Some(assembly);
    while let Some(a) = at {
        if let Some(&j) = names.joints.get(&names.layout.body_path(a, reference)) {
            return Some(j);
        }
        at = names.layout.assemblies[a].parent;
    }
    unique_by_last_segment(names.joints, reference)
}
