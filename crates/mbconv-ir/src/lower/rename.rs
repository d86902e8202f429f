//! Renaming a body everywhere the model names it.

use crate::model::constraint::ConstraintKind;
use crate::model::force::{ForceKind, RestraintTarget};
use crate::model::motor::MotorTarget;
use crate::model::{BodyRef, Model};
use crate::report::Rename;

/// Renames every body called `from` to `to`, and every reference to it: joint ends,
/// constraints, force elements (spring-dampers, bushings, restraints between frames), motors
/// between bodies, loads, devices and group members. Returns the [`Rename`] for the writer's
/// report (the check matches bodies across a conversion through it); the caller adds the
/// finding that says why.
///
/// ```
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
/// let mut model = Model::new("m");
/// model.bodies.push(Body::new("link 1"));
/// let kind = JointKind::Revolute { axis: nalgebra::Vector3::z() };
/// model.joints.push(Joint::new("hinge", kind, BodyRef::World, BodyRef::body("link 1")));
/// let rename = mbconv_ir::lower::rename_body(&mut model, "link 1", "link_1");
/// assert_eq!(model.bodies[0].name, "link_1");
/// assert_eq!(model.joints[0].child, BodyRef::body("link_1"));
/// assert_eq!((rename.from.as_str(), rename.to.as_str()), ("link 1", "link_1"));
/// ```
pub fn rename_body(model: &mut Model, from: &str, to: &str) -> Rename {
    let old = BodyRef::body(from);
    let fix = |r: &mut BodyRef| {
        if *r == old {
            *r = BodyRef::body(to);
        }
    };
    for body in model.bodies.iter_mut().filter(|b| b.name == from) {
        to.clone_into(&mut body.name);
    }
    for joint in &mut model.joints {
        fix(&mut joint.parent);
        fix(&mut joint.child);
    }
    for constraint in &mut model.constraints {
        match &mut constraint.kind {
            ConstraintKind::Distance { body1, body2, .. }
            | ConstraintKind::RevoluteSpherical { body1, body2, .. }
            | ConstraintKind::RevoluteTranslational { body1, body2, .. }
            | ConstraintKind::ExtraJoint { body1, body2, .. } => {
                fix(body1);
                fix(body2);
            }
        }
    }
    for element in &mut model.force_elements {
        match &mut element.kind {
            ForceKind::Tsda(tsda) => {
                fix(&mut tsda.body1);
                fix(&mut tsda.body2);
            }
            ForceKind::Rsda(rsda) => {
                fix(&mut rsda.body1);
                fix(&mut rsda.body2);
            }
            ForceKind::Bushing(bushing) => {
                fix(&mut bushing.body_a);
                fix(&mut bushing.body_c);
            }
            ForceKind::Restraint(restraint) => {
                if let RestraintTarget::FramePair { body1, body2, .. } = &mut restraint.target {
                    fix(body1);
                    fix(body2);
                }
            }
        }
    }
    for motor in &mut model.motors {
        if let MotorTarget::BodyPair { body1, body2, .. } = &mut motor.target {
            fix(body1);
            fix(body2);
        }
    }
    for load in model.loads.iter_mut().filter(|l| l.body == from) {
        to.clone_into(&mut load.body);
    }
    for device in &mut model.devices {
        fix(&mut device.body);
    }
    for group in &mut model.groups {
        for member in group.bodies.iter_mut().filter(|b| *b == from) {
            to.clone_into(member);
        }
    }
    Rename {
        item: "body".to_owned(),
        from: from.to_owned(),
        to: to.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::model::body::Body;
    use crate::model::group::{Group, GroupType};

    /// Every kind of reference follows the rename; other bodies' references stay.
    #[test]
    fn every_reference_follows_the_rename() {
        let mut model = Model::new("m");
        model.bodies.push(Body::new("a"));
        model.bodies.push(Body::new("b"));
        let mut json = serde_json::to_value(&model).unwrap();
        json["constraints"] = serde_json::json!([{"name": "c", "kind": {"type": "distance",
            "body1": "a", "point1": [0, 0, 0], "body2": "b", "point2": [0, 0, 0]}}]);
        json["loads"] = serde_json::json!([{"name": "l", "load_type": "force", "body": "a",
            "vector": [0, 0, 1], "vector_in_body_frame": false}]);
        json["devices"] = serde_json::json!([{"name": "imu", "device_type": "imu", "body": "a"}]);
        let mut model: Model = serde_json::from_value(json).unwrap();
        let mut group = Group::new("g", GroupType::Assembly);
        group.bodies = vec!["a".to_owned(), "b".to_owned()];
        model.groups.push(group);
        rename_body(&mut model, "a", "a2");
        assert_eq!(model.bodies[0].name, "a2");
        assert_eq!(
            model.constraints[0].kind.bodies(),
            [&BodyRef::body("a2"), &BodyRef::body("b")]
        );
        assert_eq!(model.loads[0].body, "a2");
        assert_eq!(model.devices[0].body, BodyRef::body("a2"));
        assert_eq!(model.groups[0].bodies, ["a2", "b"]);
    }
}
