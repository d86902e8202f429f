//! The USD writer judged by OpenUSD itself on every other model: the golden data of
//! `tests/golden/newton/` (written by `cargo xtask golden usd-newton` from
//! `oracles/newton/usd_newton_golden.py`, usd-core 26.8 in the Newton venv; these tests run no
//! Python) holds, under `openusd`, for the USD mbconv writes from every fixture of the other
//! formats and every Choreonoid, Chrono, MJCF, DART and URDF model of the corpus: the errors and warnings OpenUSD posts
//! opening the stage (`Usd.Stage.Open`) and parsing its physics
//! (`UsdPhysics.LoadUsdPhysicsFromRange(stage, ["/"])`), collected by a
//! `UsdUtils.CoalescingDiagnosticDelegate`, and what that parse found: rigid bodies (world pose,
//! authored mass), joints (type, bodies, local poses, axis, limits, a generic joint's limit
//! instances), articulations and collision shapes.
//!
//! The tests write each model again (its hash must be the one judged, else the golden data is
//! stale), read the text back with mbconv's reader (the model `mbconv check --via usd`
//! compares) and assert that OpenUSD reported no error, that every warning is explained, and
//! that OpenUSD's parse is mbconv's reading: the same rigid bodies and joints by prim path, the
//! same joint types and bodies, joint frames within 1e-6, masses and limits within a 32-bit
//! float (OpenUSD reads the floats, mbconv the `mbconv:` doubles beside them), the limits of
//! generic joints axis by axis, one articulation per tree, the same number of collision shapes.
//!
//! Corpus entries are judged when `../shared/corpus` (or `$MBCONV_CORPUS`) is present and
//! skipped with a notice otherwise.
#![allow(clippy::unwrap_used)]

mod openusd_parse;
mod written_usd;

use mbconv_ir::{BodyRef, JointKind, Model};
use mbconv_test_support::written_golden::{RefusalTally, source_path, text_hash};
use mbconv_usd::{PrimPaths, UsdFormat};
use openusd_parse::{FLOAT_BESIDE_DOUBLE, at, panic_message, world_mark};
use serde_json::Value;
use written_usd::suite;

/// OpenUSD's warnings on mbconv's written stages: (the warning's words, `|`-separated, why).
/// Each must still be posted (else the line is stale).
const WARNINGS: &[(&str, &str)] = &[];

/// Written stages OpenUSD parses otherwise than mbconv reads them: (golden file, words of the
/// difference, why). Each must still differ (else the line is stale).
const DIFFERS: &[(&str, &str, &str)] = &[];

/// The diagnostics of one kind (`errors`, `warnings`) OpenUSD posted opening and parsing a
/// stage, as `code: text`.
fn diagnostics(openusd: &Value, kind: &str) -> Vec<String> {
    ["open", "parse_diagnostics"]
        .iter()
        .flat_map(|step| openusd[step][kind].as_array().cloned().unwrap_or_default())
        .map(|d| format!("{}: {}", d["code"].as_str().unwrap(), d["text"].as_str().unwrap()))
        .collect()
}

/// Every written stage opens and parses in OpenUSD without an error; every warning is one
/// [`WARNINGS`] explains.
#[test]
fn openusd_opens_and_parses_every_written_stage_without_error() {
    let mut tally = RefusalTally::new(WARNINGS.iter().map(|(words, _)| *words));
    let files = suite().files();
    let (mut failures, mut warned) = (Vec::new(), 0);
    for (name, golden) in &files {
        let openusd = &golden["openusd"];
        if openusd.is_null() {
            failures.push(format!(
                "{name}: no judgement of OpenUSD's: run `cargo xtask golden usd-newton`"
            ));
            continue;
        }
        if openusd["loads"].as_bool() != Some(true) {
            let error = openusd["error"].as_str().unwrap_or_default();
            failures.push(format!("{name}: OpenUSD refuses the stage: {error}"));
            continue;
        }
        for error in diagnostics(openusd, "errors") {
            failures.push(format!("{name}: OpenUSD reports an error: {error}"));
        }
        let warnings = diagnostics(openusd, "warnings");
        warned += usize::from(!warnings.is_empty());
        for warning in warnings {
            if tally.explain(&warning, |_| true).is_none() {
                failures.push(format!("{name}: OpenUSD warns, unexplained: {warning}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "OpenUSD on mbconv's USD:\n{}",
        failures.join("\n")
    );
    tally.assert_all_used("OpenUSD warns");
    eprintln!(
        "OpenUSD opens and parses all {} written stages without an error ({warned} with a warning)",
        files.len()
    );
}

/// The free axes of a generic joint as OpenUSD parses it (its limit instances, `dof_limits`:
/// an axis with none is free, lower > upper locks it), in the reader's order (translations
/// X, Y, Z, then rotations): each free axis's bounds in SI units (metres, radians), `None`
/// where there is no finite bound.
fn generic_axes(g: &Value, length: f64) -> Vec<(Option<f64>, Option<f64>)> {
    const AXES: [&str; 6] = ["TransX", "TransY", "TransZ", "RotX", "RotY", "RotZ"];
    let limits = g["dof_limits"].as_array().cloned().unwrap_or_default();
    AXES.iter()
        .enumerate()
        .filter_map(|(k, axis)| {
            let unit = if k < 3 {
                length
            } else {
                std::f64::consts::PI / 180.0
            };
            let Some(limit) = limits.iter().find(|l| l[0] == *axis) else {
                return Some((None, None));
            };
            let (lower, upper) = (limit[1].as_f64().unwrap(), limit[2].as_f64().unwrap());
            let bound = |x: f64| x.is_finite().then_some(x * unit);
            (lower <= upper || !lower.is_finite() || !upper.is_finite()).then(|| (bound(lower), bound(upper)))
        })
        .collect()
}

/// What [`openusd_parse::compare`] does not see: a generic joint's axes, the articulations and
/// the collision shapes.
fn compare_more(model: &Model, paths: &PrimPaths, parse: &Value, name: &str) {
    let length = parse["meters_per_unit"].as_f64().unwrap();
    for g in parse["joints"].as_array().unwrap() {
        if g["type"] != "D6Joint" || world_mark(g) {
            continue;
        }
        let path = g["path"].as_str().unwrap();
        let joint = &model.joints[at(&paths.joints, path).unwrap()];
        let what = format!("{name}: joint {path}");
        let axes = generic_axes(g, length);
        assert_eq!(
            axes.len(),
            joint.kind.nv(),
            "{what}: free axes in OpenUSD's parse {:?}, mbconv reads a {}",
            g["dof_limits"],
            joint.kind.type_name()
        );
        // The reader keeps no limits on the axes of these kinds (see its `generic`).
        let kept = !matches!(
            joint.kind,
            JointKind::Spherical | JointKind::Free | JointKind::PointLine | JointKind::PointPlane
        );
        for (i, (lower, upper)) in axes.into_iter().enumerate() {
            let read = joint.dof(i).position_limits;
            let theirs = if kept { (lower, upper) } else { (None, None) };
            for (ours, theirs) in [(read.lower, theirs.0), (read.upper, theirs.1)] {
                let agree = match (ours, theirs) {
                    (None, None) => true,
                    (Some(a), Some(b)) => (a - b).abs() <= FLOAT_BESIDE_DOUBLE * b.abs().max(1e-300),
                    _ => false,
                };
                assert!(agree, "{what}: axis {i}: limit {ours:?} vs OpenUSD's {theirs:?}");
            }
        }
    }
    // Every body is in one articulation at most (Newton builds a body two list twice), and
    // every body an enabled joint holds that is not excluded from the articulations (a
    // loop-closing joint) is in one.
    let articulations = parse["articulations"].as_array().unwrap();
    for (b, path) in paths.bodies.iter().enumerate() {
        let count = articulations
            .iter()
            .filter(|a| a["bodies"].as_array().unwrap().iter().any(|x| x == path.as_str()))
            .count();
        assert!(count <= 1, "{name}: body {path} is in {count} articulations");
        let body = BodyRef::body(model.bodies[b].name.clone());
        let jointed = model.joints.iter().zip(&paths.joints).any(|(j, joint_path)| {
            let excluded = parse["joints"]
                .as_array()
                .unwrap()
                .iter()
                .any(|g| g["path"] == joint_path.as_str() && g["exclude_from_articulation"] == true);
            j.enabled && !excluded && (j.parent == body || j.child == body)
        });
        assert!(
            !jointed || count == 1,
            "{name}: body {path} has a joint and is in {count} articulations"
        );
    }
    let shapes: u64 = parse["shapes"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    let colliding = model
        .bodies
        .iter()
        .flat_map(|b| &b.shapes)
        .filter(|s| s.role.is_collision())
        .count();
    assert_eq!(
        shapes, colliding as u64,
        "{name}: collision shapes in OpenUSD's parse {}, mbconv reads {colliding}",
        parse["shapes"]
    );
}

/// OpenUSD's parse of every written stage is mbconv's reading of the same text, but where
/// [`DIFFERS`] says why not.
#[test]
fn openusd_parses_every_written_stage_as_mbconv_reads_it() {
    let suite = suite();
    let (mut agree, mut absent, mut no_body) = (0, 0, 0);
    let (mut failures, mut differs_seen) = (Vec::new(), Vec::new());
    for (name, golden) in suite.files() {
        let openusd = &golden["openusd"];
        if openusd["loads"].as_bool() != Some(true) {
            continue; // openusd_opens_and_parses_every_written_stage_without_error says so
        }
        let shown = golden["source"].as_str().unwrap();
        let Some(path) = source_path(shown) else {
            absent += 1;
            continue;
        };
        let written = suite
            .write(shown, &path)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if text_hash(&written.text) != golden["hash"].as_str().unwrap() {
            failures.push(format!(
                "{name}: the USD written from {shown} has changed since OpenUSD judged it: run `cargo xtask golden usd-newton`"
            ));
            continue;
        }
        let source = written_usd::written_source(&name, &path, &written);
        let parse = &openusd["parse"];
        let (imported, paths) = match UsdFormat.read_with_prim_paths(&source) {
            Ok(read) => read,
            Err(e) if e.to_string().contains("no rigid body") => {
                // a file of assets only (dm_control's suite/common): no body for OpenUSD either
                match parse["bodies"].as_array().is_some_and(Vec::is_empty) {
                    true => no_body += 1,
                    false => failures.push(format!("{name}: OpenUSD parses rigid bodies, mbconv reads none")),
                }
                continue;
            }
            Err(e) => panic!("{name}: mbconv cannot read its own USD: {e}"),
        };
        let compared = std::panic::catch_unwind(|| {
            openusd_parse::compare(&imported.model, &paths, parse, &name, FLOAT_BESIDE_DOUBLE);
            compare_more(&imported.model, &paths, parse, &name);
        });
        let listed = DIFFERS.iter().find(|(n, _, _)| *n == name);
        match (compared, listed) {
            (Ok(()), None) => agree += 1,
            (Ok(()), Some(_)) => failures.push(format!(
                "{name} is listed in DIFFERS but OpenUSD parses it as mbconv reads it: remove it"
            )),
            (Err(panic), Some((_, words, _))) if panic_message(&*panic).contains(words) => {
                differs_seen.push(name.clone());
            }
            (Err(panic), _) => failures.push(panic_message(&*panic)),
        }
    }
    eprintln!(
        "OpenUSD parses {agree} written stages as mbconv reads them ({no_body} with no rigid body \
         for both, {} listed as differing, {absent} not here: the corpus is absent)",
        differs_seen.len()
    );
    assert!(
        failures.is_empty(),
        "OpenUSD parses mbconv's USD otherwise than mbconv reads it:\n{}",
        failures.join("\n")
    );
    assert!(agree >= 40, "only {agree} written stages compared");
}
