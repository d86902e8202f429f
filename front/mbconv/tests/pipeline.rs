//! The pipeline's rules for writing: never over a file that exists unless forced, never over
//! the input, never half a set of files, never a temporary file left behind; `--strict`
//! refusals write nothing; the steps are seen in order.
#![allow(clippy::unwrap_used)]

use mbconv::files::{Input, Output};
use mbconv::{Error, Options, Pipeline, Step};
use std::path::Path;

fn fixture(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(path)
}

/// The names of the files in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn an_output_that_exists_is_kept_unless_forced_and_the_input_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("pendulum.mbir.json");
    mbconv::write(&mbconv::demo::pendulum(), &input).unwrap();
    let output = dir.path().join("pendulum.skel");
    std::fs::write(&output, "keep me").unwrap();
    let err = mbconv::convert(&input, &output, &Options::default()).unwrap_err();
    assert!(matches!(err, Error::Exists { .. }), "{err}");
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "keep me");
    let forced = Options {
        force: true,
        ..Options::default()
    };
    mbconv::convert(&input, &output, &forced).unwrap();
    assert!(std::fs::read_to_string(&output).unwrap().contains("<skel"));
    // Not even forced over the input.
    let err = mbconv::convert(&input, &input, &forced).unwrap_err();
    assert!(matches!(err, Error::OverwritesInput { .. }), "{err}");
    assert_eq!(names(dir.path()), ["pendulum.mbir.json", "pendulum.skel"]);
}

#[test]
fn a_companion_that_exists_stops_the_whole_set_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("arm.body");
    // The Body writer puts its project beside the body file.
    let project = dir.path().join("arm.cnoid");
    std::fs::write(&project, "keep me").unwrap();
    let err = mbconv::convert(fixture("skel/joint_revolute.skel"), &output, &Options::default()).unwrap_err();
    assert!(
        matches!(&err, Error::Exists { path } if path == &project),
        "{err}"
    );
    assert!(!output.exists());
    assert_eq!(names(dir.path()), ["arm.cnoid"]);
    let forced = Options {
        force: true,
        ..Options::default()
    };
    let conversion = mbconv::convert(fixture("skel/joint_revolute.skel"), &output, &forced).unwrap();
    assert_eq!(conversion.files, [output.clone(), project.clone()]);
    assert_ne!(std::fs::read_to_string(&project).unwrap(), "keep me");
    assert_eq!(names(dir.path()), ["arm.body", "arm.cnoid"]);
}

#[test]
fn strict_refuses_a_lossy_conversion_and_writes_nothing() {
    let inputs = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Choreonoid Body cannot switch gravity off for one body: the conversion reports a loss.
    let mut model = mbconv::demo::pendulum();
    model.bodies[0].gravity = false;
    let input = inputs.path().join("pendulum.mbir.json");
    mbconv::write(&model, &input).unwrap();
    let output = dir.path().join("pendulum.body");
    let strict = Options {
        strict: true,
        ..Options::default()
    };
    let err = mbconv::convert(&input, &output, &strict).unwrap_err();
    assert!(matches!(err, Error::Lossy { losses } if losses > 0), "{err}");
    assert!(names(dir.path()).is_empty());
    let lossy = mbconv::convert(&input, &output, &Options::default()).unwrap();
    assert!(lossy.has_loss());
    assert_eq!(names(dir.path()), ["pendulum.body", "pendulum.cnoid"]);
}

#[test]
fn the_steps_are_seen_in_order_and_a_refused_model_is_seen_before_it_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = Pipeline::new();
    let mut bad = mbconv::demo::pendulum();
    bad.bodies[0].inertial.mass = -1.0;
    let input = dir.path().join("bad.mbir.json");
    mbconv::write(&bad, &input).unwrap();
    let mut seen = Vec::new();
    let output = Output::File(dir.path().join("bad.yaml"));
    let result = pipeline.convert(&Input::File(input), &output, &Options::default(), &mut |step| {
        seen.push(match step {
            Step::Read { loaded, refused } => format!("read {} refused={refused}", loaded.format.info().name),
            Step::Emitted(emitted) => format!("emitted {}", emitted.output),
        });
    });
    assert!(matches!(result, Err(Error::Invalid { .. })));
    assert_eq!(seen, ["read mbir refused=true"]);
    assert_eq!(names(dir.path()), ["bad.mbir.json"]);

    // Text in, step by step; the report names the output, and nothing is left in the
    // directory but the files written (no temporary file).
    let text = std::fs::read_to_string(fixture("skel/joint_revolute.skel")).unwrap();
    let input = Input::Text {
        name: "arm.skel".into(),
        text,
    };
    let loaded = pipeline.read(&input, &mbconv::ReadOptions::default()).unwrap();
    loaded.admit(false).unwrap();
    let chrono = pipeline.registry().get("chrono").unwrap();
    let output = Output::File(dir.path().join("arm.yaml"));
    let emitted = pipeline
        .emit(
            &loaded.imported.model,
            chrono,
            &mbconv::Settings::default(),
            &output,
        )
        .unwrap();
    assert_eq!(
        emitted.report.file.as_deref(),
        output.path().and_then(Path::to_str)
    );
    // The Chrono writer puts a simulation and a solver file beside the model.
    let files = ["arm.yaml", "arm.simulation.yaml", "arm.solver.yaml"];
    let written = emitted.write(Some(&input), false).unwrap();
    assert_eq!(written, files.map(|f| dir.path().join(f)));
    assert_eq!(
        names(dir.path()),
        [
            "arm.simulation.yaml",
            "arm.solver.yaml",
            "arm.yaml",
            "bad.mbir.json"
        ]
    );
}
