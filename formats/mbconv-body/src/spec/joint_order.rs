//! The order of a body's joints as Choreonoid numbers them (`Body::joint(i)`), which is the order
//! of a project's `joint_displacements`: first the joints with a `joint_id`, by id (a gap is an
//! empty joint that holds a number and moves nothing), then every other link that is not fixed,
//! in link-tree order (depth first from the root, children in file order; the root link never
//! counts as such a joint).

use mbconv_ir::{JointKind, Model};
use std::collections::HashMap;

/// For every slot of Choreonoid's joint list, the index in `model.joints` of the joint it
/// holds (`None`: an id nobody uses). The model is a body as mbconv reads or writes one: one
/// joint per body from its parent, bodies in file order, one root joint from the world. (A
/// root, an arm with `joint_id: 1` and a hand on it with no id give `[None, arm, hand]`; see
/// the unit test.)
pub(crate) fn joint_slots(model: &Model) -> Vec<Option<usize>> {
    let body_index: HashMap<&str, usize> = model
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i))
        .collect();
    // The first joint each body is the child of, as the writer pairs them.
    let mut joint_of: Vec<Option<usize>> = vec![None; model.bodies.len()];
    for (j, joint) in model.joints.iter().enumerate() {
        if let Some(&b) = joint.child.name().and_then(|n| body_index.get(n))
            && joint_of[b].is_none()
        {
            joint_of[b] = Some(j);
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); model.bodies.len()];
    let mut roots = Vec::new();
    for (b, joint) in joint_of.iter().enumerate() {
        let parent = joint
            .and_then(|j| model.joints[j].parent.name())
            .and_then(|p| body_index.get(p).copied());
        match parent {
            Some(p) if p != b => children[p].push(b),
            _ => roots.push(b),
        }
    }
    let Some(&root) = roots.first() else {
        return Vec::new();
    };
    let mut by_id: Vec<Option<usize>> = Vec::new();
    let mut virtual_joints = Vec::new();
    let mut stack = vec![root];
    let mut first = true;
    while let Some(b) = stack.pop() {
        stack.extend(children[b].iter().rev());
        let Some(j) = joint_of[b] else {
            first = false;
            continue;
        };
        let joint = &model.joints[j];
        match joint.joint_id {
            Some(id) if id >= 0 => {
                let id = usize::try_from(id).unwrap_or(usize::MAX);
                if id < 1 << 16 {
                    if by_id.len() <= id {
                        by_id.resize(id + 1, None);
                    }
                    if by_id[id].is_none() {
                        by_id[id] = Some(j);
                    }
                }
            }
            _ if !first && !matches!(joint.kind, JointKind::Fixed) => virtual_joints.push(j),
            _ => {}
        }
        first = false;
    }
    by_id.extend(virtual_joints.into_iter().map(Some));
    by_id
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbconv_ir::{Body, BodyRef, Joint};
    use nalgebra::Vector3;

    fn link(model: &mut Model, name: &str, parent: Option<&str>, kind: JointKind, id: Option<i64>) {
        model.bodies.push(Body::new(name));
        let parent = parent.map_or(BodyRef::World, BodyRef::body);
        let mut joint = Joint::new(name, kind, parent, BodyRef::body(name));
        joint.joint_id = id;
        model.joints.push(joint);
    }

    #[test]
    fn ids_first_then_the_other_moving_links_in_tree_order() {
        let hinge = || JointKind::Revolute { axis: Vector3::z() };
        let mut m = Model::new("m");
        link(&mut m, "base", None, JointKind::Free, None);
        link(&mut m, "a", Some("base"), hinge(), Some(2));
        link(&mut m, "a1", Some("a"), hinge(), None);
        link(&mut m, "b", Some("base"), hinge(), Some(0));
        link(&mut m, "weld", Some("b"), JointKind::Fixed, None);
        link(&mut m, "b1", Some("b"), hinge(), None);
        // base, a, a1, b, weld, b1: ids 0 (b), 1 (gap), 2 (a); then a1 and b1.
        assert_eq!(m.joints[3].name, "b");
        assert_eq!(joint_slots(&m), vec![Some(3), None, Some(1), Some(2), Some(5)]);
    }
}
