//! Validation: one bad model per rule, each with the expected finding; and clean models
//! without findings.
#![allow(clippy::unwrap_used)]

use mbconv_ir::*;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};

/// A valid two-link chain to break in each test.
fn good() -> Model {
    let mut m = Model::new("chain");
    let mut a = Body::new("a");
    a.inertial.inertia = Inertia::from_moments_products([0.1, 0.2, 0.25], [0.0, 0.0, 0.0]);
    let mut b = Body::new("b");
    b.pose = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    m.bodies = vec![a, b];
    m.joints.push(Joint::new(
        "j1",
        JointKind::Revolute { axis: Vector3::z() },
        BodyRef::World,
        BodyRef::body("a"),
    ));
    let mut j2 = Joint::new(
        "j2",
        JointKind::Revolute { axis: Vector3::z() },
        BodyRef::body("a"),
        BodyRef::body("b"),
    );
    j2.parent_frame = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    m.joints.push(j2);
    m
}

#[track_caller]
fn expect(model: &Model, code: &str, path_part: &str) {
    let report = validate(model);
    let finding = report
        .findings
        .iter()
        .find(|f| f.code == code)
        .unwrap_or_else(|| panic!("expected {code}, got {:#?}", report.findings));
    assert!(
        finding.path.as_deref().unwrap_or_default().contains(path_part),
        "{code} at {:?}, expected a path containing {path_part:?}",
        finding.path
    );
}

#[test]
fn the_good_model_is_clean() {
    let report = validate(&good());
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
}

#[test]
fn negative_mass() {
    let mut m = good();
    m.bodies[1].inertial.mass = -2.0;
    expect(&m, "mass.negative", r#"bodies["b"].inertial"#);
    assert!(validate(&m).has_errors());
}

#[test]
fn asymmetric_inertia() {
    let mut m = good();
    m.bodies[0].inertial.inertia.0[0][1] = 0.01;
    expect(&m, "inertia.asymmetric", r#"bodies["a"]"#);
}

#[test]
fn inertia_not_positive_semidefinite() {
    let mut m = good();
    m.bodies[0].inertial.inertia = Inertia::from_moments_products([1.0, 1.0, -0.5], [0.0; 3]);
    expect(&m, "inertia.not_psd", r#"bodies["a"]"#);
}

#[test]
fn inertia_breaks_triangle_inequality() {
    let mut m = good();
    m.bodies[0].inertial.inertia = Inertia::from_moments_products([1.0, 1.0, 3.0], [0.0; 3]);
    expect(&m, "inertia.triangle", r#"bodies["a"]"#);
    // A rotated tensor with large products is judged by its principal moments.
    let mut ok = good();
    ok.bodies[0].inertial.inertia = Inertia::from_moments_products([2.0, 2.0, 1.0], [0.5, 0.0, 0.0]);
    assert!(!validate(&ok).has_errors());
}

/// The codes of the inertia findings of `model`.
fn inertia_codes(model: &Model) -> Vec<String> {
    validate(model)
        .findings
        .iter()
        .filter(|f| f.code.starts_with("inertia."))
        .map(|f| f.code.clone())
        .collect()
}

#[test]
fn inertia_defects_are_judged_relative_to_the_body_and_the_model() {
    // iCub's links: a tensor of round-off (1e-20) on a body of 0.27 kg whose centre of mass is
    // 5.5 cm from its frame: its principal moments come out negative by 1.4e-20, nothing beside
    // the 8e-4 kg·m² of the body about its frame origin. Singular, not unphysical.
    let mut m = good();
    m.bodies[0].inertial.mass = 0.2675;
    m.bodies[0].inertial.com = Vector3::new(0.008, 0.0, 0.0553);
    m.bodies[0].inertial.inertia =
        Inertia([[0.0, 0.0, 1.35525e-20], [0.0, 0.0, 0.0], [1.35525e-20, 0.0, 0.0]]);
    assert_eq!(inertia_codes(&m), ["inertia.singular"]);
    // The same round-off at the body's frame origin is judged against the model's largest
    // inertia (0.25 kg·m² for body "a" of the chain).
    let mut m = good();
    m.bodies[1].inertial.mass = 1.0;
    m.bodies[1].inertial.inertia =
        Inertia([[0.0, 0.0, 1.35525e-20], [0.0, 0.0, 0.0], [1.35525e-20, 0.0, 0.0]]);
    assert_eq!(inertia_codes(&m), ["inertia.singular"]);
    // A 1e-22 excess over the triangle inequality on a small body is silent…
    let mut m = good();
    m.bodies[1].inertial.mass = 1e-3;
    m.bodies[1].inertial.inertia = Inertia::from_moments_products([1e-7, 1e-7, 2e-7 + 1e-22], [0.0; 3]);
    assert!(inertia_codes(&m).is_empty(), "{:?}", inertia_codes(&m));
    // …a real one still warns, and so does a real negative moment, on that body too.
    m.bodies[1].inertial.inertia = Inertia::from_moments_products([1e-7, 1e-7, 2.2e-7], [0.0; 3]);
    assert_eq!(inertia_codes(&m), ["inertia.triangle"]);
    m.bodies[1].inertial.inertia = Inertia::from_moments_products([-1e-9, 1e-7, 1e-7], [0.0; 3]);
    assert_eq!(inertia_codes(&m), ["inertia.not_psd"]);
    assert!(!validate(&m).has_errors());
}

#[test]
fn duplicate_body_names() {
    let mut m = good();
    m.bodies[1].name = "a".into();
    expect(&m, "name.duplicate", r#"bodies["a"]"#);
}

#[test]
fn empty_joint_name() {
    let mut m = good();
    m.joints[0].name.clear();
    expect(&m, "name.empty", "joints[0]");
}

#[test]
fn joint_refers_to_unknown_body() {
    let mut m = good();
    m.joints[1].child = BodyRef::body("ghost");
    expect(&m, "ref.unresolved", r#"joints["j2"].child"#);
}

#[test]
fn zero_axis() {
    let mut m = good();
    m.joints[0].kind = JointKind::Prismatic {
        axis: Vector3::zeros(),
    };
    expect(&m, "axis.zero", r#"joints["j1"].kind.axis"#);
}

#[test]
fn parallel_universal_axes() {
    let mut m = good();
    m.joints[0] = Joint::new(
        "j1",
        JointKind::Universal {
            axis1: Vector3::x(),
            axis2: Vector3::x() * 2.0,
        },
        BodyRef::World,
        BodyRef::body("a"),
    );
    expect(&m, "axis.parallel", r#"joints["j1"]"#);
}

#[test]
fn joint_connects_body_to_itself() {
    let mut m = good();
    m.joints[1].parent = BodyRef::body("b");
    expect(&m, "joint.self", r#"joints["j2"]"#);
}

#[test]
fn wrong_number_of_initial_coordinates() {
    let mut m = good();
    m.joints[0].q0 = vec![0.0, 1.0];
    expect(&m, "joint.q0_length", r#"joints["j1"].q0"#);
    let mut m = good();
    m.joints[0].v0.clear();
    expect(&m, "joint.v0_length", r#"joints["j1"].v0"#);
}

#[test]
fn non_unit_quaternion() {
    let mut m = good();
    m.bodies[0].pose.rotation = UnitQuaternion::new_unchecked(Quaternion::new(2.0, 0.0, 0.0, 0.0));
    expect(&m, "rotation.not_unit", r#"bodies["a"].pose"#);
}

#[test]
fn non_finite_number() {
    let mut m = good();
    m.bodies[0].inertial.com.x = f64::NAN;
    expect(&m, "number.not_finite", r#"bodies["a"].inertial"#);
}

#[test]
fn inverted_limits() {
    let mut m = good();
    m.joints[0].dofs = vec![DofProperties {
        position_limits: Limits::new(1.0, -1.0),
        ..DofProperties::default()
    }];
    expect(&m, "limits.inverted", r#"joints["j1"].dofs[0].position_limits"#);
}

#[test]
fn negative_bushing_stiffness() {
    let mut m = good();
    m.force_elements.push(ForceElement {
        name: "bush".into(),
        kind: ForceKind::Bushing(Bushing {
            law: BushingLaw::DrakeRollPitchYaw,
            body_a: BodyRef::World,
            frame_a: Pose::identity(),
            body_c: BodyRef::body("a"),
            frame_c: Pose::identity(),
            torque_stiffness: [1.0, -1.0, 1.0],
            torque_damping: [0.0; 3],
            force_stiffness: [0.0; 3],
            force_damping: [0.0; 3],
        }),
        extras: Extras::default(),
    });
    expect(&m, "bushing.negative", r#"force_elements["bush"]"#);
}

#[test]
fn unsorted_data_function() {
    let mut m = good();
    m.motors.push(Motor {
        name: "drive".into(),
        motor_type: MotorType::Rotation,
        actuation: MotorActuation::Speed,
        target: MotorTarget::Joint {
            joint: "j1".into(),
            dof: 0,
        },
        function: TimeFunction::Data {
            points: vec![[0.0, 0.0], [2.0, 1.0], [1.0, 3.0]],
        },
        extras: Extras::default(),
    });
    expect(&m, "table.order", r#"motors["drive"].function"#);
}

#[test]
fn motor_on_missing_degree_of_freedom() {
    let mut m = good();
    m.motors.push(Motor {
        name: "drive".into(),
        motor_type: MotorType::Rotation,
        actuation: MotorActuation::Force,
        target: MotorTarget::Joint {
            joint: "j1".into(),
            dof: 3,
        },
        function: TimeFunction::Constant { value: 1.0 },
        extras: Extras::default(),
    });
    expect(&m, "dof.index", r#"motors["drive"]"#);
}

#[test]
fn shape_with_unknown_contact_material_and_bad_size() {
    let mut m = good();
    let mut shape = Shape::new(ShapeRole::Collision, Geometry::Sphere { radius: -1.0 });
    shape.contact_material = Some("rubber".into());
    m.bodies[0].shapes.push(shape);
    expect(&m, "shape.size", r#"bodies["a"].shapes[0]"#);
    expect(&m, "ref.unresolved", r#"bodies["a"].shapes[0]"#);
}

#[test]
fn group_cycle() {
    let mut m = good();
    let mut g1 = Group::new("g1", GroupType::Assembly);
    g1.parent = Some("g2".into());
    let mut g2 = Group::new("g2", GroupType::Assembly);
    g2.parent = Some("g1".into());
    m.groups = vec![g1, g2];
    expect(&m, "group.cycle", r#"groups["g1"]"#);
}

#[test]
fn stored_pose_disagrees_with_joints() {
    let mut m = good();
    m.bodies[1].pose = Pose::from_translation(Vector3::new(1.5, 0.0, 0.0));
    expect(&m, "pose.inconsistent", r#"bodies["b"].pose"#);
    let report = validate(&m);
    assert!(!report.has_errors(), "an inconsistent pose is a warning");
}

#[test]
fn non_positive_time_step() {
    let mut m = good();
    m.simulation.time_step = Some(0.0);
    expect(&m, "simulation.time_step", "simulation.time_step");
}

#[test]
fn spans_come_from_the_source_map() {
    let mut m = good();
    m.bodies[1].inertial.mass = -2.0;
    let mut map = mbconv_ir::format::SourceMap::new();
    map.insert(
        r#"bodies["b"]"#.into(),
        SourceSpan {
            offset: 10,
            length: 4,
            line: 3,
            column: 5,
        },
    );
    let report = mbconv_ir::validate::validate_with_spans(&m, &map);
    let finding = report
        .findings
        .iter()
        .find(|f| f.code == "mass.negative")
        .unwrap();
    assert_eq!(finding.span.as_ref().map(|s| (s.line, s.column)), Some((3, 5)));
}

/// The severity of `code` in the validation of `model` (the finding must exist).
#[track_caller]
fn severity_of(model: &Model, code: &str) -> Severity {
    let report = validate(model);
    report
        .findings
        .iter()
        .find(|f| f.code == code)
        .unwrap_or_else(|| panic!("expected {code}, got {:#?}", report.findings))
        .severity
}

/// A way to break the good model: what, how, the code of the finding it must give.
type Case = (&'static str, Box<dyn Fn(&mut Model)>, &'static str);

/// The policy of `docs/errors.md`: what cannot mean anything is an error, what the source
/// simulator accepts but is physically dubious is a warning.
#[test]
fn severities_follow_the_policy() {
    use mbconv_ir::validate::{Admission, admission};
    let errors: Vec<Case> = vec![
        (
            "NaN mass",
            Box::new(|m| m.bodies[0].inertial.mass = f64::NAN),
            "number.not_finite",
        ),
        (
            "negative mass",
            Box::new(|m| m.bodies[0].inertial.mass = -1.0),
            "mass.negative",
        ),
        (
            "unknown body",
            Box::new(|m| m.joints[1].child = BodyRef::body("ghost")),
            "ref.unresolved",
        ),
        (
            "zero axis",
            Box::new(|m| {
                m.joints[0].kind = JointKind::Revolute {
                    axis: Vector3::zeros(),
                }
            }),
            "axis.zero",
        ),
        (
            "duplicate name",
            Box::new(|m| m.bodies[1].name = "a".into()),
            "name.duplicate",
        ),
        (
            "zero quaternion",
            Box::new(|m| {
                m.bodies[0].pose.rotation = UnitQuaternion::new_unchecked(Quaternion::new(0.0, 0.0, 0.0, 0.0))
            }),
            "rotation.zero",
        ),
        (
            "infinite box",
            Box::new(|m| {
                m.bodies[0].shapes.push(Shape::new(
                    ShapeRole::Collision,
                    Geometry::Box {
                        size: [1.0, f64::INFINITY, 1.0],
                    },
                ))
            }),
            "number.not_finite",
        ),
    ];
    for (what, break_it, code) in errors {
        let mut m = good();
        break_it(&mut m);
        assert_eq!(severity_of(&m, code), Severity::Error, "{what}");
        assert!(
            matches!(admission(&validate(&m)), Admission::Invalid { .. }),
            "{what}"
        );
    }
    let warnings: Vec<Case> = vec![
        (
            "negative principal moment (Pinocchio and Drake simulate it)",
            Box::new(|m| {
                m.bodies[0].inertial.inertia = Inertia::from_moments_products([1.0, 1.0, -0.5], [0.0; 3])
            }),
            "inertia.not_psd",
        ),
        (
            "triangle inequality",
            Box::new(|m| {
                m.bodies[0].inertial.inertia = Inertia::from_moments_products([1.0, 1.0, 3.0], [0.0; 3])
            }),
            "inertia.triangle",
        ),
        (
            "flat inertia",
            Box::new(|m| {
                m.bodies[0].inertial.inertia =
                    Inertia::from_moments_products([-2.2204460492503132e-17, 0.0, 0.3], [0.0; 3])
            }),
            "inertia.triangle",
        ),
        (
            "singular inertia",
            Box::new(|m| {
                m.bodies[0].inertial.inertia = Inertia::from_moments_products([0.0, 0.2, 0.2], [0.0; 3])
            }),
            "inertia.singular",
        ),
        (
            "asymmetric inertia (Choreonoid loads WAREC1's)",
            Box::new(|m| m.bodies[0].inertial.inertia.0[0][1] += 1e-3),
            "inertia.asymmetric",
        ),
        (
            "negative box size",
            Box::new(|m| {
                m.bodies[0].shapes.push(Shape::new(
                    ShapeRole::Collision,
                    Geometry::Box {
                        size: [0.1, 0.1, -0.2],
                    },
                ))
            }),
            "shape.size",
        ),
        (
            "non-unit quaternion",
            Box::new(|m| {
                m.bodies[0].pose.rotation = UnitQuaternion::new_unchecked(Quaternion::new(1.1, 0.0, 0.0, 0.0))
            }),
            "rotation.not_unit",
        ),
    ];
    for (what, break_it, code) in warnings {
        let mut m = good();
        break_it(&mut m);
        assert_eq!(severity_of(&m, code), Severity::Warning, "{what}");
        assert!(
            matches!(admission(&validate(&m)), Admission::Dubious { .. }),
            "{what}: {:#?}",
            validate(&m).findings
        );
    }
    assert_eq!(admission(&validate(&good())), Admission::Clean);
}

#[test]
fn messages_print_numbers_readably() {
    let mut m = good();
    m.bodies[0].inertial.inertia =
        Inertia::from_moments_products([-2.2204460492503132e-17, 0.0, 0.30000000000000004], [0.0; 3]);
    let report = validate(&m);
    let message = &report.findings[0].message;
    assert!(
        message.contains("-2.2204460492503132e-17 + 0 < 0.30000000000000004"),
        "{message}"
    );
}
