//! Property test: random IR models serialise to IR JSON and read back identical, bit for bit.
//!
//! Equality is checked twice: `PartialEq` on the model, and byte equality of a second
//! serialisation (shortest round-trip float formatting distinguishes every bit pattern,
//! including `-0.0`).
#![allow(clippy::unwrap_used)]

use mbconv_ir::*;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use proptest::prelude::*;
use proptest::strategy::Union;

fn float() -> BoxedStrategy<f64> {
    prop_oneof![
        prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO,
        -10.0..10.0f64,
        Just(-0.0),
        Just(1.0),
    ]
    .boxed()
}

fn v3() -> BoxedStrategy<Vector3<f64>> {
    [float(), float(), float()].prop_map(Vector3::from).boxed()
}

fn a3() -> BoxedStrategy<[f64; 3]> {
    [float(), float(), float()].boxed()
}

fn quat() -> BoxedStrategy<UnitQuaternion<f64>> {
    // Any four numbers: the IR keeps the bits as written (validation checks unit norm).
    (float(), float(), float(), float())
        .prop_map(|(w, x, y, z)| UnitQuaternion::new_unchecked(Quaternion::new(w, x, y, z)))
        .boxed()
}

fn pose() -> BoxedStrategy<Pose> {
    prop_oneof![
        Just(Pose::identity()),
        (v3(), quat()).prop_map(|(t, r)| Pose::new(t, r))
    ]
    .boxed()
}

fn name() -> BoxedStrategy<String> {
    "[a-z][a-z0-9 _:-]{0,8}".boxed()
}

fn value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        float().prop_map(Value::Float),
        ".{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::List),
            prop::collection::vec((name(), inner), 0..4).prop_map(|e| Value::Map(ValueMap(e))),
        ]
    })
    .boxed()
}

fn extras() -> BoxedStrategy<Extras> {
    prop::collection::vec(("(chrono|skel|body|shift)\\.[a-z_]{1,6}", value()), 0..3)
        .prop_map(|e| Extras(ValueMap(e)))
        .boxed()
}

fn body_ref() -> BoxedStrategy<BodyRef> {
    prop_oneof![Just(BodyRef::World), name().prop_map(BodyRef::Body)].boxed()
}

fn opt<T: std::fmt::Debug + Clone>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
    prop::option::of(s)
}

fn mesh() -> BoxedStrategy<MeshRef> {
    (".{1,8}", opt(".{1,8}"), a3(), opt(name()))
        .prop_map(|(uri, resolved_path, scale, node)| MeshRef {
            uri,
            resolved_path,
            scale,
            node,
        })
        .boxed()
}

fn geometry() -> BoxedStrategy<Geometry> {
    Union::new(vec![
        a3().prop_map(|size| Geometry::Box { size }).boxed(),
        float().prop_map(|radius| Geometry::Sphere { radius }).boxed(),
        a3().prop_map(|radii| Geometry::Ellipsoid { radii }).boxed(),
        (float(), float())
            .prop_map(|(radius, length)| Geometry::Cylinder { radius, length })
            .boxed(),
        (float(), float())
            .prop_map(|(radius, length)| Geometry::Capsule { radius, length })
            .boxed(),
        (float(), float())
            .prop_map(|(radius, length)| Geometry::Cone { radius, length })
            .boxed(),
        (float(), float(), float())
            .prop_map(|(base_width, base_depth, height)| Geometry::Pyramid {
                base_width,
                base_depth,
                height,
            })
            .boxed(),
        (v3(), float())
            .prop_map(|(normal, offset)| Geometry::Plane { normal, offset })
            .boxed(),
        prop::collection::vec((float(), v3()), 0..3)
            .prop_map(|s| Geometry::MultiSphere {
                spheres: s
                    .into_iter()
                    .map(|(radius, center)| SphereItem { radius, center })
                    .collect(),
            })
            .boxed(),
        mesh().prop_map(Geometry::Mesh).boxed(),
        mesh().prop_map(Geometry::ConvexHull).boxed(),
        (
            mesh(),
            prop_oneof![
                Just(FittedKind::Sphere),
                Just(FittedKind::Ellipsoid),
                Just(FittedKind::ConvexHull)
            ],
        )
            .prop_map(|(mesh, primitive)| Geometry::FittedPrimitive { mesh, primitive })
            .boxed(),
        (
            prop::collection::vec([float(), float()], 0..3),
            prop::collection::vec(a3(), 0..3),
            prop::collection::vec([float(), float(), float(), float()], 0..2),
            opt(float()),
            any::<(bool, bool)>(),
        )
            .prop_map(
                |(cross_section, spine, orientation, crease_angle, (begin_cap, end_cap))| {
                    Geometry::Extrusion(Extrusion {
                        cross_section,
                        spine,
                        orientation,
                        scale: vec![[1.0, 2.0]],
                        crease_angle,
                        begin_cap,
                        end_cap,
                    })
                },
            )
            .boxed(),
        (prop::collection::vec(float(), 4), any::<bool>())
            .prop_map(|(height, ccw)| {
                Geometry::ElevationGrid(ElevationGrid {
                    x_dimension: 2,
                    z_dimension: 2,
                    x_spacing: 0.5,
                    z_spacing: -0.0,
                    height,
                    ccw,
                    crease_angle: None,
                })
            })
            .boxed(),
        (
            prop::collection::vec(a3(), 0..4),
            prop::collection::vec(-1i64..4, 0..6),
        )
            .prop_map(|(coordinate, coord_index)| {
                Geometry::IndexedFaceSet(IndexedFaceSet {
                    coordinate,
                    coord_index,
                    tex_coord: vec![],
                    tex_coord_index: vec![],
                    crease_angle: Some(0.5),
                })
            })
            .boxed(),
        (
            prop::collection::vec(a3(), 0..4),
            prop::collection::vec([0u32..4, 0u32..4, 0u32..4], 0..3),
        )
            .prop_map(|(vertices, triangles)| Geometry::TriangleMesh { vertices, triangles })
            .boxed(),
    ])
    .boxed()
}

fn appearance() -> BoxedStrategy<Appearance> {
    (
        opt(a3()),
        opt(float()),
        opt(a3()),
        opt(float()),
        opt((".{1,5}", any::<bool>())),
    )
        .prop_map(|(diffuse, alpha, specular, shininess, texture)| Appearance {
            diffuse,
            alpha,
            specular,
            emissive: None,
            ambient_intensity: Some(0.25),
            shininess,
            transparency: None,
            texture: texture.map(|(uri, repeat_s)| Texture {
                uri,
                repeat_s,
                repeat_t: !repeat_s,
            }),
        })
        .boxed()
}

fn shape() -> BoxedStrategy<Shape> {
    (
        opt(name()),
        prop_oneof![
            Just(ShapeRole::Visual),
            Just(ShapeRole::Collision),
            Just(ShapeRole::Both)
        ],
        pose(),
        geometry(),
        opt(appearance()),
        any::<bool>(),
        opt(name()),
        opt(float()),
        extras(),
    )
        .prop_map(
            |(
                name,
                role,
                pose,
                geometry,
                appearance,
                collidable,
                contact_material,
                contact_radius,
                extras,
            )| Shape {
                name,
                role,
                pose,
                geometry,
                appearance,
                collidable,
                contact_material,
                contact_radius,
                extras,
            },
        )
        .boxed()
}

fn body() -> BoxedStrategy<Body> {
    (
        (
            name(),
            pose(),
            any::<bool>(),
            float(),
            v3(),
            [a3(), a3(), a3()],
            quat(),
            any::<bool>(),
        ),
        opt((v3(), v3())),
        prop::collection::vec(shape(), 0..3),
        prop::collection::vec((name(), opt(float())), 0..2),
        prop::collection::vec((name(), pose(), any::<bool>()), 0..2),
        extras(),
    )
        .prop_map(
            |((name, pose, fixed, mass, com, rows, rot, gravity), vel, shapes, materials, frames, extras)| {
                Body {
                    name,
                    pose,
                    fixed,
                    inertial: Inertial {
                        mass,
                        com,
                        inertia: Inertia(rows),
                        inertia_rotation: rot,
                    },
                    gravity,
                    enabled: gravity || fixed,
                    initial_velocity: vel.map(|(linear, angular)| Twist { linear, angular }),
                    shapes,
                    contact_materials: materials
                        .into_iter()
                        .map(|(n, friction)| ContactMaterial {
                            friction,
                            young_modulus: Some(2e7),
                            ..ContactMaterial::new(n)
                        })
                        .collect(),
                    frames: frames
                        .into_iter()
                        .map(|(name, pose, marker)| Frame {
                            name,
                            pose,
                            kind: if marker {
                                FrameKind::Marker
                            } else {
                                FrameKind::Frame
                            },
                            extras: Extras::default(),
                        })
                        .collect(),
                    extras,
                }
            },
        )
        .boxed()
}

fn joint_kind() -> BoxedStrategy<JointKind> {
    Union::new(vec![
        Just(JointKind::Fixed).boxed(),
        v3().prop_map(|axis| JointKind::Revolute { axis }).boxed(),
        v3().prop_map(|axis| JointKind::Prismatic { axis }).boxed(),
        (v3(), float())
            .prop_map(|(axis, pitch)| JointKind::Screw { axis, pitch })
            .boxed(),
        (v3(), v3())
            .prop_map(|(axis1, axis2)| JointKind::Universal { axis1, axis2 })
            .boxed(),
        Just(JointKind::Spherical).boxed(),
        prop_oneof![Just(EulerOrder::Xyz), Just(EulerOrder::Zyx)]
            .prop_map(|order| JointKind::Euler { order })
            .boxed(),
        v3().prop_map(|axis| JointKind::Cylindrical { axis }).boxed(),
        (v3(), v3())
            .prop_map(|(axis1, axis2)| JointKind::Planar { axis1, axis2 })
            .boxed(),
        Just(JointKind::Translational).boxed(),
        Just(JointKind::Free).boxed(),
        Just(JointKind::PointLine).boxed(),
        Just(JointKind::PointPlane).boxed(),
        v3().prop_map(|axis| JointKind::PseudoContinuousTrack { axis })
            .boxed(),
    ])
    .boxed()
}

fn dof() -> BoxedStrategy<DofProperties> {
    (
        opt(name()),
        opt(float()),
        opt(float()),
        float(),
        float(),
        float(),
        float(),
    )
        .prop_map(
            |(name, lower, upper, damping, friction, spring_stiffness, gear_ratio)| DofProperties {
                name,
                position_limits: Limits { lower, upper },
                effort_limits: Limits { lower: None, upper },
                damping,
                friction,
                spring_stiffness,
                spring_rest_position: -0.0,
                rotor_inertia: 0.5,
                gear_ratio,
                ..DofProperties::default()
            },
        )
        .boxed()
}

fn joint() -> BoxedStrategy<Joint> {
    (
        (name(), joint_kind(), body_ref(), body_ref(), pose(), pose()),
        prop::collection::vec(float(), 0..7),
        prop::collection::vec(float(), 0..7),
        prop::collection::vec(dof(), 0..3),
        opt(prop_oneof![
            Just(ActuatorKind::Force),
            Just(ActuatorKind::Servo),
            Just(ActuatorKind::LinkPosition)
        ]),
        opt(any::<i64>()),
        opt((float(), float(), float(), float(), any::<bool>())),
        any::<bool>(),
        extras(),
    )
        .prop_map(
            |(
                (name, kind, parent, child, parent_frame, child_frame),
                q0,
                v0,
                dofs,
                actuator,
                joint_id,
                b,
                enabled,
                extras,
            )| {
                Joint {
                    name,
                    kind,
                    parent,
                    child,
                    parent_frame,
                    child_frame,
                    q0,
                    v0,
                    dofs,
                    actuator,
                    joint_id,
                    bushing: b.map(|(k, d, kr, dr, free)| {
                        let c = BushingConstants {
                            stiffness_linear: k,
                            damping_linear: d,
                            stiffness_rotational: kr,
                            damping_rotational: dr,
                        };
                        JointBushing {
                            constrained: c,
                            free: free.then_some(c),
                        }
                    }),
                    enabled,
                    extras,
                }
            },
        )
        .boxed()
}

fn time_function() -> BoxedStrategy<TimeFunction> {
    let leaf = prop_oneof![
        float().prop_map(|value| TimeFunction::Constant { value }),
        prop::collection::vec(float(), 0..4)
            .prop_map(|coefficients| TimeFunction::Polynomial { coefficients }),
        (float(), float(), float(), float()).prop_map(|(amplitude, frequency, phase, shift)| {
            TimeFunction::Sine {
                amplitude,
                frequency,
                phase,
                shift,
            }
        }),
        (float(), float()).prop_map(|(slope, intercept)| TimeFunction::Ramp { slope, intercept }),
        prop::collection::vec([float(), float()], 0..4).prop_map(|points| TimeFunction::Data { points }),
        float().prop_map(|default| TimeFunction::External { default }),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            (inner.clone(), float(), float(), float()).prop_map(|(f, start, width, shift)| {
                TimeFunction::Repeat {
                    function: Box::new(f),
                    start,
                    width,
                    shift,
                }
            }),
            (prop::collection::vec(float(), 1), prop::collection::vec(inner, 2))
                .prop_map(|(knots, pieces)| TimeFunction::Piecewise { knots, pieces }),
        ]
    })
    .boxed()
}

fn law() -> BoxedStrategy<SpringDamperLaw> {
    prop_oneof![
        (opt(float()), opt(float()))
            .prop_map(|(stiffness, damping)| SpringDamperLaw::Linear { stiffness, damping }),
        (float(), float(), float()).prop_map(
            |(damping, degressivity_compression, degressivity_expansion)| {
                SpringDamperLaw::DegressiveDamper {
                    damping,
                    degressivity_compression,
                    degressivity_expansion,
                }
            }
        ),
        (
            opt(prop::collection::vec([float(), float()], 0..3)),
            opt(prop::collection::vec([float(), float()], 0..3))
        )
            .prop_map(|(spring, damping)| SpringDamperLaw::Curves { spring, damping }),
        (
            prop::collection::vec(float(), 2),
            prop::collection::vec(float(), 2),
            prop::collection::vec(prop::collection::vec(float(), 2), 2)
        )
            .prop_map(|(deformations, velocities, forces)| SpringDamperLaw::Map {
                deformations,
                velocities,
                forces
            }),
        Just(SpringDamperLaw::None),
    ]
    .boxed()
}

fn force_element() -> BoxedStrategy<ForceElement> {
    let kind = prop_oneof![
        (
            body_ref(),
            v3(),
            body_ref(),
            v3(),
            float(),
            float(),
            law(),
            opt(float()),
            opt(float()),
            any::<bool>()
        )
            .prop_map(
                |(body1, point1, body2, point2, free_length, preload, law, min_length, max_length, vis)| {
                    ForceKind::Tsda(Tsda {
                        body1,
                        point1,
                        body2,
                        point2,
                        free_length,
                        preload,
                        law,
                        min_length,
                        max_length,
                        visualization: vis.then_some(SpringVisual {
                            style: SpringStyle::Spring,
                            radius: Some(0.05),
                            resolution: Some(65),
                            turns: Some(5),
                            color: None,
                        }),
                    })
                }
            ),
        (body_ref(), pose(), body_ref(), pose(), float(), float(), law()).prop_map(
            |(body1, frame1, body2, frame2, free_angle, preload, law)| ForceKind::Rsda(Rsda {
                body1,
                frame1,
                body2,
                frame2,
                free_angle,
                preload,
                law
            })
        ),
        (
            any::<bool>(),
            body_ref(),
            pose(),
            body_ref(),
            pose(),
            a3(),
            a3(),
            a3(),
            a3()
        )
            .prop_map(
                |(drake, body_a, frame_a, body_c, frame_c, ts, td, fs, fd)| ForceKind::Bushing(Bushing {
                    law: if drake {
                        BushingLaw::DrakeRollPitchYaw
                    } else {
                        BushingLaw::ChronoGeneric
                    },
                    body_a,
                    frame_a,
                    body_c,
                    frame_c,
                    torque_stiffness: ts,
                    torque_damping: td,
                    force_stiffness: fs,
                    force_damping: fd,
                })
            ),
        (
            any::<bool>(),
            name(),
            0usize..3,
            prop::collection::vec(float(), 0..2),
            prop::collection::vec(prop::collection::vec(float(), 0..3), 0..3)
        )
            .prop_map(
                |(on_joint, n, dof, knots, pieces)| ForceKind::Restraint(Restraint {
                    restraint_type: if on_joint {
                        RestraintType::Spring
                    } else {
                        RestraintType::Friction
                    },
                    target: if on_joint {
                        RestraintTarget::Joint { joint: n, dof }
                    } else {
                        RestraintTarget::FramePair {
                            body1: BodyRef::World,
                            frame1: "origin".into(),
                            body2: BodyRef::body(n),
                            frame2: "tip".into(),
                            distance: DistanceType::Z,
                        }
                    },
                    function: PiecewisePolynomial { knots, pieces },
                })
            ),
    ];
    (name(), kind, extras())
        .prop_map(|(name, kind, extras)| ForceElement { name, kind, extras })
        .boxed()
}

fn constraint() -> BoxedStrategy<Constraint> {
    let kind = prop_oneof![
        (body_ref(), v3(), body_ref(), v3(), opt(float())).prop_map(
            |(body1, point1, body2, point2, distance)| ConstraintKind::Distance {
                body1,
                point1,
                body2,
                point2,
                distance
            }
        ),
        (body_ref(), v3(), opt(v3()), body_ref(), v3()).prop_map(|(body1, point1, axis1, body2, point2)| {
            ConstraintKind::RevoluteSpherical {
                body1,
                point1,
                axis1,
                body2,
                point2,
                distance: None,
            }
        }),
        (body_ref(), v3(), body_ref(), v3(), opt(v3())).prop_map(|(body1, point1, body2, point2, axis2)| {
            ConstraintKind::RevoluteTranslational {
                body1,
                point1,
                axis1: None,
                body2,
                point2,
                axis2,
                distance: Some(1.0),
            }
        }),
        (body_ref(), pose(), body_ref(), pose(), v3()).prop_map(|(body1, frame1, body2, frame2, axis)| {
            ConstraintKind::ExtraJoint {
                joint_type: ExtraJointType::Piston,
                body1,
                frame1,
                body2,
                frame2,
                axis,
            }
        }),
    ];
    (name(), kind, any::<bool>(), extras())
        .prop_map(|(name, kind, enabled, extras)| Constraint {
            name,
            kind,
            enabled,
            extras,
        })
        .boxed()
}

fn motor() -> BoxedStrategy<Motor> {
    let target = prop_oneof![
        (body_ref(), pose(), body_ref(), pose()).prop_map(|(body1, frame1, body2, frame2)| {
            MotorTarget::BodyPair {
                body1,
                frame1,
                body2,
                frame2,
                guide: MotorGuide::Cylindrical,
            }
        }),
        (name(), 0usize..3).prop_map(|(joint, dof)| MotorTarget::Joint { joint, dof }),
    ];
    (name(), any::<bool>(), target, time_function(), extras())
        .prop_map(|(name, linear, target, function, extras)| Motor {
            name,
            motor_type: if linear {
                MotorType::Linear
            } else {
                MotorType::Rotation
            },
            actuation: if linear {
                MotorActuation::Speed
            } else {
                MotorActuation::Position
            },
            target,
            function,
            extras,
        })
        .boxed()
}

fn load() -> BoxedStrategy<BodyLoad> {
    (
        name(),
        name(),
        v3(),
        any::<bool>(),
        v3(),
        any::<bool>(),
        opt(time_function()),
        any::<bool>(),
    )
        .prop_map(
            |(name, body, vector, vector_in_body_frame, point, point_in_body_frame, modulation, external)| {
                BodyLoad {
                    name,
                    load_type: if external {
                        LoadType::Torque
                    } else {
                        LoadType::Force
                    },
                    body,
                    vector,
                    vector_in_body_frame,
                    point,
                    point_in_body_frame,
                    modulation,
                    external,
                    extras: Extras::default(),
                }
            },
        )
        .boxed()
}

fn device() -> BoxedStrategy<Device> {
    (
        name(),
        body_ref(),
        pose(),
        opt(any::<i64>()),
        extras(),
        prop_oneof![
            Just(DeviceType::Camera),
            Just(DeviceType::ForceSensor),
            name().prop_map(DeviceType::Other)
        ],
    )
        .prop_map(|(name, body, pose, id, params, device_type)| Device {
            name,
            device_type,
            body,
            pose,
            id,
            parameters: params.0,
            extras: Extras::default(),
        })
        .boxed()
}

fn group() -> BoxedStrategy<Group> {
    (
        name(),
        opt(name()),
        opt(pose()),
        prop::collection::vec(name(), 0..3),
        any::<(bool, bool)>(),
    )
        .prop_map(|(name, parent, pose, bodies, (mobile, enabled))| Group {
            name,
            group_type: GroupType::Assembly,
            parent,
            pose,
            joints: bodies.clone(),
            bodies,
            mobile,
            enabled,
            extras: Extras::default(),
        })
        .boxed()
}

fn model() -> BoxedStrategy<Model> {
    (
        (
            name(),
            opt(v3()),
            opt(float()),
            opt(float()),
            any::<bool>(),
            extras(),
        ),
        prop::collection::vec(body(), 0..4),
        prop::collection::vec(joint(), 0..4),
        prop::collection::vec(constraint(), 0..2),
        prop::collection::vec(force_element(), 0..3),
        prop::collection::vec(motor(), 0..2),
        prop::collection::vec(load(), 0..2),
        prop::collection::vec(device(), 0..2),
        prop::collection::vec(group(), 0..2),
        prop::collection::vec((name(), pose()), 0..2),
        extras(),
    )
        .prop_map(
            |(
                (name, gravity, time_step, end_time, jointed_bodies_collide, sim_extras),
                bodies,
                joints,
                constraints,
                force_elements,
                motors,
                loads,
                devices,
                groups,
                frames,
                extras,
            )| {
                let mut model = Model::new(name);
                model.simulation = Simulation {
                    gravity,
                    time_step,
                    end_time,
                    jointed_bodies_collide,
                    extras: sim_extras,
                };
                model.bodies = bodies;
                model.joints = joints;
                model.constraints = constraints;
                model.force_elements = force_elements;
                model.motors = motors;
                model.loads = loads;
                model.devices = devices;
                model.groups = groups;
                model.world_frames = frames
                    .into_iter()
                    .map(|(name, pose)| Frame {
                        name,
                        pose,
                        kind: FrameKind::Frame,
                        extras: Extras::default(),
                    })
                    .collect();
                model.extras = extras;
                model
            },
        )
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_models_round_trip_bit_for_bit(model in model()) {
        let text = mbir::to_string(&model);
        let back = mbir::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(&back, &model);
        prop_assert_eq!(mbir::to_string(&back), text);
    }
}

#[test]
fn negative_zero_and_subnormals_survive() {
    let mut model = Model::new("bits");
    let mut body = Body::new("b");
    body.inertial.mass = 5e-324;
    body.pose.translation = Vector3::new(-0.0, 0.1 + 0.2, f64::MAX);
    model.bodies.push(body);
    let text = mbir::to_string(&model);
    let back = mbir::from_str(&text).unwrap();
    let t = back.bodies[0].pose.translation;
    assert_eq!(t.x.to_bits(), (-0.0f64).to_bits());
    assert_eq!(t.y.to_bits(), (0.1f64 + 0.2).to_bits());
    assert_eq!(t.z, f64::MAX);
    assert_eq!(back.bodies[0].inertial.mass.to_bits(), 5e-324f64.to_bits());
}

#[test]
fn the_bundled_example_reads_and_rewrites_identically() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/ir/double_pendulum.mbir.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let model = mbir::from_str(&text).unwrap();
    let written = mbir::to_string(&model);
    assert_eq!(mbir::from_str(&written).unwrap(), model);
    assert_eq!(mbir::to_string(&mbir::from_str(&written).unwrap()), written);
    assert!(!validate(&model).has_errors(), "{:?}", validate(&model));
}
