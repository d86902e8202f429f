//! Every `.body` file of the shared corpus reads, or fails with a message naming a genuine
//! problem of that file; reading, writing and reading again gives the same model, and writing
//! twice gives the same bytes.

#![allow(clippy::unwrap_used)]

use mbconv_body::BodyFormat;
use mbconv_ir::format::{Format, Options, Source};
use mbconv_test_support::{corpus, files_with_extension};

fn corpus_files() -> Vec<std::path::PathBuf> {
    let Some(dir) = corpus("body") else {
        return Vec::new();
    };
    let mut files = files_with_extension(&dir, "body");
    files.sort();
    files
}

#[test]
fn corpus_files_read() {
    let files = corpus_files();
    let mut failures = Vec::new();
    for file in &files {
        let source = Source::from_path(file).unwrap();
        match BodyFormat.read(&source, &Options::default()) {
            Err(e) => failures.push(format!("{e}")),
            Ok(imported) => {
                // The IR is valid, but for inertias the files themselves state that break the
                // triangle inequality or are not symmetric (problems of those files, which
                // validation reports; they are read as Choreonoid reads them).
                let report = mbconv_ir::validate(&imported.model);
                let errors: Vec<String> = report
                    .at_least(mbconv_ir::Severity::Error)
                    .filter(|f| f.code != "inertia.triangle" && f.code != "inertia.asymmetric")
                    .map(|f| f.to_string())
                    .take(3)
                    .collect();
                if !errors.is_empty() {
                    failures.push(format!(
                        "{}: invalid model: {}",
                        file.display(),
                        errors.join("; ")
                    ));
                }
            }
        }
    }
    eprintln!(
        "{} of {} corpus .body files read",
        files.len() - failures.len(),
        files.len()
    );
    // Every file reads: missing meshes, plugin devices and lenient numbers are findings.
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The model without the writer's aids (`body.source.*`, which are not data).
fn without_aids(mut model: mbconv_ir::Model) -> mbconv_ir::Model {
    fn strip(extras: &mut mbconv_ir::Extras) {
        let keys: Vec<String> = extras
            .iter()
            .map(|(k, _)| k.to_owned())
            .filter(|k| k.starts_with("body.source."))
            .collect();
        for k in keys {
            extras.remove(&k);
        }
    }
    for b in &mut model.bodies {
        strip(&mut b.extras);
        for s in &mut b.shapes {
            strip(&mut s.extras);
        }
    }
    for j in &mut model.joints {
        strip(&mut j.extras);
    }
    for d in &mut model.devices {
        strip(&mut d.extras);
    }
    for c in &mut model.constraints {
        strip(&mut c.extras);
    }
    model
}

/// Differences between two models read from body files: everything equal, but shape poses,
/// which a file's nested transforms give composed, within 1e-12.
fn differences(a: &mbconv_ir::Model, b: &mbconv_ir::Model) -> Vec<String> {
    let mut a = without_aids(a.clone());
    let mut b = without_aids(b.clone());
    let mut out = Vec::new();
    for (x, y) in a.bodies.iter_mut().zip(b.bodies.iter_mut()) {
        for (s, t) in x.shapes.iter_mut().zip(y.shapes.iter_mut()) {
            if s.pose.distance(&t.pose) > 1e-12 {
                out.push(format!(
                    "{}: shape pose differs by {}",
                    x.name,
                    s.pose.distance(&t.pose)
                ));
            }
            t.pose = s.pose;
            // A mesh of a sub-body or resource in another directory gets a uri relative to
            // the written file; the file it names is the same.
            if let (mbconv_ir::Geometry::Mesh(m), mbconv_ir::Geometry::Mesh(n)) =
                (&mut s.geometry, &mut t.geometry)
                && m.resolved_path.is_some()
                && m.resolved_path.as_deref().map(normal) == n.resolved_path.as_deref().map(normal)
            {
                n.uri = m.uri.clone();
                n.resolved_path = m.resolved_path.clone();
            }
        }
    }
    // A radian value read from a radian-unit file has, now and then, no degree number that
    // reads back to it exactly (the format 2.0 writer writes degrees): within 1e-15.
    let close = |p: f64, q: f64| (p - q).abs() <= 1e-15 * p.abs().max(1.0);
    let close_limits = |p: &mbconv_ir::Limits, q: &mbconv_ir::Limits| {
        p.lower.is_some() == q.lower.is_some()
            && p.upper.is_some() == q.upper.is_some()
            && close(p.lower.unwrap_or(0.0), q.lower.unwrap_or(0.0))
            && close(p.upper.unwrap_or(0.0), q.upper.unwrap_or(0.0))
    };
    for (x, y) in a.joints.iter_mut().zip(b.joints.iter_mut()) {
        if x.q0.len() == y.q0.len() && x.q0.iter().zip(&y.q0).all(|(p, q)| close(*p, *q)) {
            y.q0 = x.q0.clone();
        }
        for (p, q) in x.dofs.iter().zip(y.dofs.iter_mut()) {
            if close_limits(&p.position_limits, &q.position_limits) {
                q.position_limits = p.position_limits;
            }
            if close_limits(&p.velocity_limits, &q.velocity_limits) {
                q.velocity_limits = p.velocity_limits;
            }
        }
    }
    for (x, y) in a.devices.iter_mut().zip(b.devices.iter_mut()) {
        if x.pose.distance(&y.pose) > 1e-12 {
            out.push(format!(
                "{}: device pose differs by {}",
                x.name,
                x.pose.distance(&y.pose)
            ));
        }
        y.pose = x.pose;
    }
    for (x, y) in a.constraints.iter_mut().zip(b.constraints.iter_mut()) {
        if let (
            mbconv_ir::ConstraintKind::ExtraJoint {
                frame1: a1,
                frame2: a2,
                ..
            },
            mbconv_ir::ConstraintKind::ExtraJoint {
                frame1: b1,
                frame2: b2,
                ..
            },
        ) = (&mut x.kind, &mut y.kind)
        {
            // q and -q are one rotation.
            for (p, q) in [(a1, b1), (a2, b2)] {
                if p.rotation.angle_to(&q.rotation) == 0.0 {
                    q.rotation = p.rotation;
                }
            }
        }
    }
    if a != b {
        let ja = mbconv_ir::mbir::to_string(&a);
        let jb = mbconv_ir::mbir::to_string(&b);
        let line = ja.lines().zip(jb.lines()).position(|(x, y)| x != y).unwrap_or(0);
        let context = |j: &str| {
            j.lines()
                .skip(line.saturating_sub(6))
                .take(8)
                .collect::<Vec<_>>()
                .join("\n")
        };
        out.push(format!(
            "models differ from line {line}:\n{}\n  vs\n{}",
            context(&ja),
            context(&jb)
        ));
    }
    out
}

/// A path with `dir/..` pairs removed.
fn normal(path: &str) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for c in std::path::Path::new(path).components() {
        match c {
            std::path::Component::ParentDir if out.file_name().is_some_and(|n| n != "..") => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

#[test]
fn corpus_files_round_trip() {
    let files = corpus_files();
    let dir = std::env::temp_dir().join(format!("mbconv-body-roundtrip-{}", std::process::id()));
    let mut failures = Vec::new();
    let mut checked = 0;
    for file in &files {
        let source = Source::from_path(file).unwrap();
        let Ok(first) = BodyFormat.read(&source, &Options::default()) else {
            continue;
        };
        // Written beside the original so relative mesh and sub-body paths resolve alike.
        let path = file.with_extension("mbconv-roundtrip.body");
        let mut options = Options::default();
        options.output_path = Some(path.clone());
        let written = BodyFormat.write(&first.model, &options).unwrap();
        let again = Source::from_string(path.display().to_string(), written.text.clone())
            .with_path(path.display().to_string(), Some(path.clone()));
        let second = match BodyFormat.read(&again, &Options::default()) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: the written file does not read: {e}", file.display()));
                continue;
            }
        };
        checked += 1;
        let rewritten = BodyFormat.write(&second.model, &options).unwrap();
        if rewritten.text != written.text {
            failures.push(format!("{}: writing twice gives other bytes", file.display()));
        }
        for d in differences(&first.model, &second.model) {
            failures.push(format!("{}: {d}", file.display()));
        }
    }
    let _ = std::fs::remove_dir_all(dir);
    eprintln!(
        "{checked} corpus models written and read back, {} problems",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
