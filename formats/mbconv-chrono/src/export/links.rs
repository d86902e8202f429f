//! Joints, constraints, TSDAs, RSDAs, motors and body loads.

use super::body::kept_or;
use super::{Out, write_extras};
use crate::convert::{self, JointGeometry, JointType, kept};
use crate::emit::Y;
use mbconv_ir::report::path;
use mbconv_ir::{Category, ConstraintKind, Extras, Joint, JointKind, Pose};
use nalgebra::Vector3;

fn joint_type(kind: &JointKind) -> Option<JointType> {
    Some(match kind {
        JointKind::Fixed => JointType::Lock,
        JointKind::Revolute { .. } => JointType::Revolute,
        JointKind::Spherical => JointType::Spherical,
        JointKind::Prismatic { .. } => JointType::Prismatic,
        JointKind::Universal { .. } => JointType::Universal,
        JointKind::PointLine => JointType::PointLine,
        JointKind::PointPlane => JointType::PointPlane,
        _ => return None,
    })
}

/// The frames Chrono would build for a joint of type `ty` with geometry `g`, local to the two
/// bodies.
fn frames_for(ty: JointType, g: &JointGeometry, p1: &Pose, p2: &Pose) -> Option<(Pose, Pose)> {
    let x = convert::joint_frame(ty, g)?;
    Some((convert::to_local_frame(p1, &x), convert::to_local_frame(p2, &x)))
}

pub(super) fn kept_vec(extras: &Extras, key: &str) -> Option<Vector3<f64>> {
    kept(extras, key)
        .filter(|k| k.len() == 3)
        .map(|k| Vector3::new(k[0], k[1], k[2]))
}

/// The absolute geometry for a joint: from the kept values when they give back the IR frames
/// bit for bit, else computed from the IR frames.
fn joint_geometry(out: &mut Out, j: &Joint, ty: JointType, p1: &Pose, p2: &Pose, ip: &str) -> JointGeometry {
    let x = *p1 * j.parent_frame;
    let mut fresh = convert::joint_geometry(ty, &x);
    match (&j.kind, ty) {
        (JointKind::Revolute { axis } | JointKind::Prismatic { axis }, _) => {
            fresh.axis = Some(x.rotation * axis)
        }
        (JointKind::Universal { axis1, axis2 }, _) => {
            fresh.axes = Some((x.rotation * axis1, x.rotation * axis2))
        }
        _ => {}
    }
    let candidate = JointGeometry {
        location: kept_vec(&j.extras, "location").unwrap_or(fresh.location),
        axis: fresh.axis.map(|a| kept_vec(&j.extras, "axis").unwrap_or(a)),
        axes: fresh.axes.map(|(a1, a2)| {
            (
                kept_vec(&j.extras, "axis1").unwrap_or(a1),
                kept_vec(&j.extras, "axis2").unwrap_or(a2),
            )
        }),
    };
    let exact = |g: &JointGeometry| {
        j.kind == ty.kind()
            && frames_for(ty, g, p1, p2).is_some_and(|(a, b)| {
                convert::same_pose(&a, &j.parent_frame) && convert::same_pose(&b, &j.child_frame)
            })
    };
    if exact(&candidate) {
        return candidate;
    }
    if exact(&fresh) {
        return fresh;
    }
    let x2 = *p2 * j.child_frame;
    if x.distance(&x2) > 1e-9 {
        out.lost(
            Category::Approximated,
            ip,
            "the joint frames do not coincide in the reference configuration; Chrono places both at the parent's frame",
        );
    }
    if let Some((a, _)) = frames_for(ty, &fresh, p1, p2) {
        let rel = j.parent_frame.inverse() * a;
        let turns_about_axis = matches!(ty, JointType::Revolute | JointType::Prismatic)
            && rel.translation.norm() < 1e-9
            && (rel.rotation * Vector3::z() - Vector3::z()).norm() < 1e-9;
        if rel.distance(&Pose::identity()) > 1e-9 && !turns_about_axis {
            out.lost(
                Category::Approximated,
                ip,
                "the joint frame orientation is rebuilt by Chrono from the axes; only the motion axes are kept",
            );
        }
    }
    fresh
}

pub(super) fn joints(out: &mut Out) -> Vec<Y> {
    let mut items = Vec::new();
    for j in &out.model.joints {
        let ip = path::item("joints", &j.name);
        let Some(ty) = joint_type(&j.kind) else {
            let what = if matches!(j.kind, JointKind::Free) {
                "a free joint is not written: the body is free in Chrono".to_owned()
            } else {
                format!("Chrono YAML has no {} joint", j.kind.type_name())
            };
            out.lost(Category::Dropped, &ip, what);
            continue;
        };
        let (p1, p2) = (out.pose(&j.parent), out.pose(&j.child));
        let g = joint_geometry(out, j, ty, &p1, &p2, &ip);
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
            if matches!(
                ty,
                JointType::Prismatic | JointType::PointLine | JointType::PointPlane
            ) {
                out.lost(
                    Category::Dropped,
                    &ip,
                    format!("bushing on a {} joint: Chrono refuses it", ty.name()),
                );
            } else {
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
        }
        if j.q0.iter().chain(&j.v0).any(|x| *x != 0.0) {
            out.lost(
                Category::Dropped,
                &ip,
                "initial joint position/velocity: Chrono starts every joint at the bodies' given poses",
            );
        }
        if j.dofs.iter().any(|d| *d != mbconv_ir::DofProperties::default()) {
            out.lost(
                Category::Dropped,
                &ip,
                "joint limits, damping, friction, springs and rotor inertia: Chrono YAML joints have none",
            );
        }
        if j.actuator.is_some() || j.joint_id.is_some() {
            out.lost(Category::Dropped, &ip, "joint actuator type and controller id");
        }
        if !j.enabled {
            out.lost(Category::Dropped, &ip, "a disabled joint is written as enabled");
        }
        write_extras(out, &mut m, &j.extras, &ip);
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

pub(super) fn constraints(out: &mut Out) -> Vec<Y> {
    let mut items = Vec::new();
    for c in &out.model.constraints {
        let ip = path::item("constraints", &c.name);
        let (ty, b1, pt1, b2, pt2) = match &c.kind {
            ConstraintKind::Distance {
                body1,
                point1,
                body2,
                point2,
                distance,
            } => {
                if distance.is_some() {
                    out.lost(
                        Category::Approximated,
                        &ip,
                        "imposed distance: Chrono keeps the initial distance",
                    );
                }
                ("DISTANCE", body1, point1, body2, point2)
            }
            ConstraintKind::RevoluteSpherical {
                body1,
                point1,
                axis1,
                body2,
                point2,
                distance,
            } => {
                if axis1.is_some() || distance.is_some() {
                    out.lost(
                        Category::Dropped,
                        &ip,
                        "revolute axis and link length: Chrono YAML gives only the points",
                    );
                }
                ("REVOLUTE-SPHERICAL", body1, point1, body2, point2)
            }
            ConstraintKind::RevoluteTranslational {
                body1,
                point1,
                axis1,
                body2,
                point2,
                axis2,
                distance,
            } => {
                if axis1.is_some() || axis2.is_some() || distance.is_some() {
                    out.lost(
                        Category::Dropped,
                        &ip,
                        "axes and link length: Chrono YAML gives only the points",
                    );
                }
                ("REVOLUTE-TRANSLATIONAL", body1, point1, body2, point2)
            }
            ConstraintKind::ExtraJoint { .. } => {
                out.lost(
                    Category::Dropped,
                    &ip,
                    "Choreonoid extra joints have no Chrono YAML constraint",
                );
                continue;
            }
        };
        if !c.enabled {
            out.lost(
                Category::Dropped,
                &ip,
                "a disabled constraint is written as enabled",
            );
        }
        let (p1, p2) = (out.pose(b1), out.pose(b2));
        let mut m: Vec<(String, Y)> = vec![
            ("name".into(), Y::Str(c.name.clone())),
            ("type".into(), Y::Plain(ty.into())),
            ("body1".into(), Y::Str(out.body_name(b1))),
            ("body2".into(), Y::Str(out.body_name(b2))),
            ("point1".into(), world_point(&c.extras, "point1", &p1, pt1)),
            ("point2".into(), world_point(&c.extras, "point2", &p2, pt2)),
        ];
        write_extras(out, &mut m, &c.extras, &ip);
        items.push(Y::Map(m));
    }
    items
}

pub(super) fn curve(points: &[[f64; 2]]) -> Y {
    Y::Seq(points.iter().map(|p| Y::nums(p)).collect())
}
