//! Joints and constraints.

use super::body::kept_or;
use super::{Out, write_extras};
use crate::export::geometry::joint_geometry;
use crate::spec::frames::{self as convert, JointType};
use mbconv_ir::{ConstraintKind, Extras, Pose};
use mbconv_yaml::emit::Yaml as Y;
use nalgebra::Vector3;

pub(super) fn joints(out: &Out) -> Vec<Y> {
    let mut items = Vec::new();
    for j in &out.model.joints {
        let Some(ty) = JointType::of(&j.kind) else {
            continue;
        };
        let (p1, p2) = (out.pose(&j.parent), out.pose(&j.child));
        let g = joint_geometry(j, ty, &p1, &p2);
        let mut m: Vec<(String, Y)> = vec![
            ("name".into(), Y::Str(j.name.clone())),
            ("type".into(), Y::Plain(ty.name().into())),
            ("body1".into(), Y::Str(out.body_name(&j.parent))),
            ("body2".into(), Y::Str(out.body_name(&j.child))),
            ("location".into(), Y::nums(&convert::v3(&g.location))),
        ];
        if let Some(a) = g.axis {
            m.push(("axis".into(), Y::nums(&convert::v3(&a))));
        }
        if let Some((a1, a2)) = g.axes {
            m.push(("axis1".into(), Y::nums(&convert::v3(&a1))));
            m.push(("axis2".into(), Y::nums(&convert::v3(&a2))));
        }
        if let Some(b) = &j.bushing {
            let c = |c: &mbconv_ir::BushingConstants| {
                vec![
                    ("stiffness_linear".to_owned(), Y::Num(c.stiffness_linear)),
                    ("damping_linear".to_owned(), Y::Num(c.damping_linear)),
                    ("stiffness_rotational".to_owned(), Y::Num(c.stiffness_rotational)),
                    ("damping_rotational".to_owned(), Y::Num(c.damping_rotational)),
                ]
            };
            let mut bm = c(&b.constrained);
            if let Some(free) = &b.free {
                bm.push(("DOF".into(), Y::Map(c(free))));
            }
            m.push(("bushing_data".into(), Y::Map(bm)));
        }
        write_extras(&mut m, &j.extras);
        items.push(Y::Map(m));
    }
    items
}

/// A body-local point written in absolute coordinates (kept value when it reproduces).
pub(super) fn world_point(extras: &Extras, key: &str, pose: &Pose, local: &Vector3<f64>) -> Y {
    kept_or(
        extras,
        key,
        &convert::v3(&convert::to_world_point(pose, local)),
        |k| {
            k.len() == 3
                && convert::same_vector(
                    &convert::to_local_point(pose, &Vector3::new(k[0], k[1], k[2])),
                    local,
                )
        },
    )
}

pub(super) fn constraints(out: &Out) -> Vec<Y> {
    let mut items = Vec::new();
    for c in &out.model.constraints {
        let (ty, b1, pt1, b2, pt2) = match &c.kind {
            ConstraintKind::Distance {
                body1,
                point1,
                body2,
                point2,
                ..
            } => ("DISTANCE", body1, point1, body2, point2),
            ConstraintKind::RevoluteSpherical {
                body1,
                point1,
                body2,
                point2,
                ..
            } => ("REVOLUTE-SPHERICAL", body1, point1, body2, point2),
            ConstraintKind::RevoluteTranslational {
                body1,
                point1,
                body2,
                point2,
                ..
            } => ("REVOLUTE-TRANSLATIONAL", body1, point1, body2, point2),
            ConstraintKind::ExtraJoint { .. } => continue,
        };
        let (p1, p2) = (out.pose(b1), out.pose(b2));
        let mut m: Vec<(String, Y)> = vec![
            ("name".into(), Y::Str(c.name.clone())),
            ("type".into(), Y::Plain(ty.into())),
            ("body1".into(), Y::Str(out.body_name(b1))),
            ("body2".into(), Y::Str(out.body_name(b2))),
            ("point1".into(), world_point(&c.extras, "point1", &p1, pt1)),
            ("point2".into(), world_point(&c.extras, "point2", &p2, pt2)),
        ];
        write_extras(&mut m, &c.extras);
        items.push(Y::Map(m));
    }
    items
}

pub(super) fn curve(points: &[[f64; 2]]) -> Y {
    Y::Seq(points.iter().map(|p| Y::nums(p)).collect())
}
