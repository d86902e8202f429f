//! Reads, converts, checks and simulates fixtures through the `mbconv` facade only.
#![allow(clippy::unwrap_used)]

use mbconv_facade_test::fixture;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mbconv-facade-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn reads_a_fixture_of_every_format() {
    for (file, format) in [
        ("skel/joint_revolute.skel", "skel"),
        ("body/arm.body", "body"),
        ("ir/double_pendulum.mbir.json", "mbir"),
    ] {
        let read = mbconv::read(fixture(file)).unwrap();
        assert!(!read.model.bodies.is_empty(), "{file}");
        // The same text through read_str gives the same model.
        let text = std::fs::read_to_string(fixture(file)).unwrap();
        assert_eq!(
            mbconv::read_str(&text, format).unwrap().model,
            read.model,
            "{file}"
        );
    }
}

#[test]
fn converts_a_fixture_and_reports_what_the_target_cannot_carry() {
    let dir = temp_dir("convert");
    let output = dir.join("arm.skel");
    let conversion = mbconv::convert(fixture("body/arm.body"), &output, &mbconv::Options::default()).unwrap();
    assert_eq!(conversion.files, std::slice::from_ref(&output));
    assert!(output.is_file());
    // Every finding names its file, the input's or the output's.
    let input = fixture("body/arm.body").display().to_string();
    for finding in &conversion.report.findings {
        let file = finding.file.as_deref().unwrap();
        assert!(file == input || file == output.display().to_string(), "{file}");
    }
    // The written file reads back with the bodies of the original.
    let back = mbconv::read(&output).unwrap().model;
    for body in &conversion.model.bodies {
        assert!(
            back.bodies.iter().any(|b| b.name == body.name),
            "{} lost",
            body.name
        );
    }
    // The target named in the options wins over the extension.
    let options = mbconv::Options {
        to: Some("mbir".into()),
        ..Default::default()
    };
    let ir = dir.join("arm.txt");
    mbconv::convert(fixture("body/arm.body"), &ir, &options).unwrap();
    assert_eq!(
        mbconv::read_str(&std::fs::read_to_string(&ir).unwrap(), "mbir")
            .unwrap()
            .model,
        conversion.model
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn checks_a_fixture_by_simulation() {
    let model = mbconv::read(fixture("ir/double_pendulum.mbir.json"))
        .unwrap()
        .model;
    let settings = mbconv::CheckSettings {
        duration: 0.2,
        ..Default::default()
    };
    let report = mbconv::check(&model, &["mbir", "skel"], &settings).unwrap();
    assert_eq!(report.targets.len(), 2);
    assert_eq!(report.targets[0].verdict, mbconv::Verdict::Exact);
    assert!(report.passed(), "{report:#?}");
    // An unknown target is an error, not an empty check.
    assert!(matches!(
        mbconv::check(&model, &["no-such-format"], &settings),
        Err(mbconv::Error::Lookup(_))
    ));
}

#[test]
fn simulates_a_fixture_and_its_energy_goes_only_where_damping_takes_it() {
    let model = mbconv::read(fixture("ir/double_pendulum.mbir.json"))
        .unwrap()
        .model;
    let options = mbconv::SimulateOptions {
        duration: 0.5,
        dt: 1e-3,
        integrator: mbconv::Integrator::Rk4,
        energy: true,
        ..Default::default()
    };
    let simulated = mbconv::simulate(&model, &options).unwrap();
    assert_eq!(simulated.trajectory.t.len(), 501);
    assert_eq!(simulated.trajectory.bodies.len(), model.bodies.len());
    // The fixture's elbow is damped: the energy only goes down, and the drift is what it lost.
    let trajectory = &simulated.trajectory;
    let (kinetic, potential) = (
        trajectory.kinetic.as_ref().unwrap(),
        trajectory.potential.as_ref().unwrap(),
    );
    let energy: Vec<f64> = kinetic.iter().zip(potential).map(|(k, p)| k + p).collect();
    assert!(energy.windows(2).all(|w| w[1] <= w[0] + 1e-9), "the energy rose");
    let lost = energy[0] - energy[500];
    assert!(lost > 0.0);
    assert!((simulated.energy_drift().unwrap() - lost).abs() < 1e-9);
    // Without damping (the demo pendulum) RK4 keeps the energy.
    let simulated = mbconv::simulate(&mbconv::demo::pendulum(), &options).unwrap();
    let drift = simulated.energy_drift().unwrap();
    assert!(drift < 1e-8, "energy drift {drift} J");
}

#[test]
fn an_invalid_model_is_refused_with_its_findings() {
    let dir = temp_dir("invalid");
    let mut model = mbconv::demo::pendulum();
    model.bodies[0].inertial.mass = -1.0;
    let path = dir.join("bad.mbir.json");
    mbconv::write(&model, &path).unwrap();
    match mbconv::read(&path) {
        Err(mbconv::Error::Invalid { report, .. }) => assert!(report.contains("mass.negative")),
        other => panic!("expected Invalid, got {other:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
