//! A body document: header, links (with sub-bodies and tracks expanded), the link tree and the
//! extra joints, as `StdBodyLoader` loads them (the IR model is built in `model`).

use super::elements::Note;
use super::extra_joints::{self, ExtraSpec};
use super::fields::{self, Doc, get};
use super::links::{self, LinkJoint, LinkSpec};
use crate::raw::{self, Node, NodeKind};
use crate::spec::{self, FORMAT};
use mbconv_ir::Value;
use mbconv_ir::format::Source;
use mbconv_ir::format::kit::SourceResult;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// A loaded body: its links in file order, the root link, extra joints and what was noticed.
pub(crate) struct LoadedBody {
    pub name: Option<String>,
    pub links: Vec<LinkSpec>,
    pub root: usize,
    pub extra_joints: Vec<ExtraSpec>,
    pub notes: Vec<Note>,
    /// Top-level keys the loader does not interpret (anchor holders, `body_handlers`, ...),
    /// verbatim under `body.<key>`.
    pub extras: mbconv_ir::Extras,
}

/// Top-level keys the loader interprets.
const HEADER_KEYS: [&str; 7] = [
    "format",
    "formatVersion",
    "angleUnit",
    "name",
    "rootLink",
    "links",
    "extraJoints",
];

/// Sub-bodies may nest, but not this deep (and never include themselves).
const MAX_SUB_BODY_DEPTH: usize = 16;

/// Reads the header of `doc` (format, version, angle unit) and sets its angle mode.
fn header(doc: &mut Doc) -> SourceResult<()> {
    let root = &doc.root;
    if !matches!(root.kind, NodeKind::Map(_)) {
        return Err(doc.error("document", root, "a body file must be a mapping"));
    }
    match root.get("format") {
        Some(n) if n.scalar() == Some("ChoreonoidBody") => {}
        Some(n) => {
            return Err(doc.error(
                "format",
                n,
                format!("format {} is not ChoreonoidBody", fields::describe(n)),
            ));
        }
        None => {
            return Err(doc
                .error("format", root, "the file has no `format: ChoreonoidBody`")
                .with_help("files that only name another model with modelFile are not read")
                .into());
        }
    }
    let version_node = get(root, "formatVersion")
        .ok_or_else(|| doc.error("format_version", root, "the file has no formatVersion"))?;
    let version = fields::number(doc, version_node)?;
    if version >= 2.1 {
        return Err(doc.error(
            "format_version",
            version_node,
            format!("format version {version} is not supported (Choreonoid reads up to 2.0)"),
        ));
    }
    if let Some(unit) = get(root, "angleUnit") {
        match unit.scalar() {
            Some("degree") => doc.degree_mode = true,
            Some("radian") if version >= 2.0 => {
                return Err(doc.error(
                    "angle_unit",
                    unit,
                    "angleUnit radian is not allowed in format 2.0",
                ));
            }
            Some("radian") => doc.degree_mode = false,
            _ => {
                return Err(doc.error(
                    "angle_unit",
                    unit,
                    format!(
                        "unknown angleUnit {}; expected degree or radian",
                        fields::describe(unit)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Loads the body in `doc`; `chain` holds the files being loaded (sub-body recursion guard).
pub(super) fn load(mut doc: Doc, chain: &mut Vec<PathBuf>) -> SourceResult<LoadedBody> {
    header(&mut doc)?;
    let root = &doc.root;
    let links_node = root
        .get("links")
        .ok_or_else(|| doc.error("links", root, "the body has no links"))?;
    let mut links: Vec<LinkSpec> = Vec::new();
    let mut notes = Vec::new();
    let mut extra = Vec::new();
    match &links_node.kind {
        NodeKind::Seq(items) => {
            if items.is_empty() {
                return Err(doc.error("links", links_node, "the links list is empty"));
            }
            for item in items {
                let ty = item.get("type").map(|t| fields::text(&doc, t)).transpose()?;
                link_node(
                    &doc,
                    item,
                    ty.as_deref().unwrap_or("Link"),
                    &mut links,
                    &mut extra,
                    chain,
                )?;
            }
        }
        NodeKind::Map(entries) => {
            for (key, value) in entries {
                link_node(&doc, value, &key.name, &mut links, &mut extra, chain)?;
            }
        }
        _ => return Err(doc.error("links", links_node, "links must be a list")),
    }
    if links.is_empty() {
        return Err(doc.error("links", links_node, "the body defines no link"));
    }
    let root_index = match get(root, "rootLink") {
        Some(n) => {
            let name = fields::text(&doc, n)?;
            links.iter().position(|l| l.name == name).ok_or_else(|| {
                doc.error(
                    "root_link",
                    n,
                    format!("rootLink {name:?} is not a link of the body"),
                )
            })?
        }
        None => 0,
    };
    check_tree(&doc, links_node, &links, root_index)?;
    extra.extend(extra_joints::read(&doc)?);
    let name = root.get("name").map(|n| fields::text(&doc, n)).transpose()?;
    for (span, message) in doc.lenient.take() {
        notes.push(Note {
            code: "lenient_number",
            message: format!("{}:{}:{}: {message}", doc.source.name, span.line, span.column),
            approximated: false,
        });
    }
    let mut extras = mbconv_ir::Extras::default();
    for (key, value) in root.entries() {
        if !HEADER_KEYS.iter().any(|k| fields::is_key(&key.name, k)) {
            extras.insert(format!("{FORMAT}.{}", key.name), value.to_value());
        }
    }
    Ok(LoadedBody {
        name,
        links,
        root: root_index,
        extra_joints: extra,
        notes,
        extras,
    })
}

fn link_node(
    doc: &Doc,
    node: &Node,
    ty: &str,
    links: &mut Vec<LinkSpec>,
    extra: &mut Vec<ExtraSpec>,
    chain: &mut Vec<PathBuf>,
) -> SourceResult<()> {
    if let Some(t) = node.get("type")
        && t.scalar() != Some(ty)
        && ty != "Link"
    {
        return Err(doc.error(
            "link_type",
            t,
            format!("the node type differs from {ty:?} given by its key"),
        ));
    }
    match ty {
        "Link" | "" => links.push(links::read_link(doc, node)?),
        "ContinuousTrack" => track(doc, node, links)?,
        "SubBody" => sub_body(doc, node, links, extra, chain)?,
        "Skip" => {}
        other => {
            let at = node.get("type").unwrap_or(node);
            return Err(doc.error("link_type", at, format!("a {other:?} node cannot be in links")));
        }
    }
    Ok(())
}

fn track(doc: &Doc, node: &Node, links: &mut Vec<LinkSpec>) -> SourceResult<()> {
    let parent = node
        .get("parent")
        .ok_or_else(|| doc.error("track", node, "a ContinuousTrack needs a parent"))?;
    let mut parent = fields::text(doc, parent)?;
    let count_node = node
        .get("numJoints")
        .ok_or_else(|| doc.error("track", node, "a ContinuousTrack needs numJoints"))?;
    let count = fields::integer(doc, count_node)?;
    if !(3..=10_000).contains(&count) {
        return Err(doc.error("track", count_node, "numJoints must be at least 3"));
    }
    let offset = get(node, "jointOffset")
        .ok_or_else(|| doc.error("track", node, "a ContinuousTrack needs jointOffset"))
        .and_then(|n| fields::vector3(doc, n))?;
    let mut angles = vec![0.0; count as usize - 1];
    if let Some(n) = node.get("initialJointAngles") {
        for (slot, x) in angles.iter_mut().zip(fields::numbers(doc, n)?) {
            *slot = if doc.degree_mode { spec::radians(x) } else { x };
        }
    }
    let first = links::read_link(doc, node)?;
    let base = first.name.clone();
    for i in 0..count as usize {
        let mut link = first.clone();
        link.name = format!("{base}{i}");
        link.parent = Some(parent.clone());
        link.joint_name = None;
        if i == 0 {
            link.joint = LinkJoint::Free;
            link.q0 = 0.0;
        } else {
            link.joint = LinkJoint::Revolute;
            link.offset.translation = offset;
            link.q0 = angles[i - 1];
            link.joint_extras = Default::default();
        }
        link.body_extras
            .insert(format!("{FORMAT}.isContinuousTrack"), Value::Bool(true));
        parent = link.name.clone();
        links.push(link);
    }
    Ok(())
}

fn sub_body(
    doc: &Doc,
    node: &Node,
    links: &mut Vec<LinkSpec>,
    extra: &mut Vec<ExtraSpec>,
    chain: &mut Vec<PathBuf>,
) -> SourceResult<()> {
    let uri_node = node
        .get("uri")
        .ok_or_else(|| doc.error("sub_body", node, "a SubBody needs a uri"))?;
    let uri = fields::text(doc, uri_node)?;
    let path = doc
        .source
        .base_dir()
        .unwrap_or(std::path::Path::new("."))
        .join(&uri);
    let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
    if chain.contains(&canonical) {
        return Err(doc.error("sub_body", uri_node, "a sub-body cannot include itself"));
    }
    if chain.len() >= MAX_SUB_BODY_DEPTH {
        return Err(doc.error("sub_body", uri_node, "sub-bodies are nested too deeply"));
    }
    let source = Source::from_path(&path).map_err(|e| {
        doc.error(
            "sub_body",
            uri_node,
            format!("cannot read the sub-body {}: {e}", path.display()),
        )
    })?;
    let root = raw::parse(&source)?;
    let sub_doc = Doc {
        source: Arc::new(source),
        root,
        degree_mode: true,
        is_main: false,
        lenient: Default::default(),
    };
    chain.push(canonical);
    let loaded = load(sub_doc, chain);
    chain.pop();
    let mut loaded = loaded?;
    // The sub-body's own findings (lenient numbers) travel with the including body.
    let sub_notes = std::mem::take(&mut loaded.notes);
    let text = |key: &str| -> SourceResult<String> {
        get(node, key).map_or(Ok(String::new()), |n| fields::text(doc, n))
    };
    let prefix = text("prefix")?;
    let suffix = text("suffix")?;
    let device_prefix = match get(node, "devicePrefix") {
        Some(n) => fields::text(doc, n)?,
        None => prefix.clone(),
    };
    let id_offset = get(node, "jointIdOffset")
        .map(|n| fields::integer(doc, n))
        .transpose()?
        .unwrap_or(0);
    let rename = |name: &str| format!("{prefix}{name}{suffix}");
    for link in &mut loaded.links {
        link.name = rename(&link.name);
        link.parent = link.parent.as_deref().map(rename);
        link.joint_name = link.joint_name.as_deref().map(rename);
        if let Some(id) = &mut link.joint_id
            && *id >= 0
        {
            *id += id_offset;
        }
        for device in &mut link.devices {
            if !device.name.is_empty() {
                device.name = format!("{device_prefix}{}", device.name);
            }
        }
    }
    for joint in &mut loaded.extra_joints {
        joint.link1 = rename(&joint.link1);
        joint.link2 = rename(&joint.link2);
    }
    let root = &mut loaded.links[loaded.root];
    root.parent = node.get("parent").map(|n| fields::text(doc, n)).transpose()?;
    root.span = doc.main_span(node);
    links::read_contents(doc, node, root, true)?;
    links.append(&mut loaded.links);
    extra.append(&mut loaded.extra_joints);
    if let Some(first) = links.first_mut() {
        first.notes.extend(sub_notes);
    }
    Ok(())
}

/// Unique names, known parents, one root, no cycles.
fn check_tree(doc: &Doc, at: &Node, links: &[LinkSpec], root: usize) -> SourceResult<()> {
    let mut names = BTreeMap::new();
    for (i, link) in links.iter().enumerate() {
        if names.insert(link.name.as_str(), i).is_some() {
            return Err(doc.error(
                "duplicate_link",
                at,
                format!("the link name {:?} is used twice", link.name),
            ));
        }
    }
    for (i, link) in links.iter().enumerate() {
        match &link.parent {
            None if i != root => {
                return Err(doc.error(
                    "parent",
                    at,
                    format!("the parent of {:?} is not specified", link.name),
                ));
            }
            Some(p) if !names.contains_key(p.as_str()) => {
                return Err(doc.error(
                    "parent",
                    at,
                    format!("the parent {p:?} of {:?} is not a link", link.name),
                ));
            }
            _ => {}
        }
    }
    // Every link must reach the root by its parents, and the root has none: a parent on the
    // root closes a cycle through it. Each link is walked once: a walk stops at a link already
    // known to reach the root, so the check is linear in the links.
    if let Some(p) = &links[root].parent {
        return Err(doc.error_at(
            "cycle",
            links[root].span.clone(),
            at,
            format!(
                "the root link {:?} has the parent {p:?}: the parents form a cycle through the root",
                links[root].name
            ),
        ));
    }
    let mut reaches_root = vec![false; links.len()];
    reaches_root[root] = true;
    let mut on_walk = vec![usize::MAX; links.len()];
    for (i, link) in links.iter().enumerate() {
        let mut walk = Vec::new();
        let mut current = i;
        while !reaches_root[current] {
            if on_walk[current] == i {
                return Err(doc.error_at(
                    "cycle",
                    link.span.clone(),
                    at,
                    format!("the parents of {:?} form a cycle", link.name),
                ));
            }
            on_walk[current] = i;
            walk.push(current);
            match links[current].parent.as_deref().and_then(|p| names.get(p)) {
                Some(&p) => current = p,
                None => break,
            }
        }
        for w in walk {
            reaches_root[w] = true;
        }
    }
    Ok(())
}
