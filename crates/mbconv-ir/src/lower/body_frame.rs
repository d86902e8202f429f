//! Moving a body's frame on the body: everything attached to the body is re-expressed, so
//! nothing moves in the world.

use crate::model::body::Twist;
use crate::model::constraint::ConstraintKind;
use crate::model::force::ForceKind;
use crate::model::motor::MotorTarget;
use crate::model::{BodyRef, Model};
use crate::pose::Pose;
use crate::report::{Category, Finding, Severity, path};
use nalgebra::Vector3;

/// Puts body `index`'s frame at `new_frame`, a pose given in the body's current frame, and
/// re-expresses everything attached to the body in the new frame: centre of mass and inertia
/// orientation, shapes, named frames, joint frames, constraint points and axes, force-element
/// points and frames, motor frames, body-fixed load points and vectors, devices. The body's
/// world pose becomes `pose · new_frame` and its initial velocity is taken at the new origin,
/// so the model moves exactly as before. Format-specific data kept verbatim (`extras`) is not
/// touched.
///
/// Returns one note naming the body (none when `new_frame` is the identity or no body has
/// this index).
///
/// ```
/// use mbconv_ir::{lower::move_body_frame, Body, Model, Pose};
/// use nalgebra::Vector3;
/// let mut m = Model::new("m");
/// let mut link = Body::new("link");
/// link.inertial.com = Vector3::new(0.5, 0.0, 0.0);
/// m.bodies.push(link);
/// move_body_frame(&mut m, 0, Pose::from_translation(Vector3::new(0.5, 0.0, 0.0)), "body");
/// assert_eq!(m.bodies[0].pose.translation, Vector3::new(0.5, 0.0, 0.0));
/// assert_eq!(m.bodies[0].inertial.com, Vector3::zeros());
/// ```
pub fn move_body_frame(model: &mut Model, index: usize, new_frame: Pose, format: &str) -> Vec<Finding> {
    if index >= model.bodies.len() || new_frame.is_exact_identity() {
        return Vec::new();
    }
    let to_new = new_frame.inverse();
    let name = model.bodies[index].name.clone();
    let on_body = |r: &BodyRef| r.name() == Some(name.as_str());
    let pose = |p: &mut Pose| *p = to_new * *p;
    let point = |p: &mut Vector3<f64>| *p = to_new.transform_point(p);
    let vector = |v: &mut Vector3<f64>| *v = to_new.transform_vector(v);

    let body = &mut model.bodies[index];
    let old_pose = body.pose;
    body.pose = old_pose * new_frame;
    body.inertial.com = to_new.transform_point(&body.inertial.com);
    body.inertial.inertia_rotation = to_new.rotation * body.inertial.inertia_rotation;
    if let Some(twist) = &mut body.initial_velocity {
        let shift = old_pose.rotation * new_frame.translation;
        *twist = Twist {
            linear: twist.linear + twist.angular.cross(&shift),
            angular: twist.angular,
        };
    }
    body.shapes.iter_mut().for_each(|s| pose(&mut s.pose));
    body.frames.iter_mut().for_each(|f| pose(&mut f.pose));

    for joint in &mut model.joints {
        if on_body(&joint.parent) {
            pose(&mut joint.parent_frame);
        }
        if on_body(&joint.child) {
            pose(&mut joint.child_frame);
        }
    }
    for constraint in &mut model.constraints {
        match &mut constraint.kind {
            ConstraintKind::Distance {
                body1,
                point1,
                body2,
                point2,
                ..
            } => {
                if on_body(body1) {
                    point(point1);
                }
                if on_body(body2) {
                    point(point2);
                }
            }
            ConstraintKind::RevoluteSpherical {
                body1,
                point1,
                axis1,
                body2,
                point2,
                ..
            } => {
                if on_body(body1) {
                    point(point1);
                    axis1.iter_mut().for_each(vector);
                }
                if on_body(body2) {
                    point(point2);
                }
            }
            ConstraintKind::RevoluteTranslational {
                body1,
                point1,
                axis1,
                body2,
                point2,
                axis2,
                ..
            } => {
                if on_body(body1) {
                    point(point1);
                    axis1.iter_mut().for_each(vector);
                }
                if on_body(body2) {
                    point(point2);
                    axis2.iter_mut().for_each(vector);
                }
            }
            ConstraintKind::ExtraJoint {
                body1,
                frame1,
                body2,
                frame2,
                ..
            } => {
                if on_body(body1) {
                    pose(frame1);
                }
                if on_body(body2) {
                    pose(frame2);
                }
            }
        }
    }
    for element in &mut model.force_elements {
        match &mut element.kind {
            ForceKind::Tsda(t) => {
                if on_body(&t.body1) {
                    point(&mut t.point1);
                }
                if on_body(&t.body2) {
                    point(&mut t.point2);
                }
            }
            ForceKind::Rsda(r) => {
                if on_body(&r.body1) {
                    pose(&mut r.frame1);
                }
                if on_body(&r.body2) {
                    pose(&mut r.frame2);
                }
            }
            ForceKind::Bushing(b) => {
                if on_body(&b.body_a) {
                    pose(&mut b.frame_a);
                }
                if on_body(&b.body_c) {
                    pose(&mut b.frame_c);
                }
            }
            // Named frames moved with the body; joint coordinates do not depend on body frames.
            ForceKind::Restraint(_) => {}
        }
    }
    for motor in &mut model.motors {
        if let MotorTarget::BodyPair {
            body1,
            frame1,
            body2,
            frame2,
            ..
        } = &mut motor.target
        {
            if on_body(body1) {
                pose(frame1);
            }
            if on_body(body2) {
                pose(frame2);
            }
        }
    }
    for load in model.loads.iter_mut().filter(|l| l.body == name) {
        if load.point_in_body_frame {
            point(&mut load.point);
        }
        if load.vector_in_body_frame {
            vector(&mut load.vector);
        }
    }
    for device in model.devices.iter_mut().filter(|d| on_body(&d.body)) {
        pose(&mut device.pose);
    }
    vec![
        Finding::new(
            format!("{format}.body_frame_moved"),
            Severity::Info,
            Category::Note,
            "the body's frame is written at another place on the body; everything attached to it is re-expressed (the motion is the same)",
        )
        .at(path::item("bodies", &name)),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::kinematics::{Configuration, SpanningTree, world_poses};
    use crate::model::body::Body;
    use crate::model::force::{ForceElement, Tsda};
    use crate::model::geometry::{Geometry, Shape, ShapeRole};
    use crate::model::joint::{Joint, JointKind};
    use nalgebra::UnitQuaternion;

    fn two_links() -> Model {
        let mut m = Model::new("m");
        let mut upper = Body::new("upper");
        upper.pose = Pose::new(
            Vector3::new(0.0, 0.0, 1.0),
            UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3),
        );
        upper.inertial.com = Vector3::new(0.2, 0.1, -0.3);
        upper.initial_velocity = Some(Twist {
            linear: Vector3::new(0.5, 0.0, 0.0),
            angular: Vector3::new(0.0, 1.0, 2.0),
        });
        upper
            .shapes
            .push(Shape::new(ShapeRole::Collision, Geometry::Sphere { radius: 0.1 }));
        m.bodies.push(upper);
        let mut lower = Body::new("lower");
        lower.pose = Pose::from_translation(Vector3::new(0.0, 0.0, 0.4));
        m.bodies.push(lower);
        let mut j = Joint::new(
            "knee",
            JointKind::Revolute { axis: Vector3::y() },
            BodyRef::body("upper"),
            BodyRef::body("lower"),
        );
        j.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, -0.5));
        j.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 0.1));
        j.q0 = vec![0.4];
        m.joints.push(j);
        m.force_elements.push(ForceElement {
            name: "spring".into(),
            kind: ForceKind::Tsda(Tsda {
                body1: BodyRef::body("upper"),
                point1: Vector3::new(0.1, 0.0, 0.0),
                body2: BodyRef::World,
                point2: Vector3::new(0.0, 0.0, 2.0),
                free_length: 1.0,
                preload: 0.0,
                law: crate::model::force::SpringDamperLaw::Linear {
                    stiffness: Some(10.0),
                    damping: None,
                },
                min_length: None,
                max_length: None,
                visualization: None,
            }),
            extras: Default::default(),
        });
        m
    }

    #[test]
    fn nothing_moves_in_the_world() {
        let mut m = two_links();
        let before = m.clone();
        let new_frame = Pose::new(
            Vector3::new(0.3, -0.2, 0.7),
            UnitQuaternion::from_euler_angles(1.0, -0.5, 0.25),
        );
        let findings = move_body_frame(&mut m, 0, new_frame, "t");
        assert_eq!(findings.len(), 1);
        let world = |m: &Model| world_poses(m, &SpanningTree::new(m), Configuration::Initial);
        let (a, b) = (world(&before), world(&m));
        // The lower body is placed by the joint from the moved upper frame: same place.
        assert!(a[1].distance(&b[1]) < 1e-14);
        let com = |m: &Model, poses: &[Pose]| poses[0].transform_point(&m.bodies[0].inertial.com);
        assert!((com(&before, &a) - com(&m, &b)).norm() < 1e-14);
        let shape = |m: &Model, poses: &[Pose]| poses[0] * m.bodies[0].shapes[0].pose;
        assert!(shape(&before, &a).distance(&shape(&m, &b)) < 1e-14);
        let ForceKind::Tsda(old) = &before.force_elements[0].kind else {
            unreachable!()
        };
        let ForceKind::Tsda(new) = &m.force_elements[0].kind else {
            unreachable!()
        };
        assert!((a[0].transform_point(&old.point1) - b[0].transform_point(&new.point1)).norm() < 1e-14);
        assert_eq!(old.point2, new.point2);
        // The velocity of any material point is unchanged: check the old origin.
        let (v0, v1) = (
            before.bodies[0].initial_velocity.unwrap(),
            m.bodies[0].initial_velocity.unwrap(),
        );
        let old_origin_from_new = a[0].translation - b[0].translation;
        assert!((v0.linear - (v1.linear + v1.angular.cross(&old_origin_from_new))).norm() < 1e-14);
    }

    #[test]
    fn the_identity_changes_nothing() {
        let mut m = two_links();
        let before = m.clone();
        assert!(move_body_frame(&mut m, 0, Pose::identity(), "t").is_empty());
        assert_eq!(m, before);
    }
}
