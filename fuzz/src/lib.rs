//! What every fuzz target does with its input: read the bytes as one format; when that
//! succeeds, validate the model and, when it is valid, lower and emit it in every format this
//! build writes. Errors are the expected outcome for most inputs; only a panic, a hang, a
//! stack overflow or runaway memory is a finding.

use mbconv_ir::format::{Options, Source};

/// Reads `data` as `format` (a registry name) and, if it reads and validates, writes it in
/// every built format.
pub fn exercise(format: &str, data: &[u8]) {
    // Readers take text: the CLI refuses invalid UTF-8 before any reader runs.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let registry = mbconv::formats();
    let Ok(reader) = registry.get(format) else {
        panic!("no format {format} in this build");
    };
    let source = Source::from_string(format!("fuzz.{format}"), text);
    let options = Options::default();
    let Ok(imported) = registry.read(reader, &source, &options) else {
        return;
    };
    let report = mbconv_ir::validate::validate_with_spans(&imported.model, &imported.source_map);
    if report.has_errors() {
        return;
    }
    for writer in registry.formats() {
        // A format may refuse a model it cannot say; that is an error, not a crash.
        let _ = registry.write(writer, &imported.model, &options);
    }
}
