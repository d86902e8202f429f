#![allow(clippy::unwrap_used)]
//! Every top-level corpus model reads; read -> write -> read gives the same IR and
//! write -> read -> write the same bytes.

use mbconv_chrono::ChronoFormat;
use mbconv_ir::format::{Format, Options, Source};
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    mbconv_test_support::corpus("chrono")
}

/// The `.yaml` files directly in `dir`, sorted.
fn top_level_models(dir: &Path) -> Vec<PathBuf> {
    mbconv_test_support::files_with_extension(dir, "yaml")
        .into_iter()
        .filter(|p| p.parent() == Some(dir))
        .collect()
}

#[test]
fn every_corpus_model_reads_and_round_trips() {
    let Some(dir) = corpus() else { return };
    let files = top_level_models(&dir);
    assert!(files.len() >= 11, "found {} files", files.len());
    for path in files {
        round_trip(&path, &Options::default());
    }
    // The FEA file with rigid bodies reads (its FEA section kept verbatim) and round-trips too.
    round_trip(&dir.join("fea/model_cables.yaml"), &Options::default());
}

#[test]
fn every_fixture_round_trips_in_degrees_and_radians() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/chrono"));
    let files: Vec<PathBuf> = top_level_models(&dir)
        .into_iter()
        .filter(|p| {
            !matches!(
                p.file_name().unwrap().to_str().unwrap(),
                "sim_bodies.yaml" | "solver.yaml"
            )
        })
        .collect();
    assert!(files.len() >= 8);
    for path in &files {
        round_trip(path, &Options::default());
        let mut radians = Options::default();
        radians.set("angles", "radians");
        round_trip(path, &radians);
    }
}

fn round_trip(path: &Path, opts: &Options) {
    let src = Source::from_path(path).unwrap();
    let read_options = Options::default();
    let first = ChronoFormat
        .read(&src, &read_options)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let validation = mbconv_ir::validate(&first.model);
    assert!(
        !validation.has_errors(),
        "{}: {:#?}",
        path.display(),
        validation
            .at_least(mbconv_ir::Severity::Error)
            .collect::<Vec<_>>()
    );
    let y1 = ChronoFormat.write(&first.model, opts).unwrap().text;
    let second = ChronoFormat
        .read(
            // Same place as the original, so that data files resolve alike.
            &Source::from_string("y1.yaml", y1.clone()).with_path("y1.yaml", Some(path.to_path_buf())),
            &read_options,
        )
        .unwrap_or_else(|e| panic!("{}: rereading: {e}\n{y1}", path.display()));
    let (mut a, mut b) = (
        mbconv_ir::mbir::to_string(&first.model),
        mbconv_ir::mbir::to_string(&second.model),
    );
    if opts.get("angles").is_some() {
        // A change of angle unit changes what was written (the kept source numbers and
        // `angle_degrees`), not the model: compare without them.
        a = without_source_numbers(&a);
        b = without_source_numbers(&b);
    }
    if a != b {
        std::fs::write("/tmp/chrono_a.json", &a).unwrap();
        std::fs::write("/tmp/chrono_b.json", &b).unwrap();
        panic!(
            "{}: IR differs after read->write->read (see /tmp/chrono_a.json, /tmp/chrono_b.json)",
            path.display()
        );
    }
    let y2 = ChronoFormat.write(&second.model, opts).unwrap().text;
    assert_eq!(
        y1,
        y2,
        "{}: bytes differ after write->read->write",
        path.display()
    );
}

#[test]
fn fea_files_are_reported_or_rejected_naming_what_is_unsupported() {
    let Some(dir) = corpus() else { return };
    let cables = Source::from_path(&dir.join("fea/model_cables.yaml")).unwrap();
    let imported = ChronoFormat.read(&cables, &Options::default()).unwrap();
    let finding = imported
        .report
        .findings
        .iter()
        .find(|f| f.code == "chrono.fea_unsupported")
        .expect("an FEA finding");
    assert!(
        finding.message.contains("FEA") && finding.message.contains("beams"),
        "{}",
        finding.message
    );
    assert_eq!(finding.category, mbconv_ir::Category::Dropped);
    assert_eq!(imported.model.bodies.len(), 3);

    let beams = Source::from_path(&dir.join("fea/model_beams.yaml")).unwrap();
    let err = ChronoFormat
        .read(&beams, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("FEA_beams") && err.contains("model_beams.yaml:11:3:"),
        "{err}"
    );
}

#[test]
fn simulation_file_option_gives_gravity_and_time_step() {
    let Some(dir) = corpus() else { return };
    let model = Source::from_path(&dir.join("model_slider_crank.yaml")).unwrap();
    let mut opts = Options::default();
    opts.set("sim", dir.join("sim/mbs.yaml").to_str().unwrap());
    let imported = ChronoFormat.read(&model, &opts).unwrap();
    let sim = &imported.model.simulation;
    assert_eq!(sim.gravity, Some(nalgebra::Vector3::new(0.0, 0.0, -9.8)));
    assert_eq!(sim.time_step, Some(1e-4));
    assert_eq!(sim.end_time, Some(100.0));
}

fn without_source_numbers(json: &str) -> String {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.retain(|k, _| !k.starts_with("chrono.source."));
                for value in map.values_mut() {
                    strip(value);
                }
                map.retain(|k, v| !(k == "extras" && v.as_object().is_some_and(|m| m.is_empty())));
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    strip(&mut v);
    serde_json::to_string_pretty(&v).unwrap()
}
