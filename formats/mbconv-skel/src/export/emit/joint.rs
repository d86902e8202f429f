//! Joints: type and parameters, the child-side frame, DART-order coordinates and DOF
//! properties.

use super::{Emitter, fmt, join, transformation, vec3, verbatim_children};
use crate::export::skel_name;
use crate::spec::plane::orthonormal_plane;
use crate::spec::verbatim::XmlElement;
use crate::spec::{
    FORMAT, FREE_DART_ORDER, INIT_VEL_AID, PLANE_AXES_AID, actuator_name, euler_order_name, plain_dof,
    velocity,
};
use mbconv_ir::format::kit::aids;
use mbconv_ir::kinematics::relative_pose;
use mbconv_ir::{BodyRef, DofProperties, Joint, JointKind, Limits, Pose};
use nalgebra::Vector3;

/// The SKEL joint type of an IR joint kind.
struct SkelJointType {
    /// The `type` attribute.
    name: &'static str,
    /// Axes, pitch, axis order or plane.
    children: Vec<XmlElement>,
    /// False for a kind SKEL does not have (lowering replaces those; an unlowered model gets
    /// a stand-in without coordinates).
    has_coordinates: bool,
}

impl SkelJointType {
    fn new(name: &'static str, children: Vec<XmlElement>) -> Self {
        Self {
            name,
            children,
            has_coordinates: true,
        }
    }
}

/// A joint's `init_pos`, `init_vel` and DOF properties in DART's order and convention.
struct DartCoordinates {
    q: Vec<f64>,
    v: Vec<f64>,
    dofs: Vec<DofProperties>,
}

fn axis(tag: &str, v: &Vector3<f64>) -> XmlElement {
    XmlElement::new(tag).child(XmlElement::text("xyz", vec3(v)))
}

impl Emitter<'_> {
    /// The `<joint>` element of tree joint `j` (lowered: its parent is the tree parent).
    pub(super) fn joint(&mut self, j: usize) -> XmlElement {
        let m = self.model;
        let joint = &m.joints[j];
        let body_name = |r: &BodyRef| match r.name().and_then(|n| m.body(n)) {
            Some(b) => skel_name(&b.name, &b.extras).to_owned(),
            None => "world".to_owned(),
        };
        let joint_type = joint_type(joint);
        let mut element = XmlElement::new("joint")
            .attr("type", joint_type.name)
            .attr("name", skel_name(&joint.name, &joint.extras));
        if let Some(text) = joint.actuator.and_then(actuator_name) {
            element = element.attr("actuator", text);
        }
        element = element
            .child(XmlElement::text("parent", body_name(&joint.parent)))
            .child(XmlElement::text("child", body_name(&joint.child)));
        if let Some(t) = transformation(&Pose::identity(), &joint.child_frame, &joint.extras) {
            element = element.child(XmlElement::text("transformation", t));
        }
        element = element.children(joint_type.children);
        if joint_type.has_coordinates {
            let coordinates = dart_coordinates(joint);
            if coordinates.q.iter().any(|x| x.to_bits() != 0) {
                element = element.child(XmlElement::text("init_pos", join(&coordinates.q)));
            }
            if coordinates.v.iter().any(|x| x.to_bits() != 0) {
                element = element.child(XmlElement::text("init_vel", join(&coordinates.v)));
            }
            for (i, dof) in coordinates.dofs.iter().enumerate() {
                element = element.child_opt(dof_element(i, dof));
            }
        }
        element.children.extend(verbatim_children(&joint.extras));
        element
    }
}

/// The type attribute and the type-specific children.
fn joint_type(joint: &Joint) -> SkelJointType {
    match &joint.kind {
        JointKind::Fixed => SkelJointType::new("weld", vec![]),
        JointKind::Revolute { axis: a } => SkelJointType::new("revolute", vec![axis("axis", a)]),
        JointKind::Prismatic { axis: a } => SkelJointType::new("prismatic", vec![axis("axis", a)]),
        JointKind::Screw { axis: a, pitch } => SkelJointType::new(
            "screw",
            vec![axis("axis", a).child(XmlElement::text("pitch", fmt(*pitch)))],
        ),
        JointKind::Universal { axis1, axis2 } => {
            SkelJointType::new("universal", vec![axis("axis", axis1), axis("axis2", axis2)])
        }
        JointKind::Spherical => SkelJointType::new("ball", vec![]),
        JointKind::Euler { order } => SkelJointType::new(
            "euler",
            vec![XmlElement::text("axis_order", euler_order_name(*order))],
        ),
        JointKind::Translational => SkelJointType::new("translational", vec![]),
        JointKind::Planar { axis1, axis2 } => SkelJointType::new("planar", vec![plane(joint, axis1, axis2)]),
        JointKind::Free => SkelJointType::new("free", vec![]),
        JointKind::PseudoContinuousTrack { .. } => SkelJointType {
            name: "weld",
            children: vec![],
            has_coordinates: false,
        },
        _ => SkelJointType {
            name: "free",
            children: vec![],
            has_coordinates: false,
        },
    }
}

/// A planar joint's `<plane>`: a named plane, or the arbitrary axes (as read when DART's
/// orthonormalisation of them gives these axes).
fn plane(joint: &Joint, axis1: &Vector3<f64>, axis2: &Vector3<f64>) -> XmlElement {
    let (x, y, z) = (Vector3::x(), Vector3::y(), Vector3::z());
    let as_read = aids::kept_array::<6>(&joint.extras, FORMAT, PLANE_AXES_AID).and_then(|v| {
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
    if let Some((r1, r2)) = as_read {
        arbitrary(&r1, &r2)
    } else if (*axis1, *axis2) == (x, y) {
        XmlElement::new("plane").attr("type", "xy")
    } else if (*axis1, *axis2) == (y, z) {
        XmlElement::new("plane").attr("type", "yz")
    } else if (*axis1, *axis2) == (z, x) {
        XmlElement::new("plane").attr("type", "zx")
    } else {
        arbitrary(axis1, axis2)
    }
}

/// `init_pos`, `init_vel` and DOF properties in DART's order and convention.
fn dart_coordinates(joint: &Joint) -> DartCoordinates {
    let n = joint.kind.nq();
    let pad = |v: &[f64]| -> Vec<f64> { (0..n).map(|i| v.get(i).copied().unwrap_or(0.0)).collect() };
    let q = pad(&joint.q0);
    let v = pad(&joint.v0);
    let dofs: Vec<DofProperties> = (0..n).map(|i| joint.dof(i)).collect();
    if joint.kind != JointKind::Free {
        return DartCoordinates { q, v, dofs };
    }
    let dart_q: Vec<f64> = FREE_DART_ORDER.iter().map(|&i| q[i]).collect();
    let dart_dofs: Vec<DofProperties> = FREE_DART_ORDER.iter().map(|&i| dofs[i].clone()).collect();
    let ir_v: [f64; 6] = std::array::from_fn(|i| v[i]);
    let child_in_parent = relative_pose(joint, &q);
    let kept = aids::kept_array::<6>(&joint.extras, FORMAT, INIT_VEL_AID).filter(|d| {
        velocity::from_dart(*d, &joint.child_frame, &joint.parent_frame, &child_in_parent) == ir_v
    });
    let dart_v = match kept {
        Some(d) => d,
        None if ir_v.iter().all(|x| x.to_bits() == 0) => [0.0; 6],
        None => velocity::to_dart(ir_v, &joint.child_frame, &joint.parent_frame, &child_in_parent),
    };
    DartCoordinates {
        q: dart_q,
        v: dart_v.to_vec(),
        dofs: dart_dofs,
    }
}

/// The `<dof>` element of DOF `index`, when it says anything.
fn dof_element(index: usize, dof: &DofProperties) -> Option<XmlElement> {
    // `DofProperties::default()` has a gear ratio of 0; without rotor inertia it means nothing.
    let mut normalized = dof.clone();
    if normalized.gear_ratio == 0.0 {
        normalized.gear_ratio = 1.0;
    }
    if normalized == plain_dof() {
        return None;
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
