//! Rigid bodies: a body per prim with `PhysicsRigidBodyAPI`, at its composed world transform.

use super::{Importer, exact3, flag, is_body, string};
use crate::spec::{DEGREES_PER_RADIAN, attr};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::path;
use mbconv_ir::{Body, Category, Pose, Twist};
use nalgebra::Vector3;

impl Importer<'_> {
    /// Every rigid body, in traversal order.
    pub(super) fn bodies(&mut self) -> SourceResult<()> {
        let stage = self.stage;
        for (i, p) in stage.prims.iter().enumerate().filter(|(_, p)| is_body(p)) {
            let wanted = string(p, attr::MBCONV_NAME).unwrap_or_else(|| p.name.clone());
            let qualifier = p
                .parent
                .map_or_else(String::new, |parent| stage.prims[parent].name.clone());
            let name = self.session.unique_name("bodies", &wanted, &qualifier);
            let at = path::item("bodies", &name);
            if let Some(span) = crate::raw::prim_span(self.source, &p.path) {
                self.session.record(at.clone(), span);
            }
            let world = self.world[i];
            if !world.matrix.iter().all(|x| x.is_finite()) {
                return Err(self.error("xform", &p.path, "the body's composed transform is not finite"));
            }
            if world.scale.iter().any(|s| *s == 0.0) {
                return Err(self.error(
                    "xform",
                    &p.path,
                    format!(
                        "the body's composed transform has a zero scale ({:?}): it has no frame",
                        world.scale.as_slice()
                    ),
                ));
            }
            if !world.is_rigid() {
                let how = if world.sheared { "sheared" } else { "scaled" };
                self.note(
                    "body_scale",
                    Category::Note,
                    &at,
                    &p.path,
                    format!("the body's transform is {how} (scale {:?}): the body frame is its rotation and translation; the scale goes into its shapes, centre of mass and joint positions", world.scale.as_slice()),
                );
            }
            let mut body = Body::new(name);
            body.pose = Pose::new(world.pose.translation * self.length, world.pose.rotation);
            if flag(p, attr::RIGID_BODY_ENABLED) == Some(false) {
                body.fixed = true;
                self.note(
                    "body_disabled",
                    Category::Note,
                    &at,
                    &p.path,
                    "physics:rigidBodyEnabled is false: a static body, fixed where it is",
                );
            }
            // A body this writer fixed in the world (welded to an anchor, see `mbconv:world`).
            if flag(p, attr::MBCONV_FIXED) == Some(true) {
                body.fixed = true;
            }
            if flag(p, attr::DISABLE_GRAVITY) == Some(true) {
                body.gravity = false;
            }
            if flag(p, attr::KINEMATIC_ENABLED) == Some(true) {
                body.fixed = true;
                self.note(
                    "kinematic",
                    Category::Note,
                    &at,
                    &p.path,
                    "a kinematic body: fixed where it is (its animation, if any, is not read)",
                );
            }
            self.bodies.insert(i, self.model.bodies.len());
            self.model.bodies.push(body);
            self.paths.bodies.push(p.path.clone());
            let b = self.model.bodies.len() - 1;
            self.shapes(i, b)?;
            self.mass_properties(i, b)?;
            self.velocity(i, b);
        }
        Ok(())
    }

    /// `physics:velocity` and `physics:angularVelocity` (degrees per second), in the space of
    /// the prim's parent, of the centre of mass (PhysX's convention): the IR's velocity of the
    /// body frame's origin in world axes.
    fn velocity(&mut self, i: usize, b: usize) {
        let p = &self.stage.prims[i];
        let linear =
            exact3(p, attr::VELOCITY).map(|(v, si)| Vector3::from(v) * if si { 1.0 } else { self.length });
        let angular = exact3(p, attr::ANGULAR_VELOCITY)
            .map(|(v, si)| Vector3::from(v) / if si { 1.0 } else { DEGREES_PER_RADIAN });
        if linear.is_none_or(|v| v == Vector3::zeros()) && angular.is_none_or(|v| v == Vector3::zeros()) {
            return;
        }
        let parent = p.parent.map_or(Pose::identity(), |q| self.world[q].pose);
        let linear = parent.rotation * linear.unwrap_or_else(Vector3::zeros);
        let angular = parent.rotation * angular.unwrap_or_else(Vector3::zeros);
        let body = &mut self.model.bodies[b];
        let com = body.pose.rotation * body.inertial.com;
        body.initial_velocity = Some(Twist {
            linear: linear - angular.cross(&com),
            angular,
        });
    }
}
