//! Sabotage tests of the attribution rules (`docs/check.md`, "How a difference is attributed"):
//! each lowering pass here makes a silent change beside a benign finding, and each must be
//! `unexplained`. Without the rule it tests, each would be `explained`.

mod common;
use common::Rewriting;
use mbconv_check::{CheckSettings, Verdict, check};
use mbconv_ir::format::Registry;
use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
use nalgebra::Vector3;

/// A pendulum of `name` hanging from `parent` at `x`, swinging about y from 0.4 rad.
fn pendulum(model: &mut Model, name: &str, parent: BodyRef, x: f64) {
    let mut bob = Body::new(name);
    bob.pose.translation.x = x;
    bob.inertial.com = Vector3::new(0.0, 0.0, -1.0);
    model.bodies.push(bob);
    let mut pivot = Joint::new(
        format!("{name}_pivot"),
        JointKind::Revolute { axis: Vector3::y() },
        parent,
        BodyRef::body(name),
    );
    pivot.q0 = vec![0.4];
    pivot.dofs = vec![mbconv_ir::DofProperties {
        damping: 0.2,
        effort_limits: mbconv_ir::Limits::new(-5.0, 5.0),
        ..Default::default()
    }];
    model.joints.push(pivot);
}

/// Two pendulums hanging from the world, side by side: nothing couples them.
fn two_pendulums() -> Model {
    let mut model = Model::new("two");
    pendulum(&mut model, "left", BodyRef::World, 0.0);
    pendulum(&mut model, "right", BodyRef::World, 3.0);
    model
}

fn verdict(model: &Model, lower: fn(&mut LowerSession)) -> mbconv_check::TargetCheck {
    let mut registry = Registry::new();
    registry.register(Box::new(Rewriting { lower, emit: |_| {} }));
    let format = registry.get("sabotage").expect("registered");
    let settings = CheckSettings {
        duration: 0.5,
        ..CheckSettings::default()
    };
    check(model, "sabotage", &registry, &[format], &settings)
        .targets
        .remove(0)
}

#[test]
fn a_loss_at_one_pendulum_does_not_excuse_a_silent_change_at_the_other() {
    let t = verdict(&two_pendulums(), |s| {
        s.model.joints[0].dofs[0].damping = 0.0;
        s.lost(
            "damping_lost",
            Feature::JointDamping,
            "joints[\"left_pivot\"].dofs[0].damping",
            "no damping",
        );
        s.model.bodies[1].inertial.mass *= 2.0;
        s.model.bodies[1].inertial.com.z = -0.8;
    });
    assert_eq!(t.verdict, Verdict::Unexplained, "{}", t.message);
    assert!(t.message.contains("\"right\""), "{}", t.message);
}

#[test]
fn the_loss_alone_is_explained() {
    let t = verdict(&two_pendulums(), |s| {
        s.model.joints[0].dofs[0].damping = 0.0;
        s.lost(
            "damping_lost",
            Feature::JointDamping,
            "joints[\"left_pivot\"].dofs[0].damping",
            "no damping",
        );
    });
    assert_eq!(t.verdict, Verdict::Explained, "{}", t.message);
}

#[test]
fn a_lost_effort_limit_the_solver_never_uses_excuses_nothing() {
    let t = verdict(&two_pendulums(), |s| {
        s.model.joints[0].dofs[0].effort_limits = mbconv_ir::Limits::default();
        s.lost(
            "effort_limits_lost",
            Feature::JointVelocityEffortLimits,
            "joints[\"left_pivot\"].dofs[0].effort_limits",
            "no effort limits",
        );
        s.model.bodies[0].inertial.com.z = -0.8;
    });
    assert_eq!(t.verdict, Verdict::Unexplained, "{}", t.message);
}

#[test]
fn a_massless_body_welded_to_the_world_relays_nothing() {
    let mut model = Model::new("mounted");
    let mut mount = Body::new("mount");
    mount.inertial.mass = 0.0;
    mount.inertial.inertia = mbconv_ir::Inertia::zero();
    model.bodies.push(mount);
    model.joints.push(Joint::new(
        "weld",
        JointKind::Fixed,
        BodyRef::World,
        BodyRef::body("mount"),
    ));
    pendulum(&mut model, "bob", BodyRef::body("mount"), 0.0);
    let t = verdict(&model, |s| {
        s.model.bodies[0].inertial.mass = 1e-9;
        s.approximated(
            "mass_floor",
            Feature::MassProperties,
            "bodies[\"mount\"].inertial",
            "a massless body gets 1e-9 kg",
        );
        s.model.bodies[1].inertial.com.z = -0.8;
    });
    assert_eq!(t.verdict, Verdict::Unexplained, "{}", t.message);
    assert!(t.message.contains("\"bob\""), "{}", t.message);
}

/// Changes `model` in the quantity of `feature`, for a feature the tables say cannot move
/// bodies; `None` for a feature that moves bodies.
fn change_of(feature: Feature, model: &mut Model) -> Option<()> {
    let json = |text: &str| -> serde_json::Value { serde_json::from_str(text).expect("JSON") };
    let bob = &mut model.bodies[0];
    match feature {
        Feature::Shapes => bob.shapes.push(
            serde_json::from_value(json(r#"{"role": "both", "geometry": {"type": "box", "size": [0.3, 0.2, 0.1]}}"#))
                .expect("a shape"),
        ),
        Feature::Meshes => bob.shapes.push(
            serde_json::from_value(json(r#"{"role": "visual", "geometry": {"type": "mesh", "uri": "bob.stl"}}"#))
                .expect("a mesh shape"),
        ),
        Feature::Appearance => bob.shapes.push(
            serde_json::from_value(json(
                r#"{"role": "visual", "geometry": {"type": "sphere", "radius": 0.1}, "appearance": {"diffuse": [0.7, 0.6, 0.1]}}"#,
            ))
            .expect("a coloured shape"),
        ),
        Feature::ContactMaterials => bob.contact_materials.push(
            serde_json::from_value(json(r#"{"name": "rubber", "friction": 0.8}"#)).expect("a contact material"),
        ),
        Feature::NamedFrames => bob.frames.push(
            serde_json::from_value(json(r#"{"name": "tip", "pose": {"translation": [0.0, 0.0, -1.0]}}"#))
                .expect("a frame"),
        ),
        Feature::FormatExtras => {
            bob.extras.insert("test.note", mbconv_ir::Value::String("kept verbatim".into()));
        }
        Feature::Devices => model.devices.push(
            serde_json::from_value(json(r#"{"name": "eye", "device_type": "camera", "body": "left"}"#))
                .expect("a device"),
        ),
        Feature::Groups => {
            let mut group = mbconv_ir::Group::new("all", mbconv_ir::GroupType::Other);
            group.bodies = vec!["left".into(), "right".into()];
            model.groups.push(group);
        }
        Feature::TimeStep => model.simulation.time_step = Some(0.25),
        Feature::JointVelocityEffortLimits => {
            let dof = &mut model.joints[0].dofs[0];
            dof.effort_limits = mbconv_ir::Limits::new(-0.01, 0.01);
            dof.velocity_limits = mbconv_ir::Limits::new(-0.01, 0.01);
            dof.acceleration_limits = mbconv_ir::Limits::new(-0.01, 0.01);
        }
        _ => return None,
    }
    Some(())
}

fn motion(model: &Model) -> mbconv_check::Motion {
    let settings = mbconv_check::SimulationSettings::new(0.3, 1e-3, mbconv_solver::Integrator::Rk4);
    mbconv_check::Motion::simulate(model, &settings).expect("simulates")
}

#[test]
fn what_the_tables_say_cannot_move_bodies_does_not_move_them_in_the_solver() {
    let model = two_pendulums();
    let baseline = motion(&model);
    let mut checked = Vec::new();
    for feature in Feature::ALL {
        let mut changed = model.clone();
        if change_of(feature, &mut changed).is_none() {
            assert!(
                feature.moves_bodies(),
                "{feature:?} cannot move bodies by the tables: give it a change here"
            );
            continue;
        }
        assert_ne!(changed, model, "{feature:?}: the change changes the model");
        let moved = motion(&changed);
        let can_move = feature.moves_bodies() && feature != Feature::JointVelocityEffortLimits;
        assert!(
            !can_move,
            "{feature:?}: listed as moving bodies yet given a change here"
        );
        assert_eq!(
            (&moved.com, &moved.rotation),
            (&baseline.com, &baseline.rotation),
            "{feature:?} moved a body"
        );
        checked.push(feature);
    }
    assert!(checked.len() >= 10, "{checked:?}");
}

#[test]
fn effort_limits_move_bodies_only_through_a_servo() {
    let mut servo = two_pendulums();
    servo.joints[0].actuator = Some(mbconv_ir::ActuatorKind::Servo);
    let limited = motion(&servo);
    servo.joints[0].dofs[0].effort_limits = mbconv_ir::Limits::default();
    let unlimited = motion(&servo);
    assert_ne!(limited.com, unlimited.com, "an unlimited servo holds the joint");
}
