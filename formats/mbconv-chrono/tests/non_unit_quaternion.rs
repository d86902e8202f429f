//! Non-unit quaternions as Chrono's parser uses them: Chrono keeps the quaternion as written, and
//! the centre of mass it builds from a non-unit body or COM quaternion is not where the unit
//! rotation puts it. mbconv reads the COM where Chrono puts it (numbers measured with Chrono 10,
//! `chrono_oracle FILE --json`), the rotation normalised, and reports both; the
//! `normalize-quaternions` setting normalises the quaternion as written instead.
#![allow(clippy::unwrap_used)]

use mbconv_chrono::ChronoFormat;
use mbconv_ir::format::{Format, Imported, Options, Source};
use nalgebra::{UnitQuaternion, Vector3};

/// A pendulum whose COM frame is a non-unit quaternion (norm² 1.14).
const PENDULUM: &str = r#"chrono-version: 10.0
model:
  name: pend
  bodies:
    - name: ground
      location: [0, 0, 0]
      fixed: true
    - name: link
      location: [0, 0, 0]
      mass: 2
      com:
        location: [0.5, 0, 0]
        orientation: [1, 0.2, 0.3, 0.1]
      inertia:
        moments: [0.01, 0.2, 0.2]
  joints:
    - name: pivot
      type: revolute
      body1: ground
      body2: link
      location: [0, 0, 0]
      axis: [0, 1, 0]
"#;

/// A body whose own orientation and COM frame are both non-unit quaternions.
const SKEWED: &str = r#"chrono-version: 10.0
model:
  name: skewed
  bodies:
    - name: box
      location: [1, 2, 3]
      orientation: [2, 0, 0, 2]
      mass: 3
      com:
        location: [0.1, 0.2, 0.3]
        orientation: [0.9, 0.1, 0, 0.2]
      inertia:
        moments: [1, 2, 3]
"#;

fn read(text: &str, normalize: bool) -> Imported {
    let mut options = Options::default();
    if normalize {
        options.set("normalize-quaternions", "true");
    }
    ChronoFormat
        .read(&Source::from_string("model.yaml", text.to_owned()), &options)
        .unwrap()
}

/// The COM in world coordinates at t = 0, as the IR says.
fn com_position(imported: &Imported, body: &str) -> Vector3<f64> {
    let b = imported.model.body(body).unwrap();
    b.pose.translation + b.pose.rotation * b.inertial.com
}

fn codes(imported: &Imported) -> Vec<&str> {
    imported.report.findings.iter().map(|f| f.code.as_str()).collect()
}

#[test]
fn com_is_where_chrono_builds_it() {
    // Chrono 10: com_position [0.79120000000000001, 0.016799999999999978, 0.0056000000000000381].
    let imported = read(PENDULUM, false);
    let com = com_position(&imported, "link");
    assert!(
        (com - Vector3::new(0.7912, 0.0168, 0.0056)).norm() < 1e-15,
        "{com}"
    );
    let codes = codes(&imported);
    assert!(codes.contains(&"chrono.quaternion_normalized"), "{codes:?}");
    assert!(codes.contains(&"chrono.com_as_built"), "{codes:?}");
    let finding = imported
        .report
        .findings
        .iter()
        .find(|f| f.code == "chrono.com_as_built")
        .unwrap();
    assert_eq!(finding.path.as_deref(), Some("bodies[\"link\"]"));
    assert!(
        finding.message.contains("normalize-quaternions=true"),
        "{}",
        finding.message
    );
    // The inertia axes are the unit rotation of the quaternion written.
    let link = imported.model.body("link").unwrap();
    let unit = UnitQuaternion::new_normalize(nalgebra::Quaternion::new(1.0, 0.2, 0.3, 0.1));
    assert!(link.inertial.inertia_rotation.angle_to(&unit) < 1e-15);
}

#[test]
fn body_and_com_quaternions_both_count() {
    // Chrono 10: position [1, 2, 3], orientation_wxyz [2, 0, 0, 2],
    // com_position [0.48079999999999989, 3.1707200000000006, 5.3412000000000006].
    let imported = read(SKEWED, false);
    let b = imported.model.body("box").unwrap();
    assert_eq!(b.pose.translation, Vector3::new(1.0, 2.0, 3.0));
    let half = std::f64::consts::FRAC_1_SQRT_2;
    let unit = UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(half, 0.0, 0.0, half));
    assert!(b.pose.rotation.angle_to(&unit) < 1e-15);
    let com = com_position(&imported, "box");
    assert!(
        (com - Vector3::new(0.4808, 3.17072, 5.3412)).norm() < 1e-14,
        "{com}"
    );
}

#[test]
fn normalize_quaternions_normalises_as_written() {
    let imported = read(PENDULUM, true);
    let link = imported.model.body("link").unwrap();
    assert_eq!(link.inertial.com, Vector3::new(0.5, 0.0, 0.0));
    let codes = codes(&imported);
    assert!(codes.contains(&"chrono.quaternion_normalized"), "{codes:?}");
    assert!(!codes.contains(&"chrono.com_as_built"), "{codes:?}");
    let skewed = read(SKEWED, true);
    let com = com_position(&skewed, "box");
    let b = skewed.model.body("box").unwrap();
    let expected = Vector3::new(1.0, 2.0, 3.0) + b.pose.rotation * Vector3::new(0.1, 0.2, 0.3);
    assert!((com - expected).norm() < 1e-15);
}

#[test]
fn unit_quaternions_and_angles_keep_the_com_bit_for_bit() {
    let text = PENDULUM.replace("[1, 0.2, 0.3, 0.1]", "[0, 0, 90]");
    let imported = read(&text, false);
    assert_eq!(
        imported.model.body("link").unwrap().inertial.com,
        Vector3::new(0.5, 0.0, 0.0)
    );
    assert!(!codes(&imported).contains(&"chrono.com_as_built"));
    let text = PENDULUM.replace("[1, 0.2, 0.3, 0.1]", "[0.5, 0.5, 0.5, 0.5]");
    let imported = read(&text, false);
    assert_eq!(
        imported.model.body("link").unwrap().inertial.com,
        Vector3::new(0.5, 0.0, 0.0)
    );
    assert!(!codes(&imported).contains(&"chrono.quaternion_normalized"));
}
