//! The SDFormat document as read: the shared XML layer (`mbconv-xml`) with SDFormat's dialect
//! (root `<sdf>`, error codes `sdf.*`, numbers read as `std::stod` reads them), the
//! tolerances of libsdformat's XML parser, the `<sdf version>` and what the root holds (one
//! `<world>` or one `<model>`), the root-element sniff, and the `model.config` of a model
//! directory. The importer interprets the elements.

use crate::spec;
use mbconv_ir::format::Source;
use mbconv_ir::format::kit::SourceResult;
use mbconv_xml::{Dialect, Document, Node, children, span_of_attribute, span_of_node};
use std::path::{Path, PathBuf};

/// The SDFormat dialect of the shared XML layer. libsdformat converts each number with
/// `std::stod` (measured with libsdformat 12.3: hexadecimal, a leading `+`, `inf` read; `1e400`
/// and `1e-310` refused as out of range; text after the number ignored), so mbconv reads the
/// same way and refuses what the loader would only read the start of.
pub(crate) const SDF: Dialect = Dialect {
    root: "sdf",
    prefix: "sdf",
    name: "SDFormat",
    numbers: mbconv_xml::Numbers::Stod,
};

/// True when `text` looks like SDFormat: an XML document whose root element is `<sdf>`.
pub(crate) fn sniff(text: &str) -> bool {
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("<?") {
            let Some(end) = after.find("?>") else { return false };
            rest = after[end + 2..].trim_start();
        } else if let Some(after) = rest.strip_prefix("<!--") {
            let Some(end) = after.find("-->") else {
                return false;
            };
            rest = after[end + 3..].trim_start();
        } else {
            return rest
                .strip_prefix("<sdf")
                .and_then(|r| r.chars().next())
                .is_some_and(|c| c.is_whitespace() || c == '>' || c == '/');
        }
    }
}

/// The span (offset, length) of an XML declaration that whitespace precedes, which XML
/// forbids and roxmltree refuses, and which tinyxml2 (libsdformat), Drake and DART read.
pub(crate) use mbconv_xml::tolerated::late_declaration;

/// `source` as libsdformat's parser (tinyxml2) reads it: tinyxml2 accepts `--` inside
/// comments, which XML forbids and roxmltree refuses, so each such `--` becomes `- `, and an
/// XML declaration after whitespace ([`late_declaration`]) becomes spaces (same lengths, so
/// positions stay true), and namespace prefixes used without a declaration, which tinyxml2
/// reads as part of the name, are declared on the root element
/// ([`mbconv_xml::tolerated::declare_undeclared_prefixes`]: only the root tag's last line
/// moves). The source itself when it has none of these.
pub(crate) fn tolerated(source: &Source) -> Source {
    let mut text = source.text.clone();
    if let Some((start, length)) = late_declaration(&text) {
        text.replace_range(start..start + length, &" ".repeat(length));
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start + 4]);
        rest = &rest[start + 4..];
        let Some(end) = rest.find("-->") else { break };
        out.push_str(&rest[..end].replace("--", "- "));
        out.push_str("-->");
        rest = &rest[end + 3..];
    }
    out.push_str(rest);
    let tolerated = if out == source.text {
        source.clone()
    } else {
        Source::from_string(source.name.clone(), out).with_path(source.name.clone(), source.path.clone())
    };
    match mbconv_xml::tolerated::declare_undeclared_prefixes(&tolerated) {
        Some((declared, _)) => declared,
        None => tolerated,
    }
}

/// Parses `source` (already [`tolerated`]) as an SDFormat document: refuses malformed XML,
/// entity declarations, deep nesting and a root other than `<sdf>`.
pub(crate) fn parse(source: &Source) -> SourceResult<Document<'_>> {
    SDF.parse(source)
}

/// The minor version of the root's `version` (1.4 to 1.12), or an error pointing at it.
pub(crate) fn version(source: &Source, root: Node) -> SourceResult<u32> {
    let Some(version_text) = root.attribute("version") else {
        return Err(SDF.error(
            source,
            "version",
            Some(span_of_node(source, root)),
            "<sdf> needs the attribute `version` (1.4 to 1.12)",
        ));
    };
    spec::minor_version(version_text).ok_or_else(|| {
        SDF.error(
            source,
            "version",
            Some(span_of_attribute(source, root, "version")),
            format!("SDFormat version {version_text:?} is not read: versions 1.4 to 1.12 are"),
        )
    })
}

/// What the root `<sdf>` of a file holds.
pub(crate) enum Top<'a, 'input> {
    /// The main file's one `<world>` (and no `<model>`).
    World(Node<'a, 'input>),
    /// The one `<model>`: all an included file may hold, or the main file's lone model.
    Model(Node<'a, 'input>),
}

/// The `<world>` or `<model>` the root holds (`main`: the file read, which may hold a world;
/// an included file must hold a model), refusing other combinations as libsdformat does.
pub(crate) fn top<'a, 'input>(
    source: &Source,
    root: Node<'a, 'input>,
    main: bool,
) -> SourceResult<Top<'a, 'input>> {
    let worlds: Vec<Node> = children(root, "world").collect();
    let models: Vec<Node> = children(root, "model").collect();
    if main && worlds.len() == 1 && models.is_empty() {
        return Ok(Top::World(worlds[0]));
    }
    if worlds.len() > 1 {
        return Err(SDF.error(
            source,
            "world",
            Some(span_of_node(source, worlds[1])),
            "more than one <world>: mbconv reads one world per file",
        ));
    }
    let Some(&model) = models.first() else {
        let what = if worlds.is_empty() {
            "<sdf> holds no <world> and no <model>"
        } else {
            "an included file must hold a <model>, not a <world>"
        };
        return Err(SDF.error(source, "missing", Some(span_of_node(source, root)), what));
    };
    if !worlds.is_empty() || models.len() > 1 {
        let extra = if worlds.is_empty() { models[1] } else { worlds[0] };
        return Err(SDF.error(
            source,
            "root",
            Some(span_of_node(source, extra)),
            "<sdf> must hold exactly one <model> or one <world> (libsdformat refuses others)",
        ));
    }
    Ok(Top::Model(model))
}

/// The model file of an include target: a file as is; a directory's `model.config` `<sdf>`
/// entry with the highest version, else its `model.sdf`.
pub(crate) fn model_file(candidate: &Path) -> Option<PathBuf> {
    if candidate.is_file() {
        return Some(candidate.to_path_buf());
    }
    if !candidate.is_dir() {
        return None;
    }
    if let Ok(config) = std::fs::read_to_string(candidate.join("model.config"))
        && let Ok(doc) = mbconv_xml::roxmltree::Document::parse(&config)
    {
        let best = doc
            .descendants()
            .filter(|n| n.has_tag_name("sdf"))
            .filter_map(|n| {
                let version = n.attribute("version").and_then(spec::minor_version).unwrap_or(0);
                let file = n.text()?.trim().to_owned();
                Some((version, file))
            })
            .max_by_key(|(v, _)| *v);
        if let Some((_, file)) = best {
            let path = candidate.join(file);
            if path.is_file() {
                return Some(path);
            }
        }
    }
    let fallback = candidate.join("model.sdf");
    fallback.is_file().then_some(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sniff_sees_an_sdf_root_past_declarations_and_comments() {
        assert!(sniff(
            "<?xml version=\"1.0\"?>\n<!-- c -->\n<sdf version=\"1.9\"/>"
        ));
        assert!(!sniff("<robot name=\"r\"/>"));
        assert!(!sniff("<sdformat/>"));
    }

    #[test]
    fn double_hyphens_in_comments_are_tolerated_in_place() {
        let source = Source::from_string("a.sdf", "<sdf><!-- a -- b --></sdf>");
        let read = tolerated(&source);
        assert_eq!(read.text, "<sdf><!-- a -  b --></sdf>");
        assert_eq!(read.text.len(), source.text.len());
    }

    #[test]
    fn a_declaration_after_whitespace_is_blanked_in_place() {
        let text = " \n<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"/>";
        assert_eq!(late_declaration(text), Some((2, 21)));
        let read = tolerated(&Source::from_string("a.sdf", text));
        assert_eq!(
            read.text,
            format!(" \n{}\n<sdf version=\"1.9\"/>", " ".repeat(21))
        );
        assert_eq!(late_declaration("<?xml version=\"1.0\"?><sdf/>"), None);
        assert_eq!(late_declaration("\u{feff}<?xml version=\"1.0\"?><sdf/>"), None);
        assert_eq!(late_declaration("  <sdf/>"), None);
    }
}
