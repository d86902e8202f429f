//! `$(find PKG)` as ROS answers it: a package is what its manifest names, and the answer is an
//! absolute path even when the package path was given relative to the working directory.

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The fixtures' package (`fixtures/xacro`, manifest name `xacro_fixtures`) given by a path
/// relative to the test's working directory (the crate's folder).
fn relative_fixtures() -> PathBuf {
    let relative = PathBuf::from("../../fixtures/xacro");
    assert!(relative.join("package.xml").is_file());
    relative
}

#[test]
fn a_relative_package_path_is_found_from_the_working_directory() {
    let root = relative_fixtures();
    let settings = mbconv_xacro::Settings {
        package_path: vec![root.clone()],
        env: Some(BTreeMap::new()),
        ..Default::default()
    };
    // The include `$(find xacro_fixtures)/inc/parts.xacro` must not resolve against
    // `includes.urdf.xacro`'s own folder.
    let expansion = mbconv_xacro::expand_file(&root.join("includes.urdf.xacro"), &settings);
    assert!(expansion.is_ok(), "{:?}", expansion.err());
    let text = r#"<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">
  <link name="$(find xacro_fixtures)"/></robot>"#;
    let found =
        mbconv_xacro::expand_str(text, "r.urdf.xacro", &root.join("r.urdf.xacro"), &settings).unwrap();
    let absolute = std::path::absolute(&root).unwrap();
    assert!(
        found.text.contains(&format!("name=\"{}\"", absolute.display())),
        "{}",
        found.text
    );
}

#[test]
fn a_manifest_names_the_package_before_a_folder_of_that_name() {
    let dir = tempfile::tempdir().unwrap();
    // A tree whose manifest names it `tool`, holding an unrelated folder `tool/` (as xacro's
    // own source tree holds its Python package `xacro/`).
    std::fs::write(
        dir.path().join("package.xml"),
        "<package><name>tool</name></package>",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("tool")).unwrap();
    let settings = mbconv_xacro::Settings {
        package_path: vec![dir.path().to_path_buf()],
        env: Some(BTreeMap::new()),
        ..Default::default()
    };
    let text = r#"<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">
  <link name="$(find tool)"/></robot>"#;
    let found =
        mbconv_xacro::expand_str(text, "r.urdf.xacro", &dir.path().join("r.urdf.xacro"), &settings).unwrap();
    assert!(
        found.text.contains(&format!("name=\"{}\"", dir.path().display())),
        "{}",
        found.text
    );
}
