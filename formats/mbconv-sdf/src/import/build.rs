//! Building: every file (the main one and each `<include>`d one) read into scopes of
//! frames, links and joints, with poses as written.

use super::{
    FrameDef, Kind, Loc, MAX_INCLUDE_DEPTH, MODEL_FRAME, Reader, SDF, Scope, comments_without_double_hyphens,
    model_file, push_extra, text_of,
};
use crate::spec;
use mbconv_ir::format::Source;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::Category;
use mbconv_ir::{Extras, Pose};
use mbconv_xml::{
    Node, child, children, element_value, elements, qualified_name, span_of_attribute, span_of_node, text,
};
use nalgebra::Vector3;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

impl Reader<'_> {
    /// Reads file `file` (the main one: a world or a model; an included one: a model) and
    /// returns its top scope, a world holding the model when the file is a model.
    pub(super) fn build_file(&mut self, file: usize, depth: usize) -> SourceResult<usize> {
        let source = comments_without_double_hyphens(&self.files[file]);
        self.files[file] = source.clone();
        let document = SDF.parse(&source)?;
        let root = document.root_element();
        let Some(version_text) = root.attribute("version") else {
            return Err(SDF.error(
                &source,
                "version",
                Some(span_of_node(&source, root)),
                "<sdf> needs the attribute `version` (1.4 to 1.12)",
            ));
        };
        let Some(version) = spec::minor_version(version_text) else {
            return Err(SDF.error(
                &source,
                "version",
                Some(span_of_attribute(&source, root, "version")),
                format!("SDFormat version {version_text:?} is not read: versions 1.4 to 1.12 are"),
            ));
        };
        let worlds: Vec<Node> = children(root, "world").collect();
        let models: Vec<Node> = children(root, "model").collect();
        if file == 0 && worlds.len() == 1 && models.is_empty() {
            return self.world(file, version, worlds[0], depth);
        }
        if worlds.len() > 1 {
            return Err(SDF.error(
                &source,
                "world",
                Some(span_of_node(&source, worlds[1])),
                "more than one <world>: mbconv reads one world per file",
            ));
        }
        let Some(model) = models.first() else {
            let what = if worlds.is_empty() {
                "<sdf> holds no <world> and no <model>"
            } else {
                "an included file must hold a <model>, not a <world>"
            };
            return Err(SDF.error(&source, "missing", Some(span_of_node(&source, root)), what));
        };
        if !worlds.is_empty() || models.len() > 1 {
            let extra = if worlds.is_empty() { models[1] } else { worlds[0] };
            return Err(SDF.error(
                &source,
                "root",
                Some(span_of_node(&source, extra)),
                "<sdf> must hold exactly one <model> or one <world> (libsdformat refuses others)",
            ));
        }
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
        let name = SDF.required_attribute(&source, *model, "name")?.to_owned();
        let scope = self.model(file, version, *model, String::new(), false, depth)?;
        let pose = self.pose_of(file, *model)?;
        self.add_frame(world, &name, Kind::Model(scope), pose, self.loc(file, *model))?;
        if file == 0 {
            self.world_name = Some(name);
        }
        Ok(world)
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
            self_collide: None,
            extras: Extras::default(),
            at,
        });
        self.scopes.len() - 1
    }

    /// Adds a frame, refusing a name already used in the scope (1.7 and later: links, joints,
    /// frames and models share one namespace) and the reserved names.
    fn add_frame(
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
        if self.scopes[scope].index.contains_key(name) {
            if version >= 7 || !matches!(kind, Kind::Joint { .. }) {
                return Err(self.err(
                    at,
                    "duplicate",
                    format!("the name {name:?} is used twice in this scope (libsdformat refuses sibling frames with the same name)"),
                ));
            }
            // 1.4 to 1.6 allow a joint named like a link: the joint's frame is not addressable.
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
                    self.add_frame(scope, &name, Kind::Model(inner), pose, at)?;
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
    /// share a name, whatever their types, in every version.
    fn unique_sibling_names(&self, file: usize, node: Node, world: &str) -> SourceResult<()> {
        let mut seen = std::collections::BTreeSet::new();
        for element in elements(node) {
            if let Some(name) = element.attribute("name")
                && !seen.insert(name)
            {
                let count = elements(node)
                    .filter(|e| e.attribute("name") == Some(name))
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
                "link" => {
                    let name = SDF.required_attribute(&source, element, "name")?.to_owned();
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
                }
                "joint" | "drake:joint" => self.add_joint(file, version, scope, element, at)?,
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
                    self.add_frame(scope, &name, Kind::Model(inner), pose, at)?;
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
        if self.scopes[scope].links.is_empty()
            && !self.scopes[scope]
                .frames
                .iter()
                .any(|(_, f)| matches!(f.kind, Kind::Model(_)))
        {
            return Err(self.err(
                self.scopes[scope].at,
                "empty_model",
                "a model must have at least one link or nested model (libsdformat refuses it)",
            ));
        }
        Ok(scope)
    }

    /// `<include>`: the model of another file, as a nested model of `scope`, with the
    /// include's name, pose, `static` and `placement_frame` overriding the file's.
    fn include(
        &mut self,
        file: usize,
        scope: usize,
        node: Node,
        prefix: &str,
        parent_static: bool,
        depth: usize,
    ) -> SourceResult<()> {
        let source = self.files[file].clone();
        let at = self.loc(file, node);
        let uri_node = SDF.required_child(&source, node, "uri")?;
        let uri = text(uri_node);
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(self.err(
                at,
                "include",
                format!(
                    "<include> nested deeper than {MAX_INCLUDE_DEPTH} levels (a file that includes itself?)"
                ),
            ));
        }
        let path = self.resolve_uri(&uri, source.base_dir()).ok_or_else(|| {
            self.err(
                self.loc(file, uri_node),
                "include",
                format!("cannot find {uri:?}: model:// URIs are searched in the model_path setting, GZ_SIM_RESOURCE_PATH and SDF_PATH, other URIs relative to this file"),
            )
        })?;
        let text = std::fs::read_to_string(&path).map_err(|e| {
            self.err(
                self.loc(file, uri_node),
                "include",
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        let included = Source::from_string(path.display().to_string(), text)
            .with_path(path.display().to_string(), Some(path.clone()));
        let index = self.files.len();
        self.files.push(included);
        let world = self.build_file(index, depth + 1)?;
        // The included file's model is the only frame of the world that build_file made.
        let (file_name, def) = self.scopes[world].frames[0].clone();
        let Kind::Model(inner) = def.kind else {
            return Err(self.err(at, "include", "the included file holds no model"));
        };
        let name = match child(node, "name") {
            Some(n) => text_of(n),
            None => file_name,
        };
        self.rename_scope(inner, &format!("{prefix}{name}::"));
        if let Some(s) = child(node, "static") {
            if SDF.boolean(&source, s)? {
                self.make_static(inner);
            }
        } else if parent_static {
            self.make_static(inner);
        }
        if let Some(p) = child(node, "placement_frame") {
            self.scopes[inner].placement = Some((text_of(p), self.loc(file, p)));
        }
        let pose = match child(node, "pose") {
            Some(_) => self.pose_of(file, node)?,
            None => (def.pose, None),
        };
        self.add_frame(scope, &name, Kind::Model(inner), pose, at)?;
        self.note(
            "include",
            Category::Note,
            "model",
            at,
            format!("included {uri:?} from {} as model {name:?}", path.display()),
        );
        Ok(())
    }

    fn rename_scope(&mut self, scope: usize, prefix: &str) {
        let old = self.scopes[scope].prefix.clone();
        let nested: Vec<usize> = self.scopes[scope]
            .frames
            .iter()
            .filter_map(|(_, f)| {
                if let Kind::Model(m) = f.kind {
                    Some(m)
                } else {
                    None
                }
            })
            .collect();
        self.scopes[scope].prefix = prefix.to_owned();
        for (name, link) in &mut self.scopes[scope].links {
            link.body.name = format!("{prefix}{name}");
        }
        for m in nested {
            let rest = self.scopes[m]
                .prefix
                .strip_prefix(&old)
                .unwrap_or_default()
                .to_owned();
            self.rename_scope(m, &format!("{prefix}{rest}"));
        }
    }

    fn make_static(&mut self, scope: usize) {
        self.scopes[scope].is_static = true;
        let nested: Vec<usize> = self.scopes[scope]
            .frames
            .iter()
            .filter_map(|(_, f)| {
                if let Kind::Model(m) = f.kind {
                    Some(m)
                } else {
                    None
                }
            })
            .collect();
        for m in nested {
            self.make_static(m);
        }
    }

    /// The file a `<uri>` names: `model://NAME/rest` under a model root, `file://` and
    /// relative paths against `base`; a directory gives its `model.config`'s newest `<sdf>`
    /// file, else its `model.sdf`.
    fn resolve_uri(&self, uri: &str, base: Option<&Path>) -> Option<PathBuf> {
        let candidates: Vec<PathBuf> = if let Some(rest) = uri.strip_prefix("model://") {
            self.roots.iter().map(|r| r.join(rest)).collect()
        } else if let Some(rest) = uri.strip_prefix("file://") {
            vec![PathBuf::from(rest)]
        } else if uri.contains("://") {
            return None;
        } else {
            let p = PathBuf::from(uri);
            if p.is_absolute() {
                vec![p]
            } else {
                // Relative to the file, then (as libsdformat's find-file callbacks do) under
                // each model root.
                let mut all = vec![base.map_or_else(|| p.clone(), |b| b.join(&p))];
                all.extend(self.roots.iter().map(|r| r.join(&p)));
                all
            }
        };
        candidates.into_iter().find_map(|c| model_file(&c))
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

    /// The `<pose>` child of `node` (identity when absent) and its `relative_to`, read in
    /// every version (`frame`, of 1.5 and 1.6, is reported and ignored).
    pub(super) fn pose_of(&mut self, file: usize, node: Node) -> SourceResult<(Pose, Option<String>)> {
        let Some(pose) = child(node, "pose") else {
            return Ok((Pose::identity(), None));
        };
        let source = self.files[file].clone();
        let at = self.loc(file, pose);
        let mut relative_to = None;
        // Read in every version: libsdformat converts each file to its newest version first.
        if let Some(r) = pose.attribute("relative_to") {
            relative_to = Some(r.to_owned()).filter(|r| !r.is_empty());
        }
        if pose.attribute("frame").is_some_and(|f| !f.is_empty()) {
            self.warn(
                "ignored",
                Category::Ignored,
                "model",
                at,
                "`frame` of <pose> is ignored, as libsdformat ignores it".to_owned(),
            );
        }
        let values = SDF.numbers(&source, pose)?;
        let format = pose.attribute("rotation_format").unwrap_or("euler_rpy");
        let degrees = match pose.attribute("degrees") {
            Some(d) => match d.to_ascii_lowercase().as_str() {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => {
                    return Err(SDF.error(
                        &source,
                        "bool",
                        Some(span_of_attribute(&source, pose, "degrees")),
                        format!("`degrees` expects true or false, found {d:?}"),
                    ));
                }
            },
            None => false,
        };
        if values.is_empty() {
            return Ok((Pose::identity(), relative_to));
        }
        let rotation = match (format, values.len()) {
            ("euler_rpy", 6) => {
                let scale = if degrees {
                    std::f64::consts::PI / 180.0
                } else {
                    1.0
                };
                spec::rpy([values[3] * scale, values[4] * scale, values[5] * scale])
            }
            ("quat_xyzw", 7) => {
                if degrees {
                    return Err(SDF.error(&source, "pose", Some(at.span()), "`degrees` is meaningless with rotation_format=\"quat_xyzw\" (libsdformat refuses it)"));
                }
                match mbconv_ir::rotation::normalize_wxyz([values[6], values[3], values[4], values[5]]) {
                    Some((q, _)) => q,
                    None => {
                        return Err(SDF.error(
                            &source,
                            "pose",
                            Some(at.span()),
                            "the quaternion of <pose> is zero or not finite",
                        ));
                    }
                }
            }
            ("euler_rpy" | "quat_xyzw", n) => {
                let want = if format == "euler_rpy" { 6 } else { 7 };
                return Err(SDF.error(
                    &source,
                    "count",
                    Some(at.span()),
                    format!("<pose> with rotation_format={format:?} needs {want} numbers, found {n}"),
                ));
            }
            (other, _) => {
                return Err(SDF.error(
                    &source,
                    "pose",
                    Some(span_of_attribute(&source, pose, "rotation_format")),
                    format!("unknown rotation_format {other:?} (euler_rpy or quat_xyzw)"),
                ));
            }
        };
        Ok((
            Pose::new(Vector3::new(values[0], values[1], values[2]), rotation),
            relative_to,
        ))
    }
}
