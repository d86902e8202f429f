//! Moving a body's frame on the body: everything attached to the body is re-expressed, so
//! nothing moves in the world.

use crate::format::support::Feature;
use crate::model::body::Twist;
use crate::model::constraint::ConstraintKind;
use crate::model::force::ForceKind;
use crate::model::motor::MotorTarget;
use crate::model::{BodyRef, Model};
use crate::pose::Pose;
use crate::report::{Category, Finding, Severity, path};
use nalgebra::Vector3;
use std::collections::HashMap;

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
    move_body_frames(model, &[(index, new_frame)], format)
}

/// [`move_body_frame`] for many bodies at once, in one pass over the model's joints,
/// constraints, force elements, motors, loads and devices (moving `n` bodies one at a time
/// costs `n` such passes). `moves` pairs a body index with its new frame; each body at most
/// once (a repeated index keeps the last frame). The result is the same, bit for bit, as moving
/// the bodies one after the other. Returns one note per moved body, in the order of `moves`.
///
/// ```
/// use mbconv_ir::{lower::move_body_frames, Body, Model, Pose};
/// use nalgebra::Vector3;
/// let mut m = Model::new("m");
/// m.bodies.push(Body::new("a"));
/// m.bodies.push(Body::new("b"));
/// let shift = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
/// let notes = move_body_frames(&mut m, &[(0, shift), (1, shift)], "body");
/// assert_eq!(notes.len(), 2);
/// assert_eq!(m.bodies[1].pose.translation, Vector3::new(0.0, 0.0, 1.0));
/// ```
pub fn move_body_frames(model: &mut Model, moves: &[(usize, Pose)], format: &str) -> Vec<Finding> {
    let mut to_new_by_name: HashMap<String, Pose> = HashMap::new();
    let mut moved = Vec::new();
    for &(index, new_frame) in moves {
        if index >= model.bodies.len() || new_frame.is_exact_identity() {
            continue;
        }
        let body = &mut model.bodies[index];
        let to_new = new_frame.inverse();
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
        body.shapes.iter_mut().for_each(|s| s.pose = to_new * s.pose);
        body.frames.iter_mut().for_each(|f| f.pose = to_new * f.pose);
        if to_new_by_name.insert(body.name.clone(), to_new).is_none() {
            moved.push(body.name.clone());
        }
    }
    if moved.is_empty() {
        return Vec::new();
    }
    let moved_by = |r: &BodyRef| r.name().and_then(|n| to_new_by_name.get(n)).copied();
    re_express_attachments(model, &moved_by);
    let point = |t: Pose, p: &mut Vector3<f64>| *p = t.transform_point(p);
    for load in &mut model.loads {
        let Some(t) = to_new_by_name.get(&load.body).copied() else {
            continue;
        };
        if load.point_in_body_frame {
            point(t, &mut load.point);
        }
        if load.vector_in_body_frame {
            load.vector = t.transform_vector(&load.vector);
        }
    }
    moved
        .iter()
        .map(|name| {
            Finding::new(
                format!("{format}.body_frame_moved"),
                Severity::Info,
                Category::Note,
                "the body's frame is written at another place on the body; everything attached to it is re-expressed (the motion is the same)",
            )
            .for_feature(Feature::MassProperties)
            .at(path::item("bodies", name))
        })
        .collect()
}

/// A change of coordinates `new = t × old` for poses, points and directions.
pub(super) trait FrameChange: Copy {
    /// A pose in the new coordinates.
    fn pose(&self, pose: &Pose) -> Pose;
    /// A point in the new coordinates.
    fn point(&self, point: &Vector3<f64>) -> Vector3<f64>;
    /// A direction in the new coordinates.
    fn vector(&self, vector: &Vector3<f64>) -> Vector3<f64>;
}

impl FrameChange for Pose {
    fn pose(&self, pose: &Pose) -> Pose {
        *self * *pose
    }
    fn point(&self, point: &Vector3<f64>) -> Vector3<f64> {
        self.transform_point(point)
    }
    fn vector(&self, vector: &Vector3<f64>) -> Vector3<f64> {
        self.transform_vector(vector)
    }
}

/// Re-expresses what joints, constraints, force elements (but restraints: they name frames),
/// motors and devices state in the frame of a body, or of the world, for which `moved_by`
/// gives a transform `t` (new coordinates = `t` × old coordinates): [`move_body_frames`] for
/// the bodies it moves, [`super::reorient`] for the world.
pub(super) fn re_express_attachments<C: FrameChange>(
    model: &mut Model,
    moved_by: &dyn Fn(&BodyRef) -> Option<C>,
) {
    let pose = |t: C, p: &mut Pose| *p = t.pose(p);
    let point = |t: C, p: &mut Vector3<f64>| *p = t.point(p);
    let axes = |t: C, v: &mut [Vector3<f64>]| v.iter_mut().for_each(|v| *v = t.vector(v));

    for joint in &mut model.joints {
        if let Some(t) = moved_by(&joint.parent) {
            pose(t, &mut joint.parent_frame);
        }
        if let Some(t) = moved_by(&joint.child) {
            pose(t, &mut joint.child_frame);
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
                if let Some(t) = moved_by(body1) {
                    point(t, point1);
                }
                if let Some(t) = moved_by(body2) {
                    point(t, point2);
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
                if let Some(t) = moved_by(body1) {
                    point(t, point1);
                    axes(t, axis1.as_mut_slice());
                }
                if let Some(t) = moved_by(body2) {
                    point(t, point2);
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
                if let Some(t) = moved_by(body1) {
                    point(t, point1);
                    axes(t, axis1.as_mut_slice());
                }
                if let Some(t) = moved_by(body2) {
                    point(t, point2);
                    axes(t, axis2.as_mut_slice());
                }
            }
            ConstraintKind::ExtraJoint {
                body1,
                frame1,
                body2,
                frame2,
                ..
            } => {
                if let Some(t) = moved_by(body1) {
                    pose(t, frame1);
                }
                if let Some(t) = moved_by(body2) {
                    pose(t, frame2);
                }
            }
        }
    }
    for element in &mut model.force_elements {
        match &mut element.kind {
            ForceKind::Tsda(tsda) => {
                if let Some(t) = moved_by(&tsda.body1) {
                    point(t, &mut tsda.point1);
                }
                if let Some(t) = moved_by(&tsda.body2) {
                    point(t, &mut tsda.point2);
                }
            }
            ForceKind::Rsda(r) => {
                if let Some(t) = moved_by(&r.body1) {
                    pose(t, &mut r.frame1);
                }
                if let Some(t) = moved_by(&r.body2) {
                    pose(t, &mut r.frame2);
                }
            }
            ForceKind::Bushing(b) => {
                if let Some(t) = moved_by(&b.body_a) {
                    pose(t, &mut b.frame_a);
                }
                if let Some(t) = moved_by(&b.body_c) {
                    pose(t, &mut b.frame_c);
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
            if let Some(t) = moved_by(body1) {
                pose(t, frame1);
            }
            if let Some(t) = moved_by(body2) {
                pose(t, frame2);
            }
        }
    }
    for device in &mut model.devices {
        if let Some(t) = moved_by(&device.body) {
            pose(t, &mut device.pose);
        }
    }
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
