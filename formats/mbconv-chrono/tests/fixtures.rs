#![allow(clippy::unwrap_used, clippy::approx_constant)]
//! The project's own fixtures (`fixtures/chrono/`), one per feature of the specification,
//! checked against values computed by hand.

use approx::assert_relative_eq;
use mbconv_chrono::ChronoFormat;
use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_ir::{
    ConstraintKind, ForceKind, Geometry, JointKind, MotorActuation, MotorGuide, MotorTarget, MotorType, Pose,
    SpringDamperLaw, SpringStyle, TimeFunction, Value,
};
use nalgebra::{UnitQuaternion, Vector3};
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/chrono")).join(name)
}

fn read(name: &str) -> Imported {
    read_with(name, &Options::default())
}

fn read_with(name: &str, options: &Options) -> Imported {
    let src = Source::from_path(&fixture(name)).unwrap();
    ChronoFormat
        .read(&src, options)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn v(x: f64, y: f64, z: f64) -> Vector3<f64> {
    Vector3::new(x, y, z)
}

fn assert_quat(q: &UnitQuaternion<f64>, wxyz: [f64; 4]) {
    // q and −q are the same rotation.
    let q = q.quaternion();
    let sign = if q.w * wxyz[0] + q.i * wxyz[1] + q.j * wxyz[2] + q.k * wxyz[3] < 0.0 {
        -1.0
    } else {
        1.0
    };
    for (a, b) in [q.w, q.i, q.j, q.k].iter().zip(wxyz) {
        assert_relative_eq!(sign * *a, b, epsilon = 1e-12);
    }
}

fn assert_vec(a: &Vector3<f64>, b: Vector3<f64>) {
    assert_relative_eq!(*a, b, epsilon = 1e-12);
}

#[test]
fn bodies_poses_inertia_com_and_velocities() {
    let m = read("bodies.yaml").model;
    assert_eq!(m.name, "Bodies fixture");
    let ground = m.body("ground").unwrap();
    assert!(ground.fixed);
    assert!(ground.pose.is_exact_identity());

    let b = m.body("yawed").unwrap();
    assert_eq!(b.pose.translation, v(1.0, 2.0, 3.0));
    // yaw 90 deg about Z.
    assert_quat(&b.pose.rotation, [FRAC_1_SQRT_2, 0.0, 0.0, FRAC_1_SQRT_2]);
    assert_eq!(b.inertial.mass, 2.5);
    assert_eq!(b.inertial.com, v(0.1, 0.0, 0.0));
    // roll 90 deg about X for the centroidal frame.
    assert_quat(
        &b.inertial.inertia_rotation,
        [FRAC_1_SQRT_2, FRAC_1_SQRT_2, 0.0, 0.0],
    );
    // products are [Ixy, Ixz, Iyz] (Chrono's parser), stored as tensor entries.
    assert_eq!(
        b.inertial.inertia.0,
        [[2.0, 0.1, 0.2], [0.1, 3.0, 0.3], [0.2, 0.3, 4.0]]
    );
    // COM-frame angular velocity (0,0,2): world = Rz(90)·Rx(90)·(0,0,2) = (2,0,0).
    // COM velocity (1,0,0); COM offset in world Rz(90)·(0.1,0,0) = (0,0.1,0);
    // origin velocity = (1,0,0) − (2,0,0)×(0,0.1,0) = (1,0,−0.2).
    let t = b.initial_velocity.unwrap();
    assert_vec(&t.angular, v(2.0, 0.0, 0.0));
    assert_vec(&t.linear, v(1.0, 0.0, -0.2));

    let q = m.body("quaternion").unwrap();
    // [2,0,0,2] normalised.
    assert_quat(&q.pose.rotation, [FRAC_1_SQRT_2, 0.0, 0.0, FRAC_1_SQRT_2]);
    // `1e0` and the string "0.5" are numbers.
    assert_eq!(q.inertial.mass, 1.0);
    assert_eq!(q.inertial.inertia.moments(), [0.5, 0.5, 0.5]);

    // Cardan [30, 20, 10] deg = Drake rpy (10, 20, 30) deg, from the reference vectors.
    let c = m.body("cardan").unwrap();
    assert_quat(
        &c.pose.rotation,
        [
            0.951548524643789,
            0.03813457647485,
            0.189307857412,
            0.23929833774473,
        ],
    );
}

#[test]
fn non_unit_quaternion_is_normalised_with_a_finding() {
    let r = read("bodies.yaml").report;
    let f = r
        .findings
        .iter()
        .find(|f| f.code == "chrono.quaternion_normalized")
        .unwrap();
    assert_eq!(f.path.as_deref(), Some("bodies[\"quaternion\"]"));
    let span = f.span.as_ref().unwrap();
    assert_eq!((span.line, span.column), (32, 20));
}

#[test]
fn radians_apply_to_orientation_rsda_angle_and_sine_phase() {
    let m = read("radians.yaml").model;
    let w = m.body("wheel").unwrap();
    assert_quat(
        &w.pose.rotation,
        [
            0.981856172866081,
            0.064071347706071,
            -0.091157549342991,
            0.153439302024223,
        ],
    );
    let ForceKind::Rsda(r) = &m.force_elements[0].kind else {
        panic!()
    };
    assert_eq!(r.free_angle, 0.5);
    let TimeFunction::Sine { phase, .. } = m.motors[0].function else {
        panic!()
    };
    assert_eq!(phase, 1.5);
    assert_eq!(
        m.extras.get("chrono.source.angle_degrees"),
        Some(&Value::Bool(false))
    );
}

#[test]
fn contact_materials_and_every_shape() {
    let m = read("contact_visual.yaml");
    let b = m.model.body("box").unwrap();
    let rubber = &b.contact_materials[0];
    assert_eq!(
        [
            rubber.friction,
            rubber.restitution,
            rubber.young_modulus,
            rubber.poisson_ratio,
            rubber.normal_stiffness,
            rubber.normal_damping,
            rubber.tangential_stiffness,
            rubber.tangential_damping
        ],
        [
            Some(0.9),
            Some(0.2),
            Some(1e8),
            Some(0.4),
            Some(1e6),
            Some(50.0),
            Some(3e5),
            Some(25.0)
        ]
    );
    // The spec's `properties`/`Coefficients` keys are not Chrono's: defaults apply, keys kept.
    let spec = &b.contact_materials[1];
    assert_eq!(
        [
            spec.friction,
            spec.restitution,
            spec.young_modulus,
            spec.poisson_ratio,
            spec.normal_stiffness
        ],
        [Some(0.8), Some(0.01), Some(2e7), Some(0.3), Some(2e5)]
    );
    assert!(spec.extras.get("chrono.properties").is_some());
    assert!(spec.extras.get("chrono.Coefficients").is_some());
    assert_eq!(
        m.report
            .findings
            .iter()
            .filter(|f| f.code == "chrono.key_ignored")
            .count(),
        2
    );

    let s = &b.shapes;
    assert_eq!(s.len(), 10);
    assert_eq!(s[0].geometry, Geometry::Sphere { radius: 0.5 });
    assert_eq!(s[0].pose.translation, v(0.0, 0.0, 1.0));
    assert_eq!(s[0].contact_material.as_deref(), Some("rubber"));
    assert_eq!(
        s[1].geometry,
        Geometry::Box {
            size: [1.0, 2.0, 3.0]
        }
    );
    // pitch 90 deg about Y.
    assert_quat(&s[1].pose.rotation, [FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2, 0.0]);
    assert_eq!(
        s[2].geometry,
        Geometry::Cylinder {
            radius: 0.2,
            length: 0.8
        }
    );
    // Motor-style frame for axis (1,0,0): X=(0,0,−1), Y=(0,1,0), Z=(1,0,0).
    assert_quat(&s[2].pose.rotation, [FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2, 0.0]);
    assert_vec(&(s[2].pose.rotation * Vector3::z()), v(1.0, 0.0, 0.0));
    let Geometry::Mesh(mesh) = &s[3].geometry else {
        panic!()
    };
    assert_eq!(mesh.uri, "part.obj");
    assert_eq!(mesh.scale, [2.0; 3]);
    assert!(
        mesh.resolved_path
            .as_deref()
            .unwrap()
            .ends_with("fixtures/chrono/meshes/part.obj")
    );
    assert_eq!(s[3].contact_radius, Some(0.01));
    assert!(matches!(&s[4].geometry, Geometry::ConvexHull(h) if h.uri == "hull.obj"));
    assert!(s[..5].iter().all(|s| s.role == mbconv_ir::ShapeRole::Collision));
    assert!(matches!(&s[5].geometry, Geometry::Mesh(h) if h.uri == "body.obj"));
    assert_eq!(s[5].extras.get("chrono.model_file"), Some(&Value::Bool(true)));
    assert_eq!(s[6].appearance.as_ref().unwrap().diffuse, Some([1.0, 0.0, 0.0]));
    assert_eq!(s[7].appearance.as_ref().unwrap().diffuse, Some([0.0, 1.0, 0.0]));
    assert_vec(&(s[8].pose.rotation * Vector3::z()), v(0.0, 1.0, 0.0));
    assert_quat(&s[9].pose.rotation, [FRAC_1_SQRT_2, 0.0, 0.0, FRAC_1_SQRT_2]);
    assert!(s[5..].iter().all(|s| s.role == mbconv_ir::ShapeRole::Visual));
}

fn pose_eq(p: &Pose, t: Vector3<f64>, q: [f64; 4]) {
    assert_vec(&p.translation, t);
    assert_quat(&p.rotation, q);
}

#[test]
fn joint_frames_of_every_type() {
    let imported = read("joints.yaml");
    let m = &imported.model;
    let h = 0.5;
    let s = FRAC_1_SQRT_2;

    let lock = m.joint("lock").unwrap();
    assert_eq!(lock.kind, JointKind::Fixed);
    pose_eq(&lock.parent_frame, v(1.0, 0.0, 0.0), [1.0, 0.0, 0.0, 0.0]);
    pose_eq(&lock.child_frame, v(0.0, 0.0, 0.0), [1.0, 0.0, 0.0, 0.0]);
    let (k, d) = lock.bushing.as_ref().unwrap().diagonal(&lock.kind).unwrap();
    assert_eq!(k, [1e5, 1e5, 1e5, 2e5, 2e5, 2e5]);
    assert_eq!(d, [1e3, 1e3, 1e3, 2e3, 2e3, 2e3]);

    // Axis (0,1,0): X=(1,0,0), Y=(0,0,−1), Z=(0,1,0) → q = [√½, −√½, 0, 0].
    let rev = m.joint("revolute").unwrap();
    assert_eq!(rev.kind, JointKind::Revolute { axis: Vector3::z() });
    assert_eq!(rev.parent.name(), Some("ground"));
    assert_eq!(rev.child.name(), Some("b"));
    pose_eq(&rev.parent_frame, v(0.0, 1.0, 0.0), [s, -s, 0.0, 0.0]);
    // b is at (0,2,0) turned 90 deg about Z: the point (0,1,0) is (−1,0,0) in b, and the
    // axis (0,1,0) is b's x axis.
    assert_vec(&rev.child_frame.translation, v(-1.0, 0.0, 0.0));
    assert_vec(&(rev.child_frame.rotation * Vector3::z()), v(1.0, 0.0, 0.0));
    let bushing = rev.bushing.as_ref().unwrap();
    assert_eq!(bushing.constrained.stiffness_linear, 7e7);
    assert_eq!(bushing.constrained.damping_linear, 0.35e5);
    assert_eq!(bushing.free.unwrap().stiffness_rotational, 500.0);
    let (k, _) = bushing.diagonal(&rev.kind).unwrap();
    assert_eq!(k, [7e7, 7e7, 7e7, 1e5, 1e5, 500.0]);

    // c, d and e stand where b stands, so their joint frames are b's.
    let sph = m.joint("spherical").unwrap();
    assert_eq!(sph.kind, JointKind::Spherical);
    assert_eq!((sph.parent.name(), sph.child.name()), (Some("a"), Some("c")));
    pose_eq(&sph.parent_frame, v(0.0, 1.0, 0.0), [1.0, 0.0, 0.0, 0.0]);
    pose_eq(&sph.child_frame, v(-1.0, -1.0, 0.0), [s, 0.0, 0.0, -s]);

    // Axis (1,0,0): X=(0,1,0), Y=(0,0,1), Z=(1,0,0) → q = [½, ½, ½, ½].
    let pri = m.joint("prismatic").unwrap();
    assert_eq!(pri.kind, JointKind::Prismatic { axis: Vector3::z() });
    pose_eq(&pri.parent_frame, v(-1.0, 0.0, 0.0), [h, h, h, h]);

    // axis1 (0,1,0), axis2 (0,0,1): X=(0,1,0), Z=X×axis2=(1,0,0), Y=(0,0,1).
    let uni = m.joint("universal").unwrap();
    assert_eq!(
        uni.kind,
        JointKind::Universal {
            axis1: Vector3::x(),
            axis2: Vector3::y()
        }
    );
    pose_eq(&uni.parent_frame, v(1.0, 0.0, 0.0), [h, h, h, h]);

    let pl = m.joint("point_line").unwrap();
    assert_eq!(pl.kind, JointKind::PointLine);
    pose_eq(&pl.parent_frame, v(1.0, 0.0, 0.0), [1.0, 0.0, 0.0, 0.0]);
    pose_eq(&pl.child_frame, v(0.0, 0.0, 0.0), [1.0, 0.0, 0.0, 0.0]);

    // POINT_PLANE ignores `axis` (kept and reported).
    let pp = m.joint("point_plane").unwrap();
    assert_eq!(pp.kind, JointKind::PointPlane);
    pose_eq(&pp.parent_frame, v(0.0, 2.0, 0.0), [1.0, 0.0, 0.0, 0.0]);
    assert!(pp.extras.get("chrono.axis").is_some());
    assert!(
        imported
            .report
            .findings
            .iter()
            .any(|f| f.code == "chrono.key_ignored" && f.path.as_deref() == Some("joints[\"point_plane\"]"))
    );
}

#[test]
fn constraints_points_are_body_local() {
    let m = read("constraints.yaml").model;
    assert_eq!(m.name, "model");
    // link at (0,0,1) turned 90 deg about X.
    let ConstraintKind::Distance {
        point1,
        point2,
        distance,
        ..
    } = &m.constraints[0].kind
    else {
        panic!()
    };
    assert_vec(point1, v(0.0, 0.0, 0.0));
    assert_vec(point2, v(0.0, 0.0, -1.0));
    assert_eq!(*distance, None);
    let ConstraintKind::RevoluteSpherical { point1, point2, .. } = &m.constraints[1].kind else {
        panic!()
    };
    assert_vec(point1, v(1.0, 0.0, 0.0));
    assert_vec(point2, v(0.0, 1.0, 0.0));
    assert!(matches!(
        m.constraints[2].kind,
        ConstraintKind::RevoluteTranslational { .. }
    ));
}

#[test]
fn tsda_and_rsda_laws_follow_chrono_precedence() {
    let m = read("springs.yaml").model;
    let tsda = |i: usize| match &m.force_elements[i].kind {
        ForceKind::Tsda(t) => t.clone(),
        _ => panic!(),
    };
    let lin = tsda(0);
    assert_vec(&lin.point2, v(0.0, 0.0, 0.0));
    assert_eq!((lin.free_length, lin.preload), (0.9, 5.0));
    assert_eq!((lin.min_length, lin.max_length), (Some(0.5), Some(1.5)));
    assert_eq!(
        lin.law,
        SpringDamperLaw::Linear {
            stiffness: Some(50.0),
            damping: Some(5.0)
        }
    );
    let vis = lin.visualization.unwrap();
    assert_eq!(vis.style, SpringStyle::Spring);
    assert_eq!(
        (vis.radius, vis.resolution, vis.turns, vis.color),
        (Some(0.05), Some(80), Some(15), Some([1.0, 0.0, 0.0]))
    );

    // Curves override the linear coefficient (kept as an extra).
    assert_eq!(
        tsda(1).law,
        SpringDamperLaw::Curves {
            spring: Some(vec![[-1.0, -10.0], [0.0, 0.0], [1.0, 20.0]]),
            damping: Some(vec![[-1.0, -2.0], [1.0, 2.0]]),
        }
    );
    assert_eq!(
        m.force_elements[1].extras.get("chrono.spring_coefficient"),
        Some(&Value::Int(7))
    );
    assert_eq!(
        tsda(2).law,
        SpringDamperLaw::Map {
            deformations: vec![0.0, 0.1, 0.2],
            velocities: vec![-1.0, 1.0],
            forces: vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]],
        }
    );
    assert_eq!(
        tsda(3).law,
        SpringDamperLaw::DegressiveDamper {
            damping: 100.0,
            degressivity_compression: 2.0,
            degressivity_expansion: 3.0
        }
    );
    // A damper alone ignores the preload, as Chrono does.
    let damper = tsda(4);
    assert_eq!(
        damper.law,
        SpringDamperLaw::Linear {
            stiffness: None,
            damping: Some(4.0)
        }
    );
    assert_eq!(damper.preload, 0.0);
    assert_eq!(
        m.force_elements[4].extras.get("chrono.preload"),
        Some(&Value::Int(3))
    );

    let ForceKind::Rsda(r) = &m.force_elements[5].kind else {
        panic!()
    };
    // Motor-style frame for axis (0,1,0): q = [½, −½, −½, −½]; mass body at z = −1.
    pose_eq(&r.frame1, v(0.0, 0.0, -0.5), [0.5, -0.5, -0.5, -0.5]);
    pose_eq(&r.frame2, v(0.0, 0.0, 0.5), [0.5, -0.5, -0.5, -0.5]);
    assert_eq!(r.free_angle, FRAC_PI_2);
    assert_eq!(r.preload, 1.5);
    assert_eq!(
        r.law,
        SpringDamperLaw::Linear {
            stiffness: Some(10.0),
            damping: Some(0.5)
        }
    );
    let ForceKind::Rsda(r) = &m.force_elements[6].kind else {
        panic!()
    };
    assert!(matches!(
        r.law,
        SpringDamperLaw::Curves {
            spring: Some(_),
            damping: Some(_)
        }
    ));
    // No location: the world origin, which is (0, 0, 1) on the mass body.
    assert_vec(&r.frame1.translation, v(0.0, 0.0, 1.0));
    assert_vec(&r.frame2.translation, v(0.0, 0.0, 0.0));
}

#[test]
fn motors_frames_guides_and_functions() {
    let m = read("motors.yaml").model;
    let motor = |name: &str| m.motors.iter().find(|x| x.name == name).unwrap().clone();
    let lin_pos = motor("lin_pos");
    assert_eq!(
        (lin_pos.motor_type, lin_pos.actuation),
        (MotorType::Linear, MotorActuation::Position)
    );
    let MotorTarget::BodyPair {
        body1,
        frame1,
        body2,
        frame2,
        guide,
    } = &lin_pos.target
    else {
        panic!()
    };
    assert_eq!(
        (body1.name(), body2.name(), *guide),
        (Some("slider"), Some("ground"), MotorGuide::Prismatic)
    );
    // Motor frame for axis (1,0,0): q = [√½, 0, √½, 0], at the slider origin / world (1,0,0).
    pose_eq(frame1, v(0.0, 0.0, 0.0), [FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2, 0.0]);
    pose_eq(frame2, v(1.0, 0.0, 0.0), [FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2, 0.0]);
    // 1 + 2t + 3t² at t = 2.
    assert_eq!(lin_pos.function.value(2.0), 17.0);

    let lin_speed = motor("lin_speed");
    assert!(matches!(
        lin_speed.target,
        MotorTarget::BodyPair {
            guide: MotorGuide::Spherical,
            ..
        }
    ));
    // 2·sin(2π·0.25·t + 90°) + 1.
    assert_relative_eq!(lin_speed.function.value(0.0), 3.0, epsilon = 1e-12);
    assert_relative_eq!(lin_speed.function.value(1.0), 1.0, epsilon = 1e-12);
    let lin_force = motor("lin_force");
    assert!(matches!(
        lin_force.target,
        MotorTarget::BodyPair {
            guide: MotorGuide::Free,
            ..
        }
    ));
    assert_eq!(lin_force.function.value(2.0), 5.0);

    let rot_pos = motor("rot_pos");
    assert_eq!(rot_pos.motor_type, MotorType::Rotation);
    assert!(matches!(
        rot_pos.target,
        MotorTarget::BodyPair {
            guide: MotorGuide::Revolute,
            ..
        }
    ));
    // Rotation angles are radians whatever angle_degrees says.
    assert_eq!(rot_pos.function, TimeFunction::Constant { value: 1.57 });

    let rot_speed = motor("rot_speed");
    assert!(matches!(
        rot_speed.target,
        MotorTarget::BodyPair {
            guide: MotorGuide::Cylindrical,
            ..
        }
    ));
    // g(0 + fmod(t + 8, 8)) with g the DATA table.
    for (t, f) in [(0.5, 1.57), (9.0, 3.14), (4.5, 1.57), (6.0, 0.0)] {
        assert_relative_eq!(rot_speed.function.value(t), f, epsilon = 1e-12);
    }
    let rot_torque = motor("rot_torque");
    assert_eq!(rot_torque.actuation, MotorActuation::Force);
    assert!(matches!(
        rot_torque.target,
        MotorTarget::BodyPair {
            guide: MotorGuide::Free,
            ..
        }
    ));
    assert_eq!(rot_torque.function, TimeFunction::External { default: 0.0 });
}

#[test]
fn body_loads_local_means_the_com_frame() {
    let m = read("loads.yaml").model;
    let load = |name: &str| m.loads.iter().find(|l| l.name == name).unwrap().clone();
    // COM at (0,1,0) turned 90 deg about Z: local (1,0,0) is body (0,1,0); the local point
    // (1,0,0) is body (0,1,0) + (0,1,0) = (0,2,0).
    let l = load("local_force");
    assert!(l.vector_in_body_frame && l.point_in_body_frame);
    assert_vec(&l.vector, v(0.0, 1.0, 0.0));
    assert_vec(&l.point, v(0.0, 2.0, 0.0));
    let g = load("global_force");
    assert!(!g.vector_in_body_frame && !g.point_in_body_frame);
    assert_eq!((g.vector, g.point), (v(0.0, 0.0, -10.0), v(2.0, 0.0, 0.0)));
    assert_eq!(g.modulation.unwrap().value(4.0), 2.0);
    let t = load("torque");
    assert_eq!(t.load_type, mbconv_ir::LoadType::Torque);
    assert_vec(&t.vector, v(0.0, 0.0, 2.0));
    let c = load("push");
    assert!(c.external);
    assert_eq!(c.vector, Vector3::zeros());
    assert_vec(&c.point, v(0.0, 1.0, 0.0));
}

#[test]
fn simulation_file_as_input_reads_its_model_gravity_and_time_step() {
    let imported = read("sim_bodies.yaml");
    let s = &imported.model.simulation;
    assert_eq!(imported.model.name, "Bodies fixture");
    assert_eq!(s.gravity, Some(v(0.0, 0.0, -9.81)));
    assert_eq!(s.time_step, Some(2e-3));
    assert_eq!(s.end_time, Some(5.0));
    assert_eq!(
        s.extras.get("chrono.contact_method"),
        Some(&Value::String("NSC".into()))
    );
}

#[test]
fn sim_out_writes_simulation_and_solver_files_that_read_back() {
    let imported = read("sim_bodies.yaml");
    let mut options = Options::default();
    options.set("sim-out", "run.yaml");
    options.output_path = Some(PathBuf::from("out/model.yaml"));
    let out = ChronoFormat.write(&imported.model, &options).unwrap();
    assert_eq!(out.companions.len(), 2);
    assert_eq!(out.companions[0].file_name, "run.yaml");
    assert!(out.companions[0].text.contains("model: model.yaml\n"));
    assert!(out.companions[0].text.contains("gravity: [0, 0, -9.81]"));
    assert!(out.companions[1].text.contains("time_step: 0.002"));
    // Gravity, time step, end time and solver settings all go to the companion files.
    assert!(
        out.report
            .findings
            .iter()
            .all(|f| !f.path.as_deref().is_some_and(|p| p.starts_with("simulation"))),
        "{:#?}",
        out.report.findings
    );

    let dir = std::env::temp_dir().join(format!("mbconv_chrono_sim_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("model.yaml"), &out.text).unwrap();
    for c in &out.companions {
        std::fs::write(dir.join(&c.file_name), &c.text).unwrap();
    }
    let back = ChronoFormat
        .read(
            &Source::from_path(&dir.join("run.yaml")).unwrap(),
            &Options::default(),
        )
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(back.model.simulation, imported.model.simulation);
    assert_eq!(back.model.bodies, imported.model.bodies);
}

#[test]
fn radians_option_writes_radians() {
    let imported = read("bodies.yaml");
    let mut options = Options::default();
    options.set("angles", "radians");
    let text = ChronoFormat.write(&imported.model, &options).unwrap().text;
    assert!(text.contains("angle_degrees: false"));
    assert!(
        text.contains(&format!("orientation: [{}, 0, 0]", FRAC_PI_2)),
        "{text}"
    );
    options.set("angles", "gradians");
    assert!(ChronoFormat.write(&imported.model, &options).is_err());
}

#[test]
fn source_map_points_items_back_to_their_lines() {
    let imported = read("joints.yaml");
    let span = imported.span_of("joints[\"revolute\"].parent_frame").unwrap();
    assert_eq!((span.line, span.column), (52, 7));
    let span = imported.span_of("bodies[\"b\"].inertial.mass").unwrap();
    assert_eq!(span.line, 17);
    let shapes = read("contact_visual.yaml");
    let span = shapes.span_of("bodies[\"box\"].shapes[3]").unwrap();
    assert_eq!(span.line, 53);
}

#[test]
fn format_info_and_sniffing() {
    let info = ChronoFormat.info();
    assert_eq!(info.name, "chrono");
    assert!(info.answers_to("yaml") && info.answers_to("chrono-yaml"));
    assert_eq!(info.extensions, &["yaml", "yml"]);
    assert!(ChronoFormat.sniff("chrono-version: 10.0\nmodel:\n"));
    assert!(ChronoFormat.sniff("# sim\ntype: MBS\nmodel: m.yaml\n"));
    assert!(!ChronoFormat.sniff("format: ChoreonoidBody\nlinks: []\n"));
}
