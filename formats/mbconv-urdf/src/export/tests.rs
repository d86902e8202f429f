//! The writer's entry points on small models: what `lower_with` turns a model into, what
//! `emit_with` refuses, and the write setting `root`.
#![allow(clippy::unwrap_used)]

use super::emit::emit_with;
use super::{RootWriting, lower_with};
use mbconv_ir::format::Options;
use mbconv_ir::format::kit::Tracing;
use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};

#[test]
fn a_ball_joint_becomes_a_chain_urdf_writes() {
    let mut model = Model::new("ball");
    model.bodies.push(Body::new("bob"));
    model.joints.push(Joint::new(
        "pivot",
        JointKind::Spherical,
        BodyRef::World,
        BodyRef::body("bob"),
    ));
    let lowered = lower_with(&model, RootWriting::default(), None, Tracing::Off);
    // Three revolute joints through two massless links.
    assert_eq!(lowered.model.joints.len(), 3);
    assert!(lowered.report.contains("urdf.joint_as_gimbal_chain"));
    assert!(emit_with(&lowered.model, RootWriting::FloatingJoint).is_ok());
}

#[test]
fn the_root_setting_chooses_how_a_floating_root_is_written() {
    let mut options = Options::default();
    assert_eq!(RootWriting::from_options(&options), RootWriting::FloatingJoint);
    options.set("root", "free");
    assert_eq!(RootWriting::from_options(&options), RootWriting::Free);

    let mut model = Model::new("puck");
    model.bodies.push(Body::new("puck"));
    let lowered = lower_with(&model, RootWriting::Free, None, Tracing::Off);
    // No `floating` joint: the root link alone.
    assert!(lowered.model.joints.is_empty());
    assert!(lowered.report.contains("urdf.root_written_free"));

    assert!(emit_with(&model, RootWriting::FloatingJoint).is_err());
    let text = emit_with(&model, RootWriting::Free).unwrap();
    assert!(text.contains("<link name=\"puck\""));
}
