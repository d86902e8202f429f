//! `docs/loss-matrix.md`, generated from each registered format's feature table and from the
//! findings its lowering passes actually produce on a set of models (the fixtures), and the
//! check that the two agree both ways.

use mbconv_ir::format::support::{Feature, Support, lookup};
use mbconv_ir::format::{Options, Registry, Source};
use mbconv_ir::{Finding, Model};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The lowering findings a set of models produces, per format and feature row.
///
/// ```
/// let mut registry = mbconv_ir::format::Registry::new();
/// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
/// let produced = mbconv_check::ProducedFindings::lowering(&registry, &[]);
/// assert!(produced.problems(&registry).is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProducedFindings {
    /// `(format, feature)` -> codes of the loss findings (dropped, approximated, ignored).
    losses: BTreeMap<(String, Feature), BTreeSet<String>>,
    /// `(format, feature)` -> codes of the notes (exact re-expressions).
    notes: BTreeMap<(String, Feature), BTreeSet<String>>,
    /// Loss findings with no feature row: `(format, code, model)`.
    untagged: BTreeSet<(String, String, String)>,
    /// Loss findings whose format's row says the feature is kept: `(format, feature, code, model)`.
    on_kept_rows: BTreeSet<(String, Feature, String, String)>,
}

impl ProducedFindings {
    /// Lowers every `(name, model)` into every registered format and records the findings.
    /// A model a format cannot lower is skipped for that format.
    pub fn lowering(registry: &Registry, models: &[(String, Model)]) -> Self {
        let mut produced = Self::default();
        for format in registry.formats() {
            let name = format.info().name.to_owned();
            let table = format.feature_support();
            for (model_name, model) in models {
                let Ok(lowered) = format.lower(model, &Options::default()) else {
                    continue;
                };
                for finding in &lowered.report.findings {
                    produced.record(&name, table, model_name, finding);
                }
            }
        }
        produced
    }

    fn record(
        &mut self,
        format: &str,
        table: &[mbconv_ir::format::support::FeatureSupport],
        model: &str,
        finding: &Finding,
    ) {
        let loss = finding.category.is_loss();
        match finding.feature {
            None if loss => {
                self.untagged
                    .insert((format.to_owned(), finding.code.clone(), model.to_owned()));
            }
            None => {}
            Some(feature) => {
                let key = (format.to_owned(), feature);
                if loss {
                    if lookup(table, feature) == Support::Kept {
                        self.on_kept_rows.insert((
                            format.to_owned(),
                            feature,
                            finding.code.clone(),
                            model.to_owned(),
                        ));
                    }
                    self.losses.entry(key).or_default().insert(finding.code.clone());
                } else {
                    self.notes.entry(key).or_default().insert(finding.code.clone());
                }
            }
        }
    }

    /// Where the tables and the findings disagree: a row declared lost or approximated that
    /// no model produces a loss finding for, a loss finding without a feature row, and a loss
    /// finding on a row the table says is kept. Empty when they agree both ways.
    pub fn problems(&self, registry: &Registry) -> Vec<String> {
        let mut problems = Vec::new();
        for format in registry.formats() {
            let name = format.info().name;
            for row in format.feature_support() {
                let declared_loss = matches!(row.support, Support::Lost(_) | Support::Approximated(_));
                if declared_loss && !self.losses.contains_key(&(name.to_owned(), row.feature)) {
                    problems.push(format!(
                        "{name}: the row \"{}\" says {}, but no model's lowering reports a loss for it",
                        row.feature.title(),
                        row.support.describe()
                    ));
                }
            }
        }
        for (format, code, model) in &self.untagged {
            problems.push(format!(
                "{format}: {code} (lowering {model}) reports a loss with no feature row"
            ));
        }
        for (format, feature, code, model) in &self.on_kept_rows {
            problems.push(format!(
                "{format}: {code} (lowering {model}) reports a loss of \"{}\", which the table says is kept",
                feature.title()
            ));
        }
        problems
    }
}

/// Reads every model file in the given directories (not recursively), skipping files no
/// registered format detects and the files named in `skip` (paths relative to `root`).
/// Returns `(path relative to root, model)` in path order; files that fail to read are
/// returned as errors, so that a broken fixture is not silently left out.
pub fn read_models(
    registry: &Registry,
    root: &Path,
    dirs: &[&str],
    skip: &[&str],
) -> Result<Vec<(String, Model)>, String> {
    let mut files = Vec::new();
    for dir in dirs {
        let entries = std::fs::read_dir(root.join(dir)).map_err(|e| format!("{dir}: {e}"))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_file() {
                files.push(format!("{dir}/{}", entry.file_name().to_string_lossy()));
            }
        }
    }
    files.sort();
    let mut models = Vec::new();
    for file in files.into_iter().filter(|f| !skip.contains(&f.as_str())) {
        let path = root.join(&file);
        let source = Source::from_path(&path).map_err(|e| format!("{file}: {e}"))?;
        let Ok(format) = registry.detect(&path, Some(&source.text)) else {
            continue;
        };
        let imported = registry
            .read(format, &source, &Options::default())
            .map_err(|e| format!("{file}: {e}"))?;
        models.push((file, imported.model));
    }
    Ok(models)
}

/// The loss matrix as Markdown: one row per IR feature, one column per registered format,
/// saying what the format's `lower` step keeps, says through an exact equivalent,
/// approximates (how) or loses (why), with the finding codes its passes produced for that
/// row on the models of `produced`. A format that declares no table yet shows "not declared"
/// in every row.
///
/// ```
/// let mut registry = mbconv_ir::format::Registry::new();
/// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
/// let produced = mbconv_check::ProducedFindings::default();
/// let text = mbconv_check::loss_matrix(&registry, &produced);
/// assert!(text.contains("| gravity |"));
/// ```
pub fn loss_matrix(registry: &Registry, produced: &ProducedFindings) -> String {
    let formats: Vec<_> = registry.formats().collect();
    let mut text = String::from(
        "# Loss matrix\n\n\
         What each format keeps of each IR feature when mbconv writes it: `kept`, `exact: how`\n\
         (said through an exact equivalent), `approximated: how`, or `lost: why`, from the\n\
         formats' own feature tables (`Format::feature_support`), and after it the codes of the\n\
         findings the format's lowering passes produced for that row on the fixtures (every\n\
         fixture lowered into every format). Generated by `cargo xtask loss-matrix`; a test fails\n\
         when this file differs from what the code declares and produces, when a row declared\n\
         lost or approximated is produced by no fixture, or when a loss finding has no row or\n\
         lands on a row declared kept. \"not declared\": the format has no table yet.\n\n",
    );
    text.push_str("| feature |");
    for f in &formats {
        text.push_str(&format!(" {} |", f.info().name));
    }
    text.push_str("\n|---|");
    for _ in &formats {
        text.push_str("---|");
    }
    text.push('\n');
    for feature in Feature::ALL {
        text.push_str(&format!("| {} |", feature.title()));
        for f in &formats {
            let table = f.feature_support();
            let mut cell = if table.is_empty() {
                "not declared".to_owned()
            } else {
                lookup(table, feature).describe()
            };
            let key = (f.info().name.to_owned(), feature);
            let codes: BTreeSet<&String> = produced
                .losses
                .get(&key)
                .into_iter()
                .chain(produced.notes.get(&key))
                .flatten()
                .collect();
            if !codes.is_empty() {
                let list: Vec<String> = codes.iter().map(|c| format!("`{c}`")).collect();
                cell.push_str(&format!(" ({})", list.join(", ")));
            }
            text.push_str(&format!(" {} |", cell.replace('|', "\\|")));
        }
        text.push('\n');
    }
    text
}
