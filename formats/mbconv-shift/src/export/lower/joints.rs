//! Joints as Shift says them: kinds, axes and joint-level springs, dampers and friction.

use super::{loss, note};
use crate::spec::{Dialect, primitive_name};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::report::path;
use mbconv_ir::{
    Body, BodyRef, Category, DofProperties, Extras, ForceElement, ForceKind, Inertia, Inertial, Joint,
    JointKind, Model, PiecewisePolynomial, Pose, Report, Restraint, RestraintTarget, RestraintType,
};
use nalgebra::{UnitQuaternion, Vector3};

pub(super) fn lower_joints(m: &mut Model, dialect: Dialect, report: &mut Report) {
    split_universal_joints(m, report);
    let mut kept = Vec::with_capacity(m.joints.len());
    for mut joint in std::mem::take(&mut m.joints) {
        let ir_path = path::item("joints", &joint.name);
        match joint.kind {
            JointKind::Fixed | JointKind::Free | JointKind::Spherical => {}
            JointKind::Revolute { axis } | JointKind::Prismatic { axis } => {
                let revolute = matches!(joint.kind, JointKind::Revolute { .. });
                if dialect == Dialect::Spec && primitive_name(revolute, &axis).is_none() {
                    turn_to_z(&mut joint, axis);
                    joint.kind = if revolute {
                        JointKind::Revolute { axis: Vector3::z() }
                    } else {
                        JointKind::Prismatic { axis: Vector3::z() }
                    };
                    note(
                        report,
                        "axis",
                        &ir_path,
                        "the axis is not a coordinate axis: both joint frames are turned so that it is z (Rz/Tz)",
                    );
                }
            }
            ref other => {
                loss(
                    report,
                    Category::Dropped,
                    "dropped",
                    &ir_path,
                    format!("Shift has no {} joint; the joint is left out", other.type_name()),
                );
                continue;
            }
        }
        if joint.actuator.take().is_some() {
            loss(
                report,
                Category::Dropped,
                "dropped",
                &ir_path,
                "Shift has no joint actuators",
            );
        }
        if joint.bushing.take().is_some() {
            loss(
                report,
                Category::Dropped,
                "dropped",
                &ir_path,
                "Shift joints are ideal: the bushing compliance is left out",
            );
        }
        joint.joint_id = None;
        let (nq, nv) = (joint.kind.nq(), joint.kind.nv());
        if joint.q0.len() != nq || joint.v0.len() != nv {
            joint.q0.resize(nq, 0.0);
            joint.v0.resize(nv, 0.0);
            note(
                report,
                "coordinates",
                &ir_path,
                "missing initial coordinates are taken as zero",
            );
        }
        dof_properties(&mut joint, &mut m.force_elements, report);
        kept.push(joint);
    }
    m.joints = kept;
}

/// Turns both joint frames by the rotation taking z onto `axis`: the joint moves the same.
fn turn_to_z(joint: &mut Joint, axis: Vector3<f64>) {
    let turn = UnitQuaternion::rotation_between(&Vector3::z(), &axis)
        .unwrap_or_else(|| UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI));
    joint.parent_frame = joint.parent_frame * Pose::from_rotation(turn);
    joint.child_frame = joint.child_frame * Pose::from_rotation(turn);
}

/// A universal joint becomes a revolute about `axis1` to a massless cross body and a revolute
/// about `axis2` from it: `R = Rot(axis1, q1)·Rot(axis2, q2)` exactly.
fn split_universal_joints(m: &mut Model, report: &mut Report) {
    let tree = SpanningTree::new(m);
    let poses = world_poses(m, &tree, Configuration::Reference);
    let mut joints = Vec::with_capacity(m.joints.len());
    for joint in std::mem::take(&mut m.joints) {
        let JointKind::Universal { axis1, axis2 } = joint.kind else {
            joints.push(joint);
            continue;
        };
        let mut cross_name = format!("{}_cross", joint.name);
        while m.bodies.iter().any(|b| b.name == cross_name) {
            cross_name.push('_');
        }
        let parent_pose = match &joint.parent {
            BodyRef::World => Pose::identity(),
            BodyRef::Body(name) => m.body_index(name).map_or_else(Pose::identity, |i| poses[i]),
        };
        let mut cross = Body::new(&cross_name);
        cross.pose = parent_pose * joint.parent_frame;
        cross.inertial = Inertial {
            mass: 0.0,
            inertia: Inertia::zero(),
            ..Inertial::default()
        };
        let dof = |i: usize| joint.dofs.get(i).cloned().into_iter().collect::<Vec<_>>();
        let mut first = Joint::new(
            format!("{}_1", joint.name),
            JointKind::Revolute { axis: axis1 },
            joint.parent.clone(),
            BodyRef::body(&cross_name),
        );
        first.parent_frame = joint.parent_frame;
        first.q0 = vec![joint.q0.first().copied().unwrap_or(0.0)];
        first.v0 = vec![joint.v0.first().copied().unwrap_or(0.0)];
        first.dofs = dof(0);
        first.enabled = joint.enabled;
        let mut second = Joint::new(
            format!("{}_2", joint.name),
            JointKind::Revolute { axis: axis2 },
            BodyRef::body(&cross_name),
            joint.child.clone(),
        );
        second.child_frame = joint.child_frame;
        second.q0 = vec![joint.q0.get(1).copied().unwrap_or(0.0)];
        second.v0 = vec![joint.v0.get(1).copied().unwrap_or(0.0)];
        second.dofs = dof(1);
        second.enabled = joint.enabled;
        note(
            report,
            "universal",
            &path::item("joints", &joint.name),
            format!(
                "the universal joint is written as two revolute joints through the massless body {cross_name:?}"
            ),
        );
        for group in &mut m.groups {
            if let Some(i) = group.joints.iter().position(|j| *j == joint.name) {
                group
                    .joints
                    .splice(i..=i, [first.name.clone(), second.name.clone()]);
                group.bodies.push(cross_name.clone());
            }
        }
        m.bodies.push(cross);
        joints.push(first);
        joints.push(second);
    }
    m.joints = joints;
}

/// Joint springs, dampers and friction become restraints on the joint; what else a degree of
/// freedom carries (limits, rotor inertia) is dropped.
fn dof_properties(joint: &mut Joint, elements: &mut Vec<ForceElement>, report: &mut Report) {
    let ir_path = path::item("joints", &joint.name);
    let dofs = std::mem::take(&mut joint.dofs);
    if dofs.iter().all(|d| *d == DofProperties::default()) {
        return;
    }
    if joint.kind.nv() != 1 {
        loss(
            report,
            Category::Dropped,
            "dropped",
            &ir_path,
            "springs, damping, friction and limits of a multi-degree-of-freedom joint cannot be written",
        );
        return;
    }
    let d = &dofs[0];
    let mut add = |key: &str, restraint_type: RestraintType, knots: Vec<f64>, pieces: Vec<Vec<f64>>| {
        let mut name = format!("{}.{key}", joint.name);
        while elements.iter().any(|e| e.name == name) {
            name.push('_');
        }
        elements.push(ForceElement {
            name,
            kind: ForceKind::Restraint(Restraint {
                restraint_type,
                target: RestraintTarget::Joint {
                    joint: joint.name.clone(),
                    dof: 0,
                },
                function: PiecewisePolynomial { knots, pieces },
            }),
            extras: Extras::default(),
        });
    };
    if d.spring_stiffness != 0.0 {
        add(
            "stiffness",
            RestraintType::Spring,
            vec![],
            vec![vec![
                -d.spring_stiffness * d.spring_rest_position,
                d.spring_stiffness,
            ]],
        );
        note(
            report,
            "restraint",
            &ir_path,
            "the joint spring is written as a spring restraint on the joint",
        );
    }
    if d.damping != 0.0 {
        add(
            "damping",
            RestraintType::Damper,
            vec![],
            vec![vec![0.0, d.damping]],
        );
        note(
            report,
            "restraint",
            &ir_path,
            "the joint damping is written as a damper restraint on the joint",
        );
    }
    if d.friction != 0.0 {
        add(
            "friction",
            RestraintType::Friction,
            vec![0.0],
            vec![vec![-d.friction], vec![d.friction]],
        );
        loss(
            report,
            Category::Approximated,
            "friction",
            &ir_path,
            "Coulomb friction is written as a friction restraint stepping from -f to +f at zero rate",
        );
    }
    let rest = DofProperties {
        spring_stiffness: 0.0,
        spring_rest_position: 0.0,
        damping: 0.0,
        friction: 0.0,
        name: None,
        ..d.clone()
    };
    if rest != DofProperties::default() {
        loss(
            report,
            Category::Dropped,
            "dropped",
            &ir_path,
            "Shift joints have no limits, rotor inertia or gear ratio",
        );
    }
}
