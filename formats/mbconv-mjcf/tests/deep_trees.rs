//! MJCF writes a kinematic tree by nesting `<body>` elements, and MuJoCo's XML parser refuses
//! elements nested about 500 deep (measured with MuJoCo 4.0.0: a chain of 496 bodies loads, of
//! 497 does not). The reader reads every depth MuJoCo reads; the writer refuses a tree MuJoCo
//! would not read, naming the body past the limit, rather than write a file MuJoCo refuses.

#![allow(clippy::unwrap_used, missing_docs)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
use mbconv_mjcf::{MUJOCO_MAX_NESTED_BODIES, MjcfFormat};
use nalgebra::Vector3;

/// A serial chain of `n` bodies hanging from the world, each 0.1 m below its parent.
fn chain(n: usize) -> Model {
    let mut model = Model::new("chain");
    for i in 0..n {
        let mut body = Body::new(format!("b{i}"));
        body.inertial.mass = 1.0;
        body.pose.translation.z = -0.1 * i as f64;
        model.bodies.push(body);
        let parent = if i == 0 {
            BodyRef::World
        } else {
            BodyRef::body(format!("b{}", i - 1))
        };
        let axis = Vector3::y();
        model.joints.push(Joint::new(
            format!("j{i}"),
            JointKind::Revolute { axis },
            parent,
            BodyRef::body(format!("b{i}")),
        ));
    }
    model
}

/// The chain as MJCF MuJoCo writes it by hand: nested bodies, each with a hinge and a sphere.
fn nested_mjcf(n: usize) -> String {
    let mut text = String::from("<mujoco><worldbody>");
    for i in 0..n {
        text.push_str(&format!(
            "<body name=\"b{i}\" pos=\"0 0 -0.1\"><joint type=\"hinge\" axis=\"0 1 0\"/><geom size=\"0.05\" mass=\"1\"/>"
        ));
    }
    text.push_str(&"</body>".repeat(n));
    text.push_str("</worldbody></mujoco>");
    text
}

#[test]
fn the_deepest_chain_mujoco_loads_is_read() {
    let text = nested_mjcf(MUJOCO_MAX_NESTED_BODIES);
    let read = MjcfFormat
        .read(&Source::from_string("deep.xml", &text), &Options::default())
        .unwrap();
    assert_eq!(read.model.bodies.len(), MUJOCO_MAX_NESTED_BODIES);
}

#[test]
fn the_deepest_chain_mujoco_loads_is_written_and_read_back() {
    let model = chain(MUJOCO_MAX_NESTED_BODIES);
    let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
    let text = MjcfFormat.emit(&lowered.model, &Options::default()).unwrap().text;
    assert_eq!(text.matches("<body ").count(), MUJOCO_MAX_NESTED_BODIES);
    let back = MjcfFormat
        .read(&Source::from_string("deep.xml", &text), &Options::default())
        .unwrap();
    assert_eq!(back.model.bodies.len(), MUJOCO_MAX_NESTED_BODIES);
}

#[test]
fn a_chain_deeper_than_mujoco_reads_is_refused_naming_the_body_past_the_limit() {
    let model = chain(MUJOCO_MAX_NESTED_BODIES + 1);
    let lowered = MjcfFormat.lower(&model, &Options::default()).unwrap();
    let error = MjcfFormat.emit(&lowered.model, &Options::default()).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("body 'b496'"), "{message}");
    assert!(message.contains("MuJoCo reads at most 496"), "{message}");
    assert!(message.contains("URDF, SDFormat, USD"), "{message}");
    let code = miette::Diagnostic::code(&*error).map(|c| c.to_string());
    assert_eq!(code.as_deref(), Some("mjcf.too_deep"));
}
