//! Spanning trees and forward kinematics, in one place for every importer, exporter and the
//! solver.
//!
//! * [`joint_motion`] is `J(q)`, the motion of each joint type.
//! * [`SpanningTree::new`] picks a tree over the joint graph: breadth first from the world
//!   (and from bodies flagged `fixed`), joints in model order; a joint met from its child side
//!   is used **reversed**; bodies with no path to the world become **floating** roots (an
//!   implicit free joint) in model order; every other enabled joint closes a **loop**. An
//!   inactive body ([`Model::active_bodies`](crate::Model::active_bodies)) stays where it is,
//!   like a fixed one, and the joints touching it are left out.
//!   [`SpanningTree::for_dynamics`] is the same tree but for the free joints that close loops
//!   ([`free_joints_closing_loops`]): they constrain nothing, and the tree goes through the
//!   joints that hold the body instead.
//! * [`world_poses`] evaluates forward kinematics in the **reference** configuration (every
//!   tree joint at zero) or the **initial** one (every tree joint at `q0`). Root bodies keep
//!   their stored pose. Loop closures are not solved here (the solver's assembly step does).

use crate::model::joint::{Joint, JointKind};
use crate::model::{BodyRef, Model};
use crate::pose::Pose;
use crate::rotation::{self, rotation_vector};
use nalgebra::{Unit, UnitQuaternion, Vector3};
use std::collections::VecDeque;

pub mod velocity;

/// The motion `J(q)` of a joint: pose of the child joint frame in the parent joint frame.
/// Missing coordinates count as zero.
///
/// ```
/// use mbconv_ir::{kinematics::joint_motion, JointKind};
/// use nalgebra::Vector3;
/// let m = joint_motion(&JointKind::Prismatic { axis: Vector3::x() }, &[0.5]);
/// assert_eq!(m.translation, Vector3::new(0.5, 0.0, 0.0));
/// ```
pub fn joint_motion(kind: &JointKind, q: &[f64]) -> Pose {
    let at = |i: usize| q.get(i).copied().unwrap_or(0.0);
    let rotvec = |i: usize| rotation_vector::to_quaternion([at(i), at(i + 1), at(i + 2)]);
    match kind {
        JointKind::Fixed | JointKind::PseudoContinuousTrack { .. } => Pose::identity(),
        JointKind::Revolute { axis } => Pose::from_rotation(about(axis, at(0))),
        JointKind::Prismatic { axis } => Pose::from_translation(unit(axis) * at(0)),
        JointKind::Screw { axis, pitch } => Pose::new(
            unit(axis) * (at(0) * pitch / (2.0 * std::f64::consts::PI)),
            about(axis, at(0)),
        ),
        JointKind::Universal { axis1, axis2 } => {
            Pose::from_rotation(about(axis1, at(0)) * about(axis2, at(1)))
        }
        JointKind::Spherical => Pose::from_rotation(rotvec(0)),
        JointKind::Euler { order } => {
            Pose::from_rotation(rotation::euler::rotation(*order, [at(0), at(1), at(2)]))
        }
        JointKind::Cylindrical { axis } => Pose::new(unit(axis) * at(0), about(axis, at(1))),
        JointKind::Planar { axis1, axis2 } => {
            let normal = axis1.cross(axis2);
            Pose::new(unit(axis1) * at(0) + unit(axis2) * at(1), about(&normal, at(2)))
        }
        JointKind::Translational => Pose::from_translation(Vector3::new(at(0), at(1), at(2))),
        JointKind::Free => Pose::new(Vector3::new(at(0), at(1), at(2)), rotvec(3)),
        JointKind::PointLine => Pose::new(Vector3::new(at(0), 0.0, 0.0), rotvec(1)),
        JointKind::PointPlane => Pose::new(Vector3::new(at(0), at(1), 0.0), rotvec(2)),
    }
}

/// The unit vector along `v`; zero for a zero axis (validation reports those).
fn unit(v: &Vector3<f64>) -> Vector3<f64> {
    rotation::unit_vector(v).unwrap_or_else(Vector3::zeros)
}

fn about(axis: &Vector3<f64>, angle: f64) -> UnitQuaternion<f64> {
    let n = axis.norm();
    if n > 0.0 && angle != 0.0 {
        UnitQuaternion::from_axis_angle(&Unit::new_unchecked(axis / n), angle)
    } else {
        UnitQuaternion::identity()
    }
}

/// Pose of the child body frame in the parent body frame at coordinates `q`:
/// `parent_frame · J(q) · child_frame⁻¹`.
pub fn relative_pose(joint: &Joint, q: &[f64]) -> Pose {
    joint.parent_frame * joint_motion(&joint.kind, q) * joint.child_frame.inverse()
}

/// How a body is attached in a spanning tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attachment {
    /// Through a tree joint. `parent` is the tree parent body (`None` = world); `reversed` is
    /// true when the body is the joint's *parent* side.
    Joint {
        /// Joint index in `model.joints`.
        joint: usize,
        /// Tree parent body index, `None` for the world.
        parent: Option<usize>,
        /// The joint is traversed from child to parent.
        reversed: bool,
    },
    /// Welded to the world at its stored pose (`fixed: true`).
    Fixed,
    /// No path to the world: an implicit free joint at its stored pose.
    Floating,
}

/// The free joints (indices, in model order) that close loops: a body that has a free joint
/// and is also joined to the world, or to the body at the joint's other end, by other joints
/// (or by a free joint met before). Such a joint allows every motion, so it constrains nothing
/// (as MJCF writes a `<freejoint>` body held by a `<weld>` or `<connect>`). One that sets an
/// initial velocity is not counted (that velocity may be all that starts the body), nor one
/// that acts: a damper, spring, friction, armature or actuator on its coordinates, or a bushing.
///
/// ```
/// use mbconv_ir::{kinematics::free_joints_closing_loops, Body, BodyRef, Joint, JointKind, Model};
/// let mut m = Model::new("held");
/// m.bodies.push(Body::new("beam"));
/// m.joints.push(Joint::new("float", JointKind::Free, BodyRef::World, BodyRef::body("beam")));
/// assert!(free_joints_closing_loops(&m).is_empty(), "the free joint alone holds the beam");
/// m.joints.push(Joint::new("pin", JointKind::Spherical, BodyRef::body("beam"), BodyRef::World));
/// assert_eq!(free_joints_closing_loops(&m), [0]);
/// ```
pub fn free_joints_closing_loops(model: &Model) -> Vec<usize> {
    let n = model.bodies.len();
    let by_name = model.body_indices();
    let active = model.active_bodies();
    // Node of a joint end: a body's index, the world n; None for an unknown or inactive body.
    let node = |r: &BodyRef| match r {
        BodyRef::World => Some(n),
        BodyRef::Body(name) => by_name.get(name.as_str()).copied().filter(|&b| active[b]),
    };
    let mut parent_of: Vec<usize> = (0..=n).collect();
    fn root(parent_of: &mut [usize], mut x: usize) -> usize {
        while parent_of[x] != x {
            parent_of[x] = parent_of[parent_of[x]];
            x = parent_of[x];
        }
        x
    }
    let ends: Vec<Option<(usize, usize)>> = model
        .joints
        .iter()
        .map(|j| match (node(&j.parent), node(&j.child)) {
            (Some(p), Some(c)) if j.enabled && p != c => Some((p, c)),
            _ => None,
        })
        .collect();
    // Every other joint first: a free joint whose ends they (or a free joint kept before it)
    // already join closes a loop.
    for (j, e) in ends.iter().enumerate() {
        if let Some((p, c)) = *e
            && model.joints[j].kind != JointKind::Free
        {
            let (a, b) = (root(&mut parent_of, p), root(&mut parent_of, c));
            parent_of[a] = b;
        }
    }
    let mut closing = Vec::new();
    for (j, e) in ends.iter().enumerate() {
        if let Some((p, c)) = *e
            && model.joints[j].kind == JointKind::Free
        {
            let (a, b) = (root(&mut parent_of, p), root(&mut parent_of, c));
            if a == b && constrains_nothing(&model.joints[j]) {
                closing.push(j);
            } else {
                parent_of[a] = b;
            }
        }
    }
    closing
}

/// True when a free joint closing a loop would do nothing at all: no initial velocity, no law
/// on its coordinates, no actuator, no bushing.
fn constrains_nothing(joint: &Joint) -> bool {
    joint.v0.iter().all(|v| *v == 0.0)
        && joint
            .dofs
            .iter()
            .all(|d| *d == crate::model::joint::DofProperties::default())
        && joint.actuator.is_none()
        && joint.bushing.is_none()
}

/// A spanning tree of a model's joint graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpanningTree {
    /// How each body (by index) is attached.
    pub attachments: Vec<Attachment>,
    /// Body indices, every tree parent before its children.
    pub order: Vec<usize>,
    /// Enabled joints not in the tree: each closes a loop.
    pub loop_joints: Vec<usize>,
    /// Joints left out: disabled, or referring to unknown or inactive bodies, or joining a body
    /// to itself.
    pub ignored_joints: Vec<usize>,
}

impl SpanningTree {
    /// The first tree joint met from its child side (it points towards the root), if any: what
    /// a writer of a tree format cannot say.
    ///
    /// ```
    /// use mbconv_ir::{kinematics::SpanningTree, Body, BodyRef, Joint, JointKind, Model};
    /// let mut m = Model::new("chain");
    /// m.bodies = vec![Body::new("a"), Body::new("b")];
    /// m.joints.push(Joint::new("j1", JointKind::Fixed, BodyRef::World, BodyRef::body("a")));
    /// m.joints.push(Joint::new("j2", JointKind::Fixed, BodyRef::body("b"), BodyRef::body("a")));
    /// assert_eq!(SpanningTree::new(&m).first_reversed_joint(), Some(1));
    /// ```
    pub fn first_reversed_joint(&self) -> Option<usize> {
        self.attachments.iter().find_map(|a| match *a {
            Attachment::Joint {
                joint,
                reversed: true,
                ..
            } => Some(joint),
            _ => None,
        })
    }

    /// Picks the spanning tree described in the module documentation.
    ///
    /// ```
    /// use mbconv_ir::{kinematics::{Attachment, SpanningTree}, Body, BodyRef, Joint, JointKind, Model};
    /// let mut m = Model::new("chain");
    /// m.bodies = vec![Body::new("a"), Body::new("b")];
    /// m.joints.push(Joint::new("j1", JointKind::Fixed, BodyRef::World, BodyRef::body("a")));
    /// m.joints.push(Joint::new("j2", JointKind::Fixed, BodyRef::body("b"), BodyRef::body("a")));
    /// let tree = SpanningTree::new(&m);
    /// assert_eq!(tree.attachments[1], Attachment::Joint { joint: 1, parent: Some(0), reversed: true });
    /// ```
    pub fn new(model: &Model) -> Self {
        Self::without(model, &[])
    }

    /// The tree the dynamics is computed on: [`SpanningTree::new`]'s, but a free joint that
    /// closes a loop ([`free_joints_closing_loops`]) is never a tree joint. The body it floats
    /// is held by other joints; as a tree joint it would put that body first and make the
    /// joints that hold it close the loop, so the tree could end in bodies without mass whose
    /// joints only the loop's rows give inertia (MyoSuite's exosuit: a `<freejoint>` body
    /// welded to a spine whose joints pass through massless bodies), which the articulated-body
    /// algorithm cannot take. The motion is the same either way where both are defined: a free
    /// joint closing a loop has no rows.
    ///
    /// ```
    /// use mbconv_ir::{kinematics::{Attachment, SpanningTree}, Body, BodyRef, Joint, JointKind, Model};
    /// let mut m = Model::new("held");
    /// m.bodies = vec![Body::new("arm"), Body::new("cuff")];
    /// m.joints.push(Joint::new("float", JointKind::Free, BodyRef::World, BodyRef::body("cuff")));
    /// m.joints.push(Joint::new("hinge", JointKind::Revolute { axis: nalgebra::Vector3::y() }, BodyRef::World, BodyRef::body("arm")));
    /// m.joints.push(Joint::new("weld", JointKind::Fixed, BodyRef::body("arm"), BodyRef::body("cuff")));
    /// assert_eq!(SpanningTree::new(&m).loop_joints, [2], "the weld closes the loop");
    /// let tree = SpanningTree::for_dynamics(&m);
    /// assert_eq!(tree.loop_joints, [0], "the free joint closes it");
    /// assert_eq!(tree.attachments[1], Attachment::Joint { joint: 2, parent: Some(0), reversed: false });
    /// ```
    pub fn for_dynamics(model: &Model) -> Self {
        Self::without(model, &free_joints_closing_loops(model))
    }

    /// The tree of [`SpanningTree::new`] with the joints `left_out` (indices) never tree
    /// joints: each enabled one closes a loop (a writer that states some loop-closing joints
    /// otherwise than as joints picks them so).
    ///
    /// ```
    /// use mbconv_ir::{kinematics::{Attachment, SpanningTree}, Body, BodyRef, Joint, JointKind, Model};
    /// let mut m = Model::new("ring");
    /// m.bodies = vec![Body::new("a"), Body::new("b")];
    /// let hinge = JointKind::Revolute { axis: nalgebra::Vector3::z() };
    /// m.joints.push(Joint::new("j1", hinge.clone(), BodyRef::World, BodyRef::body("a")));
    /// m.joints.push(Joint::new("j2", hinge.clone(), BodyRef::World, BodyRef::body("b")));
    /// m.joints.push(Joint::new("j3", hinge, BodyRef::body("a"), BodyRef::body("b")));
    /// assert_eq!(SpanningTree::new(&m).loop_joints, [2]);
    /// let tree = SpanningTree::without(&m, &[1]);
    /// assert_eq!(tree.loop_joints, [1]);
    /// assert_eq!(tree.attachments[1], Attachment::Joint { joint: 2, parent: Some(0), reversed: false });
    /// ```
    pub fn without(model: &Model, left_out: &[usize]) -> Self {
        let n = model.bodies.len();
        let active = model.active_bodies();
        // A joint touching an inactive body is left out like one naming an unknown body.
        let by_name = model.body_indices();
        let index = |r: &BodyRef| -> Option<Option<usize>> {
            match r {
                BodyRef::World => Some(None),
                BodyRef::Body(name) => by_name
                    .get(name.as_str())
                    .copied()
                    .filter(|&b| active[b])
                    .map(Some),
            }
        };
        // Usable edges: (joint, parent node, child node); node None = world.
        let mut edges = Vec::new();
        let mut ignored_joints = Vec::new();
        for (j, joint) in model.joints.iter().enumerate() {
            match (index(&joint.parent), index(&joint.child)) {
                (Some(p), Some(c)) if joint.enabled && p != c => edges.push((j, p, c)),
                _ => ignored_joints.push(j),
            }
        }
        // The usable edges at each node (the world is node n), in joint order: the search
        // visits a node's edges once, so the tree is built in time linear in the model.
        let slot = |node: Option<usize>| node.unwrap_or(n);
        let mut incident: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for (e, &(j, p, c)) in edges.iter().enumerate() {
            if left_out.contains(&j) {
                continue;
            }
            incident[slot(p)].push(e);
            incident[slot(c)].push(e);
        }
        let mut attachments: Vec<Option<Attachment>> = vec![None; n];
        let mut used = vec![false; model.joints.len()];
        let mut order = Vec::with_capacity(n);
        let mut queue: VecDeque<Option<usize>> = VecDeque::new();
        queue.push_back(None);
        for (b, body) in model.bodies.iter().enumerate() {
            if body.fixed || !active[b] {
                attachments[b] = Some(Attachment::Fixed);
                order.push(b);
                queue.push_back(Some(b));
            }
        }
        let mut next_root = 0;
        loop {
            while let Some(node) = queue.pop_front() {
                for &(j, p, c) in incident[slot(node)].iter().map(|&e| &edges[e]) {
                    if used[j] {
                        continue;
                    }
                    let (other, reversed) = if p == node {
                        (c, false)
                    } else if c == node {
                        (p, true)
                    } else {
                        continue;
                    };
                    let Some(other) = other else { continue };
                    if attachments[other].is_some() {
                        continue;
                    }
                    used[j] = true;
                    attachments[other] = Some(Attachment::Joint {
                        joint: j,
                        parent: node,
                        reversed,
                    });
                    order.push(other);
                    queue.push_back(Some(other));
                }
            }
            while next_root < n && attachments[next_root].is_some() {
                next_root += 1;
            }
            if next_root == n {
                break;
            }
            attachments[next_root] = Some(Attachment::Floating);
            order.push(next_root);
            queue.push_back(Some(next_root));
        }
        let loop_joints = edges
            .iter()
            .filter(|(j, ..)| !used[*j])
            .map(|(j, ..)| *j)
            .collect();
        Self {
            attachments: attachments
                .into_iter()
                .map(|a| a.unwrap_or(Attachment::Floating))
                .collect(),
            order,
            loop_joints,
            ignored_joints,
        }
    }

    /// Degrees of freedom of the tree: tree joints' `nv` plus six per floating body.
    pub fn dof(&self, model: &Model) -> usize {
        self.attachments
            .iter()
            .map(|a| match a {
                Attachment::Joint { joint, .. } => model.joints[*joint].kind.nv(),
                Attachment::Fixed => 0,
                Attachment::Floating => 6,
            })
            .sum()
    }

    /// Indices of the tree joints.
    pub fn tree_joints(&self) -> impl Iterator<Item = usize> + '_ {
        self.attachments.iter().filter_map(|a| match a {
            Attachment::Joint { joint, .. } => Some(*joint),
            _ => None,
        })
    }
}

/// Which joint coordinates forward kinematics uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Configuration {
    /// Every tree joint at zero: the configuration body poses are stored in.
    Reference,
    /// Every tree joint at its `q0`.
    Initial,
}

/// World poses of all bodies (by index) in the given configuration.
///
/// ```
/// use mbconv_ir::kinematics::{world_poses, Configuration, SpanningTree};
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model, Pose};
/// use nalgebra::Vector3;
/// let mut m = Model::new("slider");
/// m.bodies.push(Body::new("cart"));
/// let mut j = Joint::new("rail", JointKind::Prismatic { axis: Vector3::x() }, BodyRef::World, BodyRef::body("cart"));
/// j.q0 = vec![2.0];
/// m.joints.push(j);
/// let tree = SpanningTree::new(&m);
/// let poses = world_poses(&m, &tree, Configuration::Initial);
/// assert_eq!(poses[0].translation.x, 2.0);
/// ```
pub fn world_poses(model: &Model, tree: &SpanningTree, configuration: Configuration) -> Vec<Pose> {
    let mut poses: Vec<Pose> = model.bodies.iter().map(|b| b.pose).collect();
    for &b in &tree.order {
        if let Attachment::Joint {
            joint,
            parent,
            reversed,
        } = tree.attachments[b]
        {
            let joint = &model.joints[joint];
            let zeros = vec![0.0; joint.kind.nq()];
            let q = match configuration {
                Configuration::Reference => &zeros,
                Configuration::Initial => &joint.q0,
            };
            let x = relative_pose(joint, q);
            let x = if reversed { x.inverse() } else { x };
            let parent_pose = parent.map_or_else(Pose::identity, |p| poses[p]);
            poses[b] = parent_pose * x;
        }
    }
    poses
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::body::Body;
    use crate::model::group::{Group, GroupType};

    #[test]
    fn inactive_bodies_stay_put_and_their_joints_are_left_out() {
        let mut m = Model::new("m");
        m.bodies = vec![Body::new("a"), Body::new("b"), Body::new("c")];
        let revolute = JointKind::Revolute { axis: Vector3::z() };
        m.joints.push(Joint::new(
            "j0",
            revolute.clone(),
            BodyRef::World,
            BodyRef::body("a"),
        ));
        m.joints.push(Joint::new(
            "j1",
            revolute.clone(),
            BodyRef::body("a"),
            BodyRef::body("b"),
        ));
        m.joints
            .push(Joint::new("j2", revolute, BodyRef::body("b"), BodyRef::body("c")));
        m.bodies[1].enabled = false;
        let tree = SpanningTree::new(&m);
        assert_eq!(tree.attachments[1], Attachment::Fixed);
        assert_eq!(tree.attachments[2], Attachment::Floating);
        assert_eq!(tree.ignored_joints, vec![1, 2]);
        // The same through a disabled assembly.
        m.bodies[1].enabled = true;
        let mut assembly = Group::new("arm", GroupType::Assembly);
        assembly.bodies = vec!["c".into()];
        assembly.enabled = false;
        m.groups.push(assembly);
        let tree = SpanningTree::new(&m);
        assert_eq!(tree.attachments[2], Attachment::Fixed);
        assert_eq!(tree.ignored_joints, vec![2]);
        assert_eq!(tree.dof(&m), 2);
    }
}
