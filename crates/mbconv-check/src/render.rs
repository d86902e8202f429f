//! The check's results as a text table, as JSON, or as one line after a conversion.

use crate::check::CheckReport;
use crate::verdict::TargetCheck;

/// A table with one row per target, then one line per target saying why, then one line per note
/// of what was not compared, each at most [`NOTE_CHARS`] long (a longer note is cut after the
/// last whole item that fits, and says how many more it holds; [`render_table_full`] keeps it).
///
/// ```
/// use mbconv_check::{CheckReport, TargetCheck, render_table};
/// let report = CheckReport { model: "m.skel".into(), targets: vec![TargetCheck::failed("chrono", "emitting failed: no")] };
/// let table = render_table(&report);
/// assert!(table.starts_with("target"));
/// assert!(table.contains("failed"));
/// ```
pub fn render_table(report: &CheckReport) -> String {
    table(report, Some(NOTE_CHARS))
}

/// The table of [`render_table`] with every note of what was not compared whole, however long
/// (for `-v`).
///
/// ```
/// use mbconv_check::{CheckReport, TargetCheck, render_table, render_table_full};
/// let mut target = TargetCheck::failed("mjcf", "x");
/// let pairs: Vec<String> = (0..40).map(|i| format!("\"link{i}\" and \"link{}\" from t = 0 s", i + 1)).collect();
/// target.not_compared.push(format!("contact: the collidable shapes of 40 pairs of bodies may touch: {}", pairs.join(", ")));
/// let report = CheckReport { model: "m.urdf".into(), targets: vec![target] };
/// assert!(render_table_full(&report).contains("\"link39\" and \"link40\""));
/// let short = render_table(&report);
/// assert!(!short.contains("\"link39\""));
/// assert!(short.contains("--json"));
/// ```
pub fn render_table_full(report: &CheckReport) -> String {
    table(report, None)
}

/// The longest a note of what was not compared is printed by [`render_table`] (characters):
/// longer notes (a list of 25 body pairs that may touch) are cut after the last whole item
/// that fits.
pub const NOTE_CHARS: usize = 320;

/// `note`, cut after the last `, ` before `limit` characters when longer, saying so.
fn shortened(note: &str, limit: usize) -> String {
    if note.chars().count() <= limit {
        return note.to_owned();
    }
    let end = note.char_indices().nth(limit).map_or(note.len(), |(i, _)| i);
    let cut = note[..end].rfind(", ").unwrap_or(end);
    let rest = note[cut..].matches(", ").count();
    format!("{} and {rest} more (--json lists every one)", &note[..cut])
}

fn table(report: &CheckReport, note_chars: Option<usize>) -> String {
    let mut rows = vec![[
        "target".to_owned(),
        "lost".to_owned(),
        "approx.".to_owned(),
        "renamed".to_owned(),
        "max COM error".to_owned(),
        "at t".to_owned(),
        "max rot. error".to_owned(),
        "verdict".to_owned(),
    ]];
    for t in &report.targets {
        rows.push([
            t.format.clone(),
            t.counts.lost.to_string(),
            t.counts.approximated.to_string(),
            t.counts.renamed.to_string(),
            error(t.max_com_error, "m"),
            if t.max_com_error.is_finite() {
                format!("{} s", seconds(t.max_com_error_time))
            } else {
                "-".to_owned()
            },
            error(t.max_rotation_error, "rad"),
            verdict_text(t),
        ]);
    }
    let widths: Vec<usize> = (0..8)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| {
                if c == 0 || c == 7 {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    for t in &report.targets {
        text.push_str(&format!("{}: {}\n", t.format, t.message));
    }
    // What was not compared is said once: a note some targets only have (the conversion's
    // simulator checks contact the original's does not) names them.
    let mut notes: Vec<&String> = Vec::new();
    for note in report.targets.iter().flat_map(|t| &t.not_compared) {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    for note in notes {
        let having: Vec<&str> = report
            .targets
            .iter()
            .filter(|t| t.not_compared.contains(note))
            .map(|t| t.format.as_str())
            .collect();
        let note = match note_chars {
            Some(limit) => shortened(note, limit),
            None => note.clone(),
        };
        if having.len() == report.targets.len() {
            text.push_str(&format!("not compared: {note}\n"));
        } else {
            text.push_str(&format!("not compared in {}: {note}\n", having.join(", ")));
        }
    }
    if let Some(first) = report.targets.first()
        && !first.joint_limits_reached.is_empty()
    {
        text.push_str(&format!(
            "joint limits reached (simulated as inelastic stops): {}\n",
            first.joint_limits_reached.join(", ")
        ));
    }
    text
}

/// `{"model": …, "targets": [{"format", "verdict", "max_com_error", "max_rotation_error",
/// "findings", "message", …}]}`, pretty-printed.
///
/// ```
/// use mbconv_check::{CheckReport, TargetCheck, render_json};
/// let report = CheckReport { model: "m.skel".into(), targets: vec![TargetCheck::failed("chrono", "x")] };
/// let json: serde_json::Value = serde_json::from_str(&render_json(&report)).unwrap();
/// assert_eq!(json["targets"][0]["verdict"], "failed");
/// assert!(json["targets"][0]["max_com_error"].is_null());
/// ```
pub fn render_json(report: &CheckReport) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()))
}

/// One line for the end of a conversion: `check: explained (largest COM error 1.2e-3 m at
/// t = 0.5 s, rotation 3e-4 rad) by chrono.export`; an `unexplained` or
/// `failed` line ends with the reason.
///
/// ```
/// use mbconv_check::{TargetCheck, summary_line};
/// let line = summary_line(&TargetCheck::failed("skel", "emitting failed: no"));
/// assert_eq!(line, "check: failed (emitting failed: no)");
/// ```
pub fn summary_line(target: &TargetCheck) -> String {
    if !target.max_com_error.is_finite() {
        return format!("check: {} ({})", verdict_text(target), target.message);
    }
    let measured = format!(
        "check: {} (largest COM error {:.3e} m at t = {} s, rotation {:.3e} rad)",
        verdict_text(target),
        target.max_com_error,
        seconds(target.max_com_error_time),
        target.max_rotation_error,
    );
    let line = match target.verdict {
        crate::Verdict::Exact => measured,
        crate::Verdict::Explained => {
            let mut codes: Vec<&str> = Vec::new();
            for e in &target.explained_by {
                if !codes.contains(&e.code.as_str()) {
                    codes.push(&e.code);
                }
            }
            format!("{measured} by {}", codes.join(", "))
        }
        _ => format!("{measured}: {}", target.message),
    };
    match not_compared_titles(target) {
        Some(titles) => format!("{line}; not compared: {titles}"),
        None => line,
    }
}

/// What the check did not compare, by the title of each note (`contact, joint Coulomb
/// friction`), each once; `None` when it compared everything.
fn not_compared_titles(target: &TargetCheck) -> Option<String> {
    let mut titles: Vec<&str> = Vec::new();
    for note in &target.not_compared {
        let title = note.split(':').next().unwrap_or(note).trim();
        if !titles.contains(&title) {
            titles.push(title);
        }
    }
    (!titles.is_empty()).then(|| titles.join(", "))
}

/// The verdict as printed: its name, and within what it holds when the tolerances were widened
/// (`exact within 4.9e-2 m and 4.9e-2 rad`).
///
/// ```
/// use mbconv_check::{TargetCheck, Tolerances, Verdict, verdict_text};
/// let mut t = TargetCheck::unproven("mjcf", Verdict::Exact, "moves like the original");
/// assert_eq!(verdict_text(&t), "exact");
/// t.compared_within = Some(Tolerances { position: 4.9e-2, rotation: 4.9e-2 });
/// t.tolerance_widened = true;
/// assert_eq!(verdict_text(&t), "exact within 4.9e-2 m and 4.9e-2 rad");
/// ```
pub fn verdict_text(target: &TargetCheck) -> String {
    match (&target.compared_within, target.tolerance_widened) {
        (Some(within), true) => format!(
            "{} within {:.1e} m and {:.1e} rad",
            target.verdict, within.position, within.rotation
        ),
        _ => target.verdict.to_string(),
    }
}

/// A sample time for people: at most six decimals, no trailing zeros (`0.413`, `1`).
pub(crate) fn seconds(t: f64) -> String {
    let text = format!("{t:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

fn error(x: f64, unit: &str) -> String {
    if x.is_finite() {
        format!("{x:.3e} {unit}")
    } else {
        "-".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::seconds;

    #[test]
    fn sample_times_read_well() {
        assert_eq!(seconds(1.000_000_000_000_000_7), "1");
        assert_eq!(seconds(0.413_000_000_000_000_3), "0.413");
        assert_eq!(seconds(0.0), "0");
        assert_eq!(seconds(-1e-9), "0");
    }
}
