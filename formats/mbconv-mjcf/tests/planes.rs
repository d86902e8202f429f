//! Planes and MuJoCo's static bodies: MuJoCo 4.0 refuses a `<geom type="plane">` on a body
//! that moves ("plane only allowed in static bodies": any joint on the body or above it, a
//! free joint included, visual planes included), and accepts it on a body welded to the world
//! (no joint on its path to the world). The writer keeps the planes of static bodies and leaves
//! out the others (`mjcf.plane_lost`).
//!
//! With `MBCONV_ORACLE_PYTHON` (the oracle venv's python, `cargo xtask oracles`) the written
//! file is also loaded by MuJoCo; without it that part is skipped with a notice.
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{Body, BodyRef, Geometry, Inertia, Joint, JointKind, Model, Pose, Shape, ShapeRole};
use mbconv_mjcf::MjcfFormat;
use nalgebra::Vector3;

fn plane() -> Shape {
    Shape::new(
        ShapeRole::Both,
        Geometry::Plane {
            normal: Vector3::z(),
            offset: 0.0,
        },
    )
}

fn solid(name: &str, z: f64) -> Body {
    let mut body = Body::new(name);
    body.inertial.mass = 1.0;
    body.inertial.inertia = Inertia::from_moments_products([0.1; 3], [0.0; 3]);
    body.pose = Pose::from_translation(Vector3::new(0.0, 0.0, z));
    body.shapes
        .push(Shape::new(ShapeRole::Both, Geometry::Sphere { radius: 0.1 }));
    body
}

fn weld(name: &str, parent: BodyRef, child: &str, at: Pose) -> Joint {
    let mut j = Joint::new(name, JointKind::Fixed, parent, BodyRef::body(child));
    j.parent_frame = at;
    j
}

/// Static: `ground` (fixed), `deck` (welded to `base`, welded to the world). Moving: `paddle`
/// (a hinge), `tray` (welded to `paddle`), `puck` (floating: a free joint).
fn model() -> Model {
    let mut model = Model::new("planes");
    let mut ground = Body::new("ground");
    ground.fixed = true;
    ground.shapes.push(plane());
    model.bodies.push(ground);
    model.bodies.push(solid("base", 0.5));
    let mut deck = solid("deck", 0.6);
    deck.shapes.push(plane());
    model.bodies.push(deck);
    let mut paddle = solid("paddle", 1.0);
    let mut visual = plane();
    visual.role = ShapeRole::Visual;
    visual.name = Some("paddle_face".into());
    paddle.shapes.push(visual);
    model.bodies.push(paddle);
    let mut tray = solid("tray", 1.2);
    tray.shapes.push(plane());
    model.bodies.push(tray);
    let mut puck = solid("puck", 2.0);
    puck.shapes.push(plane());
    model.bodies.push(puck);
    let up = |z| Pose::from_translation(Vector3::new(0.0, 0.0, z));
    model
        .joints
        .push(weld("base_weld", BodyRef::World, "base", up(0.5)));
    model
        .joints
        .push(weld("deck_weld", BodyRef::body("base"), "deck", up(0.1)));
    let mut hinge = Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("paddle"),
    );
    hinge.parent_frame = up(1.0);
    model.joints.push(hinge);
    model
        .joints
        .push(weld("tray_weld", BodyRef::body("paddle"), "tray", up(0.2)));
    model
}

fn planes(body: &Body) -> usize {
    body.shapes
        .iter()
        .filter(|s| matches!(s.geometry, Geometry::Plane { .. }))
        .count()
}

#[test]
fn planes_stay_on_static_bodies_and_are_left_out_of_moving_ones() {
    let model = model();
    let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
    let kept: Vec<(&str, usize)> = lowered
        .model
        .bodies
        .iter()
        .map(|b| (b.name.as_str(), planes(b)))
        .collect();
    assert_eq!(
        kept,
        [
            ("ground", 1),
            ("base", 0),
            ("deck", 1),
            ("paddle", 0),
            ("tray", 0),
            ("puck", 0)
        ]
    );
    let mut lost: Vec<&str> = lowered
        .report
        .findings
        .iter()
        .filter(|f| f.code == "mjcf.plane_lost")
        .filter_map(|f| f.path.as_deref())
        .collect();
    lost.sort_unstable();
    assert_eq!(
        lost,
        [r#"bodies["paddle"]"#, r#"bodies["puck"]"#, r#"bodies["tray"]"#]
    );
    // The other shapes of those bodies stay.
    for name in ["paddle", "tray", "puck"] {
        assert_eq!(lowered.model.body(name).unwrap().shapes.len(), 1, "{name}");
    }
    let finding = lowered
        .report
        .findings
        .iter()
        .find(|f| f.code == "mjcf.plane_lost" && f.path.as_deref() == Some(r#"bodies["paddle"]"#))
        .unwrap();
    assert!(
        finding.message.contains("paddle_face") && finding.message.contains("welded to the world"),
        "{}",
        finding.message
    );

    let text = MjcfFormat.write(&model, &Options::default()).unwrap().text;
    assert_eq!(text.matches(r#"type="plane""#).count(), 2, "{text}");
    let back = MjcfFormat
        .read(&Source::from_string("planes.xml", &text), &Options::default())
        .unwrap();
    let read: usize = back.model.bodies.iter().map(planes).sum();
    assert_eq!(read, 2, "{text}");
    mujoco_loads("planes", &text);
}

/// MuJoCo loads `text` (when the oracle Python is there): its error otherwise.
fn mujoco_loads(name: &str, text: &str) {
    let Some(python) = std::env::var_os("MBCONV_ORACLE_PYTHON") else {
        eprintln!("note: MBCONV_ORACLE_PYTHON is not set: MuJoCo does not judge {name}");
        return;
    };
    let dir = std::env::temp_dir().join(format!("mbconv_mjcf_planes_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.xml"));
    std::fs::write(&file, text).unwrap();
    let script = "import sys, mujoco\n\
                  try:\n    m = mujoco.MjModel.from_xml_path(sys.argv[1])\n\
                  except Exception as e:\n    sys.exit(str(e))\n\
                  print('MuJoCo', mujoco.__version__, 'loads', sys.argv[1], 'nbody', m.nbody, 'ngeom', m.ngeom)";
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "MuJoCo refuses the written {name}: {stderr}\n{text}"
    );
    eprint!("{}", String::from_utf8_lossy(&out.stdout));
}
