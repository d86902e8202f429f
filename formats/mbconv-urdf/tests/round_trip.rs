//! URDF -> IR -> URDF -> IR gives the same model, and writing it again the same bytes: for
//! every fixture of `fixtures/urdf/` and every corpus URDF. (The emitter writes models URDF
//! can already say; lowering such a model changes nothing that moves a body and writes the
//! same bytes, unless it gives the file what another loader needs: [`LOADER_AIDS`].)
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::kit::Unsayable;
use mbconv_ir::format::{Format, FormatError, Options, Source};
use mbconv_urdf::UrdfFormat;
use std::path::{Path, PathBuf};

/// Writes a model URDF can already say (no lowering), with the default settings.
fn emit(model: &mbconv_ir::Model) -> Result<String, FormatError> {
    UrdfFormat
        .emit(model, &Options::default())
        .map(|written| written.text)
}

/// The first line where two models' IR JSON differ.
fn first_difference(a: &mbconv_ir::Model, b: &mbconv_ir::Model) -> String {
    let a = serde_json::to_string_pretty(a).unwrap();
    let b = serde_json::to_string_pretty(b).unwrap();
    a.lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| format!("line {}: {x} | {y}", i + 1))
        .unwrap_or_else(|| "lengths differ".to_owned())
}

/// The approximations the lowering makes on a file a URDF loader already reads, so that the
/// others read it too: a mass floor on moving links and an inertia floor on welded links with a
/// near-zero principal moment (MuJoCo; example-robot-data's hyq_no_sensors.urdf has welded
/// links whose inertia is 1e-6 in every entry, principal moments 3e-6, 0, 0), effort and
/// velocity completed in a `<limit>` and a `<limit>` on an unbounded prismatic joint (urdfdom),
/// a mass Drake keeps under an inertia stated with mass 0 (Drake reads 1 kg there), and Drake's
/// `<drake:ellipsoid>` written as the cylinder around it (urdfdom, Pinocchio and MuJoCo refuse
/// the extension: Drake's all_geometries_as_collision.urdf).
const LOADER_AIDS: &[&str] = &[
    "urdf.moving_link_mass_floor",
    "urdf.welded_link_inertia_floor",
    "urdf.zero_mass_given",
    "urdf.ellipsoid_as_cylinder",
    "urdf.effort_velocity_limits_completed",
    "urdf.unbounded_prismatic_bounded",
];

fn round_trip(path: &Path) -> Result<(), String> {
    let source = Source::from_path(path).unwrap();
    let first = UrdfFormat
        .read(&source, &Options::default())
        .map_err(|e| e.to_string())?;
    let text = emit(&first.model).map_err(|e| format!("emit: {e}"))?;
    let lowered = UrdfFormat
        .lower(&first.model, &Options::default())
        .map_err(|e| format!("lower: {e}"))?;
    if let Some(f) =
        lowered.report.findings.iter().find(|f| {
            f.category != mbconv_ir::report::Category::Note && !LOADER_AIDS.contains(&f.code.as_str())
        })
    {
        return Err(format!("lowering a URDF model: {} {}", f.code, f.message));
    }
    let lowered_text = emit(&lowered.model).map_err(|e| format!("emit lowered: {e}"))?;
    let aided = lowered
        .report
        .findings
        .iter()
        .any(|f| LOADER_AIDS.contains(&f.code.as_str()));
    if aided {
        // The lowering gave the file what a loader needs: the lowered model is what its text
        // reads back as, read where the file is (its packages are found from its folder).
        let back = UrdfFormat
            .read(
                &Source::from_string(source.name.clone(), lowered_text.clone())
                    .with_path(source.name.clone(), source.path.clone()),
                &Options::default(),
            )
            .map_err(|e| format!("read the lowered text: {e}"))?;
        if back.model != lowered.model {
            return Err(format!(
                "the lowered model reads back different: {}",
                first_difference(&lowered.model, &back.model)
            ));
        }
    } else if lowered_text != text {
        return Err("the lowered model is written differently".to_owned());
    }
    let again = Source::from_string(source.name.clone(), text.clone())
        .with_path(source.name.clone(), source.path.clone());
    let second = UrdfFormat
        .read(&again, &Options::default())
        .map_err(|e| format!("read back: {e}\n{text}"))?;
    if second.model != first.model {
        return Err(format!(
            "read back differs: {}",
            first_difference(&first.model, &second.model)
        ));
    }
    let text2 = emit(&second.model).map_err(|e| format!("emit again: {e}"))?;
    if text2 != text {
        return Err("written twice, different bytes".to_owned());
    }
    Ok(())
}

fn check(files: &[PathBuf]) {
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| round_trip(f).err().map(|e| format!("{}: {e}", f.display())))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Fixtures the reader reads into a model URDF cannot say as it is: `inverted_limits.urdf`'s
/// `lower` above `upper` is read as no limit, and an unlimited prismatic joint is URDF only
/// once lowered (bounded at 1e30).
const READ_BEYOND_URDF: [&str; 1] = ["inverted_limits.urdf"];

#[test]
fn fixtures_round_trip_exactly() {
    let dir = mbconv_test_support::fixtures_root().join("urdf");
    let mut files = mbconv_test_support::files_with_extension(&dir, "urdf");
    files.retain(|f| {
        !f.file_name()
            .is_some_and(|n| READ_BEYOND_URDF.iter().any(|r| n == *r))
    });
    assert!(files.len() >= 5);
    check(&files);
}

#[test]
fn corpus_files_round_trip_exactly() {
    let Some(root) = mbconv_test_support::corpus("urdf") else {
        return;
    };
    check(&mbconv_test_support::files_with_extension(&root, "urdf"));
}

/// The emitter refuses, naming the item, what URDF cannot say without lowering.
#[test]
fn what_urdf_cannot_say_is_refused_not_lost() {
    use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
    let pendulum = || {
        let mut m = Model::new("m");
        let mut base = Body::new("base");
        base.fixed = true;
        m.bodies.push(base);
        m.bodies.push(Body::new("bob"));
        m.joints.push(Joint::new(
            "pivot",
            JointKind::Revolute {
                axis: nalgebra::Vector3::y(),
            },
            BodyRef::body("base"),
            BodyRef::body("bob"),
        ));
        m
    };
    assert!(emit(&pendulum()).is_ok());
    type Change = Box<dyn Fn(&mut Model)>;
    let cases: Vec<(Change, &str)> = vec![
        (
            Box::new(|m| m.joints[0].kind = JointKind::Spherical),
            "joints[\"pivot\"]",
        ),
        (Box::new(|m| m.joints[0].q0 = vec![0.5]), "joints[\"pivot\"]"),
        (Box::new(|m| m.bodies[0].fixed = false), "bodies[\"base\"]"),
        (
            Box::new(|m| {
                let back = Joint::new(
                    "back",
                    JointKind::Fixed,
                    BodyRef::body("bob"),
                    BodyRef::body("base"),
                );
                m.joints.push(back);
            }),
            "joints[\"back\"]",
        ),
        (
            Box::new(|m| m.simulation.gravity = Some(nalgebra::Vector3::new(0.0, 0.0, -9.81))),
            "simulation",
        ),
        (
            Box::new(|m| m.bodies[1].inertial.inertia.0[0][1] = 0.5),
            "bodies[\"bob\"]",
        ),
    ];
    for (change, path) in cases {
        let mut m = pendulum();
        change(&mut m);
        let e = emit(&m).unwrap_err();
        let error: &(dyn std::error::Error + 'static) = &*e;
        let unsayable = error.downcast_ref::<Unsayable>().unwrap();
        assert_eq!(unsayable.path, path, "{e}");
    }
}
