//! How the IR's spanning tree becomes MJCF's nested bodies ([`Plan`]), shared by `lower` and
//! `emit`. MuJoCo puts several joints in one body and refuses moving bodies without mass, so a
//! chain of massless bodies (what the reader makes of a body with several joints, and what
//! chain lowerings make of multi-dof joints) is written as one `<body>` holding the chain's
//! joints, each re-expressed in the body's frame (exactly: MuJoCo composes a body's joints in
//! order, each in the frame the joints before it moved).

use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::{Body, JointKind, Model, Pose};

/// The most degrees of freedom MuJoCo puts in one body.
const MAX_BODY_DOFS: usize = 6;

/// How a lowered model's bodies nest in MJCF.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The IR spanning tree.
    pub tree: SpanningTree,
    /// Bodies written as joints of a descendant `<body>` (massless links of a chain).
    pub merged: Vec<bool>,
    /// Per written body: the tree joints it holds, outermost first.
    pub chain: Vec<Vec<usize>>,
    /// Per written body: its MJCF parent body (`None`: the world).
    pub parent: Vec<Option<usize>>,
    /// Per body: its written MJCF children, in tree order; the last entry is the world's.
    pub children: Vec<Vec<usize>>,
}

/// A body that MJCF can hold as joints of its one tree child: massless, without shapes or
/// frames, not fixed.
fn is_link(b: &Body) -> bool {
    !b.fixed
        && b.inertial.mass == 0.0
        && b.inertial.inertia.0.iter().flatten().all(|x| *x == 0.0)
        && b.shapes.is_empty()
        && b.frames.is_empty()
}

/// MuJoCo's test of a moving body's own mass properties (measured on MuJoCo 4.0): a mass and
/// three principal moments above [`super::MJ_MINVAL`], the moments as its compiler decomposes
/// the tensor. Masses and moments of different bodies are never combined.
pub(crate) fn weighs_on_its_own(body: &Body) -> bool {
    body.inertial.mass > super::MJ_MINVAL && smallest_moment(&body.inertial) > super::MJ_MINVAL
}

/// The smallest principal moment of `inertial` (kg m²), as MuJoCo's compiler decomposes it.
pub(crate) fn smallest_moment(inertial: &mbconv_ir::Inertial) -> f64 {
    let m = inertial.inertia_in_body_axes();
    let (moments, _) =
        crate::spec::arith::eig3(&[m[(0, 0)], m[(1, 1)], m[(2, 2)], m[(0, 1)], m[(0, 2)], m[(1, 2)]]);
    moments.into_iter().fold(f64::INFINITY, f64::min)
}

/// Joint kinds one MJCF body can hold several of.
fn chains(kind: &JointKind) -> bool {
    matches!(
        kind,
        JointKind::Revolute { .. } | JointKind::Prismatic { .. } | JointKind::Spherical | JointKind::Fixed
    )
}

/// The spanning tree MJCF nests bodies by: [`SpanningTree::new`]'s, except that joints read
/// from `<equality>` (extra `mjcf.equality`) join the tree only where nothing else reaches a
/// body, so that they close the loops (MJCF closes loops by equalities; a hinge cannot).
pub(crate) fn tree(model: &Model) -> SpanningTree {
    let first = SpanningTree::new(model);
    let late: Vec<usize> = (0..model.joints.len())
        .filter(|&j| model.joints[j].extras.get("mjcf.equality").is_some())
        .collect();
    if late.is_empty() {
        return first;
    }
    // The tree without them, then each put back only if it reaches a body still floating.
    let mut without = model.clone();
    for &j in &late {
        without.joints[j].enabled = false;
    }
    let mut tree = SpanningTree::new(&without);
    for &j in &late {
        if !model.joints[j].enabled {
            continue;
        }
        let floating: Vec<bool> = tree
            .attachments
            .iter()
            .map(|a| *a == Attachment::Floating)
            .collect();
        let ends = [&model.joints[j].parent, &model.joints[j].child]
            .map(|r| r.name().and_then(|n| model.body_index(n)));
        if ends.iter().flatten().any(|&b| floating[b]) {
            without.joints[j].enabled = true;
            tree = SpanningTree::new(&without);
        }
    }
    // Joints left out only by this choice close loops.
    for &j in &late {
        if model.joints[j].enabled && tree.ignored_joints.contains(&j) {
            tree.ignored_joints.retain(|&x| x != j);
            tree.loop_joints.push(j);
        }
    }
    tree.loop_joints.sort_unstable();
    tree
}

impl Plan {
    /// The nesting of `model` (lowered: tree joints point away from the root).
    pub(crate) fn new(model: &Model) -> Plan {
        let tree = tree(model);
        let n = model.bodies.len();
        let mut tree_children = vec![Vec::new(); n];
        let tree_parent: Vec<Option<usize>> = tree
            .attachments
            .iter()
            .map(|a| match a {
                Attachment::Joint { parent, .. } => *parent,
                _ => None,
            })
            .collect();
        for &b in &tree.order {
            if let Some(p) = tree_parent[b] {
                tree_children[p].push(b);
            }
        }
        // Bodies other joints (loops, switched-off equalities) name must stay bodies.
        let mut named = vec![false; n];
        let tree_joints: std::collections::HashSet<usize> = tree.tree_joints().collect();
        for (j, joint) in model.joints.iter().enumerate() {
            if tree_joints.contains(&j) {
                continue;
            }
            for r in [&joint.parent, &joint.child] {
                if let Some(i) = r.name().and_then(|x| model.body_index(x)) {
                    named[i] = true;
                }
            }
        }
        let joint_of = |b: usize| match tree.attachments[b] {
            Attachment::Joint { joint, .. } => Some(joint),
            _ => None,
        };
        let candidate: Vec<bool> = (0..n)
            .map(|b| {
                let Some(j) = joint_of(b) else { return false };
                // A welded massless body is a body MuJoCo takes as it is.
                model.joints[j].kind != JointKind::Fixed
                    && is_link(&model.bodies[b])
                    && !named[b]
                    && tree_children[b].len() == 1
                    && chains(&model.joints[j].kind)
                    && joint_of(tree_children[b][0]).is_some_and(|c| chains(&model.joints[c].kind))
            })
            .collect();
        // A chain is merged only into a body that moves some mass of its own or below it. A
        // massless chain over nothing but massless bodies gets MuJoCo's mass floor either way,
        // and on one body holding all the chain's joints the floor makes the joint-space
        // inertia singular wherever the joint axes line up (a straight arm): each link then
        // stays a body and gets its own floor.
        let mut carries_mass: Vec<bool> = model.bodies.iter().map(weighs_on_its_own).collect();
        for &b in tree.order.iter().rev() {
            if carries_mass[b]
                && let Some(p) = tree_parent[b]
            {
                carries_mass[p] = true;
            }
        }
        let mut merged = vec![false; n];
        let mut chain = vec![Vec::new(); n];
        let mut parent = vec![None; n];
        for &b in tree.order.iter().rev() {
            if merged[b] {
                continue;
            }
            let mut joints: Vec<usize> = joint_of(b).into_iter().collect();
            let mut dofs: usize = joints.iter().map(|&j| model.joints[j].kind.nv()).sum();
            let mut up = tree_parent[b];
            let own_chains = carries_mass[b]
                && joint_of(b).is_some_and(|j| {
                    chains(&model.joints[j].kind) && model.joints[j].kind != JointKind::Fixed
                });
            while own_chains && let Some(p) = up {
                let Some(pj) = joint_of(p) else { break };
                let extra = model.joints[pj].kind.nv();
                if !candidate[p] || merged[p] || dofs + extra > MAX_BODY_DOFS {
                    break;
                }
                merged[p] = true;
                joints.insert(0, pj);
                dofs += extra;
                up = tree_parent[p];
            }
            chain[b] = joints;
            parent[b] = up;
        }
        let mut children = vec![Vec::new(); n + 1];
        for &b in &tree.order {
            if !merged[b] {
                children[parent[b].unwrap_or(n)].push(b);
            }
        }
        Plan {
            tree,
            merged,
            chain,
            parent,
            children,
        }
    }

    /// Written body `b` and the written bodies welded to it (no joint between): MuJoCo weighs a
    /// moving body together with them.
    pub(crate) fn welded_group(&self, model: &Model, b: usize) -> Vec<usize> {
        let mut group = vec![b];
        let mut k = 0;
        while k < group.len() {
            for &c in &self.children[group[k]] {
                if !self.moves(model, c) {
                    group.push(c);
                }
            }
            k += 1;
        }
        group
    }

    /// The joint that moves written body `b` in MuJoCo's sense, if any: the first joint that is
    /// not a weld on its path to the world (its own chain, then its MJCF ancestors'). A body
    /// without one is static (MuJoCo's `weldid` 0: welded to the world), the only kind of
    /// body MuJoCo allows a plane geom on ("plane only allowed in static bodies").
    pub(crate) fn moved_by(&self, model: &Model, b: usize) -> Option<usize> {
        // A merged link is a joint of the body below it (never a weld).
        if self.merged[b]
            && let Attachment::Joint { joint, .. } = self.tree.attachments[b]
        {
            return Some(joint);
        }
        let mut at = Some(b);
        while let Some(c) = at {
            if let Some(&j) = self.chain[c]
                .iter()
                .find(|&&j| model.joints[j].kind != JointKind::Fixed)
            {
                return Some(j);
            }
            at = self.parent[c];
        }
        None
    }

    /// True when written body `b` moves against its MJCF parent (it holds a joint that is not
    /// a weld): MuJoCo then needs its mass and principal moments above [`super::MJ_MINVAL`].
    pub(crate) fn moves(&self, model: &Model, b: usize) -> bool {
        !self.merged[b]
            && self.chain[b]
                .iter()
                .any(|&j| model.joints[j].kind != JointKind::Fixed)
    }
}

/// The frames of a body's joints in the body frame: joint `k` of the chain acts as
/// `E_k · J_k(q) · E_k⁻¹` on the body, `E_k = (P_{k+1} C_{k+1}⁻¹ ⋯ P_n C_n⁻¹)⁻¹ · C_k`.
pub(crate) fn joint_frames(model: &Model, chain: &[usize]) -> Vec<Pose> {
    let mut after = Pose::identity();
    let mut frames = vec![Pose::identity(); chain.len()];
    for (k, &j) in chain.iter().enumerate().rev() {
        let joint = &model.joints[j];
        frames[k] = after.inverse() * joint.child_frame;
        after = joint.parent_frame * joint.child_frame.inverse() * after;
    }
    frames
}
