//! Force elements on a joint's own axis are that joint's spring and damper (the shared
//! `force_elements_as_joint_springs` pass): a hand-written Chrono model with an RSDA about a
//! revolute axis and a TSDA along a (skewed) prismatic axis converts to Shift, SKEL, MJCF and
//! SDFormat exactly; elements off the axis or with a non-linear law are not taken.
#![allow(clippy::unwrap_used)]

use mbconv::ir::format::Options;
use mbconv::{CheckSettings, Verdict};

/// A pendulum on a revolute joint about y with a preloaded linear RSDA about that axis, and a
/// slider on a prismatic joint along (1, 0, 1) with a linear TSDA between two points on that
/// axis, both started away from their rest positions. `{rsda_axis}` and `{tsda_law}` let the
/// negative cases put the RSDA off the axis and give the TSDA a curve.
const CHRONO: &str = r#"
chrono-version: 10.0
model:
  name: springs_on_joints
  bodies:
    - name: ground
      location: [0, 0, 0]
      fixed: true
    - name: arm
      location: [0, 0, 0]
      mass: 2
      com:
        location: [0.3, 0, -0.6]
      inertia:
        moments: [0.2, 0.3, 0.1]
    - name: slider
      location: [2.5, 0, 0.5]
      mass: 1.5
      inertia:
        moments: [0.05, 0.05, 0.05]
  joints:
    - name: hinge
      type: REVOLUTE
      body1: ground
      body2: arm
      location: [0, 0, 0]
      axis: [0, 1, 0]
    - name: rail
      type: PRISMATIC
      body1: ground
      body2: slider
      location: [2, 0, 0]
      axis: [1, 0, 1]
  rsdas:
    - name: torsion
      body1: ground
      body2: arm
      location: [0, 0, 0]
      axis: {rsda_axis}
      free_angle: 40
      preload: 1.5
      spring_coefficient: 12
      damping_coefficient: 0.4
  tsdas:
    - name: coil
      body1: ground
      body2: slider
      point1: [2, 0, 0]
      point2: [2.5, 0, 0.5]
      free_length: 1.1
{tsda_law}
"#;

const LINEAR_TSDA: &str = "      spring_coefficient: 60\n      damping_coefficient: 3";
const CURVE_TSDA: &str = "      spring_coefficient: 1\n      spring_curve_data: [[-1, -60], [0, 0], [1, 90]]\n      damping_coefficient: 3";

fn model(rsda_axis: &str, tsda_law: &str) -> mbconv::Model {
    let text = CHRONO
        .replace("{rsda_axis}", rsda_axis)
        .replace("{tsda_law}", tsda_law);
    mbconv::read_str(&text, "chrono").unwrap().model
}

fn settings() -> CheckSettings {
    CheckSettings {
        duration: 1.0,
        ..CheckSettings::default()
    }
}

/// The writer's findings for `target`.
fn findings(model: &mbconv::Model, target: &str) -> Vec<mbconv::Finding> {
    let registry = mbconv::formats();
    let format = registry.get(target).unwrap();
    format.lower(model, &Options::default()).unwrap().report.findings
}

#[test]
fn chrono_rsda_and_tsda_on_joint_axes_convert_to_shift_exactly() {
    let model = model("[0, 1, 0]", LINEAR_TSDA);
    assert_eq!(model.force_elements.len(), 2);
    let report = mbconv::check(&model, &["shift"], &settings()).unwrap();
    let target = &report.targets[0];
    assert_eq!(target.verdict, Verdict::Exact, "{target:#?}");
    let codes: Vec<_> = findings(&model, "shift").into_iter().map(|f| f.code).collect();
    assert!(
        codes.contains(&"shift.rsda_as_joint_spring".to_owned()),
        "{codes:?}"
    );
    assert!(
        codes.contains(&"shift.tsda_as_joint_spring".to_owned()),
        "{codes:?}"
    );
    assert!(!codes.iter().any(|c| c.ends_with("_lost")), "{codes:?}");
}

#[test]
fn the_springs_move_the_model() {
    // Without them the motion differs: the exact verdict above is not one of a model the
    // elements leave alone.
    let with = model("[0, 1, 0]", LINEAR_TSDA);
    let mut without = with.clone();
    without.force_elements.clear();
    let settings = settings();
    let a = mbconv::checker::simulate_original(&with, &settings)
        .motion
        .unwrap();
    let b = mbconv::checker::simulate_original(&without, &settings)
        .motion
        .unwrap();
    let matching = mbconv::checker::BodyMatch::new(&a.bodies, &b.bodies, &[]);
    let gap = mbconv::checker::Difference::between(&a, &b, &matching).max_com_error;
    assert!(gap > 0.05, "{gap}");
}

#[test]
fn every_writer_with_joint_springs_takes_them_exactly() {
    let model = model("[0, 1, 0]", LINEAR_TSDA);
    for target in ["skel", "mjcf", "sdf"] {
        let report = mbconv::check(&model, &[target], &settings()).unwrap();
        let verdict = &report.targets[0].verdict;
        assert_eq!(*verdict, Verdict::Exact, "{target}: {:#?}", report.targets[0]);
        let codes: Vec<_> = findings(&model, target).into_iter().map(|f| f.code).collect();
        for what in ["rsda_as_joint_spring", "tsda_as_joint_spring"] {
            assert!(codes.contains(&format!("{target}.{what}")), "{target}: {codes:?}");
        }
    }
}

#[test]
fn elements_off_the_axis_or_not_linear_are_not_joint_springs() {
    // The RSDA about x is not about the hinge's y axis; the TSDA's law is a curve.
    let model = model("[1, 0, 0]", CURVE_TSDA);
    for target in ["shift", "skel", "mjcf", "sdf", "urdf"] {
        let lowered = mbconv::formats()
            .get(target)
            .unwrap()
            .lower(&model, &Options::default())
            .unwrap();
        let codes: Vec<_> = lowered.report.findings.iter().map(|f| f.code.clone()).collect();
        assert!(
            codes.contains(&format!("{target}.rsda_lost")),
            "{target}: {codes:?}"
        );
        assert!(
            codes.contains(&format!("{target}.tsda_lost")),
            "{target}: {codes:?}"
        );
        assert!(
            !codes.iter().any(|c| c.ends_with("_as_joint_spring")),
            "{target}: {codes:?}"
        );
        assert!(
            lowered
                .model
                .joints
                .iter()
                .flat_map(|j| &j.dofs)
                .all(|d| d.spring_stiffness == 0.0 && d.damping == 0.0),
            "{target}"
        );
    }
    // Lost, the elements are reported, so the check explains the difference.
    let report = mbconv::check(&model, &["shift"], &settings()).unwrap();
    assert_eq!(
        report.targets[0].verdict,
        Verdict::Explained,
        "{:#?}",
        report.targets[0]
    );
}

#[test]
fn urdf_takes_a_pure_damper_only() {
    // URDF joints have a damping but no spring: the linear RSDA with a spring stays a force
    // element (lost), a damper-only TSDA on the rail is the rail's damping.
    let text = CHRONO
        .replace("{rsda_axis}", "[0, 1, 0]")
        .replace("{tsda_law}", "      damping_coefficient: 3");
    let model = mbconv::read_str(&text, "chrono").unwrap().model;
    let lowered = mbconv::formats()
        .get("urdf")
        .unwrap()
        .lower(&model, &Options::default())
        .unwrap();
    let codes: Vec<_> = lowered.report.findings.iter().map(|f| f.code.clone()).collect();
    assert!(codes.contains(&"urdf.rsda_lost".to_owned()), "{codes:?}");
    assert!(
        codes.contains(&"urdf.tsda_as_joint_spring".to_owned()),
        "{codes:?}"
    );
    let rail = lowered.model.joints.iter().find(|j| j.name == "rail").unwrap();
    assert_eq!(rail.dofs[0].damping, 3.0);
    assert_eq!(rail.dofs[0].spring_stiffness, 0.0);
}
