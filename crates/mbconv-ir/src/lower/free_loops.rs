//! Free joints that close loops: they constrain nothing.

use super::note;
use crate::format::support::Feature;
use crate::kinematics::free_joints_closing_loops;
use crate::model::Model;
use crate::report::{Finding, path};

/// Removes every free joint that closes a loop (a body that has a free joint to the world and
/// is also joined to it another way, as MJCF writes a
/// `<freejoint>` body held by a `<connect>`): such a joint allows every motion, so it
/// constrains nothing and the model moves as before without it (a note each; one that sets an
/// initial velocity is kept, as that velocity may be all that starts the body). Formats whose
/// loop-closing elements cannot be free joints need this before they turn joints towards the
/// root, or the joint that really holds the body would point the wrong way.
///
/// ```
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
/// use mbconv_ir::lower::drop_free_loop_joints;
/// let mut m = Model::new("held");
/// m.bodies.push(Body::new("beam"));
/// m.joints.push(Joint::new("float", JointKind::Free, BodyRef::World, BodyRef::body("beam")));
/// m.joints.push(Joint::new("pin", JointKind::Spherical, BodyRef::body("beam"), BodyRef::World));
/// let findings = drop_free_loop_joints(&mut m, "body");
/// assert_eq!(m.joints.len(), 1);
/// assert_eq!(m.joints[0].name, "pin");
/// assert_eq!(findings[0].code, "body.free_loop_joint_dropped");
/// ```
pub fn drop_free_loop_joints(model: &mut Model, format: &str) -> Vec<Finding> {
    let redundant = free_joints_closing_loops(model);
    let mut findings = Vec::new();
    for index in redundant.into_iter().rev() {
        let joint = model.joints.remove(index);
        findings.push(note(
            format,
            "free_loop_joint_dropped",
            Feature::KinematicLoops,
            &path::item("joints", &joint.name),
            "a free joint that closes a loop constrains nothing: it is left out",
        ));
    }
    findings.reverse();
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BodyRef;
    use crate::model::body::Body;
    use crate::model::joint::{Joint, JointKind};

    fn held(v0: Vec<f64>) -> Model {
        let mut m = Model::new("m");
        m.bodies.push(Body::new("beam"));
        m.bodies.push(Body::new("ball"));
        let mut float = Joint::new("float", JointKind::Free, BodyRef::World, BodyRef::body("beam"));
        float.v0 = v0;
        m.joints.push(float);
        m.joints.push(Joint::new(
            "ball_float",
            JointKind::Free,
            BodyRef::World,
            BodyRef::body("ball"),
        ));
        m.joints.push(Joint::new(
            "pin",
            JointKind::Spherical,
            BodyRef::body("beam"),
            BodyRef::World,
        ));
        m
    }

    #[test]
    fn only_free_joints_on_a_loop_without_a_velocity_go() {
        let mut m = held(vec![0.0; 6]);
        let findings = drop_free_loop_joints(&mut m, "body");
        let names: Vec<&str> = m.joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["ball_float", "pin"]);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].path.as_deref(), Some("joints[\"float\"]"));
        let mut moving = held(vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert!(drop_free_loop_joints(&mut moving, "body").is_empty());
        assert_eq!(moving.joints.len(), 3);
    }
}
