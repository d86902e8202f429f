//! SKEL document -> IR, applying DART 6.20's reading rules and reporting each implicit one.
//!
//! [`import`] reads the `<world>` (or a lone `<skeleton>`) and its `<physics>`; `skeleton`
//! assembles each skeleton from its bodies (`body`) and joints (`joint`); `inertia` is DART's
//! inertia from shapes.

mod body;
mod inertia;
mod joint;
mod skeleton;

use crate::raw::{self, child, children, elements, span_of_node};
use crate::spec::verbatim::element_value;
use crate::spec::{DEFAULT_GRAVITY, DEFAULT_TIME_STEP, FORMAT, NO_WORLD, VERSION, pose_from_numbers};
use mbconv_ir::format::kit::{ImportSession, SourceResult, aids};
use mbconv_ir::format::{Imported, Source, SourceError};
use mbconv_ir::{Category, Extras, Model, Pose, Severity, SourceSpan, Value};
use nalgebra::Vector3;
use roxmltree::Node;

/// Reads a SKEL file into the IR. Attributes not separated by whitespace
/// (`type="revolute"name="j"`), which XML forbids and DART's parser (tinyxml2) reads, are read
/// with a warning `skel.attributes_not_separated` and the file's positions
/// ([`mbconv_xml::tolerated::read_separating_attributes`]).
pub(crate) fn import(source: &Source) -> SourceResult<Imported> {
    mbconv_xml::tolerated::read_separating_attributes(
        source,
        "skel.attributes_not_separated",
        "DART's SkelParser (tinyxml2)",
        read,
    )
}

/// [`import`] of the text as parsed.
fn read(source: &Source) -> SourceResult<Imported> {
    let document = raw::parse(source)?;
    let root = document.root_element();
    let mut importer = Importer {
        session: ImportSession::new(FORMAT, source),
        model: Model::new("world"),
    };
    if let Some(version) = root.attribute("version")
        && version != "1.0"
    {
        importer
            .model
            .extras
            .insert(VERSION, Value::String(version.to_owned()));
    }
    match child(root, "world") {
        Some(world) => importer.world(world)?,
        None => importer.lone_skeleton(root)?,
    }
    let Importer { session, model } = importer;
    Ok(session.finish(model))
}

/// One import: the session (source, report, source map, names taken) and the model so far.
struct Importer<'s> {
    session: ImportSession<'s>,
    model: Model,
}

/// Keeps numbers as written under the exactness aid `skel.source.<aid>` (the writer reuses
/// them when they give the IR value back bit for bit).
fn keep_aid(extras: &mut Extras, aid: &str, numbers: &[f64]) {
    extras.insert(aids::key(FORMAT, aid), aids::numbers_value(numbers));
}

/// A `<transformation>`: the six numbers as written and the pose they stand for.
struct Transformation {
    numbers: [f64; 6],
    pose: Pose,
}

impl<'s> Importer<'s> {
    fn source(&self) -> &'s Source {
        self.session.source
    }

    fn span(&self, node: Node) -> SourceSpan {
        span_of_node(self.source(), node)
    }

    /// A finding about the element `node` (when given) and the IR item at `at`.
    fn note(
        &mut self,
        code: &str,
        severity: Severity,
        category: Category,
        at: impl Into<String>,
        node: Option<Node>,
        message: impl Into<String>,
    ) {
        let span = node.map(|n| self.span(n));
        self.session
            .finding(code, severity, category, &at.into(), span, message);
    }

    /// An error pointing at `node`.
    fn error(&self, code: &str, node: Node, message: impl Into<String>) -> Box<SourceError> {
        self.session.error(code, Some(self.span(node)), message)
    }

    fn defaults_physics(&mut self) {
        self.model.simulation.gravity = Some(Vector3::from(DEFAULT_GRAVITY));
        self.model.simulation.time_step = Some(DEFAULT_TIME_STEP);
    }

    /// A `<skel>` without `<world>`: its first `<skeleton>`, as DART's `readSkeleton` reads it.
    fn lone_skeleton(&mut self, root: Node) -> SourceResult<()> {
        let source = self.source();
        let skeleton = raw::required_child(source, root, "skeleton").map_err(|_| {
            self.error(
                "skel.missing",
                root,
                "<skel> needs a <world> element (or a single <skeleton>)",
            )
        })?;
        self.model.extras.insert(NO_WORLD, Value::Bool(true));
        self.note(
            "skel.no_world",
            Severity::Info,
            Category::Note,
            "model",
            Some(skeleton),
            "no <world>: read the first <skeleton> as DART's readSkeleton does (readWorld refuses this file)",
        );
        self.model.name = skeleton.attribute("name").unwrap_or("skeleton").to_owned();
        self.defaults_physics();
        self.skeleton(skeleton)
    }

    fn world(&mut self, world: Node) -> SourceResult<()> {
        self.model.name = world.attribute("name").unwrap_or("Unknown world").to_owned();
        self.session.record("model", self.span(world));
        self.defaults_physics();
        match child(world, "physics") {
            Some(physics) => self.physics(physics)?,
            None => self.note(
                "skel.default_physics",
                Severity::Info,
                Category::Defaulted,
                "simulation",
                Some(world),
                "no <physics>: DART's defaults apply (gravity 0 0 -9.81, time step 0.001 s)",
            ),
        }
        for element in elements(world) {
            match element.tag_name().name() {
                "physics" | "skeleton" => {}
                other => {
                    let key = format!("skel.world.{other}");
                    self.model.extras.insert(key, element_value(element));
                    self.note(
                        "skel.ignored",
                        Severity::Info,
                        Category::Ignored,
                        "model",
                        Some(element),
                        format!("<{other}> is not read by DART; kept verbatim"),
                    );
                }
            }
        }
        for skeleton in children(world, "skeleton") {
            self.skeleton(skeleton)?;
        }
        Ok(())
    }

    fn physics(&mut self, physics: Node) -> SourceResult<()> {
        let source = self.source();
        self.session.record("simulation", self.span(physics));
        for element in elements(physics) {
            match element.tag_name().name() {
                "time_step" => self.model.simulation.time_step = Some(raw::scalar(source, element)?),
                "gravity" => {
                    self.model.simulation.gravity = Some(Vector3::from(raw::fixed::<3>(source, element)?))
                }
                "collision_detector" => self
                    .model
                    .simulation
                    .extras
                    .insert("skel.collision_detector", Value::String(raw::text(element))),
                other => {
                    self.model
                        .simulation
                        .extras
                        .insert(format!("skel.{other}"), element_value(element));
                    self.note(
                        "skel.ignored",
                        Severity::Info,
                        Category::Ignored,
                        "simulation",
                        Some(element),
                        format!("<physics><{other}> is not read by DART; kept verbatim"),
                    );
                }
            }
        }
        Ok(())
    }

    /// The `<transformation>` child of `node`, when it has one.
    fn transformation(&self, node: Node) -> SourceResult<Option<Transformation>> {
        let Some(t) = child(node, "transformation") else {
            return Ok(None);
        };
        let numbers = raw::fixed::<6>(self.source(), t)?;
        Ok(Some(Transformation {
            numbers,
            pose: pose_from_numbers(numbers),
        }))
    }
}
