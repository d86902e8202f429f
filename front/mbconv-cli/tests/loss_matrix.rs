//! `docs/loss-matrix.md` is generated from the formats' feature tables and from the findings
//! their lowering passes produce on the fixtures. These tests fail when the committed file
//! differs from that (regenerate with `cargo xtask loss-matrix`), and when tables and findings
//! disagree either way: a row declared lost or approximated that no fixture produces, a loss
//! finding with no row, or a loss on a row declared kept.

use mbconv::checker::{ProducedFindings, read_models};
use mbconv_test_support::{FIXTURES_NOT_MODELS, JUDGED_FIXTURE_DIRS, fixtures_root};
use std::path::Path;

fn produced() -> (mbconv::ir::format::Registry, ProducedFindings) {
    let registry = mbconv::formats();
    let models = read_models(
        &registry,
        &fixtures_root(),
        &JUDGED_FIXTURE_DIRS,
        &FIXTURES_NOT_MODELS,
    )
    .unwrap_or_else(|e| panic!("a fixture does not read: {e}"));
    assert!(models.len() >= 40, "only {} fixture models", models.len());
    let produced = ProducedFindings::lowering(&registry, &models);
    (registry, produced)
}

#[test]
fn feature_tables_and_the_findings_on_the_fixtures_agree_both_ways() {
    let (registry, produced) = produced();
    let problems = produced.problems(&registry);
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn committed_loss_matrix_is_what_the_tables_and_fixtures_give() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/loss-matrix.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let (registry, produced) = produced();
    let generated = mbconv::checker::loss_matrix(&registry, &produced);
    let first_difference = committed
        .lines()
        .zip(generated.lines())
        .find(|(a, b)| a != b)
        .map(|(a, b)| format!("\ncommitted: {a}\ngenerated: {b}"))
        .unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from the formats' feature tables and findings: run `cargo xtask loss-matrix`{first_difference}",
        path.display()
    );
}

/// Every registered format's feature table has exactly one row per IR feature (the loss matrix
/// would otherwise show the first of two rows, or a default for a missing one). One test for
/// every format, so a new format's table is checked without writing the check again.
#[test]
fn every_feature_table_has_one_row_per_feature() {
    use mbconv::ir::format::support::Feature;
    let registry = mbconv::formats();
    let mut problems = Vec::new();
    for format in registry.formats() {
        let table = format.feature_support();
        for feature in Feature::ALL {
            let rows = table.iter().filter(|r| r.feature == feature).count();
            if rows != 1 {
                problems.push(format!("{}: {rows} rows for {feature:?}", format.info().name));
            }
        }
        if table.len() != Feature::ALL.len() {
            problems.push(format!("{}: {} rows in all", format.info().name, table.len()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
