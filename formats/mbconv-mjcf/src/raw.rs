//! The MJCF document as read: the main file with every `<include>` replaced by the children of
//! the included file's root, as MuJoCo splices them, into one owned element tree. Every
//! element and attribute keeps the file it came from and its position, so errors and findings
//! point into the right file. What MuJoCo's XML parser (tinyxml2) reads although XML forbids it
//! (attributes not separated by whitespace) is read with the positions of the file, and listed
//! in [`Document::tolerated`] for the importer to report.

use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::format::{Source, SourceError};
use mbconv_ir::report::SourceSpan;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A place in one of the files of the document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Loc {
    /// Index into [`Files::sources`].
    pub file: usize,
    /// Position in that file.
    pub span: SourceSpan,
}

/// An attribute as written.
#[derive(Debug, Clone)]
pub(crate) struct Attr {
    pub name: String,
    pub value: String,
    /// The value's position.
    pub loc: Loc,
}

/// An element as written, includes spliced.
#[derive(Debug, Clone)]
pub(crate) struct Element {
    pub name: String,
    /// The start tag's name.
    pub loc: Loc,
    pub attrs: Vec<Attr>,
    pub children: Vec<Element>,
}

impl Element {
    /// An attribute by name.
    pub(crate) fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// The value of an attribute.
    pub(crate) fn value(&self, name: &str) -> Option<&str> {
        self.attr(name).map(|a| a.value.as_str())
    }

    /// Child elements of a name.
    pub(crate) fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }
}

/// The files the document was read from: the main file first, then each include in the order
/// met.
#[derive(Debug, Clone, Default)]
pub(crate) struct Files {
    pub sources: Vec<Source>,
}

impl Files {
    /// An error with code `mjcf.<code>` at a place.
    pub(crate) fn error(&self, loc: &Loc, code: &str, message: impl Into<String>) -> Box<SourceError> {
        Box::new(self.sources[loc.file].error(&format!("mjcf.{code}"), Some(loc.span.clone()), message))
    }

    /// The name of a file (for findings in included files).
    pub(crate) fn name(&self, file: usize) -> &str {
        &self.sources[file].name
    }
}

/// The document: its files and the `<mujoco>` root with includes spliced.
#[derive(Debug)]
pub(crate) struct Document {
    pub files: Files,
    pub root: Element,
    /// What XML forbids and MuJoCo reads, per file that has it: the first place, the warning's
    /// code (after `mjcf.`) and what was read there, for a warning.
    pub tolerated: Vec<(Loc, &'static str, String)>,
}

/// Reads `source` and every file it includes.
pub(crate) fn read(source: &Source) -> SourceResult<Document> {
    let mut files = Files {
        sources: vec![source.clone()],
    };
    let mut included = BTreeSet::new();
    let mut tolerated = Vec::new();
    let tree = parse(&files, 0, &mut tolerated)?;
    let model_dir = source.base_dir().map(Path::to_path_buf);
    let mut root = tree;
    splice(
        &mut files,
        &mut root,
        model_dir.as_deref(),
        model_dir.as_deref(),
        &mut included,
        &mut tolerated,
    )?;
    Ok(Document {
        files,
        root,
        tolerated,
    })
}

/// Replaces `<include>` children of `element` (recursively) by the included files' elements.
fn splice(
    files: &mut Files,
    element: &mut Element,
    model_dir: Option<&Path>,
    dir: Option<&Path>,
    included: &mut BTreeSet<PathBuf>,
    tolerated: &mut Vec<(Loc, &'static str, String)>,
) -> SourceResult<()> {
    let children = std::mem::take(&mut element.children);
    let mut out = Vec::with_capacity(children.len());
    for mut child in children {
        if !child.name.eq_ignore_ascii_case("include") {
            splice(files, &mut child, model_dir, dir, included, tolerated)?;
            out.push(child);
            continue;
        }
        if !child.children.is_empty() {
            return Err(files.error(&child.loc, "include", "Include element cannot have children"));
        }
        let Some(file) = child.attr("file") else {
            return Err(files.error(&child.loc, "include", "Include element missing file attribute"));
        };
        // MuJoCo looks next to the main model first, then next to the including file.
        let mut candidates: Vec<PathBuf> = [model_dir, dir]
            .into_iter()
            .map(|d| d.map_or_else(|| PathBuf::from(&file.value), |d| d.join(&file.value)))
            .collect();
        candidates.dedup();
        let Some(path) = candidates.iter().find(|p| p.is_file()).cloned() else {
            return Err(files.error(
                &file.loc,
                "include",
                format!(
                    "cannot open the included file '{}' (looked for {})",
                    file.value,
                    shown(&candidates)
                ),
            ));
        };
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        if !included.insert(key) {
            return Err(files.error(
                &file.loc,
                "include",
                format!("File '{}' already included", file.value),
            ));
        }
        let source = Source::from_path(&path)
            .map_err(|e| files.error(&file.loc, "include", format!("cannot read '{}': {e}", file.value)))?;
        if source.text.trim().is_empty() {
            return Err(files.error(&file.loc, "include", format!("Empty file '{}'", file.value)));
        }
        files.sources.push(source);
        let index = files.sources.len() - 1;
        let mut tree = parse(files, index, tolerated)?;
        if tree.children.is_empty() {
            return Err(files.error(
                &file.loc,
                "include",
                format!("Empty include file '{}'", file.value),
            ));
        }
        let next_dir = path.parent().map(Path::to_path_buf);
        splice(
            files,
            &mut tree,
            model_dir,
            next_dir.as_deref(),
            included,
            tolerated,
        )?;
        out.extend(tree.children);
    }
    element.children = out;
    Ok(())
}

fn shown(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The XML dialect of MJCF for the shared node layer.
const MJCF: mbconv_xml::Dialect = mbconv_xml::Dialect {
    root: "mujoco",
    prefix: "mjcf",
    name: "MJCF",
    numbers: mbconv_xml::Numbers::Rust,
};

/// The dialect of an included file: MuJoCo 4.0 splices the children of an included file's root
/// whatever the root's name (`<mujoco>`, the legacy `<mujocoinclude>` of MyoSuite's models, or
/// any other), so only the main file must have the `<mujoco>` root.
const MJCF_INCLUDED: mbconv_xml::Dialect = mbconv_xml::Dialect { root: "", ..MJCF };

/// The deepest element nesting the reader accepts: MuJoCo's XML parser (tinyxml2) refuses
/// elements nested deeper than about 500 levels (measured with MuJoCo 4.0.0: 496 nested
/// `<body>` elements holding a `<joint>` load, 497 do not), so every file MuJoCo reads is read.
/// The writer refuses trees MuJoCo would not read ([`crate::MUJOCO_MAX_NESTED_BODIES`]).
pub(crate) const MAX_DEPTH: usize = 500;

/// Parses one file of `files` into an owned tree (through the shared XML layer: positions,
/// DOCTYPE and entity refusal, nesting limit [`MAX_DEPTH`], the `<mujoco>` root of the main
/// file, any root of an included one).
///
/// Attributes that no whitespace separates from the previous value (`name="a"type="box"`),
/// which XML forbids and MuJoCo's tinyxml2 reads, are read
/// ([`mbconv_xml::tolerated::separate_attributes`]), every position mapped back to the file
/// (errors too), and the file's first such place added to `tolerated`. An end tag after the
/// root element's end (a second `</mujoco>`), where tinyxml2 ends the document and reads
/// nothing more, is blanked with what follows it
/// ([`mbconv_xml::tolerated::blank_after_stray_end_tag`]) and added to `tolerated` too.
fn parse(
    files: &Files,
    index: usize,
    tolerated: &mut Vec<(Loc, &'static str, String)>,
) -> SourceResult<Element> {
    let dialect = if index == 0 { &MJCF } else { &MJCF_INCLUDED };
    let file = &files.sources[index];
    let blanked = mbconv_xml::tolerated::blank_after_stray_end_tag(file);
    if let Some((_, (at, length))) = blanked {
        let tag = file.text[at..at + length].to_owned();
        let rest = file.text[at + length..].trim().len();
        tolerated.push((
            Loc {
                file: index,
                span: file.span(at, length),
            },
            "content_after_root_ignored",
            format!(
                "`{tag}` after the root element's end, which XML forbids: the document ends there \
                 and {} ignored, as MuJoCo's XML parser (tinyxml2) reads it",
                match rest {
                    0 => "the tag is".to_owned(),
                    n => format!("the tag and the {n} characters after it are"),
                }
            ),
        ));
    }
    // The blanked text keeps every offset of the file's, so spans in it are the file's.
    let original = blanked.as_ref().map_or(file, |(source, _)| source);
    let Some(separated) = mbconv_xml::tolerated::separate_attributes(original) else {
        let document = dialect.parse_nested(original, MAX_DEPTH)?;
        return Ok(convert(original, index, document.root_element(), &|span| span));
    };
    let document = dialect
        .parse_nested(&separated.source, MAX_DEPTH)
        .map_err(|e| separated.original_error(original, e))?;
    let (span, message) = separated.warning(original, "MuJoCo's XML parser (tinyxml2)");
    tolerated.push((Loc { file: index, span }, "attributes_not_separated", message));
    Ok(convert(
        &separated.source,
        index,
        document.root_element(),
        &|span| separated.original_span(original, &span),
    ))
}

/// The owned tree of an element of file `index` as parsed from `parsed`, each span passed
/// through `in_file` (the identity, or the way back from a separated text to the file). The
/// layer has refused nesting deeper than [`MAX_DEPTH`], so the recursion is bounded.
fn convert(
    parsed: &Source,
    index: usize,
    node: mbconv_xml::Node,
    in_file: &dyn Fn(SourceSpan) -> SourceSpan,
) -> Element {
    let attrs = node
        .attributes()
        .map(|a| Attr {
            name: a.name().to_string(),
            value: a.value().to_string(),
            loc: Loc {
                file: index,
                span: in_file(mbconv_xml::span_of_attribute(parsed, node, a.name())),
            },
        })
        .collect();
    Element {
        name: node.tag_name().name().to_string(),
        loc: Loc {
            file: index,
            span: in_file(mbconv_xml::span_of_node(parsed, node)),
        },
        attrs,
        children: mbconv_xml::elements(node)
            .map(|c| convert(parsed, index, c, in_file))
            .collect(),
    }
}

/// True when `text` is an MJCF document (its root element is `<mujoco>`), for `.xml` files
/// that several formats share.
pub(crate) fn sniff(text: &str) -> bool {
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("<?") {
            rest = r.split_once("?>").map_or("", |(_, after)| after).trim_start();
        } else if let Some(r) = rest.strip_prefix("<!--") {
            rest = r.split_once("-->").map_or("", |(_, after)| after).trim_start();
        } else if let Some(r) = rest.strip_prefix("<!") {
            rest = r.split_once('>').map_or("", |(_, after)| after).trim_start();
        } else {
            break;
        }
    }
    rest.strip_prefix("<mujoco")
        .is_some_and(|r| r.starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/'))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_root() {
        let src = Source::from_string(
            "m.xml",
            "<mujoco>\n  <worldbody><body pos=\"1 2 3\"/></worldbody>\n</mujoco>",
        );
        let doc = read(&src).unwrap();
        let body = &doc.root.children[0].children[0];
        assert_eq!(body.name, "body");
        let pos = body.attr("pos").unwrap();
        assert_eq!((pos.loc.span.line, pos.loc.span.column), (2, 25));
        let err = read(&Source::from_string("r.xml", "<robot/>")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "r.xml:1:1: expected the root element <mujoco>, found <robot>"
        );
        let err = read(&Source::from_string("r.xml", "<mujoco><a></mujoco>")).unwrap_err();
        assert!(err.to_string().starts_with("r.xml:1:"), "{err}");
    }

    /// MuJoCo 4.0 splices an included file's root whatever its name (measured: `<mujoco>`,
    /// `<mujocoinclude>` and `<foo>` roots give the same model; MyoSuite's `myo_sim` models
    /// include `<mujocoinclude>` files): only the main file must be `<mujoco>`.
    #[test]
    fn an_included_file_may_have_any_root() {
        let dir = std::env::temp_dir().join(format!("mbconv-mjcf-include-root-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("assets.xml"),
            "<mujocoinclude model=\"parts\"><option timestep=\"0.01\"/></mujocoinclude>",
        )
        .unwrap();
        std::fs::write(dir.join("other.xml"), "<parts><size njmax=\"10\"/></parts>").unwrap();
        std::fs::write(
            dir.join("main.xml"),
            "<mujoco><include file=\"assets.xml\"/><include file=\"other.xml\"/><worldbody/></mujoco>",
        )
        .unwrap();
        let doc = read(&Source::from_path(&dir.join("main.xml")).unwrap()).unwrap();
        let names: Vec<&str> = doc.root.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["option", "size", "worldbody"]);
        let err = read(&Source::from_path(&dir.join("assets.xml")).unwrap()).unwrap_err();
        assert!(
            err.to_string()
                .contains("expected the root element <mujoco>, found <mujocoinclude>"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Attributes not separated by whitespace, which MuJoCo's tinyxml2 reads, in the main file and
    /// in an included one: read, the positions the files', each file's first place listed.
    #[test]
    fn attributes_not_separated_are_read_in_every_file_with_their_positions() {
        let dir = std::env::temp_dir().join(format!("mbconv-mjcf-unseparated-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let part = "<mujocoinclude>\n <size njmax=\"10\"nconmax=\"5\"/>\n</mujocoinclude>";
        std::fs::write(dir.join("part.xml"), part).unwrap();
        let main = "<mujoco>\n<include file=\"part.xml\"/>\n<worldbody><body name=\"b\"pos=\"1 2 3\"><geom size=\"1\"/></body></worldbody></mujoco>";
        std::fs::write(dir.join("main.xml"), main).unwrap();
        let doc = read(&Source::from_path(&dir.join("main.xml")).unwrap()).unwrap();
        let at = |loc: &Loc| (loc.file, loc.span.line, loc.span.column);
        let places: Vec<_> = doc.tolerated.iter().map(|(loc, _, _)| at(loc)).collect();
        assert_eq!(places, [(0, 3, 26), (1, 2, 18)]);
        assert!(doc.tolerated[1].2.contains("`nconmax`"), "{}", doc.tolerated[1].2);
        let size = &doc.root.children[0];
        let nconmax = size.attr("nconmax").unwrap();
        assert_eq!((nconmax.value.as_str(), at(&nconmax.loc)), ("5", (1, 2, 27)));
        let body = &doc.root.children[1].children[0];
        assert_eq!(at(&body.attr("pos").unwrap().loc), (0, 3, 31));
        let geom = &body.children[0];
        assert_eq!(at(&geom.loc), (0, 3, 38));
        assert_eq!(at(&geom.attr("size").unwrap().loc), (0, 3, 50));
        let span = &geom.attr("size").unwrap().loc.span;
        assert_eq!(&main[span.offset..span.offset + span.length], "1");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn includes_are_spliced_and_repeats_refused() {
        let dir = std::env::temp_dir().join(format!("mbconv-mjcf-include-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(
            dir.join("sub/part.xml"),
            "<mujoco><option timestep=\"0.01\"/><include file=\"leaf.xml\"/></mujoco>",
        )
        .unwrap();
        std::fs::write(dir.join("sub/leaf.xml"), "<mujoco><size njmax=\"10\"/></mujoco>").unwrap();
        std::fs::write(
            dir.join("main.xml"),
            "<mujoco><include file=\"sub/part.xml\"/><worldbody/></mujoco>",
        )
        .unwrap();
        let doc = read(&Source::from_path(&dir.join("main.xml")).unwrap()).unwrap();
        let names: Vec<&str> = doc.root.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["option", "size", "worldbody"]);
        assert_eq!(doc.files.sources.len(), 3);
        assert_eq!(doc.root.children[1].loc.file, 2);
        std::fs::write(
            dir.join("twice.xml"),
            "<mujoco><include file=\"sub/leaf.xml\"/><include file=\"sub/leaf.xml\"/></mujoco>",
        )
        .unwrap();
        let err = read(&Source::from_path(&dir.join("twice.xml")).unwrap()).unwrap_err();
        assert!(
            err.to_string().contains("File 'sub/leaf.xml' already included"),
            "{err}"
        );
        std::fs::write(
            dir.join("missing.xml"),
            "<mujoco>\n<include file=\"nope.xml\"/></mujoco>",
        )
        .unwrap();
        let err = read(&Source::from_path(&dir.join("missing.xml")).unwrap()).unwrap_err();
        assert!(
            err.to_string()
                .contains(":2:16: cannot open the included file 'nope.xml'"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sniffs_the_mujoco_root() {
        assert!(sniff(
            "<?xml version=\"1.0\"?>\n<!-- x -->\n<mujoco model=\"m\"/>"
        ));
        assert!(!sniff("<robot name=\"r\"/>"));
    }
}
