//! The USD writer judged by Newton on models the project has never seen (`docs/held-out.md`):
//! the judgement of `tests/newton.rs`, run on a folder of Newton's verdicts made outside the
//! repository.
//!
//! `$MBCONV_USD_NEWTON_HELD_OUT` names a folder that `oracles/newton/usd_newton_golden.py`
//! wrote from a manifest whose entries' `source` is the absolute path of a held-out model
//! (any format mbconv reads) and whose `usd` is mbconv's USD of it (`mbconv convert X --to
//! usd`, default settings). For every verdict whose source mbconv writes today as the text
//! Newton judged (the same hash), the written USD is read back by mbconv and simulated with
//! Newton's scheme, step and sampling; where Newton's run is finite and reaches no joint limit
//! (Newton's limits are springs) and the centres of mass part by more than
//! [`TRAJECTORY_TOLERANCE`], `mbconv check --via usd` must not call the motion proven in
//! Newton: it must name a law of Newton's the model uses ([`mbconv::checker::differing_laws`]);
//! where Newton's run is not finite, a law that says Newton diverges (past a joint limit Newton
//! reached, the law of limits counts where the check's own run reaches one, as the check
//! decides it).
//! Newton must also build every body mbconv reads back, and load every stage but those with
//! no rigid body (files of assets and defaults that models include). A line per model goes to
//! `<folder>.deviations.json`, beside the folder. Without the variable the test says so and
//! passes: held-out models are never in the repository.
#![allow(clippy::unwrap_used)]

mod newton_motion;

use mbconv_ir::format::{Format, Options, Source};
use mbconv_test_support::written_golden::{convert, golden_json_files, read_source, text_hash};
use mbconv_usd::UsdFormat;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Agreement asked for between Newton's and mbconv's centres of mass over 1 s (m), relative to
/// max(1, |Newton's coordinate|), as in `tests/newton.rs`.
const TRAJECTORY_TOLERANCE: f64 = 1e-4;

/// Newton's refusal of a stage it builds no rigid body from (`usd_newton_golden.py`).
const NO_BODY: &str = "Newton built no rigid body";

/// What one held-out verdict says beside mbconv's run, or why it was not compared.
fn judge_one(registry: &mbconv_ir::format::Registry, name: &str, golden: &Value) -> Result<Value, String> {
    let source = PathBuf::from(golden["source"].as_str().ok_or("no source")?);
    let shown = source.display().to_string();
    let newton = &golden["newton"];
    if newton["loads"].as_bool() != Some(true) {
        return Ok(json!({"name": name, "newton": "refused", "refusal": newton["error"]}));
    }
    let written = convert(registry, "usd", &shown, &source)?;
    if text_hash(&written.text) != golden["hash"].as_str().unwrap_or_default() {
        return Err("stale: mbconv writes another text today".into());
    }
    let options = UsdFormat.read_back_options(&Options::default(), &written);
    let usd = Source::from_string("written.usda", written.text.clone()).with_path(
        format!("{name}.usda"),
        Some(source.with_file_name("written.usda")),
    );
    let model = UsdFormat.read(&usd, &options).map_err(|e| e.to_string())?.model;
    let built: Vec<&str> = newton["bodies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["anchor"].as_bool() != Some(true))
        .filter_map(|b| b["name"].as_str())
        .collect();
    let not_built: Vec<&str> = model
        .bodies
        .iter()
        .map(|b| b.name.as_str())
        .filter(|n| built.iter().filter(|m| *m == n).count() != 1)
        .collect();
    let trajectory = &newton["trajectory"];
    let finite = trajectory["finite"].as_bool() == Some(true);
    let limits = trajectory["limits"].as_array().is_some_and(|l| !l.is_empty());
    let original = read_source(registry, &shown, &source)?.model;
    // Newton's run not finite past a limit: the law of limits counts where the check's run
    // reaches one (as `mbconv check --via usd` decides it)
    let laws = newton_motion::named_laws(registry, &original, &shown, !finite && limits);
    let deviation = (finite && !limits).then(|| {
        newton_motion::deviation_from_newton(name, &model, newton, |body| {
            (body["anchor"].as_bool() != Some(true)).then(|| body["name"].as_str().unwrap().to_owned())
        })
    });
    Ok(json!({
        "name": name,
        "newton": "loads",
        "not_built": not_built,
        "finite": finite,
        "limits_reached": limits,
        "deviation": deviation.as_ref().map(|d| d.0),
        "where": deviation.as_ref().map(|d| d.1.clone()),
        "laws": laws,
    }))
}

#[test]
fn held_out_usd_moves_in_newton_as_the_check_says() {
    let Some(dir) = std::env::var_os("MBCONV_USD_NEWTON_HELD_OUT").map(PathBuf::from) else {
        eprintln!("note: MBCONV_USD_NEWTON_HELD_OUT is not set: no held-out judgement (docs/held-out.md)");
        return;
    };
    let registry = mbconv::formats();
    let (mut lines, mut failures) = (Vec::new(), Vec::new());
    for (name, golden) in golden_json_files(Path::new(&dir)) {
        let line = match judge_one(&registry, &name, &golden) {
            Ok(line) => line,
            Err(e) => json!({"name": name, "error": e}),
        };
        if let Some(error) = line.get("error").and_then(Value::as_str) {
            failures.push(format!("{name}: {error}"));
        }
        // a file of assets and defaults included by models holds no body (tests/newton.rs,
        // REFUSALS); any other refusal is Newton's refusal of mbconv's USD
        if let Some(refusal) = line.get("refusal").and_then(Value::as_str)
            && !refusal.contains(NO_BODY)
        {
            failures.push(format!("{name}: Newton refuses mbconv's USD: {refusal}"));
        }
        if line["not_built"].as_array().is_some_and(|n| !n.is_empty()) {
            failures.push(format!("{name}: Newton does not build {}", line["not_built"]));
        }
        let parted = line["deviation"]
            .as_f64()
            .is_some_and(|d| d > TRAJECTORY_TOLERANCE);
        let laws = line["laws"].as_array().cloned().unwrap_or_default();
        let not_finite = line["finite"].as_bool() == Some(false);
        if (parted || not_finite) && laws.is_empty() {
            failures.push(format!(
                "{name}: Newton moves otherwise ({} m, {}) and the check names no law of Newton's",
                line["deviation"], line["where"]
            ));
        } else if not_finite
            && !laws
                .iter()
                .filter_map(Value::as_str)
                .any(|l| l.contains("diverges"))
        {
            failures.push(format!(
                "{name}: not finite in Newton, and no law the check names says Newton diverges: {laws:?}"
            ));
        }
        eprintln!("{line}");
        lines.push(line);
    }
    let mut out = dir.clone().into_os_string();
    out.push(".deviations.json");
    std::fs::write(out, serde_json::to_string_pretty(&lines).unwrap()).unwrap();
    assert!(
        failures.is_empty(),
        "held-out USD not as the check says:\n{}",
        failures.join("\n")
    );
}
