//! mbconv's reading of SDFormat judged by Drake 1.51's golden data (`tests/golden`, written by
//! `cargo xtask golden sdf` from `oracles/drake/sdf_golden.py`; the tests never run Drake):
//! every body's mass, world centre of mass, inertia about it in world axes and world pose at
//! the default configuration, the files Drake refuses, and mbconv's solver against Drake's 1 s
//! contact-free trajectories. The files of SDFormat 1.4 to 1.6 are also compared with DART
//! 6.20's reading (`tests/golden/dart`, written by the same command from
//! `oracles/dart/sdf_golden.py`), where every disagreement is listed with its reason (below).
//!
//! Names: Drake puts each model in a model instance named after it (a nested model's instance
//! is `outer::inner`) and names a body by its link, so the golden data names a body
//! `<instance>::<link>`. mbconv names a link `outer::inner::link` inside a world (every model
//! of the world is a scope) and leaves the model's own name out when the file's root is a lone
//! `<model>` (`inner::link`). So a Drake name is looked up as it is in a world file and with
//! its first segment (the lone model's name) taken off otherwise. Drake's world body is not in
//! the golden data; Drake adds no other body (a static model's links are welded to the world,
//! as mbconv fixes them).

#![allow(clippy::unwrap_used)]

#[path = "support/drake.rs"]
mod drake;

use drake::{as_drake_reads_it, compare_with_drake, floats, our_name, start_where_drake_started};
use mbconv_ir::format::{Format, Options, Source};
use mbconv_solver::Integrator;
use mbconv_test_support::read_golden::{ReadGolden, read_as_listed};
use mbconv_test_support::written_golden::{relative_deviation, world_com};
use nalgebra::Vector3;
use serde_json::Value;
use std::path::Path;

/// Agreement asked for on every body: relative to the size of the quantity (at least 1), so
/// 1e-9 kg, 1e-9 m, 1e-9 kg m² and 1e-9 on unit quaternions for unit-sized models.
const STATIC_TOLERANCE: f64 = 1e-9;

/// Trajectory agreement asked for: 1e-6 m on every body's world centre of mass over 1 s
/// (mbconv: fixed-step RK4 at 1e-4 s; Drake: error-controlled RK3 at accuracy 1e-12).
const TRAJECTORY_TOLERANCE: f64 = 1e-6;

/// Files Drake refuses that mbconv reads, and why mbconv reads them.
const READ_THOUGH_REFUSED: &[(&str, &str)] = &[
    (
        "corpus__gz-sim__test__worlds__demo_joint_types.sdf.json",
        "Drake 1.51 has no gearbox joint and refuses the file (\"Joint type (gearbox) not \
         supported\"); libsdformat and DART read it, and so does mbconv: the gearbox has no IR \
         joint, it is kept in Model::extras[\"sdf.gearbox\"] and reported (sdf.joint_dropped)",
    ),
    (
        "corpus__sdformat__test__sdf__joint_nested_parent_child.sdf.json",
        PARALLEL_JOINTS,
    ),
    (
        "corpus__sdformat__test__sdf__joint_screw_thread_pitch.sdf.json",
        PARALLEL_JOINTS,
    ),
    (
        "corpus__sdformat__test__sdf__world_joint_child_frame.sdf.json",
        PARALLEL_JOINTS,
    ),
    (
        "corpus__sdformat__test__sdf__world_joint_parent_frame.sdf.json",
        PARALLEL_JOINTS,
    ),
    (
        "corpus__sdformat__test__sdf__mesh_auto_inertial.sdf.json",
        "Drake runs out of memory (std::bad_alloc) on the automatic inertia of the mesh; \
         mbconv does not load meshes: it leaves the mesh out of the automatic inertia, reports \
         it (sdf.auto_inertia) and keeps the inertial as written",
    ),
    (
        "fixtures__four_bar.sdf.json",
        "a closed loop: Drake refuses loops in SDFormat (\"form one or more loops in the system \
         graph\"); libsdformat reads it and mbconv keeps the closing joint as an IR loop joint",
    ),
    (
        "fixtures__world_include.sdf.json",
        "Drake resolves <include><uri> only through its package map, not relative to the \
         including file (\"Unable to find uri[models/crate]\"); libsdformat resolves a \
         relative URI next to the file, and so does mbconv",
    ),
];

/// Why Drake refuses files with several joints between the same two links.
const PARALLEL_JOINTS: &str = "several joints between the same two links (libsdformat's frame \
     tests): Drake's LinkJointGraph refuses a second joint between two links (\"already has \
     joint\"); libsdformat reads the file and mbconv keeps the extra joints as IR loop joints";

/// Files Drake loads that mbconv refuses, with the words of mbconv's reason.
const NOT_YET: &[(&str, &str)] = &[];

/// Bodies whose reading disagrees with Drake's for a stated reason: (golden file, Drake's
/// body name, the measured worst relative deviation, why). The test checks the deviation is
/// still the one measured.
const DISAGREEMENTS: &[(&str, &str, f64, &str)] = &[(
    "corpus__drake__multibody__parsing__test__sdf_parser_test__joint_parsing_test.sdf.json",
    "joint_parsing_test::link10",
    1.0,
    "child of a <drake:joint type=\"curvilinear\">, which has no IR joint (kept in extras, \
     reported): mbconv floats link10 at its own pose (identity), Drake's curvilinear joint at \
     zero turns it a quarter turn about y (its initial tangent z in the plane of normal x): \
     quaternion (0, 0.7071, 0, 0.7071) against (1, 0, 0, 0); mass, COM, inertia and position \
     agree",
)];

/// Trajectories left out of the solver comparison, and why. (What Drake does not read, which
/// mbconv's model is brought to before the comparison, is `drake::as_drake_reads_it`.)
const TRAJECTORY_EXCLUDED: &[(&str, &str)] = &[];

/// The golden data of the reader (files named as the tables above name them, `….sdf.json`).
fn read_golden() -> ReadGolden {
    ReadGolden::new(env!("CARGO_MANIFEST_DIR"), "tests/golden", "sdf")
}

/// Read options: the packages Drake was given (`NAME=DIR`, `model://NAME`) become the
/// `model_path` directories holding them.
fn options(path: &Path, golden: &Value) -> Options {
    let mut options = Options::default();
    let root = path.parent().unwrap();
    let mut dirs: Vec<String> = golden["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str()?.split_once('='))
        .filter_map(|(_, dir)| Some(root.join(dir).parent()?.display().to_string()))
        .collect();
    dirs.dedup();
    if !dirs.is_empty() {
        options.set("model_path", dirs.join(":"));
    }
    options
}

fn read(path: &Path, options: &Options) -> Result<mbconv_ir::Model, String> {
    let source = Source::from_path(path).map_err(|e| e.to_string())?;
    mbconv_sdf::SdfFormat
        .read(&source, options)
        .map(|i| i.model)
        .map_err(|e| e.to_string())
}

/// True when the file holds a `<world>` outside comments (else it is a lone `<model>`).
fn is_world(path: &Path) -> bool {
    let mut rest = std::fs::read_to_string(path).unwrap();
    while let Some(start) = rest.find("<!--") {
        let end = rest[start..].find("-->").map_or(rest.len(), |e| start + e + 3);
        rest.replace_range(start..end, "");
    }
    rest.contains("<world")
}

/// The worst relative deviation of one body from Drake's, per quantity.
fn deviations(drake: &Value, body: &mbconv_ir::Body) -> [(&'static str, f64); 5] {
    let (t, q) = (body.pose.translation, body.pose.rotation);
    let pose = [t.x, t.y, t.z, q.w, q.i, q.j, q.k];
    let com: Vector3<f64> = world_com(body, &pose);
    let r = q.to_rotation_matrix().into_inner();
    let inertia = r * body.inertial.inertia_in_body_axes() * r.transpose();
    let inertia_rows: Vec<f64> = (0..9).map(|k| inertia[(k / 3, k % 3)]).collect();
    let quat = floats(&drake["quat"]);
    let minus: Vec<f64> = pose[3..].iter().map(|x| -x).collect();
    [
        (
            "mass",
            relative_deviation(&[body.inertial.mass], &[drake["mass"].as_f64().unwrap()]),
        ),
        ("com", relative_deviation(com.as_slice(), &floats(&drake["com"]))),
        (
            "inertia",
            relative_deviation(&inertia_rows, &floats(&drake["inertia"])),
        ),
        ("pos", relative_deviation(&pose[..3], &floats(&drake["pos"]))),
        (
            "quat",
            relative_deviation(&pose[3..], &quat).min(relative_deviation(&minus, &quat)),
        ),
    ]
}

#[test]
fn golden_data_covers_exactly_the_fixtures() {
    read_golden().assert_covers_fixtures(&["sdf", "world"]);
}

#[test]
fn every_body_agrees_with_drake_at_the_default_configuration() {
    let mut worst = (0.0_f64, String::new());
    let mut per_quantity = [("", 0.0_f64); 5];
    let (mut judged, mut bodies) = (0, 0);
    let mut disagreements_seen = Vec::new();
    let mut failures = Vec::new();
    for (name, golden) in read_golden().files() {
        let Some(path) = read_golden().model_path(&name, &golden) else {
            continue;
        };
        let result = read(&path, &options(&path, &golden));
        if let Some(error) = golden["load_error"].as_str() {
            match (result, READ_THOUGH_REFUSED.iter().find(|(f, _)| *f == name)) {
                (Err(_), None) | (Ok(_), Some(_)) => {}
                (Ok(_), None) => {
                    failures.push(format!("{name}: Drake refuses it ({error}), mbconv reads it"))
                }
                (Err(e), Some(_)) => {
                    failures.push(format!("{name}: refused ({e}), take it off READ_THOUGH_REFUSED"))
                }
            }
            continue;
        }
        let Some(model) = read_as_listed(&name, result, NOT_YET, "Drake") else {
            continue;
        };
        let world = is_world(&path);
        let drake_bodies = golden["bodies"].as_array().expect("bodies");
        assert_eq!(
            model.bodies.len(),
            drake_bodies.len(),
            "{name}: mbconv has {} bodies, Drake {}",
            model.bodies.len(),
            drake_bodies.len()
        );
        for drake in drake_bodies {
            let drake_name = drake["name"].as_str().expect("name");
            let ours = our_name(drake_name, world);
            let body = model
                .bodies
                .iter()
                .find(|b| b.name == ours)
                .unwrap_or_else(|| panic!("{name}: no body {ours} (Drake's {drake_name})"));
            let listed = DISAGREEMENTS
                .iter()
                .find(|(f, b, ..)| *f == name && *b == drake_name);
            let devs = deviations(drake, body);
            let dev = devs.iter().fold(0.0_f64, |m, (_, d)| m.max(*d));
            if let Some((_, _, measured, why)) = listed {
                assert!(
                    (dev - measured).abs() <= STATIC_TOLERANCE,
                    "{name}: {drake_name} deviates by {dev:e}, not the {measured:e} of DISAGREEMENTS ({why})"
                );
                disagreements_seen.push((name.clone(), drake_name.to_owned()));
                continue;
            }
            for (k, (what, d)) in devs.into_iter().enumerate() {
                per_quantity[k] = (what, per_quantity[k].1.max(d));
                if d > STATIC_TOLERANCE {
                    failures.push(format!(
                        "{name}: body {drake_name}: {what} deviates by {d:e} from Drake"
                    ));
                }
            }
            if dev > worst.0 {
                worst = (dev, format!("{name} {drake_name}"));
            }
            bodies += 1;
        }
        judged += 1;
    }
    eprintln!(
        "{judged} files, {bodies} bodies judged; worst relative deviation {:e} ({})",
        worst.0, worst.1
    );
    eprintln!("worst per quantity: {per_quantity:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Without the corpus, only the fixtures' entries can be seen.
    let expected = DISAGREEMENTS
        .iter()
        .filter(|(f, ..)| {
            f.starts_with("fixtures__") || mbconv_test_support::corpus_file("sdf/README.md").is_some()
        })
        .count();
    assert_eq!(
        disagreements_seen.len(),
        expected,
        "DISAGREEMENTS lists bodies not judged"
    );
    assert!(judged >= 5, "only {judged} files judged");
}

#[test]
fn solver_trajectories_agree_with_drake() {
    let mut excluded_seen = Vec::new();
    let mut judged = 0;
    let mut overall = (0.0_f64, String::new());
    let mut failures = Vec::new();
    for (name, golden) in read_golden().files() {
        let trajectory = &golden["trajectory"];
        if trajectory.is_null() {
            continue;
        }
        let Some(path) = read_golden().model_path(&name, &golden) else {
            continue;
        };
        if TRAJECTORY_EXCLUDED.iter().any(|(f, _)| *f == name) {
            excluded_seen.push(name);
            continue;
        }
        let convergence = trajectory["convergence"].as_f64().expect("convergence");
        assert!(
            convergence < TRAJECTORY_TOLERANCE / 100.0,
            "{name}: Drake's two accuracies differ by {convergence:e} m"
        );
        let mut model = read(&path, &options(&path, &golden)).expect("read");
        let world = is_world(&path);
        let changed = as_drake_reads_it(&mut model, &golden);
        start_where_drake_started(&mut model, trajectory, world, &name);
        let (worst, mut off) = compare_with_drake(
            &name,
            &model,
            trajectory,
            world,
            TRAJECTORY_TOLERANCE,
            Integrator::Rk4,
            &[],
        );
        failures.append(&mut off);
        eprintln!(
            "{name}: worst {worst:e} m over 1 s (Drake's convergence {convergence:e} m; as Drake reads it: {changed:?})"
        );
        if worst > overall.0 {
            overall = (worst, name.clone());
        }
        judged += 1;
    }
    let mut listed: Vec<&str> = TRAJECTORY_EXCLUDED.iter().map(|(f, _)| *f).collect();
    listed.sort_unstable();
    assert_eq!(
        excluded_seen, listed,
        "TRAJECTORY_EXCLUDED lists files without golden trajectories"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{judged} trajectories judged; worst {:e} m ({})",
        overall.0, overall.1
    );
    // The fixtures alone give 8 (without the corpus); the corpus adds 9.
    assert!(judged >= 8, "only {judged} trajectories judged");
}

// DART 6.20's second opinion on SDFormat 1.4 to 1.6 (`tests/golden/dart`, written by the same
// `cargo xtask golden sdf` from `oracles/dart/sdf_golden.py`). DART's `SdfParser` is its own
// TinyXML2 reader of those versions (read in dartsim/dart 6.x `dart/utils/sdf/SdfParser.cpp`),
// not libsdformat; where it reads a file otherwise than libsdformat, Drake and mbconv, the
// disagreement is listed below with the reason, and the test checks the reason.

/// The SDFormat versions DART's `SdfParser` reads (`checkVersion`).
const DART_VERSIONS: [&str; 3] = ["1.4", "1.5", "1.6"];

/// Files DART 6.20 refuses that mbconv (and libsdformat, and Drake) read: (golden file, words of
/// DART's error, why). The test checks DART's error holds the words.
const DART_REFUSES: &[(&str, &str, &str)] = &[
    (
        "corpus__gz-sim__examples__worlds__ackermann_steering.sdf.json",
        "Child element [ixy] not found in parent element [inertia]",
        MISSING_PRODUCTS,
    ),
    (
        "corpus__gz-sim__examples__worlds__joint_trajectory_controller.sdf.json",
        "Child element [ixy] not found in parent element [inertia]",
        MISSING_PRODUCTS,
    ),
    (
        "corpus__sdformat__test__sdf__inertial_stats.sdf.json",
        "Child element [ixy] not found in parent element [inertia]",
        MISSING_PRODUCTS,
    ),
];

/// Why DART refuses an `<inertia>` without its products of inertia.
const MISSING_PRODUCTS: &str = "an <inertia> gives only ixx, iyy, izz: DART's readBodyNode \
     reads all six moments with getValueDouble, which throws on a missing child; libsdformat \
     (and mbconv) take the spec's default 0 for ixy, ixz, iyz";

/// Files DART 6.20 loads that mbconv refuses as libsdformat (and so Drake) refuses them:
/// (golden file, words of mbconv's error, why DART loads it).
const DART_READS_THOUGH_REFUSED: &[(&str, &str, &str)] = &[
    (
        "corpus__sdformat__test__integration__cfm_damping_implicit_spring_damper.sdf.json",
        "the link name \"world\" is reserved",
        "DART's SdfParser has no reserved names: it makes a body named world",
    ),
    (
        "corpus__sdformat__test__integration__fixed_joint_reduction_collision_visual_extension.sdf.json",
        "a <material><script> without a <uri>",
        "DART's SdfParser reads only <diffuse> of a <material>",
    ),
    (
        "corpus__sdformat__test__sdf__joint_axis_xyz_normalization.sdf.json",
        "the axis <xyz> is zero or not finite",
        "DART's SdfParser takes a zero axis as written (no check)",
    ),
    (
        "corpus__sdformat__test__sdf__world_model_frame_same_name_1_6.sdf.json",
        "Non-unique name \"ground\"",
        SAME_NAMES,
    ),
    (
        "corpus__sdformat__test__sdf__world_sibling_same_names.sdf.json",
        "Non-unique name \"spot\"",
        SAME_NAMES,
    ),
];

/// Why DART reads a world whose children share a name.
const SAME_NAMES: &str = "a <model> shares its name with a <frame> or <light> of the world: \
     DART's SdfParser checks no names across a world's children and reads only its <model>s";

/// Why DART's reading of a body or joint differs from mbconv's (and libsdformat's); each is
/// checked by the test.
#[derive(Debug, Clone, Copy, PartialEq)]
enum DartWhy {
    /// DART keeps only the translation of `<inertial><pose>` (`readBodyNode`:
    /// `setLocalCOM(T.translation())`) and takes the moments as written as if they were in the
    /// link's axes. Checked: with every `<inertial><pose>` rotation of the file zeroed, mbconv's
    /// reading agrees with DART's.
    InertialRotationDropped,
    /// A link with `<mass>` and no `<inertia>`: DART 6.20 takes mass times the identity ("using
    /// an isotropic inertia tensor (mass * I)"), libsdformat (Drake, mbconv) the unit moments
    /// of its defaults. Checked: DART's inertia is mass times the identity.
    MassTimesIdentity,
    /// An SDFormat 1.4 axis: libsdformat's 1.4 -> 1.5 conversion puts it in the model frame
    /// (`use_parent_model_frame` true), DART's `readAxisElement` in the joint frame (it reads
    /// `use_parent_model_frame` only when the file writes it). Checked: read as a 1.5 file
    /// (axes in the joint frame), mbconv agrees with DART.
    AxisInJointFrameIn1_4,
}

/// Bodies whose reading by DART differs from mbconv's: (golden file, DART's body name, the
/// measured worst relative deviation, why). The test checks the deviation is still the one
/// measured and the reason (see [`DartWhy`]).
const DART_DISAGREEMENTS: &[(&str, &str, f64, DartWhy)] = &[
    (
        "fixtures__inertial_rotation_1_6.sdf.json",
        "turned_inertia::arm",
        6.257510878716066e-2,
        DartWhy::InertialRotationDropped,
    ),
    (
        "corpus__gz-sim__examples__worlds__log_record_dbl_pendulum.sdf.json",
        "double_pendulum_with_base::base",
        0.99,
        DartWhy::MassTimesIdentity,
    ),
    (
        "corpus__sdformat__test__integration__model__double_pendulum.sdf.json",
        "double_pendulum_with_base::base",
        0.99,
        DartWhy::MassTimesIdentity,
    ),
    (
        "corpus__sdformat__test__sdf__double_pendulum.sdf.json",
        "double_pendulum_with_base::base",
        0.99,
        DartWhy::MassTimesIdentity,
    ),
];

/// Files where mbconv reads bodies DART leaves out: (golden file, how many, why).
const DART_LEAVES_OUT: &[(&str, usize, &str)] = &[(
    "corpus__sdformat__test__sdf__nested_model.sdf.json",
    2,
    "the links of the nested <model>s (nested_link01, nested_nested_link01): DART's \
     readSkeleton reads a model's own <link> children only (readAllBodyNodes), so nested \
     models are left out",
)];

/// Joint axes whose world direction differs between DART and mbconv at the zero
/// configuration: (golden file, DART's joint name, measured deviation, why; checked as the
/// bodies' are).
const DART_AXIS_DISAGREEMENTS: &[(&str, &str, f64, DartWhy)] = &[
    (
        "fixtures__axis_model_frame_1_4.sdf.json",
        "old_axis::hinge",
        1.2508566957869447,
        DartWhy::AxisInJointFrameIn1_4,
    ),
    (
        "fixtures__axis_model_frame_1_4.sdf.json",
        "old_axis::rail",
        0.5590057799959539,
        DartWhy::AxisInJointFrameIn1_4,
    ),
];

/// DART's golden data of the SDFormat 1.4-1.6 files (`tests/golden/dart`).
fn dart_golden() -> ReadGolden {
    ReadGolden::new(env!("CARGO_MANIFEST_DIR"), "tests/golden/dart", "sdf")
}

/// The `version` of a file's `<sdf>` element (comments left out), as DART's script finds it.
fn sdf_version(path: &Path) -> Option<String> {
    let mut text = std::fs::read_to_string(path).ok()?;
    while let Some(start) = text.find("<!--") {
        let end = text[start..].find("-->").map_or(text.len(), |e| start + e + 3);
        text.replace_range(start..end, "");
    }
    let tag = &text[text.find("<sdf")?..];
    let tag = &tag[..tag.find('>')?];
    let rest = &tag[tag.find("version")? + "version".len()..];
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    let quote = rest.chars().next()?;
    let value = &rest[1..];
    Some(value[..value.find(quote)?].trim().to_owned())
}

/// A number of DART's golden data ("inf", "-inf", "nan" for the non-finite).
fn dart_number(v: &Value) -> f64 {
    match v.as_str() {
        Some("inf") => f64::INFINITY,
        Some("-inf") => f64::NEG_INFINITY,
        Some("nan") => f64::NAN,
        _ => v.as_f64().expect("a number"),
    }
}

fn dart_floats(v: &Value) -> Vec<f64> {
    v.as_array().expect("an array").iter().map(dart_number).collect()
}

/// The worst relative deviation of one body from DART's, per quantity.
fn dart_deviations(dart: &Value, body: &mbconv_ir::Body) -> [(&'static str, f64); 5] {
    let (t, q) = (body.pose.translation, body.pose.rotation);
    let pose = [t.x, t.y, t.z, q.w, q.i, q.j, q.k];
    let com: Vector3<f64> = world_com(body, &pose);
    let r = q.to_rotation_matrix().into_inner();
    let inertia = r * body.inertial.inertia_in_body_axes() * r.transpose();
    let rows = |m: &nalgebra::Matrix3<f64>| (0..9).map(|k| m[(k / 3, k % 3)]).collect::<Vec<f64>>();
    [
        (
            "mass",
            relative_deviation(&[body.inertial.mass], &[dart_number(&dart["mass"])]),
        ),
        (
            "com",
            relative_deviation(com.as_slice(), &dart_floats(&dart["com"])),
        ),
        (
            "inertia",
            relative_deviation(&rows(&inertia), &dart_floats(&dart["inertia"])),
        ),
        (
            "pos",
            relative_deviation(t.as_slice(), &dart_floats(&dart["pos"])),
        ),
        (
            "rotation",
            relative_deviation(&rows(&r), &dart_floats(&dart["rotation"])),
        ),
    ]
}

/// The world directions of a joint's axes at mbconv's default configuration (the child's
/// pose, turned by the joint frame on the child), unit length; None for joints without axes.
fn world_axes(model: &mbconv_ir::Model, joint: &mbconv_ir::Joint) -> Option<Vec<Vector3<f64>>> {
    use mbconv_ir::JointKind;
    let axes = match &joint.kind {
        JointKind::Revolute { axis } | JointKind::Prismatic { axis } | JointKind::Screw { axis, .. } => {
            vec![*axis]
        }
        JointKind::Universal { axis1, axis2 } => vec![*axis1, *axis2],
        _ => return None,
    };
    let mbconv_ir::BodyRef::Body(child) = &joint.child else {
        return None;
    };
    let child = model.bodies.iter().find(|b| b.name == *child)?;
    let frame = child.pose.rotation * joint.child_frame.rotation;
    Some(axes.iter().map(|a| frame * a.normalize()).collect())
}

/// The worst deviation of mbconv's world axes from DART's.
fn axis_deviation(ours: &[Vector3<f64>], theirs: &[Vec<f64>]) -> f64 {
    ours.iter()
        .zip(theirs)
        .map(|(a, b)| relative_deviation(a.as_slice(), b))
        .fold(0.0_f64, f64::max)
}

/// The file's text with the rotation of every `<inertial><pose>` set to zero.
fn inertial_rotations_zeroed(text: &str) -> String {
    use mbconv_xml::roxmltree;
    let doc = roxmltree::Document::parse(text).expect("XML");
    let mut edits: Vec<(std::ops::Range<usize>, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("pose") && n.parent().is_some_and(|p| p.has_tag_name("inertial")))
        .filter_map(|pose| {
            let node = pose.first_child().filter(roxmltree::Node::is_text)?;
            let numbers: Vec<&str> = node.text()?.split_whitespace().collect();
            let zeros = vec!["0"; numbers.len().saturating_sub(3)];
            let kept = numbers.iter().take(3).copied().chain(zeros).collect::<Vec<_>>();
            Some((node.range(), kept.join(" ")))
        })
        .collect();
    edits.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut out = text.to_owned();
    for (range, with) in edits {
        out.replace_range(range, &with);
    }
    out
}

/// The file's text as an SDFormat 1.5 file (its `<sdf version>` changed, nothing else).
fn as_version_1_5(text: &str) -> String {
    let start = text.find("<sdf").expect("<sdf");
    let at = start + text[start..].find("version").expect("version");
    let open = at + text[at..].find(['"', '\'']).expect("a quote") + 1;
    let close = open + text[open..].find(['"', '\'']).expect("a quote");
    format!("{}1.5{}", &text[..open], &text[close..])
}

/// mbconv's reading of the file changed as `why` says the disagreement comes from: with the
/// inertial pose rotations zeroed, or read as 1.5; None when `why` is checked otherwise.
fn read_as_dart_reads_it(path: &Path, why: DartWhy) -> Option<mbconv_ir::Model> {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match why {
        DartWhy::InertialRotationDropped => inertial_rotations_zeroed(&text),
        DartWhy::AxisInJointFrameIn1_4 => as_version_1_5(&text),
        DartWhy::MassTimesIdentity => return None,
    };
    let source = Source::from_string(path.display().to_string(), text)
        .with_path(path.display().to_string(), Some(path.to_path_buf()));
    Some(
        mbconv_sdf::SdfFormat
            .read(&source, &Options::default())
            .expect("read")
            .model,
    )
}

/// Checks a listed disagreement's reason; returns what is wrong, if anything. `deviation`
/// gives the deviation of the listed body or joint in a model.
fn check_reason(
    path: &Path,
    why: DartWhy,
    dart: &Value,
    deviation: impl Fn(&mbconv_ir::Model) -> Option<f64>,
) -> Option<String> {
    if why == DartWhy::MassTimesIdentity {
        let mass = dart_number(&dart["mass"]);
        let inertia = dart_floats(&dart["inertia"]);
        let isotropic: Vec<f64> = (0..9).map(|k| if k % 4 == 0 { mass } else { 0.0 }).collect();
        return (relative_deviation(&inertia, &isotropic) > STATIC_TOLERANCE)
            .then(|| format!("DART's inertia {inertia:?} is not mass {mass} times the identity"));
    }
    let model = read_as_dart_reads_it(path, why)?;
    match deviation(&model) {
        Some(d) if d <= STATIC_TOLERANCE => None,
        Some(d) => Some(format!("still deviates by {d:e} when read as {why:?} says")),
        None => Some("not found when read again".to_owned()),
    }
}

#[test]
fn dart_golden_data_covers_exactly_the_1_4_to_1_6_files() {
    let dart: Vec<String> = dart_golden().files().into_iter().map(|(n, _)| n).collect();
    let mut expected = Vec::new();
    let mut judged = 0;
    for (name, golden) in read_golden().files() {
        let Some(path) = read_golden().model_path(&name, &golden) else {
            continue;
        };
        judged += 1;
        let version = sdf_version(&path);
        if version.as_deref().is_some_and(|v| DART_VERSIONS.contains(&v)) {
            expected.push(name);
        }
    }
    let seen: Vec<String> = dart
        .into_iter()
        .filter(|n| {
            n.starts_with("fixtures__") || mbconv_test_support::corpus_file("sdf/README.md").is_some()
        })
        .collect();
    assert_eq!(seen, expected, "run `cargo xtask golden sdf`");
    assert!(judged > 0 && !expected.is_empty());
}

#[test]
fn every_body_agrees_with_dart_or_is_listed() {
    let corpus = mbconv_test_support::corpus_file("sdf/README.md").is_some();
    let (mut files, mut bodies, mut joints) = (0, 0, 0);
    let mut worst = (0.0_f64, String::new());
    let mut worst_axis = (0.0_f64, String::new());
    let (mut refused_seen, mut read_though_refused_seen) = (Vec::new(), Vec::new());
    let (mut disagreements_seen, mut left_out_seen, mut axes_seen) = (Vec::new(), Vec::new(), Vec::new());
    let mut failures = Vec::new();
    for (name, dart) in dart_golden().files() {
        let Some(path) = read_golden().model_path(&name, &dart) else {
            continue;
        };
        let model = read(&path, &Options::default());
        if let Some(error) = dart["load_error"].as_str() {
            match (model, DART_REFUSES.iter().find(|(f, ..)| *f == name)) {
                (Ok(_), Some((_, words, _))) if error.contains(words) => refused_seen.push(name.clone()),
                (Ok(_), Some((_, words, _))) => {
                    failures.push(format!("{name}: DART's error {error:?} does not say {words:?}"))
                }
                (Ok(_), None) => failures.push(format!("{name}: DART refuses it ({error}), mbconv reads it")),
                (Err(e), _) => failures.push(format!("{name}: DART and mbconv ({e}) refuse it")),
            }
            continue;
        }
        if DART_REFUSES.iter().any(|(f, ..)| *f == name) {
            failures.push(format!("{name}: DART loads it now: take it off DART_REFUSES"));
        }
        let model = match (model, DART_READS_THOUGH_REFUSED.iter().find(|(f, ..)| *f == name)) {
            (Ok(model), None) => model,
            (Ok(_), Some(_)) => {
                failures.push(format!(
                    "{name}: mbconv reads it: take it off DART_READS_THOUGH_REFUSED"
                ));
                continue;
            }
            (Err(e), Some((_, words, _))) => {
                if e.contains(words) {
                    read_though_refused_seen.push(name.clone());
                } else {
                    failures.push(format!("{name}: mbconv's error {e:?} does not say {words:?}"));
                }
                continue;
            }
            (Err(e), None) => {
                failures.push(format!("{name}: DART loads it, mbconv refuses it: {e}"));
                continue;
            }
        };
        let world = is_world(&path);
        let dart_bodies = dart["bodies"].as_array().expect("bodies");
        for body_golden in dart_bodies {
            let dart_name = body_golden["name"].as_str().expect("name");
            let ours = our_name(dart_name, world);
            let Some(body) = model.bodies.iter().find(|b| b.name == ours) else {
                failures.push(format!("{name}: DART's body {dart_name} is not mbconv's {ours}"));
                continue;
            };
            let devs = dart_deviations(body_golden, body);
            let dev = devs.iter().fold(0.0_f64, |m, (_, d)| m.max(*d));
            let listed = DART_DISAGREEMENTS
                .iter()
                .find(|(f, b, ..)| *f == name && *b == dart_name);
            if let Some((_, _, measured, why)) = listed {
                if (dev - measured).abs() > STATIC_TOLERANCE {
                    failures.push(format!(
                        "{name}: {dart_name} deviates from DART by {dev:e}, not the {measured:e} of DART_DISAGREEMENTS ({why:?}): {devs:?}"
                    ));
                }
                let again = |m: &mbconv_ir::Model| {
                    let body = m.bodies.iter().find(|b| b.name == ours)?;
                    Some(
                        dart_deviations(body_golden, body)
                            .iter()
                            .fold(0.0_f64, |x, (_, d)| x.max(*d)),
                    )
                };
                if let Some(wrong) = check_reason(&path, *why, body_golden, again) {
                    failures.push(format!("{name}: {dart_name} ({why:?}): {wrong}"));
                }
                disagreements_seen.push((name.clone(), dart_name.to_owned()));
                continue;
            }
            for (what, d) in devs {
                if d > STATIC_TOLERANCE {
                    failures.push(format!(
                        "{name}: body {dart_name}: {what} deviates by {d:e} from DART"
                    ));
                }
            }
            if dev > worst.0 {
                worst = (dev, format!("{name} {dart_name}"));
            }
            bodies += 1;
        }
        let missing = model.bodies.len().saturating_sub(dart_bodies.len());
        match DART_LEAVES_OUT.iter().find(|(f, ..)| *f == name) {
            Some((_, count, _)) if *count == missing => left_out_seen.push(name.clone()),
            Some((_, count, why)) => failures.push(format!(
                "{name}: DART leaves out {missing} of mbconv's bodies, not the {count} of DART_LEAVES_OUT ({why})"
            )),
            None if missing > 0 => failures.push(format!(
                "{name}: DART leaves out {missing} of mbconv's {} bodies",
                model.bodies.len()
            )),
            None => {}
        }
        for joint_golden in dart["joints"].as_array().expect("joints") {
            let dart_name = joint_golden["name"].as_str().expect("name");
            let ours = our_name(dart_name, world);
            let Some(axes) = model
                .joints
                .iter()
                .find(|j| j.name == ours)
                .and_then(|j| world_axes(&model, j))
            else {
                failures.push(format!(
                    "{name}: DART's joint {dart_name} has no axes in mbconv ({ours})"
                ));
                continue;
            };
            let theirs: Vec<Vec<f64>> = joint_golden["axes"]
                .as_array()
                .expect("axes")
                .iter()
                .map(dart_floats)
                .collect();
            if theirs.len() != axes.len() {
                failures.push(format!(
                    "{name}: {dart_name}: {} axes in DART, {} in mbconv",
                    theirs.len(),
                    axes.len()
                ));
                continue;
            }
            let dev = axis_deviation(&axes, &theirs);
            match DART_AXIS_DISAGREEMENTS
                .iter()
                .find(|(f, j, ..)| *f == name && *j == dart_name)
            {
                Some((_, _, measured, why)) => {
                    if (dev - measured).abs() > STATIC_TOLERANCE {
                        failures.push(format!(
                            "{name}: {dart_name}: axis deviates by {dev:e}, not the {measured:e} of DART_AXIS_DISAGREEMENTS ({why:?})"
                        ));
                    }
                    let again = |m: &mbconv_ir::Model| {
                        let axes = world_axes(m, m.joints.iter().find(|j| j.name == ours)?)?;
                        Some(axis_deviation(&axes, &theirs))
                    };
                    if let Some(wrong) = check_reason(&path, *why, joint_golden, again) {
                        failures.push(format!("{name}: {dart_name} ({why:?}): {wrong}"));
                    }
                    axes_seen.push((name.clone(), dart_name.to_owned()));
                }
                None => {
                    if dev > STATIC_TOLERANCE {
                        failures.push(format!(
                            "{name}: joint {dart_name}: axis deviates by {dev:e} from DART"
                        ));
                    }
                    if dev > worst_axis.0 {
                        worst_axis = (dev, format!("{name} {dart_name}"));
                    }
                    joints += 1;
                }
            }
        }
        files += 1;
    }
    eprintln!(
        "DART: {files} files loaded and compared, {bodies} bodies agree (worst relative deviation {:e}: {}), \
         {joints} joint axes agree (worst {:e}: {}); listed: {} refused by DART, {} refused by mbconv, {} bodies disagree, {} files with bodies left out, {} axes disagree",
        worst.0,
        worst.1,
        worst_axis.0,
        worst_axis.1,
        refused_seen.len(),
        read_though_refused_seen.len(),
        disagreements_seen.len(),
        left_out_seen.len(),
        axes_seen.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every listed entry was met (without the corpus, only the fixtures' entries can be).
    let seen = |f: &str| f.starts_with("fixtures__") || corpus;
    let counts = [
        (
            DART_REFUSES.iter().filter(|(f, ..)| seen(f)).count(),
            refused_seen.len(),
            "DART_REFUSES",
        ),
        (
            DART_DISAGREEMENTS.iter().filter(|(f, ..)| seen(f)).count(),
            disagreements_seen.len(),
            "DART_DISAGREEMENTS",
        ),
        (
            DART_LEAVES_OUT.iter().filter(|(f, ..)| seen(f)).count(),
            left_out_seen.len(),
            "DART_LEAVES_OUT",
        ),
        (
            DART_AXIS_DISAGREEMENTS.iter().filter(|(f, ..)| seen(f)).count(),
            axes_seen.len(),
            "DART_AXIS_DISAGREEMENTS",
        ),
    ];
    for (listed, met, table) in counts {
        assert_eq!(listed, met, "{table} lists entries that were not met");
    }
    assert!(files >= 2, "only {files} files compared with DART");
}
