//! Meshes carried through the writers into another folder: every mesh the source resolves is
//! named by the written file where a loader finds it (referenced where it is, copied with
//! `assets=copy`, converted for MuJoCo when it cannot decode the file), nothing is lost, the
//! files are written with the model and never half of them; MuJoCo loads the written MJCF with
//! its meshes (when an oracle Python with `mujoco` is there: `$MBCONV_ORACLE_PYTHON`, else
//! `target/oracle-venv`). On the fixture `fixtures/urdf/mesh_assets/` (a binary STL by
//! `package://`, a COLLADA mesh in millimetres and an ASCII STL) and, when the shared corpus is
//! there, on the example-robot-data URDFs of `corpus/urdf` and the Menagerie models of
//! `corpus/mjcf/menagerie`; when `cargo xtask download example-robot-data` has unpacked the
//! wheel into `target/downloads`, on every URDF of it.
#![allow(clippy::unwrap_used)]

use mbconv::files::Input;
use mbconv::ir::format::kit::package_uri_with_its_name;
use mbconv::ir::model::geometry::Geometry;
use mbconv::{Model, Options, ReadOptions, Settings};
use std::path::{Path, PathBuf};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/urdf/mesh_assets")
}

/// Conversion settings reading with `package_path`.
fn with_packages(dir: &Path) -> Options {
    let mut options = Options::default();
    options.read.set("package_path", dir.display().to_string());
    options
}

/// The model at `path` read (and admitted) with reader settings `read`.
fn read_with(path: &Path, read: &Settings) -> Result<Model, mbconv::Error> {
    let pipeline = mbconv::Pipeline::new();
    let options = ReadOptions {
        settings: read.clone(),
        ..ReadOptions::default()
    };
    let loaded = pipeline.read(&Input::File(path.to_path_buf()), &options)?;
    loaded.admit(false)?;
    Ok(loaded.imported.model)
}

/// The reader settings that read `out` back: the package path for URDF.
fn read_back_settings(out: &Path, options: &Options) -> Settings {
    if out.extension().is_some_and(|e| e == "urdf") {
        options.read.clone()
    } else {
        Settings::default()
    }
}

/// The mesh references of `model`: (uri, resolved path, scale).
fn meshes(model: &Model) -> Vec<(String, Option<String>, [f64; 3])> {
    model
        .bodies
        .iter()
        .flat_map(|b| &b.shapes)
        .filter_map(|s| match &s.geometry {
            Geometry::Mesh(m) | Geometry::ConvexHull(m) => {
                Some((m.uri.clone(), m.resolved_path.clone(), m.scale))
            }
            _ => None,
        })
        .collect()
}

/// Converts `input` into `out` and reads the written file back; asserts that no mesh was lost
/// and that every mesh the source resolves is found from the written file (a file there, or
/// the `package://` URI the source resolved, kept). Returns the conversion's finding codes
/// and the model read back.
fn convert_and_read_back(input: &Path, out: &Path, options: &Options) -> (Vec<String>, Model) {
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let conversion =
        mbconv::convert(input, out, options).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let codes: Vec<String> = conversion
        .report
        .findings
        .iter()
        .map(|f| f.code.clone())
        .collect();
    let lost: Vec<&str> = conversion
        .report
        .findings
        .iter()
        .filter(|f| f.code.ends_with("mesh_lost"))
        .map(|f| f.message.as_str())
        .collect();
    assert!(
        lost.is_empty(),
        "{} -> {}: {lost:?}",
        input.display(),
        out.display()
    );
    let back = read_with(out, &read_back_settings(out, options))
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let source = meshes(&conversion.model);
    let written = meshes(&back);
    let resolved_in_source = source.iter().filter(|m| m.1.is_some()).count();
    let nowhere: Vec<&String> = written
        .iter()
        .filter(|m| {
            let file = m.1.as_deref().is_some_and(|p| Path::new(p).is_file());
            // A URI as the source wrote it (`package:///NAME/...` with its package's name).
            let kept = |s: &String| *s == m.0 || package_uri_with_its_name(s).as_ref() == Some(&m.0);
            let kept_uri = m.0.contains("://") && source.iter().any(|s| kept(&s.0) && s.1.is_some());
            !file && !kept_uri
        })
        .map(|m| &m.0)
        .collect();
    assert!(
        nowhere.is_empty() || resolved_in_source == 0,
        "{}: written mesh references that point nowhere: {nowhere:?}",
        out.display()
    );
    assert!(
        written.len() >= resolved_in_source,
        "{}: {} meshes written, {resolved_in_source} resolved in the source",
        out.display(),
        written.len()
    );
    (codes, back)
}

/// The oracle Python when it imports `mujoco`.
fn mujoco_python() -> Option<PathBuf> {
    let python = std::env::var_os("MBCONV_ORACLE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/oracle-venv/bin/python"));
    let ok = std::process::Command::new(&python)
        .args(["-c", "import mujoco"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "notice: no Python with mujoco ({}); MuJoCo's load skipped",
            python.display()
        );
    }
    ok.then_some(python)
}

/// MuJoCo's count of meshes and mesh geoms in the model at `path`, or its error.
fn mujoco_meshes(python: &Path, path: &Path) -> Result<(usize, usize), String> {
    let script = "import sys, mujoco\nm = mujoco.MjModel.from_xml_path(sys.argv[1])\n\
                  print(m.nmesh, int((m.geom_type == mujoco.mjtGeom.mjGEOM_MESH).sum()))";
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .arg(path)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr)
            .lines()
            .last()
            .unwrap_or_default()
            .to_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let numbers: Vec<usize> = text.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    Ok((numbers[0], numbers[1]))
}

#[test]
fn the_fixture_s_meshes_reach_mjcf_urdf_and_sdf_in_another_folder() {
    let input = fixture_dir().join("robot.urdf");
    let options = with_packages(&fixture_dir());
    let dir = tempfile::tempdir().unwrap();

    // MJCF: the package:// STL is referenced by path, the COLLADA and ASCII STL converted.
    let out = dir.path().join("out/robot.xml");
    let mut to_mjcf = options.clone();
    to_mjcf.to = Some("mjcf".into());
    let (codes, back) = convert_and_read_back(&input, &out, &to_mjcf);
    assert!(codes.iter().any(|c| c == "mjcf.mesh_referenced"), "{codes:?}");
    assert_eq!(
        codes.iter().filter(|c| *c == "mjcf.mesh_converted").count(),
        2,
        "{codes:?}"
    );
    assert!(dir.path().join("out/robot_meshes/arm.dae.stl").is_file());
    assert!(dir.path().join("out/robot_meshes/foot_ascii.stl.stl").is_file());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains(r#"file="robot_meshes/arm.dae.stl""#), "{text}");
    assert!(text.contains("mesh_assets_demo/meshes/base.stl"), "{text}");
    assert_eq!(meshes(&back).len(), 4);
    // The COLLADA box (millimetres, moved 100 mm up by its node) is in metres in the STL.
    let arm = mbconv_mesh_aabb(&dir.path().join("out/robot_meshes/arm.dae.stl"));
    assert!(
        (arm.0[2] - 0.095).abs() < 1e-6 && (arm.1[0] - 0.02).abs() < 1e-6,
        "{arm:?}"
    );
    if let Some(python) = mujoco_python() {
        // base.stl at two scales, arm, foot: four meshes, four mesh geoms.
        assert_eq!(mujoco_meshes(&python, &out), Ok((4, 4)));
    }

    // URDF and SDF, copying: the written folder holds every mesh it names.
    for name in ["copied.urdf", "copied.sdf", "copied.xml"] {
        let mut copy = options.clone();
        copy.write.set("assets", "copy");
        if name.ends_with(".xml") {
            copy.to = Some("mjcf".into());
        }
        let out = dir.path().join(format!("copies-{name}")).join(name);
        let (codes, back) = convert_and_read_back(&input, &out, &copy);
        assert!(
            codes.iter().any(|c| c.ends_with(".mesh_copied")),
            "{name}: {codes:?}"
        );
        for (uri, resolved, _) in meshes(&back) {
            assert!(uri.starts_with("copied_meshes/"), "{name}: {uri}");
            assert!(resolved.is_some_and(|p| Path::new(&p).is_file()), "{name}: {uri}");
        }
    }
    // Referencing: URDF keeps the package:// URI and names the relative meshes from the
    // written file.
    let out = dir.path().join("ref/robot.urdf");
    let (_, back) = convert_and_read_back(&input, &out, &options);
    let uris: Vec<String> = meshes(&back).into_iter().map(|m| m.0).collect();
    assert!(
        uris.contains(&"package://mesh_assets_demo/meshes/base.stl".to_owned()),
        "{uris:?}"
    );
    assert!(uris.iter().any(|u| u.starts_with("../")), "{uris:?}");
}

#[test]
fn a_mesh_that_cannot_be_written_leaves_no_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    // The input and its meshes in a folder of their own; a mesh goes away after reading
    // would be a race, so the copy's source is made unreadable by being a folder.
    let src = dir.path().join("src");
    let meshes_dir = src.join("mesh_assets_demo/meshes");
    std::fs::create_dir_all(&meshes_dir).unwrap();
    for f in ["arm.dae", "base.stl", "foot_ascii.stl"] {
        std::fs::copy(
            fixture_dir().join("mesh_assets_demo/meshes").join(f),
            meshes_dir.join(f),
        )
        .unwrap();
    }
    std::fs::copy(fixture_dir().join("robot.urdf"), src.join("robot.urdf")).unwrap();
    let mut options = with_packages(&src);
    options.write.set("assets", "copy");
    // The second copy's place is taken: the whole set is refused before anything is written.
    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(out_dir.join("robot_meshes")).unwrap();
    std::fs::write(out_dir.join("robot_meshes/base.stl"), "keep me").unwrap();
    let err = mbconv::convert(src.join("robot.urdf"), out_dir.join("robot.sdf"), &options).unwrap_err();
    assert!(matches!(err, mbconv::Error::Exists { .. }), "{err}");
    let mut left: Vec<String> = walk(&out_dir);
    left.sort();
    assert_eq!(left, ["robot_meshes/base.stl"]);
    assert_eq!(
        std::fs::read_to_string(out_dir.join("robot_meshes/base.stl")).unwrap(),
        "keep me"
    );
}

/// The files under `dir`, relative to it.
fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out
}

/// The box around a binary STL's corners (read by hand: this crate does not depend on the
/// mesh crate).
fn mbconv_mesh_aabb(path: &Path) -> ([f64; 3], [f64; 3]) {
    let bytes = std::fs::read(path).unwrap();
    let count = u32::from_le_bytes(bytes[80..84].try_into().unwrap()) as usize;
    assert_eq!(bytes.len(), 84 + 50 * count);
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for t in 0..count {
        for corner in 1..4 {
            for k in 0..3 {
                let at = 84 + 50 * t + 12 * corner + 4 * k;
                let x = f64::from(f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()));
                lo[k] = lo[k].min(x);
                hi[k] = hi[k].max(x);
            }
        }
    }
    (lo, hi)
}

/// Every model of a corpus folder with meshes, converted to MJCF, URDF and SDF into another
/// folder: no mesh lost, every resolved mesh found from the written file, and MuJoCo loads
/// the MJCF with as many meshes as mbconv wrote. Returns the number of models with a resolved
/// mesh, whose conversions were checked.
fn corpus_models(models: &[PathBuf], read: &Options, targets: &[&str]) -> usize {
    let python = mujoco_python();
    let dir = tempfile::tempdir().unwrap();
    let mut with_meshes = std::collections::BTreeSet::new();
    for (i, input) in models.iter().enumerate() {
        for target in targets {
            let mut options = read.clone();
            options.to = Some((*target).to_owned());
            let out = dir.path().join(format!("{i}/model.{target}"));
            let Ok(model) = read_with(input, &read.read) else {
                continue; // a file mbconv refuses is another test's business
            };
            // A mesh the source resolves is a file that is there (romeo_laas_small.urdf names
            // file:///usr/Romeo/... meshes of a machine that is not this one).
            let there = |m: &(String, Option<String>, [f64; 3])| {
                m.1.as_deref().is_some_and(|p| Path::new(p).is_file())
            };
            if !meshes(&model).iter().any(there) {
                continue;
            }
            with_meshes.insert(i);
            let (_, back) = convert_and_read_back(input, &out, &options);
            if *target == "mjcf"
                && let Some(python) = &python
            {
                let files: std::collections::BTreeSet<(String, String)> = meshes(&back)
                    .into_iter()
                    .map(|m| (m.0, format!("{:?}", m.2)))
                    .collect();
                let (nmesh, _) =
                    mujoco_meshes(python, &out).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
                assert_eq!(nmesh, files.len(), "{}", input.display());
            }
        }
    }
    with_meshes.len()
}

#[test]
fn example_robot_data_meshes_reach_every_writer() {
    let Some(root) = mbconv_test_support::corpus::corpus("urdf/example-robot-data") else {
        return;
    };
    let models = mbconv_test_support::corpus::files_with_extension(&root, "urdf");
    let read = with_packages(root.parent().unwrap());
    corpus_models(&models, &read, &["mjcf", "urdf", "sdf"]);
}

#[test]
fn menagerie_meshes_reach_every_writer() {
    let Some(root) = mbconv_test_support::corpus::corpus("mjcf/menagerie") else {
        return;
    };
    let mut models = mbconv_test_support::corpus::files_with_extension(&root, "xml");
    // A few robots keep the test short; `cargo xtask field` sweeps them all.
    models.retain(|m| m.file_name().is_some_and(|n| n != "scene.xml"));
    models.truncate(8);
    corpus_models(&models, &Options::default(), &["mjcf", "urdf", "sdf"]);
}

/// Every robot of a whole Menagerie checkout (`$MBCONV_MENAGERIE`, as `cargo xtask field
/// --menagerie` sweeps it: the `.xml` files at the top of each robot's folder), skipped
/// without one. A model that names a mesh file the checkout lacks (a snapshot without its
/// large files) is left out, named: MuJoCo refuses its source too.
#[test]
fn every_menagerie_robot_s_meshes_reach_every_writer() {
    let Some(root) = mbconv_test_support::corpus::menagerie_checkout() else {
        return;
    };
    let mut models = Vec::new();
    let mut robots: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    robots.sort();
    for robot in robots {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&robot)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "xml"))
            .collect();
        files.sort();
        models.extend(files);
    }
    let complete: Vec<PathBuf> = models
        .iter()
        .filter(|path| {
            let Ok(model) = read_with(path, &Settings::default()) else {
                return false;
            };
            let absent = meshes(&model)
                .into_iter()
                .filter(|m| !m.1.as_deref().is_some_and(|p| Path::new(p).is_file()))
                .count();
            if absent > 0 {
                eprintln!(
                    "notice: {} names {absent} mesh files this checkout lacks; left out",
                    path.display()
                );
            }
            absent == 0
        })
        .cloned()
        .collect();
    let checked = corpus_models(&complete, &Options::default(), &["mjcf", "urdf", "sdf"]);
    eprintln!(
        "{checked} of {} Menagerie files have meshes, all there; each checked ({} left out)",
        models.len(),
        models.len() - complete.len()
    );
    assert!(
        checked > 0,
        "no Menagerie model with meshes under {}",
        root.display()
    );
}

/// Every URDF of example-robot-data 6.0.0 (the wheel `cargo xtask download example-robot-data`
/// unpacks; skipped without it), read with the package path `cargo xtask field` gives it.
#[test]
fn every_example_robot_data_robot_s_meshes_reach_every_writer() {
    let Some(share) = mbconv_test_support::corpus::example_robot_data_share() else {
        return;
    };
    let robots = share.join("example-robot-data/robots");
    let models = mbconv_test_support::corpus::files_with_extension(&robots, "urdf");
    assert!(
        models.len() >= 69,
        "{} URDFs in {}",
        models.len(),
        robots.display()
    );
    let mut read = Options::default();
    read.read.set(
        "package_path",
        format!("{}:{}", share.display(), robots.display()),
    );
    let checked = corpus_models(&models, &read, &["mjcf", "urdf", "sdf"]);
    eprintln!(
        "{checked} of {} URDFs have meshes the source resolves; each checked",
        models.len()
    );
    assert!(checked >= 60, "{checked} URDFs with resolved meshes");
}

/// A package URI with an empty package name (`package:///NAME/...`, as example-robot-data's
/// talos_full_v2.urdf names its 93 meshes), which Pinocchio and mbconv read and Drake and ROS
/// refuse, is written with the package's name, and says so.
#[test]
fn a_package_uri_with_an_empty_package_name_is_written_with_the_name() {
    let fixtures = mbconv_test_support::fixtures_root();
    let input = fixtures.join("urdf/lenient/package_by_manifest.urdf");
    let dir = tempfile::tempdir().unwrap();
    for target in ["urdf", "sdf"] {
        let mut options = with_packages(&fixtures.join("urdf/packages"));
        options.to = Some(target.to_owned());
        let out = dir.path().join(format!("model.{target}"));
        let conversion = mbconv::convert(&input, &out, &options).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            text.contains("package://demo_description/meshes/tri.obj"),
            "{text}"
        );
        assert!(!text.contains("package:///"), "{text}");
        assert!(
            conversion.report.findings.iter().any(|f| {
                f.code == format!("{target}.mesh_path_rebased") && f.message.contains("empty package name")
            }),
            "{:?}",
            conversion.report.findings
        );
    }
}

/// A mesh file that does not exist (a relative STL never shipped, an absolute path of another
/// machine, as example-robot-data's romeo_laas_small names `/usr/Romeo/.../Torso.mesh`) is
/// left out of the MJCF with a `mjcf.mesh_lost` that says the file is missing, not that its
/// format is unknown: MuJoCo refuses a model naming a missing file, and loads what is written.
#[test]
fn a_missing_mesh_file_is_left_out_of_the_mjcf_and_named_missing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("missing.urdf");
    std::fs::write(
        &input,
        r#"<robot name="missing">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="meshes/never_shipped.stl"/></geometry></collision>
    <visual><geometry><mesh filename="/nowhere/on/this/machine/Torso.mesh"/></geometry></visual>
    <visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual>
  </link>
</robot>"#,
    )
    .unwrap();
    let options = Options {
        to: Some("mjcf".into()),
        ..Options::default()
    };
    let out = dir.path().join("out/missing.xml");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let conversion = mbconv::convert(&input, &out, &options).unwrap();
    let lost: Vec<&str> = conversion
        .report
        .findings
        .iter()
        .filter(|f| f.code == "mjcf.mesh_lost")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(lost.len(), 2, "{lost:?}");
    for file in ["never_shipped.stl", "Torso.mesh"] {
        assert!(
            lost.iter()
                .any(|m| m.contains("does not exist") && m.contains(file)),
            "{file}: {lost:?}"
        );
    }
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("<mesh "), "{text}");
    if let Some(python) = mujoco_python() {
        assert_eq!(mujoco_meshes(&python, &out), Ok((0, 0)));
    }
}
