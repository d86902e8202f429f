//! Choreonoid projects (`.cnoid`) as a Body source, read the way Choreonoid restores them: the
//! item tree under `items`, every `BodyItem` with its body file (`file`, old `modelFile`;
//! `${SHARE}`, `${PROJECT_DIR}`, `${HOME}` and relative paths resolved) and its initial state
//! ([`super::project_state`]), and the simulator item's time step, gravity and integration mode
//! (an `AISTSimulatorItem` first, Choreonoid's own dynamics). One body item is one model; several
//! are one model with a group per item. A body item whose file is a scene (a ChoreonoidScene
//! file, VRML without a `Humanoid`, a mesh) is one fixed, massless body whose shape is the file,
//! as Choreonoid loads it as one static link; one whose file is URDF is read by the URDF reader
//! the read options' hook reaches ([`super::foreign`]), refused without one. Items mbconv has no place for (controllers, views, other
//! simulators) are reported, not read.

use super::fields::{self, Doc};
use super::project_state;
use crate::raw::Node;
use crate::spec::{FORMAT, GRAVITY};
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::format::{Imported, Source};
use mbconv_ir::report::path;
use mbconv_ir::{
    Body, BodyRef, Category, Geometry, Group, GroupType, Inertia, Inertial, Joint, JointKind, MeshRef, Model,
    Severity, Shape, ShapeRole, Simulation, Value,
};
use nalgebra::Vector3;
use std::path::{Path, PathBuf};

/// Where `${SHARE}` points, when the reader is told (`share=DIR`), and the readers of other
/// formats (the read options' hook), for body items naming a URDF file.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProjectSettings {
    /// Choreonoid's share directory.
    pub share: Option<PathBuf>,
    /// The readers of other formats, when the caller gives them (the facade does).
    pub readers: Option<mbconv_ir::format::Readers>,
}

/// True when the document is a Choreonoid project: an item tree (`items`), or only a layout
/// (`views`, `toolbars`) and no links.
pub(crate) fn is_project(root: &Node) -> bool {
    root.get("items").is_some()
        || (root.get("links").is_none() && ["views", "toolbars"].iter().any(|k| root.get(k).is_some()))
}

/// Simulator items that run beside a physics engine rather than being one.
const SUB_SIMULATORS: [&str; 3] = [
    "GLVisionSimulatorItem",
    "MulticopterSimulatorItem",
    "WorldLogFileItem",
];

/// The time bar's default frame rate (the time step of a simulator item that names none).
const DEFAULT_FRAME_RATE: f64 = 1000.0;

struct Found<'n> {
    body_items: Vec<BodyItemNode<'n>>,
    simulators: Vec<&'n Node>,
    other_classes: Vec<String>,
}

struct BodyItemNode<'n> {
    item: &'n Node,
    name: String,
    in_world: bool,
    under_body: bool,
}

fn class_of(item: &Node) -> &str {
    item.get("class").and_then(Node::scalar).unwrap_or("")
}

fn is_engine(class: &str) -> bool {
    class.ends_with("SimulatorItem") && !SUB_SIMULATORS.contains(&class)
}

fn walk<'n>(item: &'n Node, in_world: bool, under_body: bool, found: &mut Found<'n>) {
    let class = class_of(item);
    let is_body = class == "BodyItem";
    if is_body {
        found.body_items.push(BodyItemNode {
            item,
            name: item
                .get("name")
                .and_then(Node::scalar)
                .unwrap_or("body")
                .to_owned(),
            in_world,
            under_body,
        });
    } else if is_engine(class) {
        found.simulators.push(item);
    } else if !matches!(class, "RootItem" | "WorldItem" | "FolderItem" | "") {
        found.other_classes.push(class.to_owned());
    }
    let in_world = in_world || class == "WorldItem";
    for child in item.get("children").map(Node::items).unwrap_or_default() {
        walk(child, in_world, under_body || is_body, found);
    }
}

/// The first of `keys` the mapping has.
pub(super) fn first<'n>(map: &'n Node, keys: &[&str]) -> Option<&'n Node> {
    keys.iter().find_map(|k| map.get(k))
}

/// Reads a project and the body files its body items name.
pub(crate) fn read(source: &Source, root: Node, settings: &ProjectSettings) -> SourceResult<Imported> {
    let doc = Doc::main(source, root);
    let mut session = ImportSession::new(FORMAT, source);
    let mut found = Found {
        body_items: Vec::new(),
        simulators: Vec::new(),
        other_classes: Vec::new(),
    };
    if let Some(items) = doc.root.get("items") {
        walk(items, false, false, &mut found);
    }
    let project_dir = source.base_dir().map(Path::to_path_buf).unwrap_or_default();
    let mut parts = Vec::new();
    let mut share_noted = false;
    for item in &found.body_items {
        let read = read_body_item(&doc, &mut session, item, &project_dir, settings, &mut share_noted)?;
        if let Some((state, imported)) = read {
            parts.push((item, state, imported));
        }
    }
    if parts.is_empty() {
        return Err(doc.error(
            "no_body_item",
            doc.root.get("items").unwrap_or(&doc.root),
            "the project has no body item with a body file: nothing to read",
        ));
    }
    let simulation = simulation(&doc, &found, &mut session)?;
    note_unread(&doc, &found, &mut session);
    Ok(combine(source, parts, simulation, session, &doc))
}

/// The body file `item` names (`None` when it names none), read, with the item's initial state
/// applied and its place in the item tree noted. The first `${SHARE}` guess is noted once.
fn read_body_item(
    doc: &Doc,
    session: &mut ImportSession,
    item: &BodyItemNode,
    project_dir: &Path,
    settings: &ProjectSettings,
    share_noted: &mut bool,
) -> SourceResult<Option<(project_state::ItemState, Imported)>> {
    let Some(data) = item.item.get("data") else {
        return Ok(None);
    };
    let Some(file) = first(data, &["file", "modelFile"]) else {
        return Ok(None);
    };
    let (path, share_note) = resolve(doc, file, project_dir, settings)?;
    if let Some(note) = share_note
        && !*share_noted
    {
        session.defaulted("", Some(doc.span(file)), note);
        *share_noted = true;
    }
    let read_source = || {
        Source::from_path(&path).map_err(|e| {
            doc.error(
                "body_file",
                file,
                format!("cannot read the body file {}: {e}", path.display()),
            )
        })
    };
    // A mesh file is not read as text (it may be binary).
    let (kind, body_source) = match body_file_kind(&path, None) {
        Some(kind) => (kind, None),
        None => {
            let source = read_source()?;
            (
                body_file_kind(&path, Some(&source.text)).unwrap_or(BodyFileKind::Body),
                Some(source),
            )
        }
    };
    let mut imported = match (kind, body_source) {
        (BodyFileKind::Scene, _) => {
            if !path.is_file() {
                return Err(doc.error(
                    "body_file",
                    file,
                    format!("cannot read the scene file {}: no such file", path.display()),
                ));
            }
            let written = fields::text(doc, file)?;
            scenery(session, doc, item, &written, &path)
        }
        (BodyFileKind::Urdf, _) => {
            super::foreign::urdf_body(doc, session, settings.readers.as_ref(), &item.name, file, &path)?
        }
        (BodyFileKind::Body, Some(source)) => super::read_body(&source)?,
        (BodyFileKind::Body, None) => super::read_body(&read_source()?)?,
    };
    imported.report.pin_file();
    let state = project_state::read(doc, data)?;
    let item_path = path::item("groups", &item.name);
    project_state::apply(&state, &mut imported.model, session, &item_path, doc, item.item);
    note_placement(doc, session, item, data, &item_path);
    Ok(Some((state, imported)))
}
/// What a body item's file holds, as Choreonoid's `BodyLoader` tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BodyFileKind {
    /// A Choreonoid Body file (read by the Body reader).
    Body,
    /// A scene or mesh file (`format: ChoreonoidScene`, `.scen`, a VRML file without a
    /// `Humanoid`, a mesh): Choreonoid loads it as a body of one static link.
    Scene,
    /// A URDF file: Choreonoid's URDF loader reads it.
    Urdf,
}

/// Mesh and scene file extensions Choreonoid's scene loaders read.
const SCENE_EXTENSIONS: [&str; 12] = [
    "scen", "wrl", "vrml", "dae", "stl", "obj", "ply", "x3d", "gltf", "glb", "fbx", "3ds",
];

/// What the file at `path` holds: from its extension alone when that tells (`text`: `None`),
/// else from its `text` too (`None` when even that does not tell: a body file).
fn body_file_kind(path: &Path, text: Option<&str>) -> Option<BodyFileKind> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let vrml = matches!(extension.as_str(), "wrl" | "vrml");
    if extension == "urdf" {
        return Some(BodyFileKind::Urdf);
    }
    let Some(text) = text else {
        return (SCENE_EXTENSIONS.contains(&extension.as_str()) && !vrml).then_some(BodyFileKind::Scene);
    };
    let start = text.trim_start();
    let scene_format = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("format:"))
        .is_some_and(|l| l.contains("ChoreonoidScene"));
    if start.starts_with('<') && text.contains("<robot") {
        Some(BodyFileKind::Urdf)
    } else if (vrml && !text.contains("Humanoid")) || scene_format {
        // A VRML file without an OpenHRP `Humanoid` is a scene; one with it is a body model
        // (the Body reader refuses it with its own words).
        Some(BodyFileKind::Scene)
    } else {
        None
    }
}

/// A body item whose file is a scene: one fixed body named after the item whose shape is the
/// file, as Choreonoid loads a scene file as a body of one static link (its contents are not
/// read: kept as a mesh reference).
fn scenery(
    session: &mut ImportSession,
    doc: &Doc,
    item: &BodyItemNode,
    written: &str,
    path: &Path,
) -> Imported {
    let mut model = Model::new(&item.name);
    let mut body = Body::new(&item.name);
    body.inertial = Inertial {
        mass: 0.0,
        inertia: Inertia::zero(),
        ..Inertial::default()
    };
    let mut mesh = MeshRef::new(written);
    mesh.resolved_path = Some(path.display().to_string());
    body.shapes
        .push(Shape::new(ShapeRole::Both, Geometry::Mesh(mesh)));
    let joint = Joint::new(
        format!("{}_root", item.name),
        JointKind::Fixed,
        BodyRef::World,
        BodyRef::body(&item.name),
    );
    model.bodies.push(body);
    model.joints.push(joint);
    session.finding(
        "scene_item",
        Severity::Warning,
        Category::Approximated,
        &path::item("groups", &item.name),
        Some(doc.span(item.item)),
        format!(
            "body item {:?} names a scene file ({written}), which Choreonoid loads as one static link: read as a fixed, massless body whose shape is the file (a mesh reference; mbconv does not read the scene's contents)",
            item.name
        ),
    );
    Imported {
        model,
        report: mbconv_ir::Report::default(),
        source_map: Default::default(),
        source_map_file: None,
    }
}

/// Notes a body item Choreonoid does not simulate (outside a WorldItem) and one attached to the
/// body item above it.
fn note_placement(doc: &Doc, session: &mut ImportSession, item: &BodyItemNode, data: &Node, item_path: &str) {
    if !item.in_world {
        session.finding(
            "outside_world",
            Severity::Info,
            Category::Note,
            item_path,
            Some(doc.span(item.item)),
            format!(
                "body item {:?} is not under a WorldItem: Choreonoid does not simulate it; read as part of the model",
                item.name
            ),
        );
    }
    if item.under_body && attached(data) {
        session.finding(
            "attachment_lost",
            Severity::Warning,
            Category::Dropped,
            item_path,
            Some(doc.span(item.item)),
            format!(
                "body item {:?} is attached to the body item above it; the IR has no attachment between models: read as a separate body",
                item.name
            ),
        );
    }
}

/// Reports the project's items that are not part of the model, and the numbers read leniently.
fn note_unread(doc: &Doc, found: &Found, session: &mut ImportSession) {
    for class in dedup(&found.other_classes) {
        session.finding(
            "project_item_ignored",
            Severity::Info,
            Category::Ignored,
            "",
            None,
            format!("{class} items of the project are not part of the model; not read"),
        );
    }
    for (span, message) in doc.lenient.take() {
        session.finding(
            "lenient_number",
            Severity::Warning,
            Category::Note,
            "",
            Some(span),
            message,
        );
    }
}

/// One model of the body items read: a single body as it is (with its own source map), several
/// merged with a group per item; the body files' findings follow the project's.
fn combine(
    source: &Source,
    parts: Vec<(&BodyItemNode, project_state::ItemState, Imported)>,
    simulation: Simulation,
    mut session: ImportSession,
    doc: &Doc,
) -> Imported {
    let single = parts.len() == 1;
    let project_name = source
        .path
        .as_deref()
        .and_then(Path::file_stem)
        .map_or_else(|| source.name.clone(), |s| s.to_string_lossy().into_owned());
    let mut model = Model::new(project_name);
    let mut body_reports = Vec::new();
    let mut single_map = None;
    for (item, _state, imported) in parts {
        if single {
            model.name = imported.model.name.clone();
            single_map = Some((imported.source_map.clone(), imported.report.file.clone()));
            model.bodies = imported.model.bodies;
            model.joints = imported.model.joints;
            model.constraints = imported.model.constraints;
            model.devices = imported.model.devices;
            model.extras = imported.model.extras;
        } else {
            merge(
                &mut model,
                imported.model,
                &item.name,
                &mut session,
                doc,
                item.item,
            );
        }
        body_reports.push(imported.report);
    }
    model.simulation = simulation;
    let mut out = session.finish(model);
    for report in body_reports {
        // The body file's own defaulted gravity is the project's to say.
        let mut report = report;
        report
            .findings
            .retain(|f| !(f.code == "body.default" && f.path.as_deref() == Some("simulation.gravity")));
        out.report.extend(report);
    }
    if let Some((map, file)) = single_map {
        out.source_map = map;
        out.source_map_file = file;
    }
    out
}

fn dedup(list: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = list.iter().map(String::as_str).collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn attached(data: &Node) -> bool {
    match data.get("parent_body_linkage").and_then(Node::scalar) {
        Some(linkage) => linkage == "attached",
        None => data.get("enable_attachment").and_then(Node::as_bool) == Some(true),
    }
}

/// The body file a body item names: a leading `${SHARE}`, `${PROJECT_DIR}` or `${HOME}`
/// expanded (as Choreonoid's path variables), a relative path taken from the project's
/// directory. `${SHARE}` is the `share` setting, else the nearest `share` directory above the
/// project that has the file (reported).
fn resolve(
    doc: &Doc,
    node: &Node,
    project_dir: &Path,
    settings: &ProjectSettings,
) -> SourceResult<(PathBuf, Option<String>)> {
    let text = fields::text(doc, node)?;
    let Some(rest) = text.strip_prefix("${") else {
        return Ok((project_dir.join(&text), None));
    };
    let Some((variable, rest)) = rest.split_once('}') else {
        return Err(doc.error(
            "path_variable",
            node,
            format!("unterminated path variable in {text:?}"),
        ));
    };
    let rest = rest.trim_start_matches('/');
    match variable {
        "SHARE" => {
            if let Some(share) = &settings.share {
                return Ok((share.join(rest), None));
            }
            let found = project_dir
                .ancestors()
                .map(|a| a.join("share"))
                .find(|share| share.join(rest).is_file());
            match found {
                Some(share) => {
                    let note = format!(
                        "${{SHARE}} read as {} (the nearest share directory above the project that has {rest}); the read setting share=DIR names another",
                        share.display()
                    );
                    Ok((share.join(rest), Some(note)))
                }
                None => Err(doc.error(
                    "path_variable",
                    node,
                    format!(
                        "cannot find {text:?}: no share directory above the project has {rest}; name Choreonoid's share directory with the read setting share=DIR"
                    ),
                )),
            }
        }
        "PROJECT_DIR" => Ok((project_dir.join(rest), None)),
        "HOME" => {
            let home = std::env::var_os("HOME").map(PathBuf::from).ok_or_else(|| {
                doc.error(
                    "path_variable",
                    node,
                    format!("${{HOME}} in {text:?}: HOME is not set"),
                )
            })?;
            Ok((home.join(rest), None))
        }
        other => Err(doc.error(
            "path_variable",
            node,
            format!(
                "path variable ${{{other}}} in {text:?} is not one mbconv expands (SHARE, PROJECT_DIR, HOME)"
            ),
        )),
    }
}

/// Gravity, time step, end time and integration mode from the simulator item Choreonoid would
/// run: the first `AISTSimulatorItem`, else the first other physics simulator (its time step
/// only), else Choreonoid's defaults.
fn simulation(doc: &Doc, found: &Found, session: &mut ImportSession) -> SourceResult<Simulation> {
    let mut sim = Simulation {
        gravity: Some(Vector3::from(GRAVITY)),
        ..Simulation::default()
    };
    let aist = found
        .simulators
        .iter()
        .find(|s| class_of(s) == "AISTSimulatorItem");
    let chosen = aist.or(found.simulators.first()).copied();
    let time_bar_step = || -> SourceResult<f64> {
        let rate = doc
            .root
            .get("toolbars")
            .and_then(|t| t.get("TimeBar"))
            .and_then(|t| first(t, &["frame_rate", "frameRate"]))
            .map(|n| fields::number(doc, n))
            .transpose()?
            .unwrap_or(DEFAULT_FRAME_RATE);
        Ok(1.0 / rate)
    };
    let Some(item) = chosen else {
        sim.time_step = Some(time_bar_step()?);
        session.defaulted(
            "simulation",
            None,
            "the project has no simulator item: Choreonoid's defaults, gravity (0, 0, -9.80665) and the time bar's time step",
        );
        return Ok(sim);
    };
    let class = class_of(item);
    let path = "simulation";
    let data = item.get("data");
    let get = |keys: &[&str]| data.and_then(|d| first(d, keys));
    session.record(path, doc.span(item));
    sim.time_step = Some(if let Some(step) = get(&["time_step", "timeStep", "timestep"]) {
        fields::number(doc, step)?
    } else if let Some(rate) = get(&["frame_rate", "frameRate", "framerate"]) {
        1.0 / fields::number(doc, rate)?
    } else {
        time_bar_step()?
    });
    let specified = match (get(&["time_range_mode"]), get(&["timeRangeMode"])) {
        (Some(m), _) => m.scalar() == Some("specified"),
        (None, Some(m)) => m.scalar() == Some("Specified time"),
        _ => false,
    };
    if specified && let Some(length) = get(&["time_length", "timeLength"]) {
        sim.end_time = Some(fields::number(doc, length)?);
    }
    if class != "AISTSimulatorItem" {
        session.finding(
            "simulator",
            Severity::Warning,
            Category::Defaulted,
            path,
            Some(doc.span(item)),
            format!(
                "the project's simulator is a {class}: only its time step is read; gravity is Choreonoid's default (0, 0, -9.80665)"
            ),
        );
        return Ok(sim);
    }
    if let Some(g) = get(&["gravity"]) {
        sim.gravity = Some(fields::vector3(doc, g)?);
    }
    let mode = get(&["integration_mode", "integrationMode"])
        .and_then(Node::scalar)
        .map(|m| matches!(m, "runge-kutta" | "Runge Kutta"));
    let mode = if mode == Some(true) {
        "runge-kutta"
    } else {
        "semi-implicit_euler"
    };
    sim.extras.insert(
        format!("{FORMAT}.integration_mode"),
        Value::String(mode.to_owned()),
    );
    if let Some(dynamics) = get(&["dynamics_mode", "dynamicsMode"]).and_then(Node::scalar)
        && dynamics != "Forward dynamics"
    {
        session.finding(
            "dynamics_mode",
            Severity::Warning,
            Category::Note,
            path,
            Some(doc.span(item)),
            format!(
                "the simulator runs {dynamics:?}, not forward dynamics: mbconv reads the model, which moves under forward dynamics"
            ),
        );
        sim.extras.insert(
            format!("{FORMAT}.dynamics_mode"),
            Value::String(dynamics.to_owned()),
        );
    }
    Ok(sim)
}

/// Adds one body item's model as a group; a name another item took becomes `ITEM/NAME`.
fn merge(
    model: &mut Model,
    mut part: Model,
    item_name: &str,
    session: &mut ImportSession,
    doc: &Doc,
    item: &Node,
) {
    // Choreonoid lets items share a name; the IR's groups are `NAME`, `NAME#2`, ...
    let mut group_name = item_name.to_owned();
    let mut n = 2;
    while model.groups.iter().any(|g| g.name == group_name) {
        group_name = format!("{item_name}#{n}");
        n += 1;
    }
    session.take_name("groups", &group_name);
    if group_name != item_name {
        let at = path::item("groups", &group_name);
        session.report.rename("group", item_name, &group_name, at);
    }
    session.record(path::item("groups", &group_name), doc.span(item));
    let mut group = Group::new(&group_name, GroupType::Body);
    let body_names: Vec<String> = part.bodies.iter().map(|b| b.name.clone()).collect();
    for name in body_names {
        let unique = session.unique_name("bodies", &name, &group_name);
        if unique != name {
            mbconv_ir::lower::rename_body(&mut part, &name, &unique);
        }
        group.bodies.push(unique);
    }
    for joint in &mut part.joints {
        joint.name = session.unique_name("joints", &joint.name, &group_name);
        group.joints.push(joint.name.clone());
    }
    for constraint in &mut part.constraints {
        constraint.name = session.unique_name("constraints", &constraint.name, &group_name);
    }
    for device in &mut part.devices {
        device.name = session.unique_name("devices", &device.name, &group_name);
    }
    group.extras = part.extras;
    model.bodies.extend(part.bodies);
    model.joints.extend(part.joints);
    model.constraints.extend(part.constraints);
    model.devices.extend(part.devices);
    model.groups.push(group);
}
