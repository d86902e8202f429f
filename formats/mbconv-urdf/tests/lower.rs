//! The lowering: any model becomes one `emit` writes, every change reported on its IR path.
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Lowered, Options, Source};
use mbconv_ir::report::Category;
use mbconv_ir::{Body, BodyRef, DofProperties, Joint, JointKind, Model, Pose};
use nalgebra::{UnitQuaternion, Vector3};

/// Lowers `model` for URDF with the default settings.
fn lower(model: &Model) -> Lowered {
    mbconv_urdf::UrdfFormat.lower(model, &Options::default()).unwrap()
}

/// Lowers, emits and reads back; returns the lowered model's report codes with their paths.
fn lower_and_write(model: &Model) -> (Vec<(String, Category, String)>, Model) {
    let lowered = lower(model);
    let text = mbconv_urdf::UrdfFormat
        .emit(&lowered.model, &Options::default())
        .map(|written| written.text)
        .unwrap_or_else(|e| panic!("{}: {e}\n{:#?}", model.name, lowered.report.findings));
    let back = mbconv_urdf::UrdfFormat
        .read(&Source::from_string("lowered.urdf", text), &Options::default())
        .unwrap_or_else(|e| panic!("{}: {e}", model.name));
    let codes = lowered
        .report
        .findings
        .iter()
        .map(|f| (f.code.clone(), f.category, f.path.clone().unwrap_or_default()))
        .collect();
    (codes, back.model)
}

fn has(codes: &[(String, Category, String)], code: &str, category: Category, path: &str) -> bool {
    codes
        .iter()
        .any(|(c, k, p)| c == code && *k == category && p == path)
}

/// A model with everything URDF cannot say: a loop, a ball joint, a joint pointing to the
/// root, a body frame off its joint, initial state, sideways gravity, a spring.
fn awkward() -> Model {
    let mut m = Model::new("awkward");
    m.simulation.gravity = Some(Vector3::new(0.0, -9.81, 0.0));
    m.simulation.time_step = Some(0.001);
    let mut base = Body::new("base");
    base.fixed = true;
    m.bodies.push(base);
    for name in ["a", "b", "c"] {
        let mut b = Body::new(name);
        b.pose = Pose::new(Vector3::new(0.0, 0.0, -1.0), UnitQuaternion::identity());
        m.bodies.push(b);
    }
    // `a` hangs from base by a revolute joint with a spring and an initial angle.
    let mut j = Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("base"),
        BodyRef::body("a"),
    );
    j.child_frame = Pose::new(Vector3::new(0.0, 0.0, 0.5), UnitQuaternion::identity());
    j.parent_frame = Pose::new(Vector3::new(0.0, 0.0, -0.5), UnitQuaternion::identity());
    j.q0 = vec![0.3];
    j.dofs = vec![DofProperties {
        spring_stiffness: 10.0,
        ..DofProperties::default()
    }];
    m.joints.push(j);
    // `b` hangs from `a` by a ball joint written from b's side.
    let mut j = Joint::new(
        "ball",
        JointKind::Spherical,
        BodyRef::body("b"),
        BodyRef::body("a"),
    );
    j.parent_frame = Pose::identity();
    m.joints.push(j);
    // `c` hangs from `b` and closes a loop back to base.
    m.joints.push(Joint::new(
        "slide",
        JointKind::Prismatic { axis: Vector3::x() },
        BodyRef::body("b"),
        BodyRef::body("c"),
    ));
    m.joints.push(Joint::new(
        "closing",
        JointKind::Revolute { axis: Vector3::z() },
        BodyRef::body("c"),
        BodyRef::body("base"),
    ));
    m
}

#[test]
fn what_urdf_cannot_say_is_lowered_and_reported() {
    let (codes, back) = lower_and_write(&awkward());
    for (code, category, path) in [
        ("urdf.gravity_lost", Category::Dropped, "simulation.gravity"),
        ("urdf.time_step_lost", Category::Dropped, "simulation.time_step"),
        (
            "urdf.joint_position_lost",
            Category::Dropped,
            r#"joints["hinge"]"#,
        ),
        ("urdf.joint_springs_lost", Category::Dropped, r#"joints["hinge"]"#),
        (
            "urdf.joint_as_gimbal_chain",
            Category::Approximated,
            r#"joints["ball"]"#,
        ),
    ] {
        assert!(
            has(&codes, code, category, path),
            "no {code} at {path}: {codes:#?}"
        );
    }
    // One joint of the loop is cut (the spanning tree picks which) and reported.
    let cut: Vec<&str> = codes
        .iter()
        .filter(|(c, _, _)| c == "urdf.loop_joint_lost")
        .map(|(_, _, p)| p.as_str())
        .collect();
    assert_eq!(cut.len(), 1, "{codes:#?}");
    assert!(
        back.joints
            .iter()
            .all(|j| !cut[0].contains(&format!("{:?}", j.name)))
    );
    // The ball joint is three revolute joints.
    assert_eq!(
        back.joints.iter().filter(|j| j.name.starts_with("ball")).count(),
        3
    );
    // The tree hangs from base, held where it was (fixed, or welded to the world link).
    assert!(
        back.bodies.iter().any(|b| b.name == "base" && b.fixed)
            || back
                .joints
                .iter()
                .any(|j| j.parent.is_world() && j.child.name() == Some("base") && j.kind == JointKind::Fixed)
    );
}

#[test]
fn a_floating_body_hangs_from_the_world_link() {
    let mut m = Model::new("float");
    m.bodies.push(Body::new("ball"));
    let (codes, back) = lower_and_write(&m);
    assert!(
        codes
            .iter()
            .any(|(c, _, _)| c == "urdf.explicit_free_joint" || c.starts_with("urdf."))
    );
    assert_eq!(back.joints.len(), 1);
    assert_eq!(back.joints[0].kind, JointKind::Free);
    assert!(back.joints[0].parent.is_world());
}

/// `root=free`: the root link alone, read back free with the options the format names; a
/// root placed away from the origin is moved there and says so.
#[test]
fn a_floating_root_is_written_free_when_asked() {
    let urdf = mbconv_urdf::UrdfFormat;
    let mut write_options = Options::default();
    write_options.set("root", "free");
    let mut m = Model::new("float");
    m.bodies.push(Body::new("torso"));
    m.bodies.push(Body::new("leg"));
    let mut hip = Joint::new(
        "hip",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("torso"),
        BodyRef::body("leg"),
    );
    hip.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, -0.5));
    m.joints.push(hip);
    m.bodies[1].pose = Pose::from_translation(Vector3::new(0.0, 0.0, -0.5));

    let written = urdf.write(&m, &write_options).unwrap();
    assert!(!written.text.contains("floating"), "{}", written.text);
    assert!(written.report.contains("urdf.root_written_free"));
    let read_options = urdf.read_back_options(&write_options, &written);
    let back = urdf
        .read(
            &Source::from_string("free.urdf", written.text.clone()),
            &read_options,
        )
        .unwrap();
    assert!(!back.model.bodies[0].fixed);
    assert_eq!(back.model.joints.len(), 1);
    // The default reading welds it, as Pinocchio and MuJoCo do.
    let welded = urdf
        .read(
            &Source::from_string("free.urdf", written.text),
            &Options::default(),
        )
        .unwrap();
    assert!(welded.model.bodies[0].fixed);

    m.bodies[0].pose = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    m.bodies[1].pose = Pose::from_translation(Vector3::new(1.0, 0.0, -0.5));
    let moved = urdf.write(&m, &write_options).unwrap();
    assert!(moved.report.contains("urdf.root_moved_to_origin"));
    let default = urdf.write(&m, &Options::default()).unwrap();
    assert!(default.text.contains("type=\"floating\""));
}

/// A link welded to a moving one (Drake's split_pendulum.sdf: two thin rods, principal
/// moments 1.5, 1e-15, 1.5 kg m²) gets 1e-12 kg m² more on each moment, said as an
/// approximation: MuJoCo's URDF import refused the written file ("inertia must have positive
/// eigenvalues" in `fullinertia`). A massless welded link (zero inertia, which MuJoCo loads)
/// and a welded link with a solid inertia keep theirs.
#[test]
fn a_welded_link_with_a_near_zero_moment_gets_the_floor() {
    use mbconv_ir::Inertia;
    let rod = Inertia([[1.5, 0.0, 0.0], [0.0, 1e-15, 0.0], [0.0, 0.0, 1.5]]);
    let mut m = Model::new("split_pendulum");
    for name in ["upper", "lower", "sensor", "block"] {
        let mut b = Body::new(name);
        b.inertial.mass = 0.5;
        b.inertial.inertia = rod;
        m.bodies.push(b);
    }
    m.bodies[2].inertial.mass = 0.0;
    m.bodies[2].inertial.inertia = Inertia::zero();
    m.bodies[3].inertial.inertia = Inertia([[0.1, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.3]]);
    m.joints.push(Joint::new(
        "pin",
        JointKind::Revolute { axis: Vector3::z() },
        BodyRef::World,
        BodyRef::body("upper"),
    ));
    for (weld, child) in [("weld", "lower"), ("mount", "sensor"), ("glue", "block")] {
        let mut j = Joint::new(
            weld,
            JointKind::Fixed,
            BodyRef::body("upper"),
            BodyRef::body(child),
        );
        j.parent_frame = Pose::from_translation(Vector3::new(0.0, -6.0, 0.0));
        m.joints.push(j);
    }
    let (codes, back) = lower_and_write(&m);
    let inertia = |name: &str| {
        back.bodies
            .iter()
            .find(|b| b.name == name)
            .unwrap()
            .inertial
            .clone()
    };
    let lower = inertia("lower");
    assert_eq!(lower.mass, 0.5);
    assert_eq!(lower.inertia.moments(), [1.5 + 1e-12, 1e-15 + 1e-12, 1.5 + 1e-12]);
    assert!(has(
        &codes,
        "urdf.welded_link_inertia_floor",
        Category::Approximated,
        "bodies[\"lower\"]"
    ));
    // The moving rod gets the moving link's floor (mass too), and only that one.
    assert_eq!(inertia("upper").mass, 0.5 + 1e-9);
    assert!(has(
        &codes,
        "urdf.moving_link_mass_floor",
        Category::Approximated,
        "bodies[\"upper\"]"
    ));
    assert!(!has(
        &codes,
        "urdf.welded_link_inertia_floor",
        Category::Approximated,
        "bodies[\"upper\"]"
    ));
    assert_eq!(inertia("sensor").inertia, Inertia::zero());
    assert_eq!(inertia("block").inertia.moments(), [0.1, 0.2, 0.3]);
    for quiet in ["sensor", "block"] {
        let at = format!("bodies[\"{quiet}\"]");
        assert!(!codes.iter().any(|(_, _, p)| *p == at), "{quiet}: {codes:?}");
    }
}

/// romeo_laas_small's hips: a negative principal moment on a moving link is written as read
/// (urdfdom, Pinocchio and Drake read it), with a note and without the floor, which no
/// MuJoCo import would take anyway.
#[test]
fn a_negative_principal_moment_is_written_as_read_with_a_note() {
    use mbconv_ir::Inertia;
    let hip = Inertia::from_moments_products([-2.7e-3, 3.95e-2, 5.4e-2], [0.0; 3]);
    let mut m = Model::new("romeo");
    let mut b = Body::new("hip");
    b.inertial.mass = 1.0;
    b.inertial.inertia = hip;
    m.bodies.push(b);
    m.joints.push(Joint::new(
        "pitch",
        JointKind::Revolute { axis: Vector3::z() },
        BodyRef::World,
        BodyRef::body("hip"),
    ));
    let (codes, back) = lower_and_write(&m);
    assert_eq!(back.bodies[0].inertial.inertia, hip);
    assert_eq!(back.bodies[0].inertial.mass, 1.0);
    assert!(
        has(
            &codes,
            "urdf.inertia_indefinite",
            Category::Note,
            "bodies[\"hip\"]"
        ),
        "{codes:?}"
    );
    assert!(!codes.iter().any(|(c, _, _)| c.ends_with("_floor")), "{codes:?}");
}

#[test]
fn an_empty_model_gets_a_link() {
    let (codes, back) = lower_and_write(&Model::new("empty"));
    assert!(has(&codes, "urdf.root_link_added", Category::Note, "bodies"));
    assert_eq!(back.bodies.len(), 1);
}

/// Every IR fixture lowers to a model URDF writes and reads back, and lowering that model
/// again changes nothing that moves a body.
#[test]
fn every_ir_fixture_lowers_to_urdf() {
    let dir = mbconv_test_support::fixtures_root().join("ir");
    let files = mbconv_test_support::files_with_extension(&dir, "json");
    assert!(files.len() >= 5);
    for file in files {
        let model = mbconv_ir::mbir::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let lowered = lower(&model);
        let again = lower(&lowered.model);
        let moved: Vec<_> = again
            .report
            .findings
            .iter()
            .filter(|f| f.category != Category::Note)
            .map(|f| format!("{} {}", f.code, f.path.clone().unwrap_or_default()))
            .collect();
        assert!(moved.is_empty(), "{}: lowering twice: {moved:?}", file.display());
        let (_, back) = lower_and_write(&model);
        assert_eq!(
            back.bodies.len(),
            lowered.model.bodies.len(),
            "{}",
            file.display()
        );
    }
}

#[test]
fn a_welded_link_with_no_mass_under_an_inertia_gets_a_mass_drake_keeps() {
    // example-robot-data's Bolt: feet of mass 0 and inertia 5.7e-7, 8.4e-7, 5.3e-7 on fixed
    // joints, which Drake reads as 1 kg spheres of water (the robot moved 0.45 m in a second).
    let mut m = Model::new("bolt");
    let mut leg = Body::new("leg");
    leg.inertial.mass = 0.1;
    m.bodies.push(leg);
    let mut foot = Body::new("foot");
    foot.inertial.mass = 0.0;
    foot.inertial.inertia = mbconv_ir::Inertia::from_moments_products([5.7e-7, 8.4e-7, 5.3e-7], [0.0; 3]);
    m.bodies.push(foot);
    let knee = JointKind::Revolute { axis: Vector3::y() };
    m.joints
        .push(Joint::new("knee", knee, BodyRef::World, BodyRef::body("leg")));
    m.joints.push(Joint::new(
        "ankle",
        JointKind::Fixed,
        BodyRef::body("leg"),
        BodyRef::body("foot"),
    ));
    let (codes, back) = lower_and_write(&m);
    let foot = back.bodies.iter().find(|b| b.name == "foot").unwrap();
    assert_eq!(foot.inertial.mass, 1e-30);
    assert_eq!(foot.inertial.inertia.moments(), [5.7e-7, 8.4e-7, 5.3e-7]);
    assert!(has(
        &codes,
        "urdf.zero_mass_given",
        Category::Approximated,
        "bodies[\"foot\"]"
    ));
}

#[test]
fn an_ellipsoid_is_written_as_the_cylinder_around_it() {
    // Skydio X2's rotors: flat ellipsoids, which Drake's <drake:ellipsoid> wrote and MuJoCo refused.
    let mut m = Model::new("x2");
    let mut body = Body::new("x2");
    body.shapes.push(mbconv_ir::Shape::new(
        mbconv_ir::ShapeRole::Collision,
        mbconv_ir::Geometry::Ellipsoid {
            radii: [0.13, 0.13, 0.01],
        },
    ));
    body.shapes.push(mbconv_ir::Shape::new(
        mbconv_ir::ShapeRole::Collision,
        mbconv_ir::Geometry::Ellipsoid {
            radii: [0.4, 0.1, 0.12],
        },
    ));
    m.bodies.push(body);
    let lowered = lower(&m);
    let text = mbconv_urdf::UrdfFormat
        .emit(&lowered.model, &Options::default())
        .unwrap()
        .text;
    assert!(!text.contains("drake:ellipsoid"), "{text}");
    let shapes = &lowered.model.bodies[0].shapes;
    assert_eq!(
        shapes[0].geometry,
        mbconv_ir::Geometry::Cylinder {
            radius: 0.13,
            length: 0.02
        }
    );
    // A rod along x: the cylinder lies along x.
    assert_eq!(
        shapes[1].geometry,
        mbconv_ir::Geometry::Cylinder {
            radius: 0.12,
            length: 0.8
        }
    );
    let along = shapes[1].pose.rotation * Vector3::z();
    assert!((along - Vector3::x()).norm() < 1e-12, "{along}");
    let finding = lowered
        .report
        .findings
        .iter()
        .find(|f| f.code == "urdf.ellipsoid_as_cylinder")
        .expect("a finding");
    assert_eq!(finding.category, Category::Approximated);
    assert!(
        finding.message.contains("1.500 times its volume"),
        "{}",
        finding.message
    );
}

/// A cuff that floats on a free joint from the world and is welded to an arm hinged to the
/// world (as MJCF writes a `<freejoint>` body held by a `<weld>`): the free joint constrains
/// nothing and is left out with a note, and the hinge is written from the world to the arm, the
/// cuff under the arm. Before, the joints were turned towards the free joint's body: the
/// cuff became the root and the hinge was written reversed.
#[test]
fn a_free_joint_that_closes_a_loop_is_left_out_before_the_joints_are_turned() {
    let mut m = Model::new("held cuff");
    for name in ["arm", "cuff"] {
        let mut b = Body::new(name);
        b.pose = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
        m.bodies.push(b);
    }
    m.joints.push(Joint::new(
        "float",
        JointKind::Free,
        BodyRef::World,
        BodyRef::body("cuff"),
    ));
    let mut hinge = Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("arm"),
    );
    hinge.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    m.joints.push(hinge);
    m.joints.push(Joint::new(
        "weld",
        JointKind::Fixed,
        BodyRef::body("arm"),
        BodyRef::body("cuff"),
    ));
    let (codes, back) = lower_and_write(&m);
    assert!(
        has(
            &codes,
            "urdf.free_loop_joint_dropped",
            Category::Note,
            "joints[\"float\"]"
        ),
        "{codes:?}"
    );
    let hinge = back.joints.iter().find(|j| j.name == "hinge").unwrap();
    assert_eq!(hinge.child, BodyRef::body("arm"), "the hinge is not reversed");
    let weld = back.joints.iter().find(|j| j.name == "weld").unwrap();
    assert_eq!(
        (&weld.parent, &weld.child),
        (&BodyRef::body("arm"), &BodyRef::body("cuff"))
    );
}
