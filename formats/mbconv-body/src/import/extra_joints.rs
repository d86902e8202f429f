//! `extraJoints`: closed loops between two links (hinge, ball, piston, fixed) as IR extra-joint
//! constraints. Anchors are frames on each link; the hinge or piston axis is the same vector in
//! both links' anchor frames (Choreonoid's reading).

use super::fields::{self, Doc, get};
use crate::raw::Node;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::SourceSpan;
use mbconv_ir::{ExtraJointType, Extras, Pose};
use nalgebra::{UnitQuaternion, Vector3};

/// One extra joint as read.
#[derive(Clone, Debug)]
pub(crate) struct ExtraSpec {
    pub name: Option<String>,
    pub joint_type: ExtraJointType,
    pub link1: String,
    pub link2: String,
    pub frame1: Pose,
    pub frame2: Pose,
    pub axis: Vector3<f64>,
    pub span: Option<SourceSpan>,
    pub extras: Extras,
}

/// The `extraJoints` list of a document.
pub(crate) fn read(doc: &Doc) -> SourceResult<Vec<ExtraSpec>> {
    let Some(list) = get(&doc.root, "extraJoints") else {
        return Ok(Vec::new());
    };
    list.items().iter().map(|item| one(doc, item)).collect()
}

fn one(doc: &Doc, node: &Node) -> SourceResult<ExtraSpec> {
    let name_of = |key: &str| -> SourceResult<String> {
        match get(node, key) {
            Some(n) => fields::text(doc, n),
            None => Err(doc.error("extra_joint", node, format!("the extra joint has no {key}"))),
        }
    };
    let link1 = name_of("link1Name")?;
    let link2 = name_of("link2Name")?;
    let ty_node = get(node, "jointType")
        .ok_or_else(|| doc.error("extra_joint", node, "the extra joint has no jointType"))?;
    let joint_type = match fields::text(doc, ty_node)?.as_str() {
        "fixed" => ExtraJointType::Fixed,
        "hinge" => ExtraJointType::Hinge,
        "ball" => ExtraJointType::Ball,
        "piston" => ExtraJointType::Piston,
        other => {
            return Err(doc.error(
                "extra_joint_type",
                ty_node,
                format!("unknown extra joint type {other:?}; expected fixed, hinge, ball or piston"),
            ));
        }
    };
    let mut extras = Extras::default();
    let axis = match get(node, "jointAxis").or_else(|| node.get("axis")) {
        Some(n) => {
            let a = super::links::axis(doc, n)?;
            let norm = a.norm();
            if norm == 0.0 {
                return Err(doc.error("zero_axis", n, "the extra joint axis is zero"));
            }
            a / norm
        }
        None => Vector3::x(),
    };
    let point = |keys: [&str; 2]| -> SourceResult<Vector3<f64>> {
        keys.iter()
            .find_map(|k| get(node, k))
            .map_or(Ok(Vector3::zeros()), |n| fields::vector3(doc, n))
    };
    let p1 = point(["link1LocalPos", "translation_in_link1"])?;
    let p2 = point(["link2LocalPos", "translation_in_link2"])?;
    let rot = |key: &str, extras: &mut Extras| -> SourceResult<UnitQuaternion<f64>> {
        node.get(key).map_or(Ok(UnitQuaternion::identity()), |n| {
            fields::rotation(doc, n, extras, key)
        })
    };
    let r1 = rot("rotation_in_link1", &mut extras)?;
    let r2 = rot("rotation_in_link2", &mut extras)?;
    let name = node.get("name").map(|n| fields::text(doc, n)).transpose()?;
    Ok(ExtraSpec {
        name,
        joint_type,
        link1,
        link2,
        frame1: Pose::new(p1, r1),
        frame2: Pose::new(p2, r2),
        axis,
        span: doc.main_span(node),
        extras,
    })
}
