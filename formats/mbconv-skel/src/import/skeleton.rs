//! Assembling one `<skeleton>`: its group, the bodies DART creates, the joints it keeps (one
//! parent joint per body), the implicit free root joints, joint frames from the body poses and
//! DART-order coordinates turned into the IR's.

use super::body::BodyEntry;
use super::joint::JointEntry;
use super::{Importer, keep_aid};
use crate::raw::{self, children, elements};
use crate::spec::verbatim::element_value;
use crate::spec::{FREE_DART_ORDER, INIT_VEL_AID, NAME, TRANSFORMATION_AID, plain_dof, velocity};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::kinematics::relative_pose;
use mbconv_ir::report::path;
use mbconv_ir::{Body, BodyRef, Category, Group, GroupType, Joint, JointKind, Pose, Severity, Value};
use roxmltree::Node;
use std::collections::HashMap;

/// The skeleton being read: its SKEL name, its IR group and where that group is.
struct SkeletonHeader {
    original: String,
    group: Group,
    path: String,
    pose: Pose,
}

/// A joint DART keeps, with the indices of its child and parent bodies (`None`: the world).
struct PlacedJoint<'a, 'i> {
    entry: JointEntry<'a, 'i>,
    child: usize,
    parent: Option<usize>,
}

/// Which bodies have a parent joint and which are the parent of one.
struct Topology<'a, 'i> {
    joints: Vec<PlacedJoint<'a, 'i>>,
    has_parent_joint: Vec<bool>,
    is_parent: Vec<bool>,
}

impl Topology<'_, '_> {
    /// DART creates a body only when it is the parent or the child of a joint.
    fn creates(&self, body: usize) -> bool {
        self.has_parent_joint[body] || self.is_parent[body]
    }
}

impl Importer<'_> {
    /// Reads one `<skeleton>` into a group, its bodies and its joints.
    pub(super) fn skeleton(&mut self, node: Node) -> SourceResult<()> {
        let mut header = self.skeleton_header(node)?;
        let bodies = self.skeleton_bodies(node, &header)?;
        let topology = self.skeleton_topology(node, &header, &bodies)?;
        if topology.joints.is_empty() && !bodies.is_empty() {
            self.note(
                "skel.skeleton_without_joints",
                Severity::Warning,
                Category::Dropped,
                header.path.clone(),
                Some(node),
                format!(
                    "skeleton {:?} has bodies but no joints: DART 6.20 crashes on it; mbconv drops its bodies",
                    header.original
                ),
            );
        }
        let names = self.created_body_names(&bodies, &topology, &header);
        let mut joints = self.implicit_root_joints(&bodies, &topology, &names, &mut header);
        for placed in topology.joints {
            let joint = self.placed_joint(placed, &bodies, &names, &header);
            header.group.joints.push(joint.name.clone());
            joints.push(joint);
        }
        for (entry, name) in bodies.into_iter().zip(names) {
            if let Some(name) = name {
                let body = self.finish_body(entry, name);
                header.group.bodies.push(body.name.clone());
                self.model.bodies.push(body);
            }
        }
        self.model.joints.extend(joints);
        self.model.groups.push(header.group);
        Ok(())
    }

    /// The group of a skeleton: name, pose, `mobile` and elements DART does not read.
    fn skeleton_header(&mut self, node: Node) -> SourceResult<SkeletonHeader> {
        let original = node.attribute("name").unwrap_or("Unknown skeleton").to_owned();
        let group_name = self.session.unique_name("groups", &original, "skeleton");
        let group_path = path::item("groups", &group_name);
        self.session.record(group_path.clone(), self.span(node));
        let mut group = Group::new(&group_name, GroupType::Skeleton);
        let pose = match self.transformation(node)? {
            Some(t) => {
                group.pose = Some(t.pose);
                keep_aid(&mut group.extras, TRANSFORMATION_AID, &t.numbers);
                t.pose
            }
            None => Pose::identity(),
        };
        if let Some(mobile) = raw::child(node, "mobile") {
            group.mobile = raw::boolean(self.source(), mobile)?;
        }
        for element in elements(node) {
            let tag = element.tag_name().name();
            if !matches!(tag, "transformation" | "mobile" | "body" | "joint") {
                group.extras.insert(format!("skel.{tag}"), element_value(element));
                self.note(
                    "skel.ignored",
                    Severity::Info,
                    Category::Ignored,
                    group_path.clone(),
                    Some(element),
                    format!("<skeleton><{tag}> is not read by DART; kept verbatim"),
                );
            }
        }
        Ok(SkeletonHeader {
            original,
            group,
            path: group_path,
            pose,
        })
    }

    /// The bodies of a skeleton, unique by name (DART discards later duplicates).
    fn skeleton_bodies<'a, 'i>(
        &mut self,
        node: Node<'a, 'i>,
        header: &SkeletonHeader,
    ) -> SourceResult<Vec<BodyEntry<'a, 'i>>> {
        let mut bodies: Vec<BodyEntry> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for body_node in children(node, "body") {
            let entry = self.body(body_node, &header.pose)?;
            if !seen.insert(entry.original.clone()) {
                self.note(
                    "skel.duplicate_body",
                    Severity::Warning,
                    Category::Dropped,
                    header.path.clone(),
                    Some(body_node),
                    format!(
                        "a second body named {:?} in skeleton {:?} is discarded, as DART does",
                        entry.original, header.original
                    ),
                );
                continue;
            }
            bodies.push(entry);
        }
        Ok(bodies)
    }

    /// The joints in file order, each placed between its bodies; a second parent joint of a
    /// body is discarded, as DART does.
    fn skeleton_topology<'a, 'i>(
        &mut self,
        node: Node<'a, 'i>,
        header: &SkeletonHeader,
        bodies: &[BodyEntry],
    ) -> SourceResult<Topology<'a, 'i>> {
        let index: HashMap<&str, usize> = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| (b.original.as_str(), i))
            .collect();
        let mut topology = Topology {
            joints: Vec::new(),
            has_parent_joint: vec![false; bodies.len()],
            is_parent: vec![false; bodies.len()],
        };
        for joint_node in children(node, "joint") {
            let mut entry = self.joint(joint_node)?;
            // `world` names the world unless the skeleton has a body called `world` (DART).
            if entry.parent.is_none() && index.contains_key("world") {
                entry.parent = Some("world".to_owned());
            }
            let child = *index.get(entry.child.as_str()).ok_or_else(|| {
                self.error(
                    "skel.unknown_body",
                    raw::child(joint_node, "child").unwrap_or(joint_node),
                    format!(
                        "joint {:?}: child body {:?} is not a body of skeleton {:?}",
                        entry.original, entry.child, header.original
                    ),
                )
            })?;
            let parent = match &entry.parent {
                None => None,
                Some(p) => Some(*index.get(p.as_str()).ok_or_else(|| {
                    self.error(
                        "skel.unknown_body",
                        raw::child(joint_node, "parent").unwrap_or(joint_node),
                        format!(
                            "joint {:?}: parent body {p:?} is not a body of skeleton {:?} \
                             (use `world` for the world)",
                            entry.original, header.original
                        ),
                    )
                })?),
            };
            if parent == Some(child) {
                return Err(self.error(
                    "skel.self_joint",
                    joint_node,
                    format!(
                        "joint {:?} joins body {:?} to itself",
                        entry.original, entry.child
                    ),
                ));
            }
            if topology.has_parent_joint[child] {
                self.note(
                    "skel.second_parent_joint",
                    Severity::Warning,
                    Category::Dropped,
                    header.path.clone(),
                    Some(joint_node),
                    format!(
                        "joint {:?} is a second parent joint of body {:?}; DART discards it (SKEL cannot close loops)",
                        entry.original, entry.child
                    ),
                );
                continue;
            }
            topology.has_parent_joint[child] = true;
            if let Some(p) = parent {
                topology.is_parent[p] = true;
            }
            topology.joints.push(PlacedJoint { entry, child, parent });
        }
        self.refuse_parent_cycles(&topology, bodies, header)?;
        Ok(topology)
    }

    /// Every body's chain of parent joints must reach the world: a chain that comes back to a
    /// body has no root, and DART cannot build the skeleton. Each body is walked once (a walk
    /// stops at a body already known to reach the world), so the check is linear.
    fn refuse_parent_cycles(
        &mut self,
        topology: &Topology,
        bodies: &[BodyEntry],
        header: &SkeletonHeader,
    ) -> SourceResult<()> {
        let mut parent_of = vec![None; bodies.len()];
        for (j, joint) in topology.joints.iter().enumerate() {
            parent_of[joint.child] = Some((j, joint.parent));
        }
        let mut rooted = vec![false; bodies.len()];
        let mut walked_from = vec![usize::MAX; bodies.len()];
        for start in 0..bodies.len() {
            let mut walk = Vec::new();
            let mut current = start;
            while !rooted[current] {
                if walked_from[current] == start {
                    let (j, _) = parent_of[current].unwrap_or((0, None));
                    let joint = &topology.joints[j];
                    return Err(self.error(
                        "skel.parent_cycle",
                        joint.entry.node,
                        format!(
                            "the parent joints of body {:?} in skeleton {:?} form a cycle: no body \
                             of it hangs from the world",
                            bodies[current].original, header.original
                        ),
                    ));
                }
                walked_from[current] = start;
                walk.push(current);
                match parent_of[current] {
                    Some((_, Some(parent))) => current = parent,
                    _ => break,
                }
            }
            for b in walk {
                rooted[b] = true;
            }
        }
        Ok(())
    }

    /// The IR names of the bodies DART creates (`None`: DART does not create the body).
    fn created_body_names(
        &mut self,
        bodies: &[BodyEntry],
        topology: &Topology,
        header: &SkeletonHeader,
    ) -> Vec<Option<String>> {
        for (i, entry) in bodies.iter().enumerate() {
            if !topology.creates(i) {
                self.note(
                    "skel.orphan_body",
                    Severity::Warning,
                    Category::Dropped,
                    header.path.clone(),
                    Some(entry.node),
                    format!(
                        "body {:?} is neither the parent nor the child of a joint; DART does not create it",
                        entry.original
                    ),
                );
            }
        }
        bodies
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                topology.creates(i).then(|| {
                    self.session
                        .unique_name("bodies", &entry.original, &header.group.name)
                })
            })
            .collect()
    }

    /// DART's free joint named `root` for every body with children but no parent joint.
    fn implicit_root_joints(
        &mut self,
        bodies: &[BodyEntry],
        topology: &Topology,
        names: &[Option<String>],
        header: &mut SkeletonHeader,
    ) -> Vec<Joint> {
        let mut joints = Vec::new();
        for (i, entry) in bodies.iter().enumerate() {
            if !topology.is_parent[i] || topology.has_parent_joint[i] {
                continue;
            }
            let name = self.session.unique_name("joints", "root", &header.group.name);
            let body_name = names[i].clone().unwrap_or_default();
            let mut joint = Joint::new(&name, JointKind::Free, BodyRef::World, BodyRef::body(&body_name));
            joint.parent_frame = entry.body.pose;
            if name != "root" {
                joint.extras.insert(NAME, Value::String("root".to_owned()));
            }
            let at = path::item("joints", &name);
            self.session.record(at.clone(), self.span(entry.node));
            self.note(
                "skel.implicit_free_joint",
                Severity::Info,
                Category::Defaulted,
                at,
                Some(entry.node),
                format!(
                    "body {:?} has children but no parent joint: DART gives it a free joint named \"root\"",
                    entry.original
                ),
            );
            header.group.joints.push(name);
            joints.push(joint);
        }
        joints
    }

    /// A kept joint as an IR joint: unique name, bodies, the parent-side frame from the
    /// bodies' q = 0 poses, source-map entries and IR-order coordinates.
    fn placed_joint(
        &mut self,
        placed: PlacedJoint,
        bodies: &[BodyEntry],
        names: &[Option<String>],
        header: &SkeletonHeader,
    ) -> Joint {
        let PlacedJoint { entry, child, parent } = placed;
        let mut joint = entry.joint;
        joint.name = self
            .session
            .unique_name("joints", &entry.original, &header.group.name);
        if joint.name != entry.original {
            joint.extras.insert(NAME, Value::String(entry.original.clone()));
        }
        let child_world = bodies[child].body.pose;
        let parent_world = parent.map_or_else(Pose::identity, |p| bodies[p].body.pose);
        joint.child = BodyRef::body(names[child].clone().unwrap_or_default());
        joint.parent = match parent {
            None => BodyRef::World,
            Some(p) => BodyRef::body(names[p].clone().unwrap_or_default()),
        };
        joint.parent_frame = parent_world.inverse() * child_world * joint.child_frame;
        let joint_path = path::item("joints", &joint.name);
        self.session.record(joint_path.clone(), self.span(entry.node));
        for element in elements(entry.node) {
            let field = match element.tag_name().name() {
                "transformation" => "child_frame",
                "parent" => "parent",
                "child" => "child",
                "init_pos" => "q0",
                "init_vel" => "v0",
                "dof" => "dofs",
                "axis" | "axis2" | "axis3" | "axis_order" | "plane" => "kind",
                _ => continue,
            };
            let at = path::field(&joint_path, field);
            if !self.session.source_map.contains_key(&at) {
                self.session.record(at, self.span(element));
            }
        }
        let coordinates = entry.coordinates;
        if joint.kind == JointKind::Free {
            let q = &coordinates.q;
            joint.q0 = FREE_DART_ORDER.iter().map(|&i| q[i]).collect();
            if !coordinates.dofs.is_empty() {
                joint.dofs = FREE_DART_ORDER
                    .iter()
                    .map(|&i| coordinates.dofs[i].clone())
                    .collect();
            }
            let dq: [f64; 6] = std::array::from_fn(|i| coordinates.v[i]);
            let child_in_parent = relative_pose(&joint, &joint.q0);
            joint.v0 =
                velocity::from_dart(dq, &joint.child_frame, &joint.parent_frame, &child_in_parent).to_vec();
            if coordinates.v_given && dq.iter().any(|x| *x != 0.0) {
                keep_aid(&mut joint.extras, INIT_VEL_AID, &dq);
                self.note(
                    "skel.free_joint_velocity",
                    Severity::Info,
                    Category::Note,
                    joint_path,
                    Some(entry.node),
                    "free-joint init_vel [ω; v] (DART 6.20: Ad(joint transformation)·[ω; v] is the body's \
                     velocity in the parent frame) converted to the IR's [v; ω] of the joint frame",
                );
            }
        } else {
            joint.q0 = coordinates.q;
            joint.v0 = coordinates.v;
            joint.dofs = coordinates.dofs;
        }
        if joint.dofs.iter().all(|d| *d == plain_dof()) {
            joint.dofs.clear();
        }
        joint
    }

    /// A created body with its IR name, source-map entries and final inertia.
    fn finish_body(&mut self, entry: BodyEntry, name: String) -> Body {
        let mut body = entry.body.clone();
        if name != entry.original {
            body.extras.insert(NAME, Value::String(entry.original.clone()));
        }
        body.name = name;
        let body_path = path::item("bodies", &body.name);
        self.session.record(body_path.clone(), self.span(entry.node));
        let (mut shape_index, mut marker_index) = (0, 0);
        for element in elements(entry.node) {
            let at = match element.tag_name().name() {
                "visualization_shape" | "collision_shape" => {
                    shape_index += 1;
                    path::index(&body_path, "shapes", shape_index - 1)
                }
                "marker" => {
                    marker_index += 1;
                    path::index(&body_path, "frames", marker_index - 1)
                }
                "inertia" => path::field(&body_path, "inertial"),
                "transformation" => path::field(&body_path, "pose"),
                "gravity" => path::field(&body_path, "gravity"),
                _ => continue,
            };
            self.session.record(at, self.span(element));
        }
        self.finish_inertia(&mut body, &entry, &body_path);
        body
    }
}
