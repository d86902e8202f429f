//! Building: every file (the main one and each `<include>`d one) read into scopes of
//! frames, links and joints, with poses as written.

use super::{FrameDef, Kind, Loc, MODEL_FRAME, Reader, Scope, push_extra};
use crate::raw::{self, SDF, Top};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::Category;
use mbconv_ir::{Extras, Pose, Value, ValueMap};
use mbconv_xml::{Node, child, children, element_value, elements, qualified_name, span_of_attribute};
use nalgebra::Vector3;
use std::collections::BTreeMap;

impl Reader<'_> {
    /// Reads file `file` (the main one: a world or a model; an included one: a model) and
    /// returns its top scope, a world holding the model when the file is a model.
    ///
    /// An included file with attributes not separated by whitespace is read from its text with
    /// a space inserted before each (the main file's are already, see `import`), with a warning
    /// at the first place: there the positions of later findings and errors count the inserted
    /// spaces, one column more per place before them on the same line.
    pub(super) fn build_file(&mut self, file: usize, depth: usize) -> SourceResult<usize> {
        if file != 0
            && let Some(separated) = mbconv_xml::tolerated::separate_attributes(&self.files[file])
        {
            let (span, message) = separated.warning(&self.files[file], "libsdformat (tinyxml2) and Drake");
            let at = Loc::new(file, span);
            self.files[file] = std::rc::Rc::new(separated.source);
            self.warn(
                "attributes_not_separated",
                Category::Note,
                "model",
                at,
                format!(
                    "{message}; later positions on those lines of this file count the inserted \
                     spaces (one column more per place before them on the line)"
                ),
            );
        }
        let late_declaration = match file {
            0 => self.main_late_declaration,
            _ => raw::late_declaration(&self.files[file].text),
        };
        if let Some((offset, length)) = late_declaration {
            let at = Loc::new(file, self.files[file].span(offset, length));
            self.note(
                "declaration_after_whitespace",
                Category::Note,
                "model",
                at,
                "whitespace before the XML declaration (which XML forbids): read, as libsdformat, Drake and DART read it".to_owned(),
            );
        }
        let source = std::rc::Rc::new(raw::tolerated(&self.files[file]));
        self.files[file] = std::rc::Rc::clone(&source);
        let document = raw::parse(&source)?;
        for (prefix, node) in mbconv_xml::tolerated::undeclared_prefix_uses(&document) {
            let at = self.loc(file, node);
            self.note(
                "undeclared_prefix",
                Category::Note,
                "model",
                at,
                format!(
                    "the namespace prefix `{prefix}` is used without an xmlns:{prefix} declaration (which \
                     XML namespaces forbid): read, as libsdformat and Drake read it"
                ),
            );
        }
        self.keep_namespaces(&document);
        let root = document.root_element();
        let version = raw::version(&source, root)?;
        let model = match raw::top(&source, root, file == 0)? {
            Top::World(world) => return self.world(file, version, world, depth),
            Top::Model(model) => model,
        };
        for other in elements(root) {
            if !matches!(other.tag_name().name(), "model") {
                let at = self.loc(file, other);
                self.warn(
                    "ignored",
                    Category::Ignored,
                    "model",
                    at,
                    format!("<{}> beside the <model> is not read", other.tag_name().name()),
                );
            }
        }
        let world = self.new_scope(String::new(), true, version, false, self.loc(file, root));
        let name = SDF.required_attribute(&source, model, "name")?.to_owned();
        let scope = self.model(file, version, model, String::new(), false, depth)?;
        let pose = self.pose_of(file, model)?;
        self.add_model_frame(world, &name, scope, pose, self.loc(file, model))?;
        if file == 0 {
            self.world_name = Some(name);
        }
        Ok(world)
    }

    /// Adds the namespaces `document` declares (on any element) to the model's
    /// [`NAMESPACES_EXTRA`](crate::spec::NAMESPACES_EXTRA), each prefix once (its first URI).
    fn keep_namespaces(&mut self, document: &mbconv_xml::Document) {
        let mut kept = match self.model_extras.remove(crate::spec::NAMESPACES_EXTRA) {
            Some(Value::Map(map)) => map,
            _ => ValueMap::new(),
        };
        for node in document.descendants().filter(Node::is_element) {
            for ns in node.namespaces() {
                if let Some(prefix) = ns.name()
                    && prefix != "xml"
                    && kept.get(prefix).is_none()
                {
                    kept.insert(prefix, Value::String(ns.uri().to_owned()));
                }
            }
        }
        if !kept.is_empty() {
            self.model_extras
                .insert(crate::spec::NAMESPACES_EXTRA, Value::Map(kept));
        }
    }

    fn new_scope(&mut self, prefix: String, is_world: bool, version: u32, is_static: bool, at: Loc) -> usize {
        self.scopes.push(Scope {
            prefix,
            is_world,
            version,
            is_static,
            canonical: None,
            placement: None,
            frames: Vec::new(),
            index: BTreeMap::new(),
            links: Vec::new(),
            joints: Vec::new(),
            ball_constraints: Vec::new(),
            self_collide: None,
            extras: Extras::default(),
            at,
        });
        self.scopes.len() - 1
    }

    /// Adds a frame, refusing a name already used in the scope (1.7 and later: links, joints,
    /// frames and models share one namespace) and the reserved names.
    pub(super) fn add_frame(
        &mut self,
        scope: usize,
        name: &str,
        kind: Kind,
        pose: (Pose, Option<String>),
        at: Loc,
    ) -> SourceResult<()> {
        let version = self.scopes[scope].version;
        if name.is_empty() {
            return Err(self.err(at, "name", "an empty name is refused"));
        }
        if version >= 7
            && (name == "world"
                || name == MODEL_FRAME
                || (version >= 8 && name.contains("::") && !matches!(kind, Kind::Model(_))))
        {
            return Err(self.err(
                at,
                "name",
                format!("the name {name:?} is reserved (libsdformat refuses it)"),
            ));
        }
        if name == "world" && matches!(kind, Kind::Joint { .. }) {
            self.warn(
                "libsdformat_refuses",
                Category::Note,
                "model",
                at,
                "a joint named \"world\": read, as SDFormat 1.4 to 1.6 allow it, but libsdformat refuses the file (\"The supplied joint name [world] is reserved.\"), and so do Drake and Gazebo".to_owned(),
            );
        }
        if self.scopes[scope].index.contains_key(name) {
            if version >= 7 || !matches!(kind, Kind::Joint { .. }) {
                return Err(self.err(
                    at,
                    "duplicate",
                    format!("the name {name:?} is used twice in this scope (libsdformat refuses sibling frames with the same name)"),
                ));
            }
            // 1.4 to 1.6 allow a joint named like a link: the joint's frame is not addressable.
            self.warn(
                "libsdformat_refuses",
                Category::Note,
                "model",
                at,
                format!(
                    "a joint named like a link, {name:?}: read, as SDFormat 1.4 to 1.6 allow it, but libsdformat refuses the file (\"Non-unique name[{name}] detected 2 times in XML children of model\"), and so do Drake and Gazebo"
                ),
            );
            let s = &mut self.scopes[scope];
            s.frames.push((
                format!("{name}\u{0}joint"),
                FrameDef {
                    kind,
                    pose: pose.0,
                    relative_to: pose.1,
                    at,
                },
            ));
            return Ok(());
        }
        let s = &mut self.scopes[scope];
        s.index.insert(name.to_owned(), s.frames.len());
        s.frames.push((
            name.to_owned(),
            FrameDef {
                kind,
                pose: pose.0,
                relative_to: pose.1,
                at,
            },
        ));
        Ok(())
    }

    fn world(&mut self, file: usize, version: u32, node: Node, depth: usize) -> SourceResult<usize> {
        let source = self.files[file].clone();
        let name = SDF.required_attribute(&source, node, "name")?.to_owned();
        self.unique_sibling_names(file, node, &name)?;
        self.world_name = Some(name);
        let scope = self.new_scope(String::new(), true, version, false, self.loc(file, node));
        self.simulation_gravity = Some(match child(node, "gravity") {
            Some(g) => Vector3::from(SDF.fixed::<3>(&source, g)?),
            None => Vector3::new(0.0, 0.0, -9.8),
        });
        let physics: Vec<Node> = children(node, "physics").collect();
        let chosen = physics
            .iter()
            .find(|p| p.attribute("default").is_some_and(|d| d == "true" || d == "1"))
            .or(physics.first());
        self.time_step = Some(match chosen.and_then(|p| child(*p, "max_step_size")) {
            Some(step) => SDF.scalar(&source, step)?,
            None => 0.001,
        });
        for element in elements(node) {
            let at = self.loc(file, element);
            match qualified_name(element).as_str() {
                "gravity" | "physics" => {}
                "model" => {
                    let name = SDF.required_attribute(&source, element, "name")?.to_owned();
                    let inner = self.model(file, version, element, format!("{name}::"), false, depth)?;
                    let pose = self.pose_of(file, element)?;
                    self.add_model_frame(scope, &name, inner, pose, at)?;
                }
                "include" => self.include(file, scope, element, "", false, depth)?,
                "frame" => self.frame(file, scope, element)?,
                "joint" => self.add_joint(file, version, scope, element, at)?,
                tag @ ("light"
                | "plugin"
                | "actor"
                | "scene"
                | "atmosphere"
                | "spherical_coordinates"
                | "magnetic_field"
                | "wind"
                | "gui"
                | "audio"
                | "population"
                | "road"
                | "state") => {
                    push_extra(
                        &mut self.model_extras,
                        &format!("sdf.{tag}"),
                        element_value(element),
                    );
                    self.note(
                        "kept",
                        Category::Note,
                        "model",
                        at,
                        format!("<{tag}> of the world kept verbatim in sdf.{tag}"),
                    );
                }
                tag if tag.contains(':') => self.keep_extension(None, tag, element, at),
                tag => {
                    self.warn(
                        "ignored",
                        Category::Ignored,
                        "model",
                        at,
                        format!("<{tag}> of the world is not read"),
                    );
                }
            }
        }
        Ok(scope)
    }

    /// Reads a `<joint>` of `scope`: the joint, and its frame.
    fn add_joint(
        &mut self,
        file: usize,
        version: u32,
        scope: usize,
        element: Node,
        at: Loc,
    ) -> SourceResult<()> {
        let joint = self.joint(file, version, element)?;
        let pose = self.pose_of(file, element)?;
        let kind = Kind::Joint {
            child: joint.child.clone(),
        };
        self.add_frame(scope, &joint.name, kind, pose, at)?;
        self.scopes[scope].joints.push(joint);
        Ok(())
    }

    /// Keeps an extension element (a namespaced tag such as `<gz:plugin>`) verbatim in the
    /// extras of model scope `scope`, or of the whole model for the world's (`None`).
    fn keep_extension(&mut self, scope: Option<usize>, tag: &str, element: Node, at: Loc) {
        let extras = match scope {
            Some(scope) => &mut self.scopes[scope].extras,
            None => &mut self.model_extras,
        };
        push_extra(extras, &format!("sdf.{tag}"), element_value(element));
        self.note(
            "extension_kept",
            Category::Note,
            "model",
            at,
            format!("<{tag}> is an extension element: kept verbatim in sdf.{tag}"),
        );
    }

    /// libsdformat refuses a world whose named children (models, lights, frames, joints, …)
    /// share a name, whatever their types, in every version; it does not check `<plugin>`s
    /// nor namespaced (`prefix:name`) elements, which gz-sim's worlds name alike.
    fn unique_sibling_names(&self, file: usize, node: Node, world: &str) -> SourceResult<()> {
        let checked = |e: &Node| e.tag_name().name() != "plugin" && !qualified_name(*e).contains(':');
        let mut seen = std::collections::BTreeSet::new();
        for element in elements(node).filter(checked) {
            if let Some(name) = element.attribute("name")
                && !seen.insert(name)
            {
                let count = elements(node)
                    .filter(|e| checked(e) && e.attribute("name") == Some(name))
                    .count();
                return Err(self.err(
                    self.loc(file, element),
                    "duplicate",
                    format!("Non-unique name {name:?} detected {count} times in the children of world {world:?} (libsdformat refuses it)"),
                ));
            }
        }
        Ok(())
    }

    /// A `<model>` as a scope. `prefix` names its links in the IR.
    fn model(
        &mut self,
        file: usize,
        version: u32,
        node: Node,
        prefix: String,
        parent_static: bool,
        depth: usize,
    ) -> SourceResult<usize> {
        let source = self.files[file].clone();
        let is_static = parent_static
            || match child(node, "static") {
                Some(s) => SDF.boolean(&source, s)?,
                None => false,
            };
        let scope = self.new_scope(prefix.clone(), false, version, is_static, self.loc(file, node));
        // libsdformat converts every file to its newest version before reading it, so the
        // attributes of later versions are read in older files too.
        for (attr, slot) in [("canonical_link", 0), ("placement_frame", 1)] {
            if let Some(value) = node.attribute(attr).filter(|v| !v.is_empty()) {
                let at = Loc::new(file, span_of_attribute(&source, node, attr));
                if slot == 0 {
                    self.scopes[scope].canonical = Some((value.to_owned(), at));
                } else {
                    self.scopes[scope].placement = Some((value.to_owned(), at));
                }
            }
        }
        if let Some(sc) = child(node, "self_collide") {
            self.scopes[scope].self_collide = Some(SDF.boolean(&source, sc)?);
        }
        for element in elements(node) {
            let at = self.loc(file, element);
            match qualified_name(element).as_str() {
                "static" | "pose" | "self_collide" => {}
                "link" => self.add_link(file, scope, element, &prefix, at)?,
                "joint" | "drake:joint" => self.add_joint(file, version, scope, element, at)?,
                crate::spec::DRAKE_BALL_CONSTRAINT => {
                    let constraint = self.ball_constraint(file, element)?;
                    self.scopes[scope].ball_constraints.push(constraint);
                }
                "frame" => self.frame(file, scope, element)?,
                "model" => {
                    let name = SDF.required_attribute(&source, element, "name")?.to_owned();
                    let inner = self.model(
                        file,
                        version,
                        element,
                        format!("{prefix}{name}::"),
                        is_static,
                        depth,
                    )?;
                    let pose = self.pose_of(file, element)?;
                    self.add_model_frame(scope, &name, inner, pose, at)?;
                }
                "include" => self.include(file, scope, element, &prefix, is_static, depth)?,
                tag
                @ ("plugin" | "gripper" | "enable_wind" | "allow_auto_disable" | "enable_wind_forces") => {
                    push_extra(
                        &mut self.scopes[scope].extras,
                        &format!("sdf.{tag}"),
                        element_value(element),
                    );
                }
                tag if tag.contains(':') => self.keep_extension(Some(scope), tag, element, at),
                tag => {
                    self.warn(
                        "ignored",
                        Category::Ignored,
                        "model",
                        at,
                        format!("<{tag}> of a model is not read"),
                    );
                }
            }
        }
        if self.is_empty_scope(scope) {
            let at = self.scopes[scope].at;
            if !is_static {
                return Err(self.err(
                    at,
                    "empty_model",
                    "a model that is not static must have at least one link or nested model (libsdformat refuses it)",
                ));
            }
            self.note(
                "static_model_empty",
                Category::Note,
                "model",
                at,
                format!(
                    "static model {:?} has no link: read as a frame, without bodies, as libsdformat accepts it",
                    node.attribute("name").unwrap_or_default()
                ),
            );
        }
        Ok(scope)
    }

    /// True for a model scope with no link and no nested model (libsdformat accepts it when
    /// static).
    pub(super) fn is_empty_scope(&self, scope: usize) -> bool {
        let s = &self.scopes[scope];
        s.links.is_empty() && !s.frames.iter().any(|(_, f)| matches!(f.kind, Kind::Model(_)))
    }

    /// Adds model scope `inner` to `scope` as the frame `name`: a nested model, or a plain
    /// frame for a static model without links (its frames stay out of reach).
    pub(super) fn add_model_frame(
        &mut self,
        scope: usize,
        name: &str,
        inner: usize,
        pose: (Pose, Option<String>),
        at: Loc,
    ) -> SourceResult<()> {
        let kind = if self.is_empty_scope(inner) {
            Kind::Frame { attached_to: None }
        } else {
            Kind::Model(inner)
        };
        self.add_frame(scope, name, kind, pose, at)
    }

    /// Reads a `<link>` of model scope `scope` (`prefix` names it in the IR): the link, and
    /// its frame.
    fn add_link(
        &mut self,
        file: usize,
        scope: usize,
        element: Node,
        prefix: &str,
        at: Loc,
    ) -> SourceResult<()> {
        let name = SDF
            .required_attribute(&self.files[file], element, "name")?
            .to_owned();
        if name == "world" {
            return Err(self.err(
                at,
                "name",
                "the link name \"world\" is reserved (libsdformat refuses it in every version)",
            ));
        }
        let link = self.link(file, element, &format!("{prefix}{name}"))?;
        let pose = self.pose_of(file, element)?;
        let index = self.scopes[scope].links.len();
        self.add_frame(scope, &name, Kind::Link(index), pose, at)?;
        self.scopes[scope].links.push((name, link));
        Ok(())
    }

    /// `<frame name attached_to>` with its pose.
    fn frame(&mut self, file: usize, scope: usize, node: Node) -> SourceResult<()> {
        let source = self.files[file].clone();
        let name = SDF.required_attribute(&source, node, "name")?.to_owned();
        let attached_to = node
            .attribute("attached_to")
            .filter(|a| !a.is_empty())
            .map(str::to_owned);
        let pose = self.pose_of(file, node)?;
        let at = self.loc(file, node);
        self.add_frame(scope, &name, Kind::Frame { attached_to }, pose, at)
    }
}
