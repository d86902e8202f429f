//! The simulators' section of `docs/corpus-matrix.md`: for every cross-simulator golden case
//! (`cargo xtask golden chrono`), how far apart the target simulator running the conversion
//! and the source simulator running the lowered model written back move, at dt and dt / 2,
//! the judgement (`mbconv_test_support::simulator_verdicts::judge_case`), mbconv's own verdict for the
//! same conversion, and the open problems: the pairs that fail, each with its reason.
//!
//! `cargo xtask corpus simulators` rewrites only this section (checking only the models of
//! the golden cases); `cargo xtask corpus` writes it with the rest of the matrix.

use anyhow::{Context, Result};
use mbconv_check::Verdict;
use mbconv_test_support::simulator_verdicts::{
    CONVERGENCE_RATIO, CaseOutcome, Judgement, ROUNDING_FLOOR, SIMULATOR_TOLERANCE, SimulatorCase,
    judge_case, simulator_case, simulator_golden_dir,
};
use rayon::prelude::*;
use serde_json::Value;
use std::fmt::Write as _;

/// The heading the section starts with.
pub const HEADING: &str = "## In the simulators";

/// The heading of the list of failing pairs, inside the section.
pub const OPEN_PROBLEMS_HEADING: &str = "### Open problems in the simulators";

/// The pairs that fail, each with why (what the lowering or a simulator does that makes the
/// two sides move apart). Every failing pair must be here, and nothing else: the simulator
/// golden test checks both.
pub const OPEN_PROBLEMS: &[(&str, &str)] = &[];

/// The golden cases, sorted by name, with their golden files.
fn cases() -> Vec<(SimulatorCase, Value)> {
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
    names
        .into_iter()
        .filter_map(|name| {
            let case = simulator_case(&name)?;
            let golden = std::fs::read_to_string(simulator_golden_dir().join(format!("{name}.json")))
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .unwrap_or(Value::Null);
            Some((case, golden))
        })
        .collect()
}

/// The judged column of a pair's row.
pub fn judged_text(outcome: &CaseOutcome) -> String {
    match outcome {
        CaseOutcome::Refused(error) => format!("not run: {error}"),
        CaseOutcome::Judged { judgement, .. } => match judgement {
            Judgement::Equal => "agree (equal to rounding)".to_owned(),
            Judgement::Converging { .. } => "agree (integration error)".to_owned(),
            Judgement::Fails(why) => format!("**fails**: {why}"),
        },
    }
}

/// The section, given mbconv's verdict for a (model as shown, target format) pair.
pub fn section(verdict_of: &dyn Fn(&str, &str) -> Option<Verdict>) -> String {
    let (low, high) = CONVERGENCE_RATIO;
    let mut text = format!(
        "\n{HEADING}\n\n\
         DART and Chrono themselves (golden data in `front/mbconv-cli/tests/golden/simulators/`,\n\
         made by `cargo xtask golden chrono`): the target simulator runs what `mbconv convert`\n\
         wrote; the source simulator runs the original lowered for the target and written back\n\
         in the source format by mbconv (the conversion's losses on both sides), both at\n\
         dt = 1e-4 s and 5e-5 s for 1 s, without contact on either side (DART with collisions off;\n\
         the lowered model written back without collision shapes, as mbconv's solver simulates\n\
         none). The gap is the largest distance between a body's centre\n\
         of mass in the two runs (0.1 s samples, every body: one without a match fails the pair).\n\
         A pair agrees when both gaps are below {ROUNDING_FLOOR:e} m (rounding), or when the gap\n\
         halves or quarters with the step (ratio in [{low}, {high}]: integration error of first or second\n\
         order, both integrators being first order) and the\n\
         extrapolated gap (2·x(dt/2) − x(dt) on each side) is below {SIMULATOR_TOLERANCE:e} m\n\
         (`docs/check.md`, \"The simulators as judges\"). Any other pair fails, and is listed below\n\
         with its reason. `mbconv check` is mbconv's own verdict for the same conversion.\n\n\
         | model | conversion | mbconv check | simulators | COM gap at 1e-4 s | at 5e-5 s | ratio | extrapolated | judged |\n\
         |---|---|---|---|---:|---:|---:|---:|---|\n"
    );
    let mut failing = Vec::new();
    for (case, golden) in cases() {
        let source_format = if case.target_format == "chrono" {
            "skel"
        } else {
            "chrono"
        };
        let verdict = verdict_of(&case.shown, case.target_format).map_or("-".to_owned(), |v| v.to_string());
        let outcome = judge_case(&golden);
        let (full, half, ratio, extrapolated) = match &outcome {
            CaseOutcome::Judged { gaps: Some(g), .. } => (
                format!("{:.3e} m", g.full),
                format!("{:.3e} m", g.half),
                if g.full > 0.0 {
                    format!("{:.3}", g.half / g.full)
                } else {
                    "-".to_owned()
                },
                format!("{:.3e} m", g.extrapolated.max((2.0 * g.half - g.full).abs())),
            ),
            _ => ("-".to_owned(), "-".to_owned(), "-".to_owned(), "-".to_owned()),
        };
        if outcome.fails() {
            failing.push(case.name.clone());
        }
        let _ = writeln!(
            text,
            "| `{}` | {source_format} -> {} | {verdict} | {} -> {} | {full} | {half} | {ratio} | {extrapolated} | {} |",
            case.shown,
            case.target_format,
            case.simulators.0,
            case.simulators.1,
            judged_text(&outcome)
        );
    }
    let _ = write!(
        text,
        "\n{OPEN_PROBLEMS_HEADING}\n\n\
         The pairs that fail, by case name (`{{direction}}__{{origin}}__{{model}}`), with why; listed\n\
         in `xtask/src/simulators.rs` and checked both ways by the simulator golden test.\n\n"
    );
    let listed: Vec<&str> = OPEN_PROBLEMS.iter().map(|(case, _)| *case).collect();
    for (case, reason) in OPEN_PROBLEMS {
        let _ = writeln!(text, "- `{case}`: {reason}");
    }
    for case in failing.iter().filter(|c| !listed.contains(&c.as_str())) {
        let _ = writeln!(text, "- `{case}`: **not explained yet**");
    }
    if OPEN_PROBLEMS.is_empty() && failing.is_empty() {
        text.push_str("None.\n");
    }
    text
}

/// `cargo xtask corpus simulators`: rewrites the simulators' section of
/// `docs/corpus-matrix.md` (from its heading to the end), with mbconv's verdicts for the
/// golden cases' models only.
pub fn rewrite_section() -> Result<()> {
    let root = crate::workspace_root();
    let out = root.join("docs/corpus-matrix.md");
    let matrix = std::fs::read_to_string(&out).with_context(|| format!("cannot read {}", out.display()))?;
    let registry = mbconv::formats();
    let mut models: Vec<(String, std::path::PathBuf)> = cases()
        .into_iter()
        .map(|(case, _)| (case.shown, case.source))
        .collect();
    models.sort();
    models.dedup();
    let outcomes: Vec<(String, crate::corpus::Outcome)> = models
        .par_iter()
        .map(|(shown, path)| (shown.clone(), crate::corpus::check_file(&registry, shown, path)))
        .collect();
    let verdict_of = |shown: &str, target: &str| crate::corpus::verdict_in(&outcomes, shown, target);
    let kept = matrix
        .find(&format!("\n{HEADING}\n"))
        .map_or(matrix.as_str(), |at| &matrix[..at]);
    let text = format!("{kept}{}", section(&verdict_of));
    let corpus = std::env::var_os("MBCONV_CORPUS")
        .map_or_else(|| root.join("../shared/corpus"), std::path::PathBuf::from);
    let text = crate::corpus::machine_independent(&text, &root, &corpus);
    std::fs::write(&out, text).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote the simulators' section of {}", out.display());
    Ok(())
}
