//! URDF document -> IR, following urdfdom's parser (the one Pinocchio, DART and ROS use) and
//! reporting where the loaders built on it, and Drake, disagree.
//!
//! Links become bodies whose frame is the link frame (the frame of the joint above them);
//! a joint's parent frame is its `<origin>` in the parent link's frame and its child frame
//! the identity, so the body poses are the joint origins composed from the root. A link named
//! `world` (declared or not) is the world.
//!
//! By what they read: [`links`] (`<link>`, `<inertial>`, the world link), [`shapes`]
//! (`<visual>`, `<collision>`, `<geometry>`, `<material>`), [`meshes`] (mesh URIs: packages,
//! `file://`, relative paths), [`origin`] (`<origin>`), [`joints`] (`<joint>`, `<limit>`,
//! `<dynamics>`, `<mimic>`, calibration and safety controllers), [`tree`] (the links' tree,
//! the poses and the root), [`welded`] (fixed links whose own inertia is unphysical) and
//! [`extensions`] (`<transmission>`, namespace prefixes and the elements kept verbatim).

mod extensions;
mod joints;
mod links;
mod meshes;
mod origin;
mod shapes;
mod tree;
mod welded;

use crate::raw::{self, URDF};
use crate::spec;
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::format::{Imported, Options, Source};
use mbconv_ir::report::{Category, Severity, SourceSpan, path};
use mbconv_ir::{Appearance, Body, Extras, Joint, Model, Value};
use mbconv_xml::{Node, children, span_of_attribute, span_of_node};
use std::collections::{BTreeMap, BTreeSet};

/// Reads a URDF document: `options` holds the read settings (`root`, `package_path`).
///
/// What urdfdom's XML parser reads although XML forbids it is read too ([`raw::tolerated`]);
/// attributes not separated by whitespace (`name="a"type="fixed"`) are read from a text with a
/// space inserted before each ([`mbconv_xml::tolerated::separate_attributes`]), every position
/// of the findings, the source map and an error mapped back to the file, with a warning
/// `urdf.attributes_not_separated` at the first.
pub(crate) fn import(source: &Source, options: &Options) -> SourceResult<Imported> {
    let late_declaration = mbconv_xml::tolerated::late_declaration(&source.text);
    let tolerated = raw::tolerated(source);
    let source = tolerated.as_ref().unwrap_or(source);
    mbconv_xml::tolerated::read_separating_attributes(
        source,
        "urdf.attributes_not_separated",
        "urdfdom (Pinocchio) and Drake",
        |source| read(source, late_declaration, options),
    )
}

/// [`import`] of the text as parsed.
fn read(
    source: &Source,
    late_declaration: Option<(usize, usize)>,
    options: &Options,
) -> SourceResult<Imported> {
    let document = raw::parse(source)?;
    let packages = meshes::packages(options, source.base_dir());
    let mut reader = Reader {
        source,
        session: ImportSession::new("urdf", source),
        version_1_1: false,
        materials: Vec::new(),
        packages,
        packages_beside_file: BTreeSet::new(),
        joint_names: BTreeSet::new(),
    };
    if let Some((offset, length)) = late_declaration {
        reader.session.finding(
            "declaration_after_whitespace",
            Severity::Info,
            Category::Note,
            "model",
            Some(source.span(offset, length)),
            "whitespace before the XML declaration (which XML forbids): read, as urdfdom (Pinocchio) and Drake read it",
        );
    }
    for (prefix, node) in mbconv_xml::tolerated::undeclared_prefix_uses(&document) {
        reader.note(
            "undeclared_prefix",
            Category::Note,
            "model",
            node,
            format!(
                "the namespace prefix `{prefix}` is used without an xmlns:{prefix} declaration (which XML \
                 namespaces forbid): read, as urdfdom (Pinocchio) and Drake read it"
            ),
        );
    }
    reader.xacro_calls(&document);
    let free_root = options.choice(spec::ROOT, spec::ROOT_CHOICES) == Some("free");
    let root_given = options.text(spec::ROOT).is_some();
    let model = reader.robot(document.root_element(), free_root, root_given)?;
    Ok(reader.session.finish(model))
}

/// A link as read, before the tree is known.
struct LinkEntry<'a, 'input> {
    node: Node<'a, 'input>,
    body: Body,
}

/// The links of a file as read: the bodies in file order, their index by name, and the
/// `<link name="world">` if the file declares it.
struct Links<'a, 'input> {
    entries: Vec<LinkEntry<'a, 'input>>,
    index: BTreeMap<String, usize>,
    world: Option<Node<'a, 'input>>,
}

/// A joint as read, with its link names.
struct JointEntry<'a, 'input> {
    node: Node<'a, 'input>,
    joint: Joint,
    parent: String,
    child: String,
}

struct Reader<'s> {
    source: &'s Source,
    session: ImportSession<'s>,
    /// `<robot version="1.1">`: `quat_xyzw` and capsules are URDF.
    version_1_1: bool,
    /// Global materials and materials named in visuals, in file order.
    materials: Vec<(String, Appearance)>,
    packages: mbconv_xml::packages::Packages,
    /// The packages found from the model file's folder so far (each noted once).
    packages_beside_file: BTreeSet<String>,
    /// The names of the file's joints, for the `<mimic>` targets.
    joint_names: BTreeSet<String>,
}

impl<'s> Reader<'s> {
    fn span(&self, node: Node) -> SourceSpan {
        span_of_node(self.source, node)
    }

    fn warn(&mut self, code: &str, category: Category, at: &str, node: Node, message: impl Into<String>) {
        let span = Some(self.span(node));
        self.session
            .finding(code, Severity::Warning, category, at, span, message);
    }

    fn note(&mut self, code: &str, category: Category, at: &str, node: Node, message: impl Into<String>) {
        let span = Some(self.span(node));
        self.session
            .finding(code, Severity::Info, category, at, span, message);
    }

    /// Gives an item of the IR list `list` a name no other item of it has (qualified with
    /// `qualifier` on a clash, the file's name kept in [`spec::NAME`]) and records where it was
    /// read.
    fn name_item(&mut self, list: &str, qualifier: &str, name: &mut String, extras: &mut Extras, node: Node) {
        let unique = self.session.unique_name(list, name, qualifier);
        if unique != *name {
            extras.insert(spec::NAME, Value::String(name.clone()));
            *name = unique;
        }
        self.session.record(path::item(list, name), self.span(node));
    }

    /// Calls of xacro macros that a xacro run left in the file (it wrote the file without
    /// defining them): urdfdom skips such elements, and so does the reader, with a warning each.
    fn xacro_calls(&mut self, document: &mbconv_xml::Document) {
        let calls = document
            .descendants()
            .filter(|n| raw::is_xacro_element(*n) && !n.parent().is_some_and(raw::is_xacro_element));
        for call in calls {
            let name = mbconv_xml::qualified_name(call);
            self.warn(
                "xacro_call_skipped",
                Category::Ignored,
                "model",
                call,
                format!(
                    "<{name}> calls a xacro macro that the file does not define (a xacro run left it \
                     unexpanded): skipped, as urdfdom (Pinocchio) and Drake skip it; what the macro \
                     would add is not in the model"
                ),
            );
        }
    }

    fn robot(&mut self, robot: Node, free_root: bool, root_given: bool) -> SourceResult<Model> {
        let name = URDF.required_attribute(self.source, robot, "name")?;
        self.version(robot)?;
        let mut model = Model::new(name);
        self.session.record("model", self.span(robot));
        if let Some(prefixes) = extensions::namespace_prefixes(robot) {
            model.extras.insert(spec::XMLNS, prefixes);
        }
        for material in children(robot, "material") {
            self.global_material(material)?;
        }
        let links = self.links(robot)?;
        let mut joints = self.joints(robot)?;
        let tree = self.tree(&links, &joints)?;
        if let Some(kept) = self.transmissions(robot, &mut joints) {
            model.extras.insert("urdf.transmission", kept);
        }
        self.robot_extensions(robot, &mut model.extras);
        let mut bodies = self.bodies(&links.entries);
        model.joints = self.ir_joints(&joints, &links.index, &bodies);
        tree::place_bodies(&mut bodies, &tree, &joints);
        self.weld_unphysical_inertias(&links.entries, &tree, &joints, &mut bodies);
        self.hold_root(&links.entries, &tree, &mut bodies, free_root, root_given);
        model.bodies = bodies;
        Ok(model)
    }

    /// `<robot version>`: absent is 1.0; urdfdom accepts `major.minor` for 1.0 and 1.1 only.
    fn version(&mut self, robot: Node) -> SourceResult<()> {
        let Some(version) = robot.attribute("version") else {
            return Ok(());
        };
        let parsed = version
            .split_once('.')
            .filter(|(a, b)| {
                !a.is_empty() && !b.is_empty() && (a.bytes().chain(b.bytes())).all(|c| c.is_ascii_digit())
            })
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
        match parsed {
            Some((1, 0)) => Ok(()),
            Some((1, 1)) => {
                self.version_1_1 = true;
                Ok(())
            }
            Some(_) => Err(URDF.error(
                self.source,
                "version",
                Some(span_of_attribute(self.source, robot, "version")),
                format!("URDF version {version:?} is not supported: urdfdom reads versions 1.0 and 1.1"),
            )),
            None => Err(URDF.error(
                self.source,
                "version",
                Some(span_of_attribute(self.source, robot, "version")),
                format!("the URDF version must be `major.minor` (\"1.0\", \"1.1\"), found {version:?}"),
            )),
        }
    }
}
