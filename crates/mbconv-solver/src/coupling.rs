//! Which velocity coordinates can act on each other's accelerations: the model's coupled
//! components.
//!
//! A coordinate's acceleration depends on the coordinates of its own kinematic tree (the mass
//! matrix couples a tree) and on those of every tree a force element or a constraint row ties
//! to it; coordinates of two components never appear in each other's equations of motion. The
//! Jacobian of the dynamics is therefore block-diagonal over the components (after ordering the
//! coordinates by component), which the stiff integrator uses twice: one evaluation of the
//! dynamics perturbs a coordinate of every component at once (the Curtis–Powell–Reid grouping
//! of finite-difference columns), and each component's block is factorised on its own.
//!
//! The components come from the model's structure (joints, force elements, constraint rows),
//! not from numbers, so a coupling that is momentarily zero (a spring at rest) still counts.

use crate::model::Model;

/// The coupled components of a model: each a list of velocity coordinates, ascending; the
/// components ordered by their first coordinate. A model that is one tree is one component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Components {
    pub(crate) coordinates: Vec<Vec<usize>>,
}

impl Components {
    /// The components of `model`.
    pub(crate) fn of(model: &Model) -> Self {
        let mut sets = DisjointSets::new(model.nodes.len());
        for (node, link) in model.nodes.iter().enumerate() {
            if let Some(parent) = link.parent {
                sets.join(node, parent);
            }
        }
        let tied = model
            .forces
            .elements
            .iter()
            .map(|e| e.coupled_links())
            .chain(model.constraints.rows.iter().map(|r| r.coupled_links()));
        for pair in tied {
            if let [Some(a), Some(b)] = pair {
                sets.join(a, b);
            }
        }
        let mut slot_of_root = vec![usize::MAX; model.nodes.len()];
        let mut coordinates: Vec<Vec<usize>> = Vec::new();
        for (node, link) in model.nodes.iter().enumerate() {
            let nv = link.joint.nv();
            if nv == 0 {
                continue;
            }
            let root = sets.root(node);
            if slot_of_root[root] == usize::MAX {
                slot_of_root[root] = coordinates.len();
                coordinates.push(Vec::new());
            }
            coordinates[slot_of_root[root]].extend(link.v_index..link.v_index + nv);
        }
        for component in &mut coordinates {
            component.sort_unstable();
        }
        coordinates.sort_unstable_by_key(|c| c[0]);
        Self { coordinates }
    }
}

/// Union–find over `0..n` (path halving, union by size).
struct DisjointSets {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl DisjointSets {
    fn new(n: usize) -> Self {
        Self {
            parent: (0..n).collect(),
            size: vec![1; n],
        }
    }

    fn root(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn join(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.root(a), self.root(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a;
        self.size[a] += self.size[b];
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use mbconv_ir::{
        Body, BodyRef, ForceElement, ForceKind, Joint, JointKind, Model as Ir, Pose, SpringDamperLaw, Tsda,
    };
    use nalgebra::Vector3;

    fn pendulum(ir: &mut Ir, name: &str, x: f64) {
        let mut bob = Body::new(name);
        bob.pose = Pose::from_translation(Vector3::new(x, 0.0, 0.0));
        bob.inertial.com = Vector3::new(0.0, 0.0, -1.0);
        ir.bodies.push(bob);
        let mut pivot = Joint::new(
            format!("{name}_pivot"),
            JointKind::Revolute { axis: Vector3::y() },
            BodyRef::World,
            BodyRef::body(name),
        );
        pivot.parent_frame = Pose::from_translation(Vector3::new(x, 0.0, 0.0));
        ir.joints.push(pivot);
    }

    #[test]
    fn separate_trees_are_separate_components_until_a_spring_ties_them() {
        let mut ir = Ir::new("two pendulums");
        pendulum(&mut ir, "a", 0.0);
        pendulum(&mut ir, "b", 2.0);
        let model = Model::new(&ir).unwrap();
        assert_eq!(Components::of(&model).coordinates, vec![vec![0], vec![1]]);

        ir.force_elements.push(ForceElement {
            name: "spring".into(),
            kind: ForceKind::Tsda(Tsda {
                body1: BodyRef::body("a"),
                point1: Vector3::zeros(),
                body2: BodyRef::body("b"),
                point2: Vector3::zeros(),
                free_length: 2.0,
                preload: 0.0,
                law: SpringDamperLaw::Linear {
                    stiffness: Some(10.0),
                    damping: None,
                },
                min_length: None,
                max_length: None,
                visualization: None,
            }),
            extras: Default::default(),
        });
        let model = Model::new(&ir).unwrap();
        assert_eq!(Components::of(&model).coordinates, vec![vec![0, 1]]);
    }
}
