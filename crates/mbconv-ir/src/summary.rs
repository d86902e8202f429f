//! A model at its initial state in a few numbers: what `mbconv info --json` prints.

use crate::kinematics::{Configuration, SpanningTree, world_poses};
use crate::model::Model;
use crate::model::motor::{MotorActuation, MotorGuide, MotorTarget};
use crate::pose::wxyz;
use serde::Serialize;

/// The summary `mbconv info --json` prints. Keys are stable: scripts rely on them.
///
/// * Body poses and centres of mass are world coordinates at the **initial** state (tree
///   joints at `q0`; loop closures not re-solved).
/// * `dof_total` counts the spanning tree: tree joints' degrees of freedom plus six per
///   floating body.
/// * `loop_count` counts loop-closing joints, enabled constraints and body-pair motors that
///   constrain motion (a position or speed motor, or any guide but `free`): each closes one
///   loop of the body graph.
///
/// ```
/// let s = mbconv_ir::ModelSummary::new(&mbconv_ir::Model::new("m"));
/// assert_eq!(s.dof_total, 0);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelSummary {
    /// Model name.
    pub name: String,
    /// Gravity vector, or `null`.
    pub gravity: Option<[f64; 3]>,
    /// Time step hint, or `null`.
    pub time_step: Option<f64>,
    /// Bodies in model order.
    pub bodies: Vec<BodySummary>,
    /// Joints in model order.
    pub joints: Vec<JointSummary>,
    /// Degrees of freedom of the spanning tree.
    pub dof_total: usize,
    /// Independent loops.
    pub loop_count: usize,
    /// Number of constraints, force elements, motors, loads and devices.
    pub counts: Counts,
}

/// One body of a [`ModelSummary`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BodySummary {
    /// Name.
    pub name: String,
    /// Mass (kg).
    pub mass: f64,
    /// Welded to the world.
    pub fixed: bool,
    /// World position of the body frame.
    pub position: [f64; 3],
    /// World orientation of the body frame, `[w, x, y, z]`.
    pub orientation_wxyz: [f64; 4],
    /// World position of the centre of mass.
    pub com_position: [f64; 3],
}

/// One joint of a [`ModelSummary`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointSummary {
    /// Name.
    pub name: String,
    /// Type name (`revolute`, `free`, …).
    #[serde(rename = "type")]
    pub joint_type: String,
    /// Parent body name, or `"world"`.
    pub parent: String,
    /// Child body name, or `"world"`.
    pub child: String,
    /// Degrees of freedom.
    pub dof: usize,
    /// True when the joint closes a loop instead of belonging to the spanning tree.
    pub closes_loop: bool,
}

/// Item counts of a [`ModelSummary`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Counts {
    /// Constraints.
    pub constraints: usize,
    /// Force elements.
    pub force_elements: usize,
    /// Motors.
    pub motors: usize,
    /// Loads.
    pub loads: usize,
    /// Devices.
    pub devices: usize,
    /// Groups.
    pub groups: usize,
    /// Shapes over all bodies.
    pub shapes: usize,
}

impl ModelSummary {
    /// Summarises `model` at its initial state.
    pub fn new(model: &Model) -> Self {
        let tree = SpanningTree::new(model);
        let poses = world_poses(model, &tree, Configuration::Initial);
        let bodies = model
            .bodies
            .iter()
            .zip(&poses)
            .map(|(b, pose)| {
                let com = pose.transform_point(&b.inertial.com);
                BodySummary {
                    name: b.name.clone(),
                    mass: b.inertial.mass,
                    fixed: b.fixed,
                    position: pose.translation.into(),
                    orientation_wxyz: wxyz(&pose.rotation),
                    com_position: com.into(),
                }
            })
            .collect();
        let joints = model
            .joints
            .iter()
            .enumerate()
            .map(|(i, j)| JointSummary {
                name: j.name.clone(),
                joint_type: j.kind.type_name().to_owned(),
                parent: j.parent.to_string(),
                child: j.child.to_string(),
                dof: j.kind.nv(),
                closes_loop: tree.loop_joints.contains(&i),
            })
            .collect();
        let enabled_constraints = model.constraints.iter().filter(|c| c.enabled).count();
        let constraining_motors = model
            .motors
            .iter()
            .filter(|m| match &m.target {
                MotorTarget::BodyPair { guide, .. } => {
                    *guide != MotorGuide::Free || m.actuation != MotorActuation::Force
                }
                MotorTarget::Joint { .. } => false,
            })
            .count();
        Self {
            name: model.name.clone(),
            gravity: model.simulation.gravity.map(Into::into),
            time_step: model.simulation.time_step,
            bodies,
            joints,
            dof_total: tree.dof(model),
            loop_count: tree.loop_joints.len() + enabled_constraints + constraining_motors,
            counts: Counts {
                constraints: model.constraints.len(),
                force_elements: model.force_elements.len(),
                motors: model.motors.len(),
                loads: model.loads.len(),
                devices: model.devices.len(),
                groups: model.groups.len(),
                shapes: model.bodies.iter().map(|b| b.shapes.len()).sum(),
            },
        }
    }
}
