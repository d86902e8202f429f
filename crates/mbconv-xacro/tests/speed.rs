//! How long the corpus's largest expansions take (printed; `--nocapture` shows it), and a
//! bound far above it: a description package expands in milliseconds.

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::BTreeMap;
use std::time::Instant;

#[test]
fn corpus_expansions_take_milliseconds() {
    let Some(root) = mbconv_test_support::corpus("xacro") else {
        return;
    };
    for (file, args) in [
        ("franka_description/robots/fr3/fr3.urdf.xacro", vec![]),
        (
            "ur_description/urdf/ur.urdf.xacro",
            vec![("ur_type", "ur5e"), ("name", "ur")],
        ),
    ] {
        let settings = mbconv_xacro::Settings {
            args: args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            package_path: vec![root.clone()],
            env: Some(BTreeMap::new()),
        };
        let path = root.join(file);
        mbconv_xacro::expand_file(&path, &settings).unwrap();
        let n = 20;
        let start = Instant::now();
        for _ in 0..n {
            mbconv_xacro::expand_file(&path, &settings).unwrap();
        }
        let each = start.elapsed() / n;
        println!("{file}: {each:?} per expansion");
        assert!(each.as_millis() < 500, "{file}: {each:?}");
    }
}
