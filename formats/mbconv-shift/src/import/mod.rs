//! Shift JSON document -> IR.
//!
//! Order: parse (with spans), `model_parameters` (units first: every length, mass and angle is
//! scaled to SI), fixed frames, the assembly tree, bodies, joints, restraints, groups; then the
//! body frames are placed by forward kinematics in the reference configuration (every tree
//! joint at zero), breadth first from `fixed`, as Shift builds its spanning tree.

mod assembly;
mod body;
mod fields;
mod joint;
mod restraint;

use crate::raw::{self, Leniency, Node};
use crate::spec::FORMAT;
use assembly::Layout;
use fields::{Reader, Units, value};
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::format::{Imported, Source};
use mbconv_ir::kinematics::{Attachment, Configuration, SpanningTree, world_poses};
use mbconv_ir::report::path;
use mbconv_ir::{Category, Group, GroupType, Model, Severity};
use std::collections::BTreeMap;

const ROOT_KEYS: &[&str] = &[
    "model_parameters",
    "fixed",
    "frames",
    "assemblies",
    "bodies",
    "joints",
    "restraints",
];
const PARAMETER_KEYS: &[&str] = &["units", "gravity"];
const ASSEMBLY_KEYS: &[&str] = &["name", "active", "bodies", "joints", "restraints", "assemblies"];

/// Reads a Shift JSON file.
pub(crate) fn import(source: &Source) -> SourceResult<Imported> {
    let session = ImportSession::new(FORMAT, source);
    let document = raw::parse(&source.text).map_err(|e| {
        session.error(
            "syntax",
            Some(session.span(e.offset, 1)),
            format!("malformed JSON: {}", e.message),
        )
    })?;
    let mut reader = Reader {
        session,
        units: Units::SI,
    };
    report_leniencies(&mut reader, &document.leniencies);
    let root = &document.root;
    if root.members().is_empty() && !matches!(root.value, raw::Json::Object(_)) {
        return Err(reader.expected(root, "the document", "an object"));
    }
    let name = source
        .path
        .as_deref()
        .and_then(|p| p.file_stem())
        .and_then(|s| s.to_str())
        .unwrap_or("shift")
        .to_owned();
    let mut model = Model::new(name);
    read_parameters(&mut reader, root, &mut model)?;
    let fixed = root.get("fixed");
    if let Some(fixed) = fixed {
        model.world_frames = body::read_frames(&mut reader, fixed.get("frames"), "world_frames")?;
        reader.keep_unknown(fixed, &["frames"], &mut model.extras);
    }
    if root.get("frames").is_some() {
        let mut more = body::read_frames(&mut reader, root.get("frames"), "world_frames")?;
        model.world_frames.append(&mut more);
    }
    reader.keep_unknown(root, ROOT_KEYS, &mut model.extras);
    if model.extras.get(&format!("{FORMAT}.terrain")).is_some() {
        reader.finding(
            "not_simulated",
            Category::Ignored,
            "",
            root,
            "`terrain` is kept verbatim; mbconv does not simulate contact with it",
        );
    }
    let mut layout = Layout::collect(&reader, root)?;
    name_bodies(&mut reader, &mut layout)?;
    for item in &layout.bodies {
        let name_node = item
            .node
            .get("name")
            .ok_or_else(|| reader.error(item.node, "missing", "a body needs a `name`"))?;
        let written = reader.string(name_node, "name")?;
        let ir_name = layout.body_names[&layout.body_path(item.assembly, written)].clone();
        let body = body::read_body(&mut reader, item.node, &ir_name)?;
        model.bodies.push(body);
    }
    let mut joint_paths: BTreeMap<String, usize> = BTreeMap::new();
    let mut joint_assembly = Vec::new();
    let frames = joint::body_frames(&model.bodies);
    for item in &layout.joints {
        let (joint, restraints) = joint::read_joint(
            &mut reader,
            &layout,
            item.assembly,
            item.node,
            &frames,
            &model.world_frames,
        )?;
        if let Some(written) = item.node.get("name").and_then(Node::str) {
            joint_paths
                .entry(layout.body_path(item.assembly, written))
                .or_insert(model.joints.len());
        }
        joint_assembly.push(item.assembly);
        model.joints.push(joint);
        model.force_elements.extend(restraints);
    }
    for item in &layout.restraints {
        let names = restraint::Names {
            layout: &layout,
            joints: &joint_paths,
            all_joints: &model.joints,
            bodies: &frames,
            world_frames: &model.world_frames,
        };
        let element = restraint::read_restraint(&mut reader, &names, item.assembly, item.node)?;
        model.force_elements.push(element);
    }
    model.groups = groups(&mut reader, &layout, &model, &joint_assembly);
    place_bodies(&mut reader, &mut model);
    Ok(reader.session.finish(model))
}

fn report_leniencies(reader: &mut Reader, leniencies: &[(usize, Leniency)]) {
    let comments = leniencies.iter().filter(|(_, l)| *l == Leniency::Comment).count();
    let commas = leniencies.len() - comments;
    if let Some((offset, _)) = leniencies.first() {
        let span = reader.session.span(*offset, 1);
        reader.session.finding(
            "not_strict_json",
            Severity::Info,
            Category::Note,
            "",
            Some(span),
            format!("not strict JSON: {comments} comment(s) and {commas} trailing comma(s) accepted"),
        );
    }
}

/// `model_parameters`: units, gravity; the rest (version, include directories, solver,
/// integrator and logger settings) kept verbatim in the simulation extras.
fn read_parameters(reader: &mut Reader, root: &Node, model: &mut Model) -> SourceResult<()> {
    let Some(parameters) = root.get("model_parameters") else {
        return Ok(());
    };
    if let Some(units) = parameters.get("units") {
        reader.units = read_units(reader, units)?;
        if reader.units != Units::SI {
            reader.finding(
                "units",
                Category::Note,
                "",
                units,
                "non-SI units: every value is converted to SI",
            );
        }
    }
    if let Some(g) = parameters.get("gravity") {
        let factor = reader.units.length / (reader.units.time * reader.units.time);
        model.simulation.gravity = Some(reader.vec3(g, "gravity")? * factor);
    }
    for member in parameters.members() {
        if !PARAMETER_KEYS.contains(&member.key.as_str()) {
            model
                .simulation
                .extras
                .insert(format!("{FORMAT}.{}", member.key), value(&member.value));
        }
    }
    let time_step = parameters
        .get("simulation")
        .or_else(|| {
            parameters
                .get("integrators")
                .and_then(|i| i.items())
                .and_then(|i| i.first())
        })
        .or_else(|| parameters.get("integrator"))
        .and_then(|s| s.get("time_step"))
        .and_then(Node::number);
    model.simulation.time_step = time_step.map(|t| t * reader.units.time);
    Ok(())
}

fn read_units(reader: &Reader, node: &Node) -> SourceResult<Units> {
    let mut units = Units::SI;
    for member in node.members() {
        let word = reader.string(&member.value, &member.key)?;
        let factor = match (member.key.as_str(), word) {
            ("angle", "radians" | "radian" | "rad") => 1.0,
            ("angle", "degrees" | "degree" | "deg") => std::f64::consts::PI / 180.0,
            ("length", "meters" | "meter" | "metres" | "m") => 1.0,
            ("length", "millimeters" | "millimeter" | "mm") => 1e-3,
            ("length", "centimeters" | "centimeter" | "cm") => 1e-2,
            ("length", "feet" | "foot" | "ft") => 0.3048,
            ("length", "inches" | "inch" | "in") => 0.0254,
            ("mass", "kilograms" | "kilogram" | "kg") => 1.0,
            ("mass", "grams" | "gram" | "g") => 1e-3,
            ("mass", "pounds" | "pound" | "lb") => 0.453_592_37,
            ("time", "seconds" | "second" | "s") => 1.0,
            ("time", "milliseconds" | "millisecond" | "ms") => 1e-3,
            ("angle" | "length" | "mass" | "time", _) => {
                return Err(reader.error(
                    &member.value,
                    "units",
                    format!("unknown {} unit {word:?}", member.key),
                ));
            }
            _ => continue,
        };
        match member.key.as_str() {
            "angle" => units.angle = factor,
            "length" => units.length = factor,
            "mass" => units.mass = factor,
            _ => units.time = factor,
        }
    }
    Ok(units)
}

/// IR body names: the plain name where it is unique in the model, else the full `:` path
/// (reported as a rename).
fn name_bodies(reader: &mut Reader, layout: &mut Layout) -> SourceResult<()> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut written = Vec::new();
    for item in &layout.bodies {
        let node = item
            .node
            .get("name")
            .ok_or_else(|| reader.error(item.node, "missing", "a body needs a `name`"))?;
        let name = assembly::check_name(reader, node, "body")?;
        *counts.entry(name.to_owned()).or_default() += 1;
        written.push((item.assembly, name, node));
    }
    for (asm, name, node) in written {
        let full = layout.body_path(asm, name);
        if layout.body_names.contains_key(&full) {
            return Err(reader.error(node, "duplicate", format!("a second body {full:?}")));
        }
        let ir_name = if counts[name] > 1 {
            reader
                .session
                .report
                .rename("body", name, &full, path::item("bodies", &full));
            full.clone()
        } else {
            name.to_owned()
        };
        layout.body_names.insert(full, ir_name);
    }
    Ok(())
}

/// One IR group per assembly (named by its `:` path), with its direct bodies and joints.
fn groups(reader: &mut Reader, layout: &Layout, model: &Model, joint_assembly: &[usize]) -> Vec<Group> {
    let mut out = Vec::new();
    for (index, assembly) in layout.assemblies.iter().enumerate().skip(1) {
        let mut group = Group::new(assembly.path.clone(), GroupType::Assembly);
        group.parent = assembly
            .parent
            .filter(|&p| p != 0)
            .map(|p| layout.assemblies[p].path.clone());
        group.enabled = assembly.enabled;
        group.bodies = layout
            .bodies
            .iter()
            .zip(&model.bodies)
            .filter(|(item, _)| item.assembly == index)
            .map(|(_, body)| body.name.clone())
            .collect();
        group.joints = joint_assembly
            .iter()
            .zip(&model.joints)
            .filter(|(a, _)| **a == index)
            .map(|(_, joint)| joint.name.clone())
            .collect();
        reader.keep_unknown(assembly.node, ASSEMBLY_KEYS, &mut group.extras);
        let group_path = path::item("groups", &group.name);
        if group.extras.get(&format!("{FORMAT}.force_modules")).is_some() {
            reader.finding(
                "not_simulated",
                Category::Ignored,
                &group_path,
                assembly.node,
                "`force_modules` (tyres, controllers) are kept verbatim but not simulated",
            );
        }
        reader.session.record(group_path, reader.span(assembly.node));
        out.push(group);
    }
    out
}

/// A loop-closing joint whose frames are further apart than this in the initial
/// configuration gets a `loop_gap` finding (m).
const LOOP_GAP_REPORTED: f64 = 1e-6;

/// Reports the loops that do not close as written: the frames of a loop-closing joint apart
/// in the initial configuration (the published files round their numbers to about 8 digits;
/// the Abiflexx delta robot's loops are open by 0.66 mm). The solver closes them when it
/// assembles the model, moving the bodies of the loop to close it.
fn loop_gaps(reader: &mut Reader, model: &Model, tree: &SpanningTree) {
    let poses = world_poses(model, tree, Configuration::Initial);
    let pose_of = |r: &mbconv_ir::BodyRef| {
        r.name()
            .and_then(|n| model.body_index(n))
            .map_or_else(mbconv_ir::Pose::identity, |i| poses[i])
    };
    for &j in &tree.loop_joints {
        let joint = &model.joints[j];
        let a = pose_of(&joint.parent) * joint.parent_frame;
        let b = pose_of(&joint.child) * joint.child_frame;
        let gap = (a.translation - b.translation).norm();
        if gap > LOOP_GAP_REPORTED {
            let ir_path = path::item("joints", &joint.name);
            let span = reader.session.source_map.get(&ir_path).cloned();
            reader.session.finding(
                "loop_gap",
                Severity::Info,
                Category::Note,
                &ir_path,
                span,
                format!(
                    "the loop this joint closes is open by {gap:.3e} m as written (initial joint values and frames): simulators close it when they assemble the model, moving the bodies of the loop"
                ),
            );
        }
    }
}

/// Body frames from the joints, in the reference configuration; bodies nothing connects get a
/// floating (6-dof) attachment.
///
/// An inactive body or assembly is placed by its joints as if it were active (it then stays
/// where it was put: the spanning tree treats it as fixed).
fn place_bodies(reader: &mut Reader, model: &mut Model) {
    let mut all_active = model.clone();
    all_active.bodies.iter_mut().for_each(|b| b.enabled = true);
    all_active.groups.iter_mut().for_each(|g| g.enabled = true);
    let placing = SpanningTree::new(&all_active);
    let poses = world_poses(&all_active, &placing, Configuration::Reference);
    let tree = SpanningTree::new(model);
    for (b, body) in model.bodies.iter_mut().enumerate() {
        body.pose = poses[b];
    }
    loop_gaps(reader, model, &tree);
    for (b, attachment) in tree.attachments.iter().enumerate() {
        if *attachment == Attachment::Floating {
            let ir_path = path::item("bodies", &model.bodies[b].name);
            let span = reader.session.source_map.get(&ir_path).cloned();
            reader.session.finding(
                "floating",
                Severity::Info,
                Category::Note,
                &ir_path,
                span,
                "no joint connects this body to `fixed`: it floats freely (6 degrees of freedom) from the origin",
            );
        }
    }
}
