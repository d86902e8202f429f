//! Small models built in code, for the examples of this crate's documentation and for first
//! experiments.

use crate::{Body, BodyRef, Joint, JointKind, Model};
use nalgebra::Vector3;

/// A pendulum: one 1 kg bob whose centre of mass hangs 1 m below a revolute pivot about `y`
/// on the world, released from 0.3 rad.
///
/// ```
/// let model = mbconv::demo::pendulum();
/// assert_eq!(model.bodies[0].name, "bob");
/// assert_eq!(model.joints[0].q0, [0.3]);
/// assert!(mbconv::validate(&model).findings.is_empty());
/// ```
pub fn pendulum() -> Model {
    let mut model = Model::new("pendulum");
    let mut bob = Body::new("bob");
    bob.inertial.com = Vector3::new(0.0, 0.0, -1.0);
    model.bodies.push(bob);
    let mut pivot = Joint::new(
        "pivot",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    );
    pivot.q0 = vec![0.3];
    model.joints.push(pivot);
    model
}
