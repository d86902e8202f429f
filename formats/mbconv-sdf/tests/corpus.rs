//! Every corpus SDFormat file (`../shared/corpus/sdf/`) is read into a valid model whose body
//! and degree-of-freedom counts are the ones its reference loader (Drake, else DART) reports
//! in the corpus README, or refused with the reason the loaders give.

#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{BodyRef, Model};
use std::collections::BTreeSet;

/// A row of the README's model table: file, loaders, bodies, dof.
type Row = (String, String, Option<usize>, Option<usize>);

/// Rows of the README's model table.
fn rows() -> Option<Vec<Row>> {
    let readme = mbconv_test_support::corpus_file("sdf/README.md")?;
    let text = std::fs::read_to_string(readme).ok()?;
    let mut out = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 8 || !cells[1].starts_with('`') {
            continue;
        }
        let file = cells[1].trim_matches('`').to_owned();
        out.push((
            file,
            cells[4].to_owned(),
            cells[5].parse().ok(),
            cells[6].parse().ok(),
        ));
    }
    Some(out)
}

/// Degrees of freedom as Drake counts them: the tree joints' plus six per floating body.
fn dof(model: &Model) -> usize {
    let mut children = BTreeSet::new();
    let mut total = 0;
    for joint in &model.joints {
        if let BodyRef::Body(c) = &joint.child
            && children.insert(c.clone())
        {
            total += joint.kind.nv();
        }
    }
    total
        + 6 * model
            .bodies
            .iter()
            .filter(|b| !b.fixed && !children.contains(&b.name))
            .count()
}

/// Files whose counts differ from Drake's for a stated reason: (file, bodies, dof, why).
const EXPLAINED: &[(&str, usize, usize, &str)] = &[(
    "drake/multibody/parsing/test/sdf_parser_test/joint_parsing_test.sdf",
    13,
    40,
    "two <drake:joint type=\"curvilinear\"> have no IR joint: dropped (kept in extras), their children float (+5 dof each)",
)];

/// Files Drake refuses that mbconv refuses too, with the words of the reason both give.
const REFUSALS: &[(&str, &str)] = &[
    // libsdformat: "The norm of the xyz vector cannot be zero".
    (
        "sdformat/test/sdf/joint_axis_xyz_normalization.sdf",
        "the axis <xyz> is zero",
    ),
    // libsdformat: "Unable to find uri[test_model]" (the test sets SDF_PATH; see include tests).
    ("sdformat/test/sdf/includes.sdf", "cannot find \"test_model\""),
    (
        "sdformat/test/sdf/placement_frame.sdf",
        "cannot find \"test_model_with_frames\"",
    ),
    // libsdformat: "The supplied link name [world] is reserved."
    (
        "sdformat/test/integration/cfm_damping_implicit_spring_damper.sdf",
        "link name \"world\" is reserved",
    ),
    // libsdformat: "Non-unique name[ground] detected 2 times in XML children of world".
    (
        "sdformat/test/sdf/world_model_frame_same_name_1_6.sdf",
        "Non-unique name \"ground\" detected 2 times",
    ),
    (
        "sdformat/test/sdf/world_sibling_same_names.sdf",
        "Non-unique name \"spot\" detected 2 times",
    ),
    // libsdformat (Material::Load): "A <script> element is missing a child <uri> element, or
    // the <uri> element is empty." (its <uri> is `__default__`).
    (
        "sdformat/test/integration/fixed_joint_reduction_collision_visual_extension.sdf",
        "a <material><script> without a <uri>",
    ),
    // tinyxml2 ignores the undeclared prefix (so does mbconv since the held-out round);
    // libsdformat then cannot find uri[base].
    (
        "sdformat/test/integration/model/nested_include/test_nested_include.sdf",
        "cannot find \"base\"",
    ),
];

#[test]
fn corpus_files_read_with_their_loaders_counts() {
    let Some(rows) = rows() else {
        assert!(
            std::env::var("MBCONV_REQUIRE_CORPUS").is_err(),
            "the SDF corpus is missing"
        );
        return;
    };
    assert!(rows.len() > 50, "README rows: {}", rows.len());
    let mut failures = Vec::new();
    for (file, loaders, bodies, dofs) in &rows {
        let Some(path) = mbconv_test_support::corpus_file(&format!("sdf/{file}")) else {
            failures.push(format!("{file}: missing"));
            continue;
        };
        let source = Source::from_path(&path).expect("corpus file reads");
        let result = mbconv_sdf::SdfFormat.read(&source, &Options::default());
        match (result, loaders.as_str()) {
            (Ok(imported), _) => {
                if !loaders.contains("drake") {
                    eprintln!("{file}: read, Drake refuses it");
                }
                let model = &imported.model;
                let report = mbconv_ir::validate::validate(model);
                if let Some(error) = report.at_least(mbconv_ir::Severity::Error).next() {
                    failures.push(format!("{file}: invalid model: {error}"));
                }
                let got = (model.bodies.len(), dof(model));
                let explained = EXPLAINED.iter().find(|(f, ..)| f == file);
                let want = match explained {
                    Some((_, b, d, _)) => (Some(*b), Some(*d)),
                    None => (*bodies, *dofs),
                };
                if loaders.contains("drake") && (Some(got.0), Some(got.1)) != want {
                    failures.push(format!("{file}: bodies/dof {got:?}, Drake {bodies:?}/{dofs:?}"));
                }
            }
            (Err(e), _) if !loaders.contains("drake") => {
                // Drake (libsdformat) refuses these too; the reason must be libsdformat's.
                let message = e.to_string();
                let expected = REFUSALS.iter().find(|(f, _)| f == file).map(|(_, r)| *r);
                match expected {
                    Some(reason) if message.contains(reason) => {}
                    _ => failures.push(format!("{file}: refused for another reason: {message}")),
                }
            }
            (Err(e), _) => failures.push(format!("{file}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_joint_type_of_gz_sims_demo() {
    let Some(path) = mbconv_test_support::corpus_file("sdf/gz-sim/test/worlds/demo_joint_types.sdf") else {
        return;
    };
    let imported = mbconv_sdf::SdfFormat
        .read(&Source::from_path(&path).unwrap(), &Options::default())
        .unwrap();
    let mut kinds: Vec<&str> = imported.model.joints.iter().map(|j| j.kind.type_name()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    // revolute2 and universal are both universal; continuous is revolute.
    for kind in [
        "fixed",
        "prismatic",
        "revolute",
        "screw",
        "spherical",
        "universal",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    // The gearbox has no IR joint: kept and reported.
    assert!(imported.model.extras.get("sdf.gearbox").is_some());
    assert!(imported.report.contains("sdf.joint_dropped"));
    assert!(imported.report.contains("sdf.revolute2"));
}
