//! The IR itself as JSON (`.mbir.json`): lossless by definition, for tool authors and debugging.
//!
//! ```json
//! { "mbir": "1", "model": { "name": "…", "bodies": [ … ], "joints": [ … ] } }
//! ```
//!
//! Numbers are written in the shortest form that reads back to the same bits, and read with
//! correct rounding, so `read(write(model)) == model` bit for bit. Unknown keys are errors.

use crate::format::kit::Tracing;
use crate::format::support::{self, FeatureTable};
use crate::format::{
    Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, Source, SourceMap,
};
use crate::model::Model;
use crate::report::{Report, SourceSpan};
use serde::{Deserialize, Serialize};

/// The version string written under `"mbir"`.
pub const MBIR_VERSION: &str = "1";

/// Reads and writes IR JSON.
pub struct MbirFormat;

const INFO: FormatInfo = FormatInfo {
    name: "mbir",
    aliases: &["ir", "mbir-json"],
    extensions: &["mbir.json"],
    description: "mbconv IR as JSON (lossless)",
    shortcut: None,
    read_settings: &[],
    write_settings: &[],
    features: &FEATURE_SUPPORT,
};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    mbir: String,
    model: Model,
}

#[derive(Serialize)]
struct DocumentRef<'a> {
    mbir: &'a str,
    model: &'a Model,
}

/// Serialises a model to IR JSON text (pretty-printed, newline-terminated).
///
/// ```
/// let model = mbconv_ir::Model::new("empty");
/// let text = mbconv_ir::mbir::to_string(&model);
/// assert!(text.starts_with("{\n  \"mbir\": \"1\""));
/// let back = mbconv_ir::mbir::from_str(&text).unwrap();
/// assert_eq!(back, model);
/// ```
pub fn to_string(model: &Model) -> String {
    let doc = DocumentRef {
        mbir: MBIR_VERSION,
        model,
    };
    // Serialising these types cannot fail: every map key is a string and every float is
    // written by ryu; non-finite floats become `null`, which validation reports beforehand.
    let mut text =
        serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()));
    text.push('\n');
    text
}

/// Parses IR JSON text; the error carries line and column.
pub fn from_str(text: &str) -> Result<Model, serde_json::Error> {
    let doc: Document = serde_json::from_str(text)?;
    Ok(doc.model)
}

/// The IR file keeps every feature: it is the IR, serialised.
const FEATURE_SUPPORT: FeatureTable = support::table("");

impl Format for MbirFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    fn sniff(&self, text: &str) -> bool {
        let head: String = text.chars().take(256).collect();
        head.trim_start().starts_with('{') && head.contains("\"mbir\"")
    }

    fn read(&self, source: &Source, _options: &Options) -> Result<Imported, FormatError> {
        let doc: Document = serde_json::from_str(&source.text).map_err(|e| {
            let span = (e.line() > 0).then(|| SourceSpan::at_line_column(&source.text, e.line(), e.column()));
            let message = strip_position(&e.to_string());
            Box::new(source.error("mbir.parse", span, message).with_help(
                "IR JSON is written by `mbconv convert MODEL -o out.mbir.json`; see docs/architecture.md",
            )) as FormatError
        })?;
        let mut report = Report::for_file(&source.name);
        if doc.mbir != MBIR_VERSION {
            report.add(
                "mbir.version",
                crate::Severity::Warning,
                crate::Category::Note,
                "mbir",
                format!(
                    "IR JSON version {:?}; this build writes {MBIR_VERSION:?}",
                    doc.mbir
                ),
            );
        }
        let source_map = item_spans(source, &doc.model);
        Ok(Imported {
            model: doc.model,
            report,
            source_map,
            source_map_file: None,
        })
    }

    /// IR JSON says everything the IR holds: lowering changes nothing.
    fn lower_with(
        &self,
        model: &Model,
        _options: &Options,
        tracing: Tracing,
    ) -> Result<Lowered, FormatError> {
        Ok(Lowered::as_one_pass(
            model,
            model.clone(),
            Report::default(),
            tracing,
        ))
    }

    fn emit(&self, lowered: &Model, _options: &Options) -> Result<Exported, FormatError> {
        Ok(Exported::text(to_string(lowered), Report::default()))
    }
}

/// Where each named item of the model's lists is written: the `"name": "..."` member of the
/// item, found by one forward scan per list from the list's key (items appear in list order),
/// so that validation findings name `file:line:column`. Linear in the text.
/// (`front/mbconv-cli/tests/bad_inputs.rs` checks the places on `fixtures/bad/ir_*`.)
fn item_spans(source: &Source, model: &Model) -> SourceMap {
    let text = source.text.as_str();
    let lists = model.item_names();
    let mut map = SourceMap::new();
    for (list, names) in lists {
        let Some(mut cursor) = text.find(&format!("\"{list}\"")) else {
            continue;
        };
        for name in names {
            let Ok(quoted) = serde_json::to_string(name) else {
                break;
            };
            let Some(at) = find_name_member(text, cursor, &quoted) else {
                break;
            };
            map.entry(crate::report::path::item(list, name))
                .or_insert_with(|| source.span(at, quoted.len()));
            cursor = at + quoted.len();
        }
    }
    map
}

/// The offset of the value `quoted` of the next `"name": quoted` member at or after `from`.
fn find_name_member(text: &str, mut from: usize, quoted: &str) -> Option<usize> {
    const KEY: &str = "\"name\"";
    while let Some(i) = text.get(from..)?.find(KEY) {
        let after_key = from + i + KEY.len();
        let rest = text[after_key..].trim_start();
        if let Some(value) = rest.strip_prefix(':') {
            let value = value.trim_start();
            let at = text.len() - value.len();
            if value.starts_with(quoted) {
                return Some(at);
            }
        }
        from = after_key;
    }
    None
}

/// serde_json appends " at line L column C"; the span already says that.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
