//! The MJCF writer: MJCF -> IR -> MJCF -> IR gives the same model (every fixture, every
//! corpus file the reader reads), writing is deterministic, and every IR, SKEL and Chrono
//! fixture written as MJCF reads back as a model that moves like the lowered one (emit loses
//! nothing more than lower reported).
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{Model, Pose};
use mbconv_mjcf::MjcfFormat;
use std::path::PathBuf;

/// Poses, axes and frames may differ by rounding: the writer states each body relative to its
/// parent (`parent⁻¹ · body`) and the reader composes it back.
const POSE_TOLERANCE: f64 = 1e-12;

fn fixtures(dir: &str, ext: &str) -> Vec<PathBuf> {
    mbconv_test_support::files_with_extension(&mbconv_test_support::fixtures_root().join(dir), ext)
}

fn corpus_models() -> Vec<PathBuf> {
    let Some(readme) = mbconv_test_support::corpus_file("mjcf/README.md") else {
        return Vec::new();
    };
    let root = readme.parent().unwrap().to_path_buf();
    std::fs::read_to_string(&readme)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|r| r.split('`').next())
        .filter(|f| f.ends_with(".xml"))
        .map(|f| root.join(f))
        .collect()
}

/// The model mbconv's URDF reader makes of `text` (named `name`).
fn read_urdf(name: &str, text: &str) -> Model {
    let registry = mbconv::formats();
    registry
        .read(
            registry.get("urdf").unwrap(),
            &Source::from_string(name, text),
            &Options::default(),
        )
        .unwrap()
        .model
}

fn pose_deviation(a: &Pose, b: &Pose) -> f64 {
    let t = (a.translation - b.translation).amax();
    let q = (a.rotation.quaternion().coords - b.rotation.quaternion().coords)
        .amax()
        .min((a.rotation.quaternion().coords + b.rotation.quaternion().coords).amax());
    t.max(q)
}

/// The largest deviation between two models that should be the same, or what differs.
fn compare(a: &Model, b: &Model) -> Result<f64, String> {
    let mut worst = 0.0_f64;
    if a.bodies.len() != b.bodies.len() || a.joints.len() != b.joints.len() {
        let names = |m: &Model| -> Vec<String> {
            m.bodies
                .iter()
                .map(|x| x.name.clone())
                .chain(m.joints.iter().map(|j| j.name.clone()))
                .collect()
        };
        let (x, y) = (names(a), names(b));
        let gone: Vec<&String> = x.iter().filter(|n| !y.contains(n)).collect();
        let new: Vec<&String> = y.iter().filter(|n| !x.contains(n)).collect();
        return Err(format!(
            "bodies or joints differ: {gone:?} left out, {new:?} added"
        ));
    }
    if a.simulation.gravity != b.simulation.gravity || a.simulation.time_step != b.simulation.time_step {
        return Err("simulation settings".into());
    }
    for x in &a.bodies {
        let y = b.body(&x.name).ok_or(format!("no body {}", x.name))?;
        worst = worst.max(pose_deviation(&x.pose, &y.pose));
        let (i, k) = (&x.inertial, &y.inertial);
        if i.mass != k.mass || i.com != k.com || x.fixed != y.fixed {
            return Err(format!("body {}: mass, com or fixed", x.name));
        }
        let dev = (i.inertia_in_body_axes() - k.inertia_in_body_axes()).amax();
        if dev > 0.0 {
            worst = worst.max(dev);
        }
        if x.shapes.len() != y.shapes.len() || x.frames.len() != y.frames.len() {
            return Err(format!("body {}: shapes or frames", x.name));
        }
        for (s, t) in x.shapes.iter().zip(&y.shapes) {
            // The written text is read from memory: mesh files are not resolved on disk.
            let unresolved = |g: &mbconv_ir::Geometry| match g {
                mbconv_ir::Geometry::Mesh(m) => {
                    let mut m = m.clone();
                    m.resolved_path = None;
                    mbconv_ir::Geometry::Mesh(m)
                }
                other => other.clone(),
            };
            if unresolved(&s.geometry) != unresolved(&t.geometry)
                || s.role != t.role
                || s.appearance != t.appearance
                || s.name != t.name
            {
                return Err(format!("body {}: shape {:?} vs {:?}", x.name, s, t));
            }
            worst = worst.max(pose_deviation(&s.pose, &t.pose));
        }
        for (f, g) in x.frames.iter().zip(&y.frames) {
            if f.name != g.name {
                return Err(format!("body {}: frame {} vs {}", x.name, f.name, g.name));
            }
            worst = worst.max(pose_deviation(&f.pose, &g.pose));
        }
    }
    for x in &a.joints {
        let y = b.joint(&x.name).ok_or(format!("no joint {}", x.name))?;
        // A weld loop may come back with its two bodies exchanged (the writer puts the world
        // on body2's side, MJCF's default): the same constraint when its relative pose is
        // inverted.
        let swapped_weld = matches!(x.kind, mbconv_ir::JointKind::Fixed)
            && x.extras.get("mjcf.equality").is_some()
            && x.parent == y.child
            && x.child == y.parent;
        if swapped_weld && x.enabled == y.enabled && x.kind.type_name() == y.kind.type_name() {
            let relative = |j: &mbconv_ir::Joint| j.parent_frame * j.child_frame.inverse();
            worst = worst.max(pose_deviation(&relative(x), &relative(y).inverse()));
            continue;
        }
        if x.parent != y.parent || x.child != y.child || x.enabled != y.enabled {
            return Err(format!("joint {}: bodies or enabled", x.name));
        }
        if x.kind.type_name() != y.kind.type_name() || x.q0 != y.q0 || x.v0 != y.v0 {
            return Err(format!("joint {}: kind or state", x.name));
        }
        for ((_, u), (_, v)) in x.kind.axes().iter().zip(y.kind.axes()) {
            worst = worst.max((u - v).amax());
        }
        if x.dofs.len() != y.dofs.len() {
            return Err(format!("joint {}: dofs {:?} vs {:?}", x.name, x.dofs, y.dofs));
        }
        for (d, e) in x.dofs.iter().zip(&y.dofs) {
            if d != e {
                return Err(format!("joint {}: dof {d:?} vs {e:?}", x.name));
            }
        }
        worst = worst.max(pose_deviation(&x.parent_frame, &y.parent_frame));
        worst = worst.max(pose_deviation(&x.child_frame, &y.child_frame));
    }
    if a.motors.len() != b.motors.len() {
        return Err("motors".into());
    }
    Ok(worst)
}

fn write(model: &Model) -> String {
    MjcfFormat.write(model, &Options::default()).unwrap().text
}

#[test]
fn mjcf_round_trips_through_the_ir() {
    let mut files = fixtures("mjcf", "xml");
    files.retain(|p| p.parent().is_some_and(|d| d.ends_with("mjcf")));
    let fixture_count = files.len();
    files.extend(corpus_models());
    let (mut done, mut worst) = (0, (0.0_f64, String::new()));
    let mut failures = Vec::new();
    for path in files {
        let Ok(first) = MjcfFormat.read(&Source::from_path(&path).unwrap(), &Options::default()) else {
            continue; // refused by the reader (tests/corpus.rs says why)
        };
        let text = write(&first.model);
        assert_eq!(text, write(&first.model), "{}: not deterministic", path.display());
        // Read back next to the original, so that mesh paths resolve the same.
        let name = path.with_file_name("written.xml");
        let second = MjcfFormat
            .read(
                &Source::from_string(name.to_string_lossy(), &text),
                &Options::default(),
            )
            .unwrap_or_else(|e| panic!("{}: the written MJCF is refused: {e}\n{text}", path.display()));
        let dev = match compare(&first.model, &second.model) {
            Ok(dev) => dev,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        assert!(dev <= POSE_TOLERANCE, "{}: deviation {dev:e}", path.display());
        if dev > worst.0 {
            worst = (dev, path.display().to_string());
        }
        done += 1;
    }
    eprintln!(
        "{done} MJCF files round-tripped; worst deviation {:e} ({})",
        worst.0, worst.1
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(done >= fixture_count);
}

fn other_format_models() -> Vec<(String, Model)> {
    let mut out = Vec::new();
    for p in fixtures("ir", "json") {
        let text = std::fs::read_to_string(&p).unwrap();
        out.push((p.display().to_string(), mbconv_ir::mbir::from_str(&text).unwrap()));
    }
    for p in fixtures("skel", "skel") {
        if let Ok(i) = mbconv_skel::SkelFormat.read(&Source::from_path(&p).unwrap(), &Options::default()) {
            out.push((p.display().to_string(), i.model));
        }
    }
    for p in fixtures("chrono", "yaml") {
        if let Ok(i) = mbconv_chrono::ChronoFormat.read(&Source::from_path(&p).unwrap(), &Options::default())
        {
            out.push((p.display().to_string(), i.model));
        }
    }
    out
}

/// World positions of every body's centre of mass every 0.1 s over 0.5 s (RK4, 1e-3 s).
/// Each body's name and its centre of mass over time.
type Tracks = Vec<(String, Vec<[f64; 3]>)>;

fn motion(model: &Model) -> Result<Tracks, String> {
    let options = mbconv_solver::SimulateOptions {
        duration: 0.5,
        dt: 1e-3,
        integrator: mbconv_solver::Integrator::Rk4,
        every: 100,
        energy: false,
        joint_limits: false,
        max_steps: None,
    };
    let names: Vec<String> = mbconv_solver::Model::new(model)
        .map_err(|e| e.to_string())?
        .body_names()
        .map(str::to_owned)
        .collect();
    let mut samples: Vec<Vec<[f64; 7]>> = Vec::new();
    mbconv_solver::simulate(model, &options, &mut |s| samples.push(s.poses.to_vec()))
        .map_err(|e| e.to_string())?;
    Ok(names
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            let com = model.body(&n).map(|b| b.inertial.com).unwrap_or_default();
            let track = samples
                .iter()
                .map(|s| {
                    let p = s[i];
                    let q = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
                        p[3], p[4], p[5], p[6],
                    ));
                    let c = q * com + nalgebra::Vector3::new(p[0], p[1], p[2]);
                    [c.x, c.y, c.z]
                })
                .collect();
            (n, track)
        })
        .collect())
}

#[test]
fn other_formats_written_as_mjcf_read_back_and_move_like_the_lowered_model() {
    let models = other_format_models();
    assert!(models.len() >= 20, "{} models", models.len());
    let (mut moved, mut worst) = (0, (0.0_f64, String::new()));
    for (name, model) in models {
        let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
        let exported = MjcfFormat.emit(&lowered.model, &Options::default()).unwrap();
        let text = exported.text.clone();
        // Read from the keyframe `initial` when the writer stated initial velocities in one.
        let options = MjcfFormat.read_back_options(&Options::default(), &exported);
        let back = MjcfFormat
            .read(&Source::from_string("written.xml", text.clone()), &options)
            .unwrap_or_else(|e| panic!("{name}: the written MJCF is refused: {e}\n{text}"))
            .model;
        let report = mbconv_ir::validate(&back);
        assert!(!report.has_errors(), "{name}: {:?}", report.findings);
        let (Ok(a), Ok(b)) = (motion(&lowered.model), motion(&back)) else {
            continue;
        };
        for (body, track) in &a {
            let Some((_, other)) = b.iter().find(|(n, _)| n == body) else {
                continue;
            };
            for (p, q) in track.iter().zip(other) {
                let d = (0..3).map(|k| (p[k] - q[k]).abs()).fold(0.0, f64::max);
                assert!(d <= 1e-6, "{name}: body {body} deviates by {d:e} m\n{text}");
                if d > worst.0 {
                    worst = (d, format!("{name} {body}"));
                }
            }
        }
        moved += 1;
    }
    eprintln!(
        "{moved} models written as MJCF move as lowered; worst {:e} m ({})",
        worst.0, worst.1
    );
    assert!(moved >= 10);
}

#[test]
fn the_feature_table_and_the_traced_lowering_agree() {
    let cases = other_format_models();
    mbconv_ir::format::kit::verify_traced_lowerings(
        &MjcfFormat,
        &cases,
        "disable_immobile_groups",
        "chain_links",
    )
    .unwrap();
    let table = MjcfFormat.feature_support();
    for f in &mbconv_ir::format::support::Feature::ALL {
        assert!(
            table.iter().any(|r| r.feature == *f),
            "{f:?} missing from the table"
        );
    }
}

/// A mesh file the reader found is named relative to where the MJCF is saved, where MuJoCo
/// looks for it.
#[test]
fn mesh_files_are_named_relative_to_the_output() {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/skel/shapes.skel");
    let model = mbconv_skel::SkelFormat
        .read(&Source::from_path(&source).unwrap(), &Options::default())
        .unwrap()
        .model;
    let out_dir = std::env::temp_dir().join("mbconv-mjcf-relative-mesh/out");
    let mut options = Options::default();
    options.output_path = Some(out_dir.join("shapes.xml"));
    let lowered = MjcfFormat.lower(&model, &options).unwrap();
    let text = MjcfFormat.emit(&lowered.model, &options).unwrap().text;
    let file = text
        .split("<mesh ")
        .nth(1)
        .and_then(|m| m.split("file=\"").nth(1))
        .and_then(|f| f.split('"').next())
        .unwrap();
    assert!(!file.starts_with('/'), "{file}");
    let named = std::path::absolute(out_dir.join(file)).unwrap();
    let expected = std::path::absolute(source.parent().unwrap().join("meshes/wedge.obj")).unwrap();
    let normal = |p: &std::path::Path| {
        p.components().fold(PathBuf::new(), |mut acc, c| {
            match c {
                std::path::Component::ParentDir => {
                    acc.pop();
                }
                std::path::Component::CurDir => {}
                other => acc.push(other),
            }
            acc
        })
    };
    assert_eq!(normal(&named), normal(&expected), "{text}");
}

#[test]
fn the_links_of_unnamed_joints_are_named_as_the_reader_names_them() {
    // Several unnamed joints in one body: the reader names the links between them
    // `b.joint`, `b/b.joint`, `b/b.joint#2`, …; the writer's lowering must name them the same,
    // or the check finds bodies missing after the conversion.
    let text = r#"<mujoco><worldbody>
      <body name="b"><joint/><joint axis="1 0 0"/><joint axis="0 1 0"/><joint axis="1 1 0"/>
        <geom size="0.1"/></body>
      <body><joint/><joint type="slide"/><geom size="0.1"/></body>
    </worldbody></mujoco>"#;
    let read = MjcfFormat
        .read(&Source::from_string("chain.xml", text), &Options::default())
        .unwrap();
    let lowered = MjcfFormat.lower(&read.model, &Options::default()).unwrap().model;
    let written = MjcfFormat.emit(&lowered, &Options::default()).unwrap().text;
    let back = MjcfFormat
        .read(&Source::from_string("chain.xml", &written), &Options::default())
        .unwrap();
    let names = |m: &Model| {
        let mut names: Vec<String> = m.bodies.iter().map(|b| b.name.clone()).collect();
        names.sort();
        names
    };
    assert_eq!(names(&lowered), names(&back.model), "{written}");
    assert!(names(&back.model).contains(&"b/b.joint#2".to_owned()));
}

#[test]
fn a_negative_primitive_size_is_written_as_its_magnitude_and_a_zero_one_is_left_out() {
    use mbconv_ir::{Body, Geometry, Shape, ShapeRole};
    let mut model = Model::new("sizes");
    let mut body = Body::new("foot");
    body.inertial.mass = 1.0;
    body.shapes.push(Shape::new(
        ShapeRole::Both,
        Geometry::Box {
            size: [0.1, 0.1, -0.2],
        },
    ));
    body.shapes
        .push(Shape::new(ShapeRole::Both, Geometry::Sphere { radius: 0.0 }));
    model.bodies.push(body);
    let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
    assert!(lowered.report.contains("mjcf.shape_size_negated"));
    assert!(lowered.report.contains("mjcf.shape_lost"));
    let shapes = &lowered.model.bodies[0].shapes;
    assert_eq!(shapes.len(), 1);
    assert_eq!(
        shapes[0].geometry,
        Geometry::Box {
            size: [0.1, 0.1, 0.2]
        }
    );
}

#[test]
fn an_open_ball_loop_is_written_closed_where_mujoco_closes_it() {
    use mbconv_ir::{Body, BodyRef, Joint, JointKind};
    use nalgebra::Vector3;
    // Two pendulums side by side, joined by a ball joint whose anchors are 1 mm apart as
    // written: MuJoCo's <connect> joins body1's anchor to the point of body2 there.
    let mut model = Model::new("open_loop");
    for (name, x) in [("left", 0.0), ("right", 0.5)] {
        let mut body = Body::new(name);
        body.inertial.mass = 1.0;
        body.inertial.inertia = mbconv_ir::Inertia::from_moments_products([0.1; 3], [0.0; 3]);
        body.pose = Pose::from_translation(Vector3::new(x, 0.0, -1.0));
        model.bodies.push(body);
        let mut hinge = Joint::new(
            format!("{name}_hinge"),
            JointKind::Revolute { axis: Vector3::y() },
            BodyRef::World,
            BodyRef::body(name),
        );
        hinge.parent_frame = Pose::from_translation(Vector3::new(x, 0.0, 0.0));
        hinge.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
        model.joints.push(hinge);
    }
    let mut link = Joint::new(
        "link",
        JointKind::Spherical,
        BodyRef::body("left"),
        BodyRef::body("right"),
    );
    link.parent_frame = Pose::from_translation(Vector3::new(0.25, 0.0, 0.0));
    link.child_frame = Pose::from_translation(Vector3::new(-0.249, 0.0, 0.0));
    model.joints.push(link);
    let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
    assert!(lowered.report.contains("mjcf.loop_anchor_moved"));
    let moved = lowered.model.joints.iter().find(|j| j.name == "link").unwrap();
    assert!((moved.child_frame.translation - Vector3::new(-0.25, 0.0, 0.0)).norm() < 1e-12);
    let text = MjcfFormat.emit(&lowered.model, &Options::default()).unwrap().text;
    let back = MjcfFormat
        .read(&Source::from_string("loop.xml", &text), &Options::default())
        .unwrap();
    let read = back.model.joints.iter().find(|j| j.name == "link").unwrap();
    assert!(
        (read.child_frame.translation - moved.child_frame.translation).norm() < 1e-12,
        "{text}"
    );
}

#[test]
fn a_shape_with_a_contact_material_and_a_radius_loses_both() {
    use mbconv_ir::{Body, BodyRef, ContactMaterial, Geometry, Joint, JointKind, Shape, ShapeRole};
    let mut model = Model::new("m");
    let mut body = Body::new("ball");
    body.contact_materials.push(ContactMaterial::new("rubber"));
    let mut shape = Shape::new(ShapeRole::Both, Geometry::Sphere { radius: 0.1 });
    shape.contact_material = Some("rubber".into());
    shape.contact_radius = Some(0.01);
    body.shapes.push(shape);
    model.bodies.push(body);
    let hinge = JointKind::Revolute {
        axis: nalgebra::Vector3::y(),
    };
    model
        .joints
        .push(Joint::new("pin", hinge, BodyRef::World, BodyRef::body("ball")));
    let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
    let shape = &lowered.model.bodies[0].shapes[0];
    assert_eq!((&shape.contact_material, shape.contact_radius), (&None, None));
    assert!(lowered.report.contains("mjcf.shape_contact_settings_lost"));
}

/// MuJoCo refuses a `fullinertia` whose smallest principal moment is below 1e-14 and reads
/// the same moments as `diaginertia` in their axes (unitree B2's lidar link, 1.6e-15 kg m²
/// with products of 1e-47, made the written file one MuJoCo and mbconv's reader refuse): such a
/// tensor is written in its principal axes, the same tensor to rounding, and reads back.
#[test]
fn a_tiny_tensor_with_products_is_written_in_its_principal_axes() {
    use mbconv_ir::{Body, BodyRef, Inertia, Joint, JointKind};
    let mut model = Model::new("sensor");
    let mut arm = Body::new("arm");
    arm.inertial.mass = 1.0;
    arm.inertial.inertia = Inertia::from_moments_products([0.01, 0.02, 0.015], [0.0; 3]);
    model.bodies.push(arm);
    let mut lidar = Body::new("lidar");
    lidar.inertial.mass = 0.01;
    lidar.inertial.inertia = Inertia::from_moments_products([2e-15, 3e-15, 4e-15], [3e-16, 1e-47, 0.0]);
    lidar.inertial.inertia_rotation = nalgebra::UnitQuaternion::from_euler_angles(0.3, 0.2, 0.1);
    model.bodies.push(lidar);
    let hinge = JointKind::Revolute {
        axis: nalgebra::Vector3::y(),
    };
    model
        .joints
        .push(Joint::new("hinge", hinge, BodyRef::World, BodyRef::body("arm")));
    model.joints.push(Joint::new(
        "mount",
        JointKind::Fixed,
        BodyRef::body("arm"),
        BodyRef::body("lidar"),
    ));
    let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
    assert!(
        lowered
            .report
            .findings
            .iter()
            .any(|f| f.code == "mjcf.inertia_principal_axes"),
        "{:?}",
        lowered.report.findings
    );
    let before = model.bodies[1].inertial.inertia_in_body_axes();
    let body = lowered.model.bodies.iter().find(|b| b.name == "lidar").unwrap();
    let after = body.inertial.inertia_in_body_axes();
    assert!(
        (after - before).amax() <= 1e-12 * before.amax(),
        "{before} {after}"
    );
    let text = write(&model);
    assert!(!text.contains("fullinertia"), "{text}");
    let back = MjcfFormat.read(&Source::from_string("sensor.xml", &text), &Options::default());
    assert!(back.is_ok(), "{text}");
}

#[test]
fn a_finger_made_physical_by_its_welded_tip_carries_the_tip_and_the_tip_is_written_massless() {
    // Wonik's Allegro hand: each finger link's own inertia breaks the triangle inequality
    // (MuJoCo refuses it), the finger with its fixed tip does not. The composite goes on the
    // finger (exactly: one rigid body) instead of the balanced finger, and the tip is an
    // explicit zero <inertial>, which MuJoCo keeps for a body without joints.
    let path = mbconv_test_support::fixtures_root().join("urdf/welded_inertia/fingertip.urdf");
    let registry = mbconv::formats();
    let urdf = registry.get("urdf").unwrap();
    let model = registry
        .read(urdf, &Source::from_path(&path).unwrap(), &Options::default())
        .unwrap()
        .model;
    let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
    let body = |name: &str| lowered.model.bodies.iter().find(|b| b.name == name).unwrap();
    assert!((body("finger").inertial.mass - 0.09).abs() < 1e-15);
    assert_eq!(body("tip").inertial.mass, 0.0);
    let codes: Vec<&str> = lowered.report.findings.iter().map(|f| f.code.as_str()).collect();
    assert!(codes.contains(&"mjcf.inertia_lumped"), "{codes:?}");
    assert!(!codes.contains(&"mjcf.inertia_balanced"), "{codes:?}");
    let written = MjcfFormat.write(&model, &Options::default()).unwrap();
    let tip = &written.text[written.text.find("<body name=\"tip\"").unwrap()..];
    assert!(
        tip.lines()
            .nth(1)
            .unwrap()
            .contains("mass=\"0\" diaginertia=\"0 0 0\""),
        "{tip}"
    );
}

#[test]
fn a_moving_body_gets_the_mass_floor_unless_one_welded_part_has_mass_and_inertia_of_its_own() {
    // Held-out round (docs/held-out.md): pioneer-lx-devil.urdf's pan-tilt unit, a massless
    // tilting link carrying a camera frame of mass 0 and inertia 1 kg m². MuJoCo 4.0 weighs each
    // part on its own ("mass and inertia of moving bodies must be larger than mjMINVAL"): the
    // camera's inertia without mass does not count, and the link needs a floor of both.
    let urdf = r#"<robot name="ptu">
      <link name="base"/>
      <link name="tilt"/>
      <link name="camera">
        <inertial><mass value="0"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
      </link>
      <joint name="hinge" type="revolute">
        <parent link="base"/><child link="tilt"/><axis xyz="0 1 0"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/>
      </joint>
      <joint name="mount" type="fixed">
        <parent link="tilt"/><child link="camera"/><origin xyz="0 0 0.1"/>
      </joint>
    </robot>"#;
    let model = read_urdf("ptu.urdf", urdf);
    let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
    let tilt = lowered.model.bodies.iter().find(|b| b.name == "tilt").unwrap();
    let moments = mbconv_ir::validate::principal_moments(&tilt.inertial.inertia_in_body_axes()).unwrap();
    assert!(tilt.inertial.mass >= 1e-10, "{:?}", tilt.inertial);
    assert!(moments[0] >= 1e-10, "{moments:?}");
    let floors: Vec<&str> = lowered
        .report
        .findings
        .iter()
        .filter(|f| f.code == "mjcf.moving_body_mass_floor")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(floors.len(), 1, "{floors:?}");
    assert!(
        floors[0].contains("1e-10 kg of mass and 1e-10 kg m²"),
        "{floors:?}"
    );
}

#[test]
fn a_massless_chain_over_no_mass_keeps_its_links_and_each_gets_the_floor() {
    // Held-out round (docs/held-out.md): pioneer-lx-devil.urdf's Jaco arms, six hinges on links
    // without `<inertial>` down to massless fingers. Merged into one body with the floor, the
    // arm's joint-space inertia is singular where the hinge axes line up (here, a straight
    // planar arm: three parallel hinges move one body in two directions only) and the check
    // could not simulate the written model. Each link keeps its body and its own floor, and
    // the check explains the motion the floor gives the arm by the floor's findings, though
    // the tip carries nothing by then (its mesh is not found, and MJCF loses it) and so had no
    // centre of mass of its own before the floor pass gave it one.
    let urdf = r#"<robot name="arm">
      <link name="base">
        <inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
      </link>
      <link name="upper"/>
      <link name="fore"/>
      <link name="tip">
        <collision><geometry><mesh filename="package://nowhere/tip.stl"/></geometry></collision>
      </link>
      <joint name="shoulder" type="revolute">
        <parent link="base"/><child link="upper"/><axis xyz="0 1 0"/>
        <limit lower="-3" upper="3" effort="1" velocity="1"/>
      </joint>
      <joint name="elbow" type="revolute">
        <parent link="upper"/><child link="fore"/><origin xyz="0.4 0 0"/><axis xyz="0 1 0"/>
        <limit lower="-3" upper="3" effort="1" velocity="1"/>
      </joint>
      <joint name="wrist" type="revolute">
        <parent link="fore"/><child link="tip"/><origin xyz="0.3 0 0"/><axis xyz="0 1 0"/>
        <limit lower="-3" upper="3" effort="1" velocity="1"/>
      </joint>
    </robot>"#;
    let model = read_urdf("arm.urdf", urdf);
    let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
    let floored: Vec<&str> = lowered
        .report
        .findings
        .iter()
        .filter(|f| f.code == "mjcf.moving_body_mass_floor")
        .filter_map(|f| f.path.as_deref())
        .collect();
    assert_eq!(
        floored,
        ["bodies[\"upper\"]", "bodies[\"fore\"]", "bodies[\"tip\"]"],
        "{:?}",
        lowered.report.findings
    );
    let written = MjcfFormat.emit(&lowered.model, &Options::default()).unwrap();
    for link in ["upper", "fore", "tip"] {
        assert!(
            written.text.contains(&format!("<body name=\"{link}\"")),
            "{}",
            written.text
        );
    }
    let settings = mbconv::CheckSettings {
        duration: 0.5,
        ..Default::default()
    };
    let report = mbconv::check(&model, &["mjcf"], &settings).unwrap();
    let target = &report.targets[0];
    assert_eq!(target.verdict, mbconv::Verdict::Explained, "{}", target.message);
    assert!(
        target
            .explained_by
            .iter()
            .any(|e| e.code == "mjcf.moving_body_mass_floor" && e.max_com_error > 1e-6),
        "{:?}",
        target.explained_by
    );
}

/// A body's `quat` is its rotation relative to its parent's (`parent⁻¹ · body`). Where the IR's
/// rotations are a few ulps off unit norm (products of a URDF's `rpy`), that product is too,
/// and MuJoCo's compiler, like the reader, keeps a quaternion within 1e-14 of unit as written:
/// the norm's error then compounded down a chain (Robonaut 2's thumbs read back 61 ulps off,
/// beyond what the check takes for rounding). Written normalised, each body reads back within
/// a few ulps of its rotation however deep it hangs.
#[test]
fn a_deep_chain_of_turned_bodies_reads_back_within_a_few_ulps() {
    use mbconv_ir::{Body, BodyRef, Joint, JointKind};
    use nalgebra::{Quaternion, UnitQuaternion, Vector3};
    let unit = UnitQuaternion::from_euler_angles(0.3, -0.2, 0.9);
    // 2.5 ulps short of unit norm, as a URDF's composed rotations can be.
    let short = UnitQuaternion::new_unchecked(Quaternion::from(unit.quaternion().coords * (1.0 - 5.5e-16)));
    let mut model = Model::new("chain");
    for i in 0..30 {
        let mut body = Body::new(format!("b{i}"));
        body.pose = Pose::new(Vector3::new(0.1 * f64::from(i), 0.0, 0.0), short);
        body.inertial.mass = 1.0;
        body.inertial.inertia = mbconv_ir::Inertia::from_moments_products([0.01; 3], [0.0; 3]);
        let (parent, parent_pose) = match i {
            0 => (BodyRef::World, Pose::identity()),
            _ => (
                BodyRef::body(format!("b{}", i - 1)),
                model.bodies[i as usize - 1].pose,
            ),
        };
        let hinge = JointKind::Revolute { axis: Vector3::z() };
        let mut joint = Joint::new(format!("j{i}"), hinge, parent, BodyRef::body(body.name.clone()));
        joint.parent_frame = parent_pose.inverse() * body.pose;
        model.bodies.push(body);
        model.joints.push(joint);
    }
    let back = MjcfFormat
        .read(
            &Source::from_string("chain.xml", write(&model)),
            &Options::default(),
        )
        .unwrap()
        .model;
    for body in &model.bodies {
        let read = back.body(&body.name).unwrap().pose.rotation.quaternion().coords;
        let ulps = (read - body.pose.rotation.quaternion().coords).amax() / f64::EPSILON;
        assert!(ulps <= 8.0, "{}: {ulps} ulps", body.name);
    }
}
