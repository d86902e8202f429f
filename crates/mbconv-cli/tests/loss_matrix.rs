//! `docs/loss-matrix.md` is generated from the formats' feature tables: this test fails when
//! the committed file differs from what the code declares (regenerate with
//! `cargo xtask loss-matrix`).

use std::path::Path;

#[test]
fn committed_loss_matrix_matches_the_feature_tables() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/loss-matrix.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let generated = mbconv_check::loss_matrix(&mbconv_cli::registry::registry());
    let first_difference = committed
        .lines()
        .zip(generated.lines())
        .find(|(a, b)| a != b)
        .map(|(a, b)| format!("\ncommitted: {a}\ngenerated: {b}"))
        .unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from the formats' feature tables: run `cargo xtask loss-matrix`{first_difference}",
        path.display()
    );
}
