//! Joint springs and dampers (DART's per-coordinate stiffness, rest position and damping) as
//! Chrono force elements: on a revolute joint an RSDA about the joint axis, on a prismatic
//! joint a TSDA along it, both with a linear law. Chrono YAML joints carry no springs.

use crate::export::geometry::joint_geometry;
use crate::spec::FORMAT;
use crate::spec::frames::{self as convert, JointType};
use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::kit::aids;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{
    BodyRef, DofProperties, Extras, ForceElement, ForceKind, Joint, Model, Pose, Rsda, SpringDamperLaw, Tsda,
};
use nalgebra::Vector3;

/// How far behind the joint origin, along the axis, a prismatic joint's TSDA starts on the
/// parent (m): the TSDA length is this plus the joint coordinate, so it stays exact while the
/// slider does not travel this far back past its rest position.
const TSDA_LEAD: f64 = 100.0;

/// Replaces every revolute or prismatic joint's spring and damper by an RSDA or a TSDA.
pub(super) fn joint_springs(l: &mut LowerSession, model: &mut Model) {
    let mut added = Vec::new();
    let mut joints = std::mem::take(&mut model.joints);
    for j in &mut joints {
        let dofs = std::mem::take(&mut j.dofs);
        let Some(dof) = dofs.into_iter().next() else {
            continue;
        };
        let (k, c) = (dof.spring_stiffness, dof.damping);
        let ty = JointType::of(&j.kind);
        if (k == 0.0 && c == 0.0) || !matches!(ty, Some(JointType::Revolute | JointType::Prismatic)) {
            continue;
        }
        let pose_of = |r: &BodyRef| super::pose_of(model, r);
        let (p1, p2) = (pose_of(&j.parent), pose_of(&j.child));
        let law = SpringDamperLaw::Linear {
            stiffness: (k != 0.0).then_some(k),
            damping: (c != 0.0).then_some(c),
        };
        let name = unique_name(&model.force_elements, &added, &format!("{}_spring", j.name));
        let ip = path::item("joints", &j.name);
        let feature = if k != 0.0 {
            Feature::JointSprings
        } else {
            Feature::JointDamping
        };
        let element = if ty == Some(JointType::Revolute) {
            l.note(
                "joint_spring_as_rsda",
                feature,
                &ip,
                format!(
                    "joint spring/damper written as the RSDA {name:?} about the joint axis with a linear law (an exact equivalent: Chrono joints carry no springs)"
                ),
            );
            rsda(j, &p1, &p2, &dof, law, name)
        } else {
            l.note(
                "joint_spring_as_tsda",
                feature,
                &ip,
                format!(
                    "joint spring/damper written as the TSDA {name:?} along the joint axis with a linear law (an exact equivalent while the slider stays less than {TSDA_LEAD} m behind its rest position: Chrono joints carry no springs)"
                ),
            );
            tsda(j, &p1, &p2, &dof, law, name)
        };
        added.push(element);
    }
    model.joints = joints;
    model.force_elements.extend(added);
}

/// `wanted`, or `wanted_`, `wanted__`, … when a force element already has the name.
fn unique_name(existing: &[ForceElement], added: &[ForceElement], wanted: &str) -> String {
    let mut name = wanted.to_owned();
    while existing.iter().chain(added).any(|f| f.name == name) {
        name.push('_');
    }
    name
}

/// The location and axis written for a revolute or prismatic joint (Chrono builds the joint
/// frame from them).
fn joint_location_and_axis(j: &Joint, p1: &Pose, p2: &Pose) -> (Vector3<f64>, Vector3<f64>) {
    let ty = JointType::of(&j.kind).unwrap_or(JointType::Revolute);
    let g = joint_geometry(j, ty, p1, p2);
    let axis = g
        .axis
        .unwrap_or_else(|| (*p1 * j.parent_frame).rotation * Vector3::z());
    (g.location, axis)
}

/// An RSDA on the joint's axis: frames where Chrono builds them from the joint's location and
/// axis, angle zero where the joint coordinate is zero.
fn rsda(
    j: &Joint,
    p1: &Pose,
    p2: &Pose,
    dof: &DofProperties,
    law: SpringDamperLaw,
    name: String,
) -> ForceElement {
    let (location, axis) = joint_location_and_axis(j, p1, p2);
    let built = convert::axis_frame(&location, &axis).unwrap_or(*p1 * j.parent_frame);
    let (frame1, frame2) = (
        convert::to_local_frame(p1, &built),
        convert::to_local_frame(p2, &built),
    );
    let mut extras = Extras::default();
    let again = *p1 * frame1;
    aids::keep(
        &mut extras,
        FORMAT,
        "location",
        &convert::v3(&location),
        &convert::v3(&again.translation),
    );
    aids::keep(
        &mut extras,
        FORMAT,
        "axis",
        &convert::v3(&axis),
        &convert::v3(&(again.rotation * Vector3::z())),
    );
    ForceElement {
        name,
        kind: ForceKind::Rsda(Rsda {
            body1: j.parent.clone(),
            frame1,
            body2: j.child.clone(),
            frame2,
            free_angle: dof.spring_rest_position,
            preload: 0.0,
            law,
        }),
        extras,
    }
}

/// A TSDA along the joint's axis from a point [`TSDA_LEAD`] behind the joint origin on the
/// parent to the joint origin on the child: its length is `TSDA_LEAD + q`.
fn tsda(
    j: &Joint,
    p1: &Pose,
    p2: &Pose,
    dof: &DofProperties,
    law: SpringDamperLaw,
    name: String,
) -> ForceElement {
    let (origin, axis) = joint_location_and_axis(j, p1, p2);
    let axis = axis.try_normalize(0.0).unwrap_or_else(Vector3::z);
    let start = origin - axis * TSDA_LEAD;
    let end = origin;
    let (point1, point2) = (
        convert::to_local_point(p1, &start),
        convert::to_local_point(p2, &end),
    );
    let mut extras = Extras::default();
    for (key, world, pose, local) in [("point1", start, p1, point1), ("point2", end, p2, point2)] {
        aids::keep(
            &mut extras,
            FORMAT,
            key,
            &convert::v3(&world),
            &convert::v3(&convert::to_world_point(pose, &local)),
        );
    }
    ForceElement {
        name,
        kind: ForceKind::Tsda(Tsda {
            body1: j.parent.clone(),
            point1,
            body2: j.child.clone(),
            point2,
            free_length: TSDA_LEAD + dof.spring_rest_position,
            preload: 0.0,
            law,
            min_length: None,
            max_length: None,
            visualization: None,
        }),
        extras,
    }
}
