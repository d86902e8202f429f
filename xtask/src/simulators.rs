//! The simulators' section of `docs/corpus-matrix.md`: for every cross-simulator golden case
//! (`cargo xtask golden chrono`), how far apart DART and Chrono move the original and its
//! conversion, mbconv's own verdict for the same conversion, and, where the simulators differ
//! by more than the tolerance, the losses the conversion reports.

use mbconv_check::Verdict;
use mbconv_ir::format::{Options, Registry, Source};
use mbconv_test_support::simulators::{
    Agreement, SIMULATOR_TOLERANCE, agreement, simulator_case, simulator_golden_dir,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The section, given mbconv's verdict for a (model as shown, target format) pair.
pub fn section(registry: &Registry, verdict_of: &dyn Fn(&str, &str) -> Option<Verdict>) -> String {
    let mut text = format!(
        "\n## In the simulators\n\n\
         DART and Chrono themselves (golden data in `crates/mbconv-cli/tests/golden/simulators/`,\n\
         made by `cargo xtask golden chrono`): the source simulator runs the original, the target\n\
         simulator runs what `mbconv convert` wrote, both at dt = 1e-4 s for 1 s and again at\n\
         5e-5 s; the gap is the largest distance between a body's centre of mass in the two runs\n\
         (0.1 s samples). They agree within {SIMULATOR_TOLERANCE:e} m; or the gap halves with the step\n\
         and extrapolates to within the tolerance (integration error: both integrators are first\n\
         order); or the conversion reports the losses that explain the difference. `mbconv check`\n\
         is mbconv's own verdict for the same conversion.\n\n\
         | model | conversion | mbconv check | simulators | COM gap at 1e-4 s | at 5e-5 s | judged |\n\
         |---|---|---|---|---:|---:|---|\n"
    );
    let mut names: Vec<String> = std::fs::read_dir(simulator_golden_dir())
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    e.file_name()
                        .to_str()
                        .and_then(|n| n.strip_suffix(".json"))
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for name in names {
        let Some(case) = simulator_case(&name) else {
            continue;
        };
        let golden = std::fs::read_to_string(simulator_golden_dir().join(format!("{name}.json")))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .unwrap_or(Value::Null);
        let source_format = if case.target_format == "chrono" {
            "skel"
        } else {
            "chrono"
        };
        let verdict = verdict_of(&case.shown, case.target_format).map_or("-".to_owned(), |v| v.to_string());
        let half = golden["max_com_difference_half_step"].as_f64();
        let half_text = half.map_or("-".to_owned(), |h| format!("{h:.3e} m"));
        let (gap, judged) = match (golden["max_com_difference"].as_f64(), golden["error"].as_str()) {
            (_, Some(error)) => (
                "-".to_owned(),
                format!("not run: {}", error.lines().next().unwrap_or_default()),
            ),
            (Some(gap), None) => {
                let judged = match agreement(gap, half) {
                    Agreement::Within => "agree".to_owned(),
                    Agreement::Converging => "agree as dt -> 0 (integration error)".to_owned(),
                    Agreement::Apart => {
                        let losses = reported_losses(registry, &case.source, case.target_format);
                        if losses.is_empty() {
                            "**differ, no reported loss**".to_owned()
                        } else {
                            format!(
                                "differ, explained by {}",
                                losses.into_iter().collect::<Vec<_>>().join(", ")
                            )
                        }
                    }
                };
                (format!("{gap:.3e} m"), judged)
            }
            (None, None) => ("-".to_owned(), "**no data**".to_owned()),
        };
        let _ = writeln!(
            text,
            "| `{}` | {source_format} -> {} | {verdict} | {} -> {} | {gap} | {half_text} | {judged} |",
            case.shown, case.target_format, case.simulators.0, case.simulators.1
        );
    }
    text
}

/// The codes of the losses reading `source` and lowering it for `target` report (sorted).
pub fn reported_losses(registry: &Registry, source: &std::path::Path, target: &str) -> BTreeSet<String> {
    let mut codes = BTreeSet::new();
    let Ok(text) = Source::from_path(source) else {
        return codes;
    };
    let Ok(from) = registry.detect(source, Some(&text.text)) else {
        return codes;
    };
    let Ok(to) = registry.get(target) else {
        return codes;
    };
    let Ok(imported) = registry.read(from, &text, &Options::default()) else {
        return codes;
    };
    let Ok(lowered) = to.lower(&imported.model, &Options::default()) else {
        return codes;
    };
    for finding in imported.report.findings.iter().chain(&lowered.report.findings) {
        if finding.category.is_loss() {
            codes.insert(finding.code.clone());
        }
    }
    codes
}
