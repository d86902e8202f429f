//! A reader hands a file of another format to that format's reader through the readers hook
//! the facade puts in the read options: a Choreonoid project whose body item names a URDF file
//! reads it with mbconv's URDF reader, root link free as Choreonoid's URDF loader makes it, and
//! placed and posed as the project says.
#![allow(clippy::unwrap_used)]

use mbconv::ir::{JointKind, Pose};
use nalgebra::{UnitQuaternion, Vector3};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/body/projects")
        .join(name)
}

#[test]
fn a_project_whose_body_item_is_a_urdf_file_reads_it_with_the_urdf_reader() {
    let read = mbconv::read(fixture("urdf_item.cnoid")).unwrap();
    let m = &read.model;
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["base", "arm"]);
    // The root is free at the item's initial root translation; the arm at 30 degrees.
    let root = &m.joints[0];
    assert!(matches!(root.kind, JointKind::Free), "{root:?}");
    assert!(root.parent.is_world());
    let base = m.body("base").unwrap();
    assert_eq!(base.pose, Pose::from_translation(Vector3::new(0.0, 0.0, 0.5)));
    assert!(!base.fixed);
    let shoulder = m.joints.iter().find(|j| j.name == "shoulder").unwrap();
    assert!((shoulder.q0[0] - 30f64.to_radians()).abs() < 1e-15);
    assert_eq!(shoulder.parent_frame.translation, Vector3::new(0.0, 0.0, 0.1));
    assert_eq!(m.body("arm").unwrap().inertial.mass, 1.0);
    assert_eq!(shoulder.parent_frame.rotation, UnitQuaternion::identity());
    // Said: the item is URDF, read with the root free.
    assert!(
        read.report
            .findings
            .iter()
            .any(|f| f.code == "body.urdf_item" && f.message.contains("root link free")),
        "{:#?}",
        read.report.findings
    );
    assert!(!read.report.findings.iter().any(|f| f.code == "body.urdf_body"));
}

#[test]
fn a_urdf_file_the_urdf_reader_refuses_is_refused_naming_the_item() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("broken.urdf"), "<robot><link/></robot>").unwrap();
    let project = std::fs::read_to_string(fixture("urdf_item.cnoid"))
        .unwrap()
        .replace("robot.urdf", "broken.urdf");
    std::fs::write(dir.path().join("p.cnoid"), project).unwrap();
    let error = mbconv::read(dir.path().join("p.cnoid")).unwrap_err().to_string();
    assert!(
        error.contains("URDF reader refuses it") && error.contains("broken.urdf"),
        "{error}"
    );
}
