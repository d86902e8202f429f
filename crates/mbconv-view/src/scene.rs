//! A model and its recorded motion as a page scene: bodies with their shapes and numbers,
//! joints with their frames, axes and limits, groups, and the body poses per frame.

use crate::data::{BodyData, GroupData, JointData, PoseArray, SceneData, ShapeData};
use crate::encode::f32_base64;
use crate::geometry::page_geometries;
use crate::meshes::MeshStore;
use mbconv_check::Motion;
use mbconv_ir::model::geometry::{Shape, ShapeRole};
use mbconv_ir::model::group::GroupType;
use mbconv_ir::report::path;
use mbconv_ir::{BodyRef, Joint, JointKind, Model, Pose};
use nalgebra::Vector3;
use std::collections::HashMap;

/// `pose` as `[px, py, pz, qx, qy, qz, qw]`.
pub(crate) fn pose_array(pose: &Pose) -> PoseArray {
    let (t, q) = (pose.translation, pose.rotation.quaternion());
    [t.x, t.y, t.z, q.i, q.j, q.k, q.w]
}

/// The scene of `model`, its bodies placed by every sample of `motion` (recorded at the
/// page's frames).
pub(crate) fn scene(model: &Model, motion: &Motion, meshes: &mut MeshStore) -> SceneData {
    let body_index = model.body_indices();
    let joint_index = model.joint_indices();
    let group_index: HashMap<&str, usize> = model
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| (g.name.as_str(), i))
        .collect();
    let innermost = innermost_groups(model, &body_index, &group_index);
    let bodies = model
        .bodies
        .iter()
        .enumerate()
        .map(|(i, body)| BodyData {
            name: body.name.clone(),
            path: path::item("bodies", &body.name),
            group: innermost[i],
            fixed: body.fixed,
            mass: body.inertial.mass,
            com: body.inertial.com.into(),
            inertia: body.inertial.inertia_in_body_axes().transpose().into(),
            shapes: body.shapes.iter().flat_map(|s| shapes(s, meshes)).collect(),
        })
        .collect();
    let reference = |r: &BodyRef| match r {
        BodyRef::World => -1,
        BodyRef::Body(name) => body_index.get(name.as_str()).map_or(-1, |&i| i as i64),
    };
    let joints = model.joints.iter().map(|j| joint(j, &reference)).collect();
    let groups = model
        .groups
        .iter()
        .map(|g| GroupData {
            name: g.name.clone(),
            path: path::item("groups", &g.name),
            kind: group_type(g.group_type).to_owned(),
            parent: g.parent.as_deref().and_then(|p| group_index.get(p).copied()),
            bodies: g
                .bodies
                .iter()
                .filter_map(|b| body_index.get(b.as_str()).copied())
                .collect(),
            joints: g
                .joints
                .iter()
                .filter_map(|j| joint_index.get(j.as_str()).copied())
                .collect(),
        })
        .collect();
    let poses = f32_base64(motion.poses.iter().flatten().flat_map(pose_array));
    SceneData {
        name: model.name.clone(),
        gravity: model.simulation.gravity_or_unstated().into(),
        bodies,
        joints,
        groups,
        frames: motion.poses.len(),
        poses,
    }
}

/// Per body, the group that lists it and is nested deepest.
fn innermost_groups(
    model: &Model,
    body_index: &HashMap<&str, usize>,
    group_index: &HashMap<&str, usize>,
) -> Vec<Option<usize>> {
    let depth = |mut g: usize| {
        let mut depth = 0;
        while let Some(parent) = model.groups[g].parent.as_deref().and_then(|p| group_index.get(p)) {
            depth += 1;
            g = *parent;
            if depth > model.groups.len() {
                break;
            }
        }
        depth
    };
    let mut innermost: Vec<Option<(usize, usize)>> = vec![None; model.bodies.len()];
    for (g, group) in model.groups.iter().enumerate() {
        let d = depth(g);
        for body in &group.bodies {
            if let Some(&b) = body_index.get(body.as_str())
                && innermost[b].is_none_or(|(_, known)| d > known)
            {
                innermost[b] = Some((g, d));
            }
        }
    }
    innermost.into_iter().map(|g| g.map(|(g, _)| g)).collect()
}

fn group_type(kind: GroupType) -> &'static str {
    match kind {
        GroupType::Skeleton => "skeleton",
        GroupType::Assembly => "assembly",
        GroupType::Body => "body",
        GroupType::Other => "other",
    }
}

fn shapes(shape: &Shape, meshes: &mut MeshStore) -> Vec<ShapeData> {
    let appearance = shape.appearance.as_ref();
    let opacity = appearance
        .and_then(|a| a.alpha.or(a.transparency.map(|t| 1.0 - t)))
        .unwrap_or(1.0)
        .clamp(0.0, 1.0);
    page_geometries(&shape.geometry, meshes)
        .into_iter()
        .map(|(offset, geometry)| {
            let placed = shape.pose * Pose::from_translation(Vector3::from(offset));
            ShapeData {
                name: shape.name.clone(),
                role: match shape.role {
                    ShapeRole::Visual => "visual",
                    ShapeRole::Collision => "collision",
                    ShapeRole::Both => "both",
                },
                pose: pose_array(&placed),
                color: appearance.and_then(|a| a.diffuse),
                opacity,
                geometry,
            }
        })
        .collect()
}

fn joint(joint: &Joint, reference: &impl Fn(&BodyRef) -> i64) -> JointData {
    let dofs = joint.kind.nq();
    let axes = match &joint.kind {
        JointKind::Revolute { axis }
        | JointKind::Prismatic { axis }
        | JointKind::Screw { axis, .. }
        | JointKind::Cylindrical { axis }
        | JointKind::PseudoContinuousTrack { axis } => vec![(*axis).into()],
        JointKind::Universal { axis1, axis2 } | JointKind::Planar { axis1, axis2 } => {
            vec![(*axis1).into(), (*axis2).into()]
        }
        _ => Vec::new(),
    };
    JointData {
        name: joint.name.clone(),
        path: path::item("joints", &joint.name),
        kind: joint.kind.type_name(),
        parent: reference(&joint.parent),
        child: reference(&joint.child),
        frame_in_parent: pose_array(&joint.parent_frame),
        frame_in_child: pose_array(&joint.child_frame),
        axes,
        angular: (0..dofs).map(|i| joint.kind.is_angular(i)).collect(),
        limits: (0..dofs)
            .map(|i| {
                let limits = joint.dof(i).position_limits;
                (!limits.is_unlimited()).then_some([limits.lower, limits.upper])
            })
            .collect(),
        q0: joint.q0.clone(),
        v0: joint.v0.clone(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use mbconv_check::SimulationSettings;
    use mbconv_ir::Body;

    fn pendulum() -> Model {
        let mut model = Model::new("pendulum");
        let mut bob = Body::new("bob");
        bob.inertial.com = Vector3::new(0.0, 0.0, -1.0);
        model.bodies.push(bob);
        let mut pivot = Joint::new(
            "pivot",
            JointKind::Revolute { axis: Vector3::y() },
            BodyRef::World,
            BodyRef::body("bob"),
        );
        pivot.dofs = vec![mbconv_ir::model::joint::DofProperties {
            position_limits: mbconv_ir::model::joint::Limits::new(-1.0, 1.0),
            ..Default::default()
        }];
        model.joints.push(pivot);
        model
    }

    #[test]
    fn a_scene_holds_bodies_joints_and_the_recorded_frames() {
        let model = pendulum();
        let settings = SimulationSettings::new(0.1, 1e-2, mbconv_solver::Integrator::Rk4);
        // Samples at steps 0, 5 and 10.
        let motion = Motion::simulate_every(&model, &settings, 5).unwrap();
        let scene = scene(&model, &motion, &mut MeshStore::new(None));
        assert_eq!(scene.frames, 3);
        assert_eq!(scene.bodies[0].path, r#"bodies["bob"]"#);
        assert_eq!(scene.joints[0].parent, -1);
        assert_eq!(scene.joints[0].child, 0);
        assert_eq!(scene.joints[0].limits, [Some([Some(-1.0), Some(1.0)])]);
        assert_eq!(scene.joints[0].axes, [[0.0, 1.0, 0.0]]);
        // 3 frames × 1 body × 7 floats × 4 bytes, base64.
        assert_eq!(scene.poses.len(), (3 * 7 * 4usize).div_ceil(3) * 4);
    }

    #[test]
    fn a_pose_is_written_in_three_js_order() {
        let pose = Pose::from_rotation(nalgebra::UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 1.0));
        let array = pose_array(&pose);
        assert!((array[6] - 0.5f64.cos()).abs() < 1e-15);
        assert!((array[5] - 0.5f64.sin()).abs() < 1e-15);
    }
}
