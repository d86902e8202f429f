//! Assemblies, names and the frames joints name.
//!
//! Shift puts every body and joint in an assembly, names nested assemblies by `:` paths,
//! forbids `:` in names and `origin` as a frame name, and joins named frames. Here: items no
//! group holds go to an assembly named after the model; groups become assemblies named by their
//! path; names are made legal; and every joint end gets a named frame whose pose is its joint
//! frame (a `rigid` joint may keep a frame and an offset).

use crate::spec::{CHILD_FRAME_KEY, FIXED, ORIGIN, PARENT_FRAME_KEY, PATH_SEPARATOR};
use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{
    BodyRef, Category, ForceKind, Frame, FrameKind, Group, GroupType, JointKind, Model, Pose, Report,
    RestraintTarget, Severity, Value,
};
use std::collections::{HashMap, HashSet};

/// A finding to report once the model is no longer borrowed: its code's `what`, feature,
/// severity, category, IR path and message.
type Said = (&'static str, Feature, Severity, Category, String, String);

fn say(s: &mut LowerSession, said: Vec<Said>) {
    for (what, feature, severity, category, at, message) in said {
        s.finding(what, feature, severity, category, &at, message);
    }
}

fn note(said: &mut Vec<Said>, what: &'static str, feature: Feature, at: String, message: impl Into<String>) {
    said.push((what, feature, Severity::Info, Category::Note, at, message.into()));
}

/// One assembly per body and joint; groups named by their `:` path.
pub(super) fn assemblies(s: &mut LowerSession) {
    let mut said = Vec::new();
    assemblies_of(&mut s.model, &mut s.report, &mut said);
    say(s, said);
}

/// Names Shift can say: no `:`, not `fixed` or `origin`, unique.
pub(super) fn settle_names(s: &mut LowerSession) {
    body_names(&mut s.model, &mut s.report);
    joint_names(&mut s.model, &mut s.report);
    frame_names(&mut s.model, &mut s.report);
}

/// A named frame for each joint end.
pub(super) fn joint_frames(s: &mut LowerSession) {
    let mut said = Vec::new();
    joint_end_frames(&mut s.model, &mut said);
    say(s, said);
}

fn legal(name: &str) -> String {
    let name = name.replace(PATH_SEPARATOR, "_");
    if name.is_empty() {
        "unnamed".to_owned()
    } else {
        name
    }
}

fn assemblies_of(m: &mut Model, report: &mut Report, said: &mut Vec<Said>) {
    // Each body and joint in the first group that lists it.
    // Sets, not list scans: a model of N bodies in one group costs O(N), not O(N²).
    let mut seen_bodies = HashSet::new();
    let mut seen_joints = HashSet::new();
    let body_names: HashSet<String> = m.bodies.iter().map(|b| b.name.clone()).collect();
    let joint_names: HashSet<String> = m.joints.iter().map(|j| j.name.clone()).collect();
    for group in &mut m.groups {
        group.bodies.retain(|b| seen_bodies.insert(b.clone()));
        group.joints.retain(|j| seen_joints.insert(j.clone()));
        group.bodies.retain(|b| body_names.contains(b));
        group.joints.retain(|j| joint_names.contains(j));
        if group.group_type != GroupType::Assembly {
            group.group_type = GroupType::Assembly;
            note(
                said,
                "group_as_assembly",
                Feature::Groups,
                path::item("groups", &group.name),
                "the group is written as an assembly",
            );
        }
        if group.pose.take().is_some() {
            said.push((
                "group_pose_lost",
                Feature::Groups,
                Severity::Info,
                Category::Dropped,
                path::item("groups", &group.name),
                "the group's pose is not written (body poses already place its bodies)".to_owned(),
            ));
        }
    }
    add_loose_assembly(m, &seen_bodies, &seen_joints, said);
    group_paths(m, report);
}

/// One assembly, first, for the bodies and joints no group lists (`seen_*`: those some group
/// lists), named after the model.
fn add_loose_assembly(
    m: &mut Model,
    seen_bodies: &HashSet<String>,
    seen_joints: &HashSet<String>,
    said: &mut Vec<Said>,
) {
    let loose_bodies: Vec<String> = m
        .bodies
        .iter()
        .map(|b| b.name.clone())
        .filter(|b| !seen_bodies.contains(b))
        .collect();
    let loose_joints: Vec<String> = m
        .joints
        .iter()
        .map(|j| j.name.clone())
        .filter(|j| !seen_joints.contains(j))
        .collect();
    if !loose_bodies.is_empty() || !loose_joints.is_empty() {
        let mut name = legal(&m.name);
        while m.groups.iter().any(|g| g.name == name) {
            name.push('_');
        }
        let mut group = Group::new(name.clone(), GroupType::Assembly);
        group.bodies = loose_bodies;
        group.joints = loose_joints;
        note(
            said,
            "assembly_added",
            Feature::Groups,
            path::item("groups", &name),
            "bodies and joints outside any group go to this assembly",
        );
        m.groups.insert(0, group);
    }
}

/// Group names as paths: a group's name is its parent's name, ':', its own (parents first);
/// renames are reported and followed by the children's parent names.
fn group_paths(m: &mut Model, report: &mut Report) {
    for i in 0..m.groups.len() {
        let parent = m.groups[i].parent.clone().filter(|p| {
            m.groups
                .iter()
                .position(|g| &g.name == p)
                .is_some_and(|pi| pi < i)
        });
        let own = m.groups[i]
            .name
            .rsplit(PATH_SEPARATOR)
            .next()
            .unwrap_or_default()
            .to_owned();
        let wanted = match &parent {
            Some(p) => format!("{p}{PATH_SEPARATOR}{}", legal(&own)),
            None => legal(&m.groups[i].name),
        };
        let mut wanted = wanted;
        while m
            .groups
            .iter()
            .enumerate()
            .any(|(k, g)| k != i && g.name == wanted)
        {
            wanted.push('_');
        }
        if m.groups[i].parent != parent {
            m.groups[i].parent = parent.clone();
        }
        if wanted != m.groups[i].name {
            let old = std::mem::replace(&mut m.groups[i].name, wanted.clone());
            report.rename("group", &old, &wanted, path::item("groups", &wanted));
            for g in &mut m.groups {
                if g.parent.as_deref() == Some(old.as_str()) {
                    g.parent = Some(wanted.clone());
                }
            }
        }
    }
}

/// Body names: no `:` except the `<assembly path>:<name>` the reader gives clashing names;
/// not `fixed` or `origin`. Each body's own name (its name without its assembly's path, made
/// legal) is first made unique in its assembly; a body whose own name another assembly also
/// has is then named by its path, as the reader will name it.
fn body_names(m: &mut Model, report: &mut Report) {
    let mut homes: HashMap<String, String> = HashMap::new();
    for g in &m.groups {
        for b in &g.bodies {
            homes.entry(b.clone()).or_insert_with(|| g.name.clone());
        }
    }
    let mut owns: Vec<(String, String)> = Vec::with_capacity(m.bodies.len());
    let mut in_group: HashSet<(String, String)> = HashSet::new();
    let mut count: HashMap<String, usize> = HashMap::new();
    for b in &m.bodies {
        let group = homes.get(&b.name).cloned().unwrap_or_default();
        let mut own = match b.name.strip_prefix(&format!("{group}{PATH_SEPARATOR}")) {
            Some(rest) if !group.is_empty() && !rest.contains(PATH_SEPARATOR) && !rest.is_empty() => {
                rest.to_owned()
            }
            _ => legal(&b.name),
        };
        if own == FIXED || own == ORIGIN {
            own.push_str("_body");
        }
        while !in_group.insert((group.clone(), own.clone())) {
            own.push('_');
        }
        *count.entry(own.clone()).or_default() += 1;
        owns.push((group, own));
    }
    let wanted: Vec<String> = owns
        .iter()
        .map(|(group, own)| {
            if count[own] > 1 {
                format!("{group}{PATH_SEPARATOR}{own}")
            } else {
                own.clone()
            }
        })
        .collect();
    let renames: Vec<(usize, String)> = wanted
        .into_iter()
        .enumerate()
        .filter(|(i, wanted)| m.bodies[*i].name != *wanted)
        .collect();
    for rename in mbconv_ir::lower::rename_bodies(m, &renames) {
        report.rename("body", &rename.from, &rename.to, path::item("bodies", &rename.to));
    }
}

fn joint_names(m: &mut Model, report: &mut Report) {
    for i in 0..m.joints.len() {
        let name = m.joints[i].name.clone();
        let wanted = legal(&name);
        if wanted == name {
            continue;
        }
        let mut wanted = wanted;
        while m.joints.iter().any(|j| j.name == wanted) {
            wanted.push('_');
        }
        m.joints[i].name = wanted.clone();
        for group in &mut m.groups {
            group
                .joints
                .iter_mut()
                .filter(|j| **j == name)
                .for_each(|j| *j = wanted.clone());
        }
        for element in &mut m.force_elements {
            if let ForceKind::Restraint(r) = &mut element.kind
                && let RestraintTarget::Joint { joint, .. } = &mut r.target
                && *joint == name
            {
                *joint = wanted.clone();
            }
        }
        report.rename("joint", &name, &wanted, path::item("joints", &wanted));
    }
    for element in &mut m.force_elements {
        let wanted = legal(&element.name);
        if wanted != element.name {
            report.rename(
                "force element",
                &element.name,
                &wanted,
                path::item("force_elements", &wanted),
            );
            element.name = wanted;
        }
    }
}

/// Legal frame names.
fn frame_names(m: &mut Model, report: &mut Report) {
    let owners = m
        .bodies
        .iter_mut()
        .map(|b| (path::item("bodies", &b.name), &mut b.frames));
    for (owner, frames) in owners.chain(std::iter::once(("world_frames".to_owned(), &mut m.world_frames))) {
        for i in 0..frames.len() {
            let name = frames[i].name.clone();
            let mut wanted = legal(&name);
            if wanted == ORIGIN {
                wanted.push_str("_frame");
            }
            while frames.iter().enumerate().any(|(k, f)| k != i && f.name == wanted) {
                wanted.push('_');
            }
            if wanted != name {
                frames[i].name = wanted.clone();
                report.rename("frame", &name, &wanted, format!("{owner}.frames[{wanted:?}]"));
            }
        }
    }
}

/// A named frame for each joint end; restraint frame pairs checked.
fn joint_end_frames(m: &mut Model, said: &mut Vec<Said>) {
    for j in 0..m.joints.len() {
        let joint = &m.joints[j];
        let rigid = joint.kind == JointKind::Fixed;
        let (parent, child) = (joint.parent.clone(), joint.child.clone());
        let (parent_pose, child_pose) = (joint.parent_frame, joint.child_frame);
        let parent_name = name_frame(
            m,
            &parent,
            parent_pose,
            j,
            PARENT_FRAME_KEY,
            rigid,
            "parent",
            said,
        );
        let child_name = name_frame(m, &child, child_pose, j, CHILD_FRAME_KEY, false, "child", said);
        m.joints[j]
            .extras
            .insert(PARENT_FRAME_KEY, Value::String(parent_name));
        m.joints[j]
            .extras
            .insert(CHILD_FRAME_KEY, Value::String(child_name));
    }
    // Restraint frame pairs must name frames that exist.
    for element in &m.force_elements {
        if let ForceKind::Restraint(r) = &element.kind
            && let RestraintTarget::FramePair {
                body1,
                frame1,
                body2,
                frame2,
                ..
            } = &r.target
        {
            for (body, frame) in [(body1, frame1), (body2, frame2)] {
                if frame != ORIGIN && frames_of(m, body).is_none_or(|fs| !fs.iter().any(|f| &f.name == frame))
                {
                    said.push((
                        "restraint_frame_missing",
                        Feature::Restraints,
                        Severity::Warning,
                        Category::Invalid,
                        path::item("force_elements", &element.name),
                        format!("frame {frame:?} does not exist on {body}"),
                    ));
                }
            }
        }
    }
}

fn frames_of<'m>(m: &'m Model, body: &BodyRef) -> Option<&'m Vec<Frame>> {
    match body {
        BodyRef::World => Some(&m.world_frames),
        BodyRef::Body(name) => m.body(name).map(|b| &b.frames),
    }
}

fn frames_of_mut<'m>(m: &'m mut Model, body: &BodyRef) -> Option<&'m mut Vec<Frame>> {
    match body {
        BodyRef::World => Some(&mut m.world_frames),
        // The model's name index, not a scan of the bodies per joint end.
        BodyRef::Body(name) => m.body_index(name).map(|i| &mut m.bodies[i].frames),
    }
}

/// The name of a frame on `body` whose pose is exactly `pose` (the joint's own choice first;
/// for a rigid joint's parent side, its named frame with any pose), or a new frame.
#[allow(clippy::too_many_arguments)]
fn name_frame(
    m: &mut Model,
    body: &BodyRef,
    pose: Pose,
    j: usize,
    key: &str,
    any_pose: bool,
    side: &str,
    said: &mut Vec<Said>,
) -> String {
    let chosen = match m.joints[j].extras.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let Some(frames) = frames_of(m, body) else {
        return ORIGIN.to_owned();
    };
    let exact = |name: &str| {
        if name == ORIGIN {
            return Some(pose.is_exact_identity() || any_pose);
        }
        frames
            .iter()
            .find(|f| f.name == name)
            .map(|f| any_pose || same_pose(&f.pose, &pose))
    };
    if let Some(name) = chosen.as_deref()
        && exact(name) == Some(true)
    {
        return name.to_owned();
    }
    if pose.is_exact_identity() {
        return ORIGIN.to_owned();
    }
    if let Some(f) = frames.iter().find(|f| same_pose(&f.pose, &pose)) {
        return f.name.clone();
    }
    let joint_name = m.joints[j].name.clone();
    let mut name = legal(&format!("{joint_name}_{side}"));
    while frames.iter().any(|f| f.name == name) || name == ORIGIN {
        name.push('_');
    }
    let owner = match body {
        BodyRef::World => "world_frames".to_owned(),
        BodyRef::Body(b) => path::item("bodies", b),
    };
    note(
        said,
        "joint_frame_added",
        Feature::NamedFrames,
        path::item("joints", &joint_name),
        format!("the {side} joint frame is written as the new frame {name:?} on {owner}"),
    );
    if let Some(frames) = frames_of_mut(m, body) {
        frames.push(Frame {
            name: name.clone(),
            pose,
            kind: FrameKind::Frame,
            extras: Default::default(),
        });
    }
    name
}

fn same_pose(a: &Pose, b: &Pose) -> bool {
    a.translation == b.translation && a.rotation.coords == b.rotation.coords
}
