//! Which ball joints the writer states as Drake's `<drake:ball_constraint>` under `loops=drake`.
//!
//! Drake refuses an SDFormat model whose joints form a loop, and its only way to close one is a
//! ball constraint. The spanning tree mbconv keeps ([`SpanningTree::new`], breadth first) may
//! cut a loop at a hinge while a ball joint sits elsewhere on the same loop (Cassie's heel
//! spring hangs from its Achilles rod through a ball joint, one body nearer the pelvis than
//! through its tarsus): then the ball joint is taken as the cut instead, and the hinge becomes a
//! joint of the tree the file states. A loop with no ball joint stays closed by a joint (Drake
//! refuses it, as the writer's `loop_as_joint` note says).

use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::{JointKind, Model};

/// The joints of `model` to write as ball constraints: for every loop of the spanning tree,
/// its closing joint when that is a ball joint, else a ball joint of the tree on the loop
/// (the writer then reverses the joints of the tree the file states that point towards its
/// root). Where swapping cuts would split a tree, only the loop-closing ball joints are taken.
pub(crate) fn ball_cuts(model: &Model) -> Vec<usize> {
    let tree = SpanningTree::new(model);
    let is_ball = |j: usize| model.joints[j].kind == JointKind::Spherical;
    let closing = closing_ball_joints(model, &tree);
    let mut cuts = closing.clone();
    for &l in tree.loop_joints.iter().filter(|&&l| !is_ball(l)) {
        let joint = &model.joints[l];
        let node = |r: &mbconv_ir::BodyRef| r.name().and_then(|n| model.body_index(n));
        if let Some(swap) = tree_path(&tree, node(&joint.child), node(&joint.parent))
            .into_iter()
            .find(|&j| is_ball(j) && !cuts.contains(&j))
        {
            cuts.push(swap);
        }
    }
    if cuts.len() > closing.len() && roots(&SpanningTree::without(model, &cuts)) != roots(&tree) {
        return closing;
    }
    cuts.sort_unstable();
    cuts
}

/// The ball joints that close loops of `tree`, the spanning tree of `model`.
pub(crate) fn closing_ball_joints(model: &Model, tree: &SpanningTree) -> Vec<usize> {
    tree.loop_joints
        .iter()
        .copied()
        .filter(|&j| model.joints[j].kind == JointKind::Spherical)
        .collect()
}

/// The joints the writer states as ball constraints in a lowered model, with the tree the file
/// then states ([`SpanningTree::without`] them): [`ball_cuts`] when the lowering reversed the
/// joints of that tree (none points towards its root), else [`closing_ball_joints`] (the
/// lowering gave the swap up).
pub(crate) fn written_cuts(model: &Model) -> (Vec<usize>, SpanningTree) {
    let cuts = ball_cuts(model);
    let stated = SpanningTree::without(model, &cuts);
    if stated.first_reversed_joint().is_none() {
        return (cuts, stated);
    }
    let closing = closing_ball_joints(model, &SpanningTree::new(model));
    let stated = SpanningTree::without(model, &closing);
    (closing, stated)
}

/// How many trees float (have no joint to the world).
fn roots(tree: &SpanningTree) -> usize {
    tree.attachments
        .iter()
        .filter(|a| **a == Attachment::Floating)
        .count()
}

/// The tree joints between nodes `a` and `b` (bodies; `None` the world), from `a`'s side
/// first; empty when they are in different trees.
fn tree_path(tree: &SpanningTree, a: Option<usize>, b: Option<usize>) -> Vec<usize> {
    let up = |mut node: Option<usize>| {
        let mut chain = vec![(node, None)];
        while let Some(body) = node {
            match tree.attachments[body] {
                Attachment::Joint { joint, parent, .. } => {
                    if let Some(last) = chain.last_mut() {
                        last.1 = Some(joint);
                    }
                    chain.push((parent, None));
                    node = parent;
                }
                // A fixed body hangs from the world; a floating one roots its own tree.
                Attachment::Fixed => {
                    chain.push((None, None));
                    node = None;
                }
                Attachment::Floating => node = None,
            }
        }
        chain
    };
    let (from_a, from_b) = (up(a), up(b));
    let Some(meet) = from_a
        .iter()
        .position(|(n, _)| from_b.iter().any(|(m, _)| m == n))
    else {
        return Vec::new();
    };
    let meet_node = from_a[meet].0;
    let mut path: Vec<usize> = from_a[..meet].iter().filter_map(|(_, j)| *j).collect();
    path.extend(
        from_b
            .iter()
            .take_while(|(n, _)| *n != meet_node)
            .filter_map(|(_, j)| *j),
    );
    path
}
