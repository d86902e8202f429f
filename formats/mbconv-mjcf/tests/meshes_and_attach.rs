//! Mass from mesh geoms and `<attach>`, on small models written to a scratch directory: a box
//! given as a binary STL, an OBJ and inline vertices weighs what the box primitive weighs (a
//! value computed independently of the mesh code), the mesh shape keeps the file's coordinates
//! at the written pose, bad meshes are located errors; an attached model is read with its own
//! classes and angle unit, its names prefixed. The corpus files that use both are judged
//! against MuJoCo in `golden.rs`.
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{Geometry, Model};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mbconv-mjcf-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read(path: &std::path::Path) -> Result<Model, String> {
    mbconv_mjcf::MjcfFormat
        .read(&Source::from_path(path).unwrap(), &Options::default())
        .map(|i| i.model)
        .map_err(|e| e.to_string())
}

/// The 12 outward triangles of a box of half sizes `h` centred at `c`.
fn box_triangles(h: [f32; 3], c: [f32; 3]) -> Vec<[[f32; 3]; 3]> {
    let corner = |i: usize| {
        [
            c[0] + if i & 1 == 1 { h[0] } else { -h[0] },
            c[1] + if i & 2 == 2 { h[1] } else { -h[1] },
            c[2] + if i & 4 == 4 { h[2] } else { -h[2] },
        ]
    };
    [
        [0, 2, 1],
        [1, 2, 3],
        [4, 5, 6],
        [5, 7, 6],
        [0, 1, 4],
        [1, 5, 4],
        [2, 6, 3],
        [3, 6, 7],
        [0, 4, 2],
        [2, 4, 6],
        [1, 3, 5],
        [3, 7, 5],
    ]
    .iter()
    .map(|t: &[usize; 3]| t.map(corner))
    .collect()
}

fn binary_stl(triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut out = vec![0u8; 80];
    out.extend_from_slice(&(triangles.len() as u32).to_le_bytes());
    for t in triangles {
        out.extend_from_slice(&[0u8; 12]);
        for v in t {
            for x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out.extend_from_slice(&[0u8; 2]);
    }
    out
}

#[test]
fn box_meshes_weigh_what_the_box_weighs() {
    let dir = scratch("meshes");
    // Sides 0.2 x 0.4 x 0.6 centred at (1, 2, 3) in the file: 1000 kg/m³ gives 48 kg.
    let h = [0.1f32, 0.2, 0.3];
    let tri = box_triangles(h, [1.0, 2.0, 3.0]);
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("assets/box.stl"), binary_stl(&tri)).unwrap();
    let mut obj = String::new();
    for t in &tri {
        for v in t {
            obj.push_str(&format!("v {} {} {}\n", v[0], v[1], v[2]));
        }
    }
    for k in 0..tri.len() {
        obj.push_str(&format!("f {} {} {}\n", 3 * k + 1, 3 * k + 2, 3 * k + 3));
    }
    std::fs::write(dir.join("assets/box.obj"), obj).unwrap();
    let corners: Vec<String> = (0..8)
        .map(|i| {
            format!(
                "{} {} {}",
                1.0 + if i & 1 == 1 { 0.1 } else { -0.1 },
                2.0 + if i & 2 == 2 { 0.2 } else { -0.2 },
                3.0 + if i & 4 == 4 { 0.3 } else { -0.3 }
            )
        })
        .collect();
    std::fs::write(
        dir.join("m.xml"),
        format!(
            r#"<mujoco><compiler meshdir="assets"/>
  <asset><mesh file="box.stl"/><mesh name="objbox" file="box.obj"/><mesh name="inline" vertex="{}"/></asset>
  <worldbody>
    <body name="stl" pos="0 0 1"><freejoint/><geom type="mesh" mesh="box" pos="0.5 0 0" euler="0 0 90"/></body>
    <body name="obj"><freejoint/><geom type="mesh" mesh="objbox" mass="3"/></body>
    <body name="inline"><freejoint/><geom type="mesh" mesh="inline" density="500"/></body>
    <body name="fitted"><freejoint/><geom type="box" mesh="box"/></body>
  </worldbody></mujoco>"#,
            corners.join(" ")
        ),
    )
    .unwrap();
    let m = read(&dir.join("m.xml")).unwrap();
    let body = |n: &str| m.bodies.iter().find(|b| b.name == n).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs().max(1.0);
    // Independent values: a solid box of sides a, b, c: m (b² + c²) / 12 about x.
    let (a, b, c) = (0.2, 0.4, 0.6);
    let stl = body("stl");
    assert!(
        close(stl.inertial.mass, 1000.0 * a * b * c),
        "{}",
        stl.inertial.mass
    );
    // The geom is turned 90° about z and moved by 0.5 in x: the centre (1, 2, 3) of the file
    // lands at (0.5 - 2, 1, 3) in the body.
    let com = stl.inertial.com;
    assert!(
        close(com.x, -1.5) && close(com.y, 1.0) && close(com.z, 3.0),
        "{com:?}"
    );
    let world = stl.inertial.inertia_in_body_axes();
    let mass = stl.inertial.mass;
    // Turned about z: the body's x axis is the box's y axis.
    assert!(close(world[(0, 0)], mass * (a * a + c * c) / 12.0), "{world}");
    assert!(close(world[(2, 2)], mass * (a * a + b * b) / 12.0), "{world}");
    // The shape keeps the file's coordinates at the pose written.
    let shape = &stl.shapes[0];
    assert!(matches!(&shape.geometry, Geometry::Mesh(r) if r.uri == "assets/box.stl"));
    assert!(close(shape.pose.translation.x, 0.5) && close(shape.pose.translation.y, 0.0));
    assert!(close(body("obj").inertial.mass, 3.0));
    assert!(close(body("inline").inertial.mass, 500.0 * a * b * c));
    // A box fitted to the mesh is the mesh's own box, placed at its centre.
    let fitted = &body("fitted").shapes[0];
    match fitted.geometry {
        Geometry::Box { size } => {
            let mut s = size;
            s.sort_by(f64::total_cmp);
            assert!(close(s[0], a) && close(s[1], b) && close(s[2], c), "{size:?}");
        }
        ref g => panic!("{g:?}"),
    }
    assert!(close(fitted.pose.translation.z, 3.0));

    // Located errors: a missing file, an ASCII STL, a flat mesh.
    for (asset, words) in [
        (r#"<mesh name="x" file="nope.stl"/>"#, "cannot read the mesh file"),
        (
            r#"<mesh name="x" file="ascii.stl"/>"#,
            "perhaps this is an ASCII file",
        ),
        (
            r#"<mesh name="x" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/>"#,
            "coplanar vertices",
        ),
    ] {
        std::fs::write(
            dir.join("assets/ascii.stl"),
            "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0 1 0\n  endloop\n endfacet\nendsolid x\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("bad.xml"),
            format!(
                "<mujoco><compiler meshdir=\"assets\"/>\n<asset>{asset}</asset>\n<worldbody><body><geom type=\"mesh\" mesh=\"x\"/></body></worldbody></mujoco>"
            ),
        )
        .unwrap();
        let e = read(&dir.join("bad.xml")).unwrap_err();
        assert!(e.contains("bad.xml:2:") && e.contains(words), "{e}");
    }
    // A mesh geom that weighs nothing is not decoded at all.
    std::fs::write(
        dir.join("light.xml"),
        r#"<mujoco><asset><mesh name="x" file="nope.stl"/></asset>
  <worldbody><body><geom type="mesh" mesh="x" mass="0"/><geom size="0.1"/></body></worldbody></mujoco>"#,
    )
    .unwrap();
    assert!(read(&dir.join("light.xml")).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn attached_models_keep_their_classes_units_and_prefixed_names() {
    let dir = scratch("attach");
    std::fs::write(
        dir.join("child.xml"),
        r#"<mujoco><compiler angle="radian"/>
  <default><geom type="box" size="0.1 0.1 0.1"/></default>
  <worldbody>
    <body name="arm" pos="1 0 0" euler="0 0 1.5707963267948966">
      <joint name="hinge" range="-1 1"/>
      <geom name="g"/>
      <body><geom size="0.1 0.1 0.1"/></body>
    </body>
    <frame name="pair" pos="0 0 1"><body name="a"/><body name="b" pos="1 0 0"/></frame>
  </worldbody></mujoco>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("parent.xml"),
        r#"<mujoco><asset><model name="kid" file="child.xml"/></asset>
  <default><geom type="sphere" size="1"/></default>
  <worldbody>
    <body name="base" pos="0 0 2" euler="0 0 90"><attach model="kid" body="arm" prefix="left_"/></body>
    <frame pos="5 0 0"><attach model="kid" frame="pair" prefix="p_"/></frame>
  </worldbody></mujoco>"#,
    )
    .unwrap();
    let m = read(&dir.join("parent.xml")).unwrap();
    let body = |n: &str| {
        m.bodies.iter().find(|b| b.name == n).unwrap_or_else(|| {
            panic!(
                "no body {n}: {:?}",
                m.bodies.iter().map(|b| &b.name).collect::<Vec<_>>()
            )
        })
    };
    // The child's box class (8 kg of 0.2 m sides at 1000 kg/m³), not the parent's sphere.
    let arm = body("left_arm");
    assert!((arm.inertial.mass - 8.0).abs() < 1e-12);
    // Placed in base (turned 90° about z): x of the child becomes y; the child's radians.
    let t = arm.pose.translation;
    assert!(
        t.x.abs() < 1e-12 && (t.y - 1.0).abs() < 1e-12 && (t.z - 2.0).abs() < 1e-12,
        "{t:?}"
    );
    let angle = arm.pose.rotation.angle();
    assert!((angle - std::f64::consts::PI).abs() < 1e-12, "{angle}");
    let hinge = m.joints.iter().find(|j| j.name == "left_hinge").unwrap();
    assert_eq!(hinge.dofs[0].position_limits.upper, Some(1.0));
    assert!(
        m.bodies
            .iter()
            .any(|b| b.shapes.iter().any(|s| s.name.as_deref() == Some("left_g")))
    );
    // The frame's bodies, at the frame's place.
    assert!((body("p_b").pose.translation.x - 6.0).abs() < 1e-12);
    assert!((body("p_a").pose.translation.z - 1.0).abs() < 1e-12);

    std::fs::write(
        dir.join("bad.xml"),
        "<mujoco><asset><model name=\"kid\" file=\"child.xml\"/></asset>\n<worldbody><attach model=\"kid\" body=\"leg\"/></worldbody></mujoco>",
    )
    .unwrap();
    let e = read(&dir.join("bad.xml")).unwrap_err();
    assert!(
        e.contains("bad.xml:2:") && e.contains("could not find body 'leg'"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
