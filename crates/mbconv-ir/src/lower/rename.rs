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

/// Renames several bodies at once, each body `index` to its new name, and every reference to
/// them, even where a new name is the old name of another body renamed here (a swap, a shift
/// along a chain of names): through temporary names then. Returns the [`Rename`]s, old name to
/// new, in the order given. New names must differ from one another and from the names of the
/// bodies not renamed.
///
/// ```
/// use mbconv_ir::{Body, Model};
/// let mut model = Model::new("m");
/// model.bodies.push(Body::new("a"));
/// model.bodies.push(Body::new("b"));
/// let renames = mbconv_ir::lower::rename_bodies(&mut model, &[(0, "b".into()), (1, "a".into())]);
/// assert_eq!((model.bodies[0].name.as_str(), model.bodies[1].name.as_str()), ("b", "a"));
/// assert_eq!((renames[0].from.as_str(), renames[0].to.as_str()), ("a", "b"));
/// ```
pub fn rename_bodies(model: &mut Model, renames: &[(usize, String)]) -> Vec<Rename> {
    let old: Vec<String> = renames
        .iter()
        .map(|(index, _)| model.bodies[*index].name.clone())
        .collect();
    let current: std::collections::HashSet<&str> = model.bodies.iter().map(|b| b.name.as_str()).collect();
    let through_temporary = renames.iter().any(|(_, to)| current.contains(to.as_str()));
    if through_temporary {
        for (k, (index, _)) in renames.iter().enumerate() {
            let from = model.bodies[*index].name.clone();
            rename_body(model, &from, &format!("\u{0}{k}"));
        }
    }
    renames
        .iter()
        .zip(old)
        .map(|((index, to), from)| {
            let now = model.bodies[*index].name.clone();
            rename_body(model, &now, to);
            Rename {
                item: "body".to_owned(),
                from,
                to: to.clone(),
            }
        })
        .collect()
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
