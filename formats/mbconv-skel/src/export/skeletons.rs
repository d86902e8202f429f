//! Which bodies go into which `<skeleton>`: IR skeleton groups first, then one skeleton per
//! connected tree for the bodies outside them, named after the tree's root body.

use super::skel_name;
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::{Extras, GroupType, Model, Pose};
use std::collections::{BTreeSet, HashMap};

/// One skeleton to write.
pub(super) struct SkeletonPlan {
    /// The SKEL name.
    pub(super) name: String,
    /// The skeleton frame, when the group has one.
    pub(super) pose: Option<Pose>,
    /// DART's `mobile` flag.
    pub(super) mobile: bool,
    /// The group's extras (`None`: no IR group stands behind this skeleton).
    pub(super) extras: Option<Extras>,
    /// Body indices, in writing order.
    pub(super) bodies: Vec<usize>,
}

/// Splits the bodies into skeletons: IR skeleton groups first (a body listed twice stays in
/// the first), then one per tree of the bodies left, in body order.
pub(super) fn plan(model: &Model, tree: &SpanningTree) -> Vec<SkeletonPlan> {
    let mut assigned: Vec<Option<usize>> = vec![None; model.bodies.len()];
    let mut plans: Vec<SkeletonPlan> = Vec::new();
    for g in model
        .groups
        .iter()
        .filter(|g| g.group_type == GroupType::Skeleton)
    {
        let mut bodies = Vec::new();
        for name in &g.bodies {
            if let Some(i) = model.body_index(name)
                && assigned[i].is_none()
            {
                assigned[i] = Some(plans.len());
                bodies.push(i);
            }
        }
        plans.push(SkeletonPlan {
            name: skel_name(&g.name, &g.extras).to_owned(),
            pose: g.pose,
            mobile: g.mobile,
            extras: Some(g.extras.clone()),
            bodies,
        });
    }
    let mut root_of = vec![0usize; model.bodies.len()];
    for &b in &tree.order {
        root_of[b] = match tree.attachments[b] {
            Attachment::Joint { parent: Some(p), .. } => root_of[p],
            _ => b,
        };
    }
    let mut by_root: HashMap<usize, usize> = HashMap::new();
    let mut taken: BTreeSet<String> = plans.iter().map(|p| p.name.clone()).collect();
    for b in 0..model.bodies.len() {
        if assigned[b].is_some() {
            continue;
        }
        let root = root_of[b];
        let plan = *by_root.entry(root).or_insert_with(|| {
            let root_name = &model.bodies[root].name;
            let mut name = root_name.clone();
            let mut n = 2;
            while taken.contains(&name) {
                name = format!("{root_name}#{n}");
                n += 1;
            }
            taken.insert(name.clone());
            plans.push(SkeletonPlan {
                name,
                pose: None,
                mobile: true,
                extras: None,
                bodies: Vec::new(),
            });
            plans.len() - 1
        });
        assigned[b] = Some(plan);
        plans[plan].bodies.push(b);
    }
    plans
}
