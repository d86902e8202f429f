//! Joints: type and parameters, the child-side frame, DART-order coordinates and DOF
//! properties; tree joints met from their child side are turned round.

use super::{
    Exporter, INIT_VEL_KEY, NAME_KEY, PLANE_AXES_KEY, TRANSFORMATION_KEY, fmt, join, skel_name,
    transformation, vec3, verbatim_children,
};
use crate::import::{INIT_VEL, PLANE_AXES, TRANSFORMATION, orthonormal_plane, plain_dof, value_numbers};
use crate::velocity;
use crate::verbatim::XmlElement;
use mbconv_ir::kinematics::{Attachment, relative_pose};
use mbconv_ir::report::path;
use mbconv_ir::{
    ActuatorKind, BodyRef, Category, DofProperties, EulerOrder, Joint, JointKind, Limits, Pose, Severity,
};
use nalgebra::Vector3;
use std::collections::BTreeSet;

impl Exporter<'_> {
    /// The `<joint>` element of tree joint `j` whose tree child is body `child_body`.
    pub(super) fn joint(
        &mut self,
        j: usize,
        child_body: usize,
        in_plan: &BTreeSet<usize>,
    ) -> Option<XmlElement> {
        let m = self.model;
        let joint = &m.joints[j];
        let at = path::item("joints", &joint.name);
        let Attachment::Joint { parent, reversed, .. } = self.tree.attachments[child_body] else {
            return None;
        };
        if let Some(p) = parent
            && !in_plan.contains(&p)
        {
            self.drop(
                "export.cross_skeleton_joint",
                at.clone(),
                "joins bodies of two skeletons, which SKEL cannot say; the child is written with a free joint",
            );
            return Some(
                XmlElement::new("joint")
                    .attr("type", "free")
                    .attr("name", skel_name(&joint.name, &joint.extras))
                    .child(XmlElement::text("parent", "world"))
                    .child(XmlElement::text(
                        "child",
                        skel_name(&m.bodies[child_body].name, &m.bodies[child_body].extras),
                    )),
            );
        }
        let joint = if reversed {
            self.reversed(joint)
        } else {
            joint.clone()
        };
        let body_name = |r: &BodyRef| match r.name().and_then(|n| m.body(n)) {
            Some(b) => skel_name(&b.name, &b.extras).to_owned(),
            None => "world".to_owned(),
        };
        let (type_name, kind_children, convertible) = self.kind(&joint, &at);
        let mut element = XmlElement::new("joint")
            .attr("type", type_name)
            .attr("name", skel_name(&joint.name, &joint.extras));
        if let Some(actuator) = joint.actuator {
            let text = match actuator {
                ActuatorKind::Force => Some("force"),
                ActuatorKind::Passive => Some("passive"),
                ActuatorKind::Servo => Some("servo"),
                ActuatorKind::Acceleration => Some("acceleration"),
                ActuatorKind::Velocity => Some("velocity"),
                ActuatorKind::Locked => Some("locked"),
                ActuatorKind::Position | ActuatorKind::LinkPosition => {
                    self.drop(
                        "export.actuator",
                        at.clone(),
                        format!("DART has no {actuator:?} actuator; the joint is written without one"),
                    );
                    None
                }
            };
            if let Some(text) = text {
                element = element.attr("actuator", text);
            }
        }
        element = element
            .child(XmlElement::text("parent", body_name(&joint.parent)))
            .child(XmlElement::text("child", body_name(&joint.child)));
        if let Some(t) = transformation(&Pose::identity(), &joint.child_frame, &joint.extras) {
            element = element.child(XmlElement::text("transformation", t));
        }
        element = element.children(kind_children);
        if joint.bushing.is_some() {
            self.drop(
                "export.bushing",
                at.clone(),
                "SKEL joints are ideal; the bushing compliance is dropped",
            );
        }
        if joint.joint_id.is_some() {
            self.report.add(
                "export.joint_id",
                Severity::Info,
                Category::Dropped,
                at.clone(),
                "SKEL has no joint ids",
            );
        }
        if convertible {
            let (q, v, dofs) = self.dart_coordinates(&joint);
            if q.iter().any(|x| x.to_bits() != 0) {
                element = element.child(XmlElement::text("init_pos", join(&q)));
            }
            if v.iter().any(|x| x.to_bits() != 0) {
                element = element.child(XmlElement::text("init_vel", join(&v)));
            }
            for (i, dof) in dofs.iter().enumerate() {
                if let Some(e) = self.dof(i, dof, &at) {
                    element = element.child(e);
                }
            }
        }
        element.children.extend(verbatim_children(
            &joint.extras,
            &[TRANSFORMATION_KEY, NAME_KEY, INIT_VEL_KEY, PLANE_AXES_KEY],
        ));
        self.foreign_extras(&at, &joint.extras);
        Some(element)
    }

    /// A tree joint met from its child side, turned around so the tree parent is the parent.
    pub(super) fn reversed(&mut self, joint: &Joint) -> Joint {
        let at = path::item("joints", &joint.name);
        let mut flipped = joint.clone();
        std::mem::swap(&mut flipped.parent, &mut flipped.child);
        std::mem::swap(&mut flipped.parent_frame, &mut flipped.child_frame);
        flipped.extras.remove(TRANSFORMATION);
        let negate = matches!(
            joint.kind,
            JointKind::Fixed
                | JointKind::Revolute { .. }
                | JointKind::Prismatic { .. }
                | JointKind::Screw { .. }
                | JointKind::Spherical
                | JointKind::Translational
        );
        if negate {
            // `0.0 - x` rather than `-x`: a zero stays +0 and is not written as "-0".
            flipped.q0 = joint.q0.iter().map(|x| 0.0 - x).collect();
            if let JointKind::Spherical = joint.kind {
                // ω of the new child (old parent) in its joint frame: -R(q)ᵀ ω.
                let q = mbconv_ir::kinematics::joint_motion(&joint.kind, &joint.q0).rotation;
                let w =
                    Vector3::from_iterator(joint.v0.iter().copied().chain(std::iter::repeat(0.0)).take(3));
                let w = q * w;
                flipped.v0 = vec![0.0 - w.x, 0.0 - w.y, 0.0 - w.z];
            } else {
                flipped.v0 = joint.v0.iter().map(|x| 0.0 - x).collect();
            }
            self.report.add(
                "export.reversed_joint",
                Severity::Info,
                Category::Note,
                at,
                "written with parent and child swapped (SKEL joints point away from the world)",
            );
        } else {
            self.report.add(
                "export.reversed_joint",
                Severity::Warning,
                Category::Approximated,
                at,
                format!(
                    "a {} joint met from its child side is written with parent and child swapped; its \
                     coordinates are not converted",
                    joint.kind.type_name()
                ),
            );
        }
        flipped
    }

    /// The type attribute and the type-specific children; `false` when the IR kind is not a
    /// SKEL kind (the joint is then written as a stand-in without coordinates).
    pub(super) fn kind(&mut self, joint: &Joint, at: &str) -> (&'static str, Vec<XmlElement>, bool) {
        let axis = |tag: &str, v: &Vector3<f64>| XmlElement::new(tag).child(XmlElement::text("xyz", vec3(v)));
        match &joint.kind {
            JointKind::Fixed => ("weld", vec![], true),
            JointKind::Revolute { axis: a } => ("revolute", vec![axis("axis", a)], true),
            JointKind::Prismatic { axis: a } => ("prismatic", vec![axis("axis", a)], true),
            JointKind::Screw { axis: a, pitch } => {
                self.report.add(
                    "export.screw",
                    Severity::Warning,
                    Category::Note,
                    at,
                    "DART 6.20 reads screw joints but does not create them (and stops building the skeleton)",
                );
                (
                    "screw",
                    vec![axis("axis", a).child(XmlElement::text("pitch", fmt(*pitch)))],
                    true,
                )
            }
            JointKind::Universal { axis1, axis2 } => {
                ("universal", vec![axis("axis", axis1), axis("axis2", axis2)], true)
            }
            JointKind::Spherical => ("ball", vec![], true),
            JointKind::Euler { order } => {
                let order = match order {
                    EulerOrder::Xyz => "xyz",
                    EulerOrder::Zyx => "zyx",
                };
                ("euler", vec![XmlElement::text("axis_order", order)], true)
            }
            JointKind::Translational => ("translational", vec![], true),
            JointKind::Planar { axis1, axis2 } => {
                let (x, y, z) = (Vector3::x(), Vector3::y(), Vector3::z());
                // The axes as read, when DART's orthonormalisation of them gives these.
                let as_read = value_numbers::<6>(joint.extras.get(PLANE_AXES)).and_then(|v| {
                    let (r1, r2) = (Vector3::new(v[0], v[1], v[2]), Vector3::new(v[3], v[4], v[5]));
                    let (t1, t2) = orthonormal_plane(&r1, &r2)?;
                    (t1 == *axis1 && t2 == *axis2).then_some((r1, r2))
                });
                let arbitrary = |a1: &Vector3<f64>, a2: &Vector3<f64>| {
                    XmlElement::new("plane")
                        .attr("type", "arbitrary")
                        .child(axis("translation_axis1", a1))
                        .child(axis("translation_axis2", a2))
                };
                let plane = if let Some((r1, r2)) = as_read {
                    arbitrary(&r1, &r2)
                } else if (*axis1, *axis2) == (x, y) {
                    XmlElement::new("plane").attr("type", "xy")
                } else if (*axis1, *axis2) == (y, z) {
                    XmlElement::new("plane").attr("type", "yz")
                } else if (*axis1, *axis2) == (z, x) {
                    XmlElement::new("plane").attr("type", "zx")
                } else {
                    if axis1.dot(axis2).abs() > 1e-12 * axis1.norm() * axis2.norm() {
                        self.report.add(
                            "export.planar_axes",
                            Severity::Warning,
                            Category::Approximated,
                            at,
                            "DART makes the second planar axis perpendicular to the first",
                        );
                    }
                    arbitrary(axis1, axis2)
                };
                ("planar", vec![plane], true)
            }
            JointKind::Free => ("free", vec![], true),
            JointKind::PseudoContinuousTrack { .. } => {
                self.drop(
                    "export.joint_kind",
                    at,
                    "SKEL has no continuous track; written as a weld (the surface motion is lost)",
                );
                ("weld", vec![], false)
            }
            other => {
                self.drop(
                    "export.joint_kind",
                    at,
                    format!(
                        "SKEL has no {} joint; written as a free joint (the constraint is lost)",
                        other.type_name()
                    ),
                );
                ("free", vec![], false)
            }
        }
    }

    /// `init_pos`, `init_vel` and DOF properties in DART's order and convention.
    pub(super) fn dart_coordinates(&mut self, joint: &Joint) -> (Vec<f64>, Vec<f64>, Vec<DofProperties>) {
        let n = joint.kind.nq();
        let pad = |v: &[f64]| -> Vec<f64> { (0..n).map(|i| v.get(i).copied().unwrap_or(0.0)).collect() };
        let q = pad(&joint.q0);
        let v = pad(&joint.v0);
        let dofs: Vec<DofProperties> = (0..n).map(|i| joint.dof(i)).collect();
        if joint.kind != JointKind::Free {
            return (q, v, dofs);
        }
        let order = [3, 4, 5, 0, 1, 2];
        let dart_q: Vec<f64> = order.iter().map(|&i| q[i]).collect();
        let dart_dofs: Vec<DofProperties> = order.iter().map(|&i| dofs[i].clone()).collect();
        let ir_v: [f64; 6] = [0, 1, 2, 3, 4, 5].map(|i| v[i]);
        let child_in_parent = relative_pose(joint, &q);
        let kept = value_numbers::<6>(joint.extras.get(INIT_VEL)).filter(|d| {
            velocity::from_dart(*d, &joint.child_frame, &joint.parent_frame, &child_in_parent) == ir_v
        });
        let dart_v = match kept {
            Some(d) => d,
            None if ir_v.iter().all(|x| x.to_bits() == 0) => [0.0; 6],
            None => velocity::to_dart(ir_v, &joint.child_frame, &joint.parent_frame, &child_in_parent),
        };
        (dart_q, dart_v.to_vec(), dart_dofs)
    }

    pub(super) fn dof(&mut self, index: usize, dof: &DofProperties, at: &str) -> Option<XmlElement> {
        // `DofProperties::default()` has a gear ratio of 0; without rotor inertia it means nothing.
        let mut normalized = dof.clone();
        if normalized.gear_ratio == 0.0 {
            normalized.gear_ratio = 1.0;
        }
        if normalized == plain_dof() {
            return None;
        }
        if dof.rotor_inertia != 0.0 || normalized.gear_ratio != 1.0 {
            self.drop(
                "export.rotor_inertia",
                at,
                "SKEL has no rotor inertia or gear ratio",
            );
        }
        let mut e = XmlElement::new("dof").attr("local_index", index.to_string());
        if let Some(name) = &dof.name {
            e = e.attr("name", name.clone());
        }
        let limits = |tag: &str, l: &Limits| {
            if l.is_unlimited() {
                return None;
            }
            let mut x = XmlElement::new(tag);
            if let Some(lo) = l.lower {
                x = x.attr("lower", fmt(lo));
            }
            if let Some(hi) = l.upper {
                x = x.attr("upper", fmt(hi));
            }
            Some(x)
        };
        e = e
            .child_opt(limits("position", &dof.position_limits))
            .child_opt(limits("velocity", &dof.velocity_limits))
            .child_opt(limits("acceleration", &dof.acceleration_limits))
            .child_opt(limits("force", &dof.effort_limits));
        for (tag, v) in [
            ("damping", dof.damping),
            ("friction", dof.friction),
            ("spring_rest_position", dof.spring_rest_position),
            ("spring_stiffness", dof.spring_stiffness),
        ] {
            if v.to_bits() != 0 {
                e = e.child(XmlElement::text(tag, fmt(v)));
            }
        }
        Some(e)
    }
}
