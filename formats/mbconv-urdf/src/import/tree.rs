//! The links' tree: each link's parent joint (one tree over the links, from one root or
//! from the world, or an error naming the link), the link frames composed from the root, and
//! what holds the root (the `root` setting: URDF does not say).

use super::{JointEntry, LinkEntry, Links, Reader};
use crate::raw::URDF;
use crate::spec;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, path};
use mbconv_ir::{Body, Pose};
use mbconv_xml::{Node, child, span_of_attribute};

/// What holds a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Parent {
    /// Nothing: the root link.
    Root,
    /// A joint from the world.
    World,
    /// A joint from this link.
    Link(usize),
}

/// Each link's parent, with the index of the joint that holds it (`None` for the root).
pub(super) type Tree = Vec<(Parent, Option<usize>)>;

impl Reader<'_> {
    /// Checks the joints make a tree over the links (each link at most one parent, every
    /// link reached from one root or from the world) and returns each link's parent.
    pub(super) fn tree(&mut self, links: &Links, joints: &[JointEntry]) -> SourceResult<Tree> {
        let parent = self.parents(links, joints)?;
        self.check_one_tree(&links.entries, joints, &parent)?;
        Ok(parent
            .iter()
            .map(|p| p.map_or((Parent::Root, None), |(p, j)| (p, Some(j))))
            .collect())
    }

    /// Each link's parent and the joint that holds it, as the joints name them (`None` for a
    /// link no joint holds); an unknown link, the world as a child, a joint from a link to
    /// itself and a second parent are errors.
    fn parents(
        &mut self,
        links: &Links,
        joints: &[JointEntry],
    ) -> SourceResult<Vec<Option<(Parent, usize)>>> {
        let src = self.source;
        let mut parent: Vec<Option<(Parent, usize)>> = vec![None; links.entries.len()];
        let mut implicit_world = false;
        // An error at the `link` of a joint's <parent> or <child>.
        let link_error = |element: Node, code: &str, message: String| {
            URDF.error(src, code, Some(span_of_attribute(src, element, "link")), message)
        };
        for (j, entry) in joints.iter().enumerate() {
            let child_element = child(entry.node, "child").unwrap_or(entry.node);
            let parent_element = child(entry.node, "parent").unwrap_or(entry.node);
            if entry.child == spec::WORLD {
                return Err(link_error(
                    child_element,
                    "world_child",
                    format!(
                        "joint {:?} has the world as its child: the world has no parent",
                        entry.joint.name
                    ),
                ));
            }
            let Some(&c) = links.index.get(&entry.child) else {
                return Err(link_error(
                    child_element,
                    "unknown_link",
                    format!(
                        "child link {:?} of joint {:?} not found",
                        entry.child, entry.joint.name
                    ),
                ));
            };
            let p = if entry.parent == spec::WORLD {
                if links.world.is_none() && !implicit_world {
                    implicit_world = true;
                    self.warn(
                        "world_undeclared",
                        Category::Note,
                        &path::item("joints", &entry.joint.name),
                        parent_element,
                        "the parent link \"world\" is not declared: read as the world, as Drake reads it; urdfdom (Pinocchio, DART) refuses the file (add <link name=\"world\"/>)",
                    );
                }
                Parent::World
            } else {
                match links.index.get(&entry.parent) {
                    Some(&p) => Parent::Link(p),
                    None => {
                        return Err(link_error(
                            parent_element,
                            "unknown_link",
                            format!(
                                "parent link {:?} of joint {:?} not found",
                                entry.parent, entry.joint.name
                            ),
                        ));
                    }
                }
            };
            if p == Parent::Link(c) {
                return Err(link_error(
                    child_element,
                    "loop",
                    format!(
                        "joint {:?} joins link {:?} to itself",
                        entry.joint.name, entry.child
                    ),
                ));
            }
            if let Some((_, first)) = parent[c] {
                return Err(link_error(
                    child_element,
                    "multi_parent",
                    format!(
                        "link {:?} has two parent joints, {:?} and {:?}: a kinematic loop, which URDF cannot describe (every URDF loader refuses it)",
                        entry.child, joints[first].joint.name, entry.joint.name
                    ),
                ));
            }
            parent[c] = Some((p, j));
        }
        Ok(parent)
    }

    /// One root, and every link reaching it or the world (a link on a cycle never does).
    fn check_one_tree(
        &self,
        links: &[LinkEntry],
        joints: &[JointEntry],
        parent: &[Option<(Parent, usize)>],
    ) -> SourceResult<()> {
        let src = self.source;
        let roots: Vec<usize> = (0..links.len()).filter(|&i| parent[i].is_none()).collect();
        if roots.len() > 1 {
            let names: Vec<&str> = roots.iter().map(|&i| links[i].body.name.as_str()).collect();
            return Err(URDF.error(
                src,
                "roots",
                Some(self.span(links[roots[1]].node)),
                format!(
                    "more than one root link ({}): the links do not form one tree (urdfdom refuses it)",
                    names.join(", ")
                ),
            ));
        }
        let result: Vec<Parent> = parent
            .iter()
            .map(|p| p.map_or(Parent::Root, |(p, _)| p))
            .collect();
        // Every link must reach the root or the world; a link on a cycle never does.
        for start in 0..links.len() {
            let mut at = start;
            let mut steps = 0;
            while let Parent::Link(p) = result[at] {
                at = p;
                steps += 1;
                if steps > links.len() {
                    let (_, j) = parent[start].unwrap_or((Parent::Root, 0));
                    return Err(URDF.error(
                        src,
                        "loop",
                        Some(self.span(joints[j].node)),
                        format!(
                            "link {:?} is on a cycle of joints: URDF describes trees (urdfdom finds no root)",
                            links[start].body.name
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The root: URDF does not say what holds it. Welded to the world with `root=fixed` (the
    /// default), free with `root=free`; noted either way.
    pub(super) fn hold_root(
        &mut self,
        links: &[LinkEntry],
        tree: &Tree,
        bodies: &mut [Body],
        free_root: bool,
        root_given: bool,
    ) {
        for (i, entry) in links.iter().enumerate() {
            if tree[i].0 != Parent::Root {
                continue;
            }
            let at = path::item("bodies", &bodies[i].name);
            let category = if root_given {
                Category::Note
            } else {
                Category::Defaulted
            };
            if free_root {
                self.note(
                    "root",
                    category,
                    &at,
                    entry.node,
                    format!(
                        "root link {:?} is free (root=free, as DART and Drake load it; Pinocchio and MuJoCo weld it: root=fixed)",
                        entry.body.name
                    ),
                );
            } else {
                bodies[i].fixed = true;
                self.note(
                    "root",
                    category,
                    &at,
                    entry.node,
                    format!(
                        "root link {:?} is welded to the world (root=fixed, the default, as Pinocchio and MuJoCo load it; DART and Drake make it free: root=free)",
                        entry.body.name
                    ),
                );
            }
        }
    }
}

/// Each link frame is its joint's origin composed from the root.
pub(super) fn place_bodies(bodies: &mut [Body], tree: &Tree, joints: &[JointEntry]) {
    let mut poses: Vec<Option<Pose>> = vec![None; bodies.len()];
    for i in 0..bodies.len() {
        let mut chain = Vec::new();
        let mut at = i;
        let mut pose = loop {
            if let Some(pose) = poses[at] {
                break pose;
            }
            chain.push(at);
            match tree[at].0 {
                Parent::Root | Parent::World => break Pose::identity(),
                Parent::Link(p) => at = p,
            }
        };
        for &link in chain.iter().rev() {
            pose = match tree[link] {
                (Parent::Root, _) => Pose::identity(),
                (_, Some(j)) => pose * joints[j].joint.parent_frame,
                (_, None) => pose,
            };
            poses[link] = Some(pose);
        }
    }
    for (body, pose) in bodies.iter_mut().zip(&poses) {
        body.pose = pose.unwrap_or_default();
    }
}
