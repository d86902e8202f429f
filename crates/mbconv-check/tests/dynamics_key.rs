//! What [`DynamicsKey`] leaves out, mbconv's solver does not read: a model stripped of it moves
//! bit for bit as the model with it, so the check may reuse one motion for the other (a
//! lowering pass that only drops meshes costs no simulation). If the solver ever starts to
//! read a shape, an extra or a velocity limit, this test fails.

mod common;
use common::double_pendulum;
use mbconv_check::{DynamicsKey, Motion, SimulationSettings};
use mbconv_ir::{Frame, FrameKind, Geometry, Group, GroupType, Model, Pose, Shape, ShapeRole, Value};
use mbconv_solver::Integrator;

/// The pendulum with an elbow stop it reaches (so the stops run), plus everything the key
/// strips.
fn dressed(mut model: Model) -> Model {
    stop_elbow(&mut model);
    model.name = "dressed".into();
    model
        .extras
        .insert("x:note", Value::String("kept verbatim".into()));
    for body in &mut model.bodies {
        body.shapes
            .push(Shape::new(ShapeRole::Both, Geometry::Sphere { radius: 0.05 }));
        body.extras.insert("x:colour", Value::String("red".into()));
    }
    // A marker on every body and in the world, and an assembly of every body, as a Shift
    // model carries them: no restraint measures from the frames, and the group moves.
    let marker = |name: &str| Frame {
        name: name.into(),
        pose: Pose::identity(),
        kind: FrameKind::Marker,
        extras: Default::default(),
    };
    let mut assembly = Group::new("arm", GroupType::Assembly);
    for body in &mut model.bodies {
        body.frames.push(marker("tip"));
        assembly.bodies.push(body.name.clone());
    }
    model.world_frames.push(marker("light"));
    model.groups.push(assembly);
    for joint in &mut model.joints {
        joint.extras.insert("x:id", Value::Float(7.0));
        for dof in &mut joint.dofs {
            dof.velocity_limits.upper = Some(2.0);
            dof.effort_limits.upper = Some(3.0);
            dof.acceleration_limits.upper = Some(4.0);
        }
    }
    model
}

/// A lower stop at -0.3 rad on the elbow, which starts at -0.25 and swings through it.
fn stop_elbow(model: &mut Model) {
    let elbow = model
        .joints
        .iter_mut()
        .find(|j| j.name == "elbow")
        .expect("elbow");
    if elbow.dofs.is_empty() {
        elbow.dofs.push(Default::default());
    }
    elbow.dofs[0].position_limits.lower = Some(-0.3);
}

fn settings() -> SimulationSettings {
    SimulationSettings {
        joint_limits: true,
        ..SimulationSettings::new(
            0.6,
            1e-3,
            Integrator::Dopri5 {
                rtol: 1e-10,
                atol: 1e-10,
            },
        )
    }
}

#[test]
fn what_the_key_leaves_out_does_not_move_a_body() {
    let bare = double_pendulum();
    let mut stripped = bare.clone();
    stop_elbow(&mut stripped);
    let dressed = dressed(bare);
    assert_eq!(DynamicsKey::of(&dressed), DynamicsKey::of(&stripped));

    let with = Motion::simulate(&dressed, &settings()).expect("simulates");
    let without = Motion::simulate(&stripped, &settings()).expect("simulates");
    assert!(!with.limits_reached.is_empty(), "the elbow reaches its stop");
    assert_eq!(with.com, without.com);
    assert_eq!(with.rotation, without.rotation);
    assert_eq!(with.poses, without.poses);
    assert_eq!(without.reused_for(&dressed), with);
}

#[test]
fn what_the_key_keeps_can_move_a_body() {
    let model = double_pendulum();
    let mut stopped = model.clone();
    stop_elbow(&mut stopped);
    assert_ne!(DynamicsKey::of(&model), DynamicsKey::of(&stopped));
    let free = Motion::simulate(&model, &settings()).expect("simulates");
    let held = Motion::simulate(&stopped, &settings()).expect("simulates");
    assert_ne!(free.com, held.com);

    // A group that holds its bodies still is kept, whatever else it says.
    let mut frozen = model.clone();
    let mut still = Group::new("held", GroupType::Assembly);
    still.mobile = false;
    still.bodies.push(model.bodies[1].name.clone());
    frozen.groups.push(still);
    assert_ne!(DynamicsKey::of(&model), DynamicsKey::of(&frozen));
    let frozen_motion = Motion::simulate(&frozen, &settings()).expect("simulates");
    assert_ne!(free.com, frozen_motion.com);
}

/// A read-back that writes a weld as a fixed joint with a made-up name, lists bodies in
/// another order and rounds one number in its last bit is the same model but for that bit;
/// a changed mass is not.
#[test]
fn a_model_rewritten_and_rounded_differs_only_in_its_last_bits() {
    let mut original = double_pendulum();
    let mut base = mbconv_ir::Body::new("base");
    base.fixed = true;
    base.inertial.mass = 2.0;
    original.bodies.insert(0, base);
    let mut rewritten = original.clone();
    rewritten.bodies[0].fixed = false;
    rewritten.joints.push(mbconv_ir::Joint::new(
        "base.weld",
        mbconv_ir::JointKind::Fixed,
        mbconv_ir::BodyRef::World,
        mbconv_ir::BodyRef::body("base"),
    ));
    rewritten.bodies.rotate_left(1);
    let key = DynamicsKey::of(&original);
    assert_eq!(
        key.last_bits_from(&DynamicsKey::of(&rewritten)),
        Some(mbconv_check::LastBits::default())
    );
    let last = rewritten.bodies.len() - 1;
    let mass = &mut rewritten.bodies[last].inertial.mass;
    *mass = mass.next_down().next_down();
    let apart = key
        .last_bits_from(&DynamicsKey::of(&rewritten))
        .expect("only the last bits differ");
    assert_eq!((apart.numbers, apart.ulps), (1, 2));
    let mut renamed = rewritten.clone();
    renamed.joints[0].name = "renamed".into();
    assert_eq!(key.last_bits_from(&DynamicsKey::of(&renamed)), None);
    rewritten.bodies[last].inertial.mass *= 1.0 + 1e-9;
    let apart = key
        .last_bits_from(&DynamicsKey::of(&rewritten))
        .expect("only the last bits differ");
    assert!(apart.ulps > 1_000_000, "{apart:?}");
    rewritten.bodies[last].inertial.mass *= 1.5;
    assert_eq!(key.last_bits_from(&DynamicsKey::of(&rewritten)), None);
}

/// A read-back written by a format that says the same model its own way (DART SKEL: an inertia
/// as the tensor in the body's axes, the default gravity and a time step stated, skeletons as
/// groups, frames read as markers) is the lowered model but for the last bits of the tensor;
/// MyoSuite's exosuit through SKEL was called a writer bug for it. A body that can no longer
/// move is not.
#[test]
fn a_model_said_another_way_differs_only_in_its_last_bits() {
    let mut original = double_pendulum();
    original.simulation.gravity = None;
    original.bodies[0].inertial.inertia_rotation =
        nalgebra::UnitQuaternion::from_euler_angles(0.3, -0.2, 0.1);
    original.bodies[0].frames.push(mbconv_ir::Frame {
        name: "tip".into(),
        pose: mbconv_ir::Pose::identity(),
        kind: mbconv_ir::FrameKind::Frame,
        extras: Default::default(),
    });
    let mut said = original.clone();
    said.bodies[0].inertial.inertia =
        mbconv_ir::Inertia::from_matrix(&said.bodies[0].inertial.inertia_in_body_axes());
    said.bodies[0].inertial.inertia_rotation = nalgebra::UnitQuaternion::identity();
    said.simulation.gravity = Some(nalgebra::Vector3::from(mbconv_ir::Simulation::UNSTATED_GRAVITY));
    said.simulation.time_step = Some(1e-3);
    said.bodies[0].frames[0].kind = mbconv_ir::FrameKind::Marker;
    let mut skeleton = mbconv_ir::Group::new("pendulum", mbconv_ir::GroupType::Skeleton);
    skeleton.bodies = said.bodies.iter().map(|b| b.name.clone()).collect();
    skeleton.joints = said.joints.iter().map(|j| j.name.clone()).collect();
    said.groups.push(skeleton);
    let key = DynamicsKey::of(&original);
    let apart = key
        .last_bits_from(&DynamicsKey::of(&said))
        .expect("the same model said another way");
    assert!(apart.ulps <= 4, "{apart:?}");
    said.groups[0].mobile = false;
    assert_eq!(
        key.last_bits_from(&DynamicsKey::of(&said)),
        None,
        "an immobile skeleton is welded"
    );
}
