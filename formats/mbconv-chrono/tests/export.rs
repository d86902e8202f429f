#![allow(clippy::unwrap_used, clippy::approx_constant)]
//! Writing a model that did not come from Chrono: everything Chrono YAML cannot say is in the
//! report, and the file reads back.

use mbconv_chrono::ChronoFormat;
use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{
    Appearance, Body, BodyRef, Category, Device, DeviceType, DofProperties, Geometry, Joint, JointKind,
    Limits, Model, Pose, Shape, ShapeRole, Value, ValueMap,
};
use nalgebra::{UnitQuaternion, Vector3};

fn foreign_model() -> Model {
    let mut m = Model::new("foreign");
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    let mut link = Body::new("link");
    link.pose = Pose::new(
        Vector3::new(0.0, 0.0, 1.0),
        UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3),
    );
    link.extras.insert("skel.self_collide", Value::Bool(true));
    link.shapes.push(Shape::new(
        ShapeRole::Visual,
        Geometry::Capsule {
            radius: 0.1,
            length: 1.0,
        },
    ));
    let mut ball = Shape::new(ShapeRole::Both, Geometry::Sphere { radius: 0.2 });
    ball.appearance = Some(Appearance {
        diffuse: Some([1.0, 0.0, 0.0]),
        alpha: Some(0.5),
        ..Appearance::default()
    });
    link.shapes.push(ball);
    m.bodies.push(link);
    m.bodies.push(Body::new("tip"));
    let mut hinge = Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("link"),
    );
    hinge.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    hinge.child_frame = Pose::new(Vector3::zeros(), m.bodies[0].pose.rotation.inverse());
    hinge.dofs = vec![DofProperties {
        position_limits: Limits::new(-1.0, 1.0),
        damping: 0.5,
        ..DofProperties::default()
    }];
    m.joints.push(hinge);
    m.joints.push(Joint::new(
        "screw",
        JointKind::Screw {
            axis: Vector3::z(),
            pitch: 0.1,
        },
        BodyRef::body("link"),
        BodyRef::body("tip"),
    ));
    m.devices.push(Device {
        name: "imu".into(),
        device_type: DeviceType::Imu,
        body: BodyRef::body("link"),
        pose: Pose::identity(),
        id: None,
        parameters: ValueMap::default(),
        extras: Default::default(),
    });
    m
}

#[test]
fn what_chrono_cannot_say_is_reported_and_the_file_reads_back() {
    let m = foreign_model();
    let out = ChronoFormat.write(&m, &Options::default()).unwrap();
    let dropped: Vec<String> = out
        .report
        .findings
        .iter()
        .filter(|f| f.category == Category::Dropped)
        .map(|f| format!("{} {}", f.path.clone().unwrap_or_default(), f.message))
        .collect();
    let has = |path: &str, word: &str| dropped.iter().any(|d| d.starts_with(path) && d.contains(word));
    assert!(has("joints[\"hinge\"]", "limits"), "{dropped:#?}");
    assert!(has("joints[\"screw\"]", "screw"), "{dropped:#?}");
    assert!(has("devices[\"imu\"]", "sensors"), "{dropped:#?}");
    assert!(has("bodies[\"link\"].shapes[0]", "Capsule"), "{dropped:#?}");
    assert!(has("bodies[\"link\"].shapes[1]", "alpha"), "{dropped:#?}");
    assert!(has("bodies[\"link\"]", "skel.self_collide"), "{dropped:#?}");
    assert!(has("simulation", "gravity"), "{dropped:#?}");
    assert!(
        out.text.contains("    - name: ground\n      fixed: true\n"),
        "{}",
        out.text
    );

    let back = ChronoFormat
        .read(
            &Source::from_string("back.yaml", out.text.clone()),
            &Options::default(),
        )
        .unwrap_or_else(|e| panic!("{e}\n{}", out.text));
    let link = back.model.body("link").unwrap();
    assert!(link.pose.rotation.angle_to(&m.bodies[0].pose.rotation) < 1e-15);
    assert_eq!(link.pose.translation, m.bodies[0].pose.translation);
    // The sphere is both drawn and colliding: one shape in each list, with an added material.
    assert_eq!(link.shapes.len(), 2);
    assert_eq!(link.contact_materials[0].name, "default");
    // The hinge axis: joint-frame x, i.e. world x; Chrono rebuilds the frame with Z = axis.
    let hinge = back.model.joint("hinge").unwrap();
    assert_eq!(hinge.parent.name(), Some("ground"));
    let world_axis = hinge.parent_frame.rotation * Vector3::z();
    assert!((world_axis - Vector3::x()).norm() < 1e-12);
}

#[test]
fn writing_is_deterministic_and_numbers_read_back_exactly() {
    let mut m = foreign_model();
    m.bodies[1].inertial.mass = 0.1 + 0.2;
    m.bodies[1].inertial.com = Vector3::new(1e-7, 1.0 / 3.0, 2e20);
    let a = ChronoFormat.write(&m, &Options::default()).unwrap().text;
    let b = ChronoFormat.write(&m, &Options::default()).unwrap().text;
    assert_eq!(a, b);
    assert!(a.contains("mass: 0.30000000000000004"), "{a}");
    assert!(a.contains("location: [1e-7, 0.3333333333333333, 2e20]"), "{a}");
    let back = ChronoFormat
        .read(&Source::from_string("b.yaml", a), &Options::default())
        .unwrap();
    let tip = back.model.body("tip").unwrap();
    assert_eq!(tip.inertial.mass.to_bits(), (0.1f64 + 0.2).to_bits());
    assert_eq!(tip.inertial.com, m.bodies[1].inertial.com);
}
