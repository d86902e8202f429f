//! What reading and writing SKEL share: the extras keys and exactness aids, DART's defaults,
//! the `<transformation>` convention, the order of a free joint's coordinates, the names of
//! actuators, the free-joint velocity convention ([`velocity`]), the arbitrary-plane rule
//! ([`plane`]) and the verbatim element values ([`verbatim`]).
//!
//! The importer and the exporter both depend on this module and never on each other.

pub(crate) mod plane;
pub(crate) mod velocity;
pub(crate) mod verbatim;

use mbconv_ir::rotation::xyz_angles;
use mbconv_ir::{ActuatorKind, DofProperties, EulerOrder, Pose};
use nalgebra::Vector3;

/// The format name: the prefix of SKEL extras keys and finding codes.
pub(crate) const FORMAT: &str = "skel";

/// Aid (`skel.source.transformation`): a `<transformation>` as written (body, joint, shape,
/// skeleton), reused when it gives the IR pose back bit for bit.
pub(crate) const TRANSFORMATION_AID: &str = "transformation";
/// Aid (`skel.source.init_vel`): a free joint's `init_vel` as written, in DART's order.
pub(crate) const INIT_VEL_AID: &str = "init_vel";
/// Aid (`skel.source.plane_axes`): an arbitrary planar joint's translation axes as written
/// (DART orthonormalises them).
pub(crate) const PLANE_AXES_AID: &str = "plane_axes";

/// Extras key of the SKEL name of an item renamed to be unique across skeletons.
pub(crate) const NAME: &str = "skel.name";
/// Extras key of a model read from a file with `<skeleton>` directly under `<skel>`.
pub(crate) const NO_WORLD: &str = "skel.no_world";
/// Extras key of the `<skel version>` when it is not `1.0`.
pub(crate) const VERSION: &str = "skel.version";
/// Extras key of the soft-body elements of a body.
pub(crate) const SOFT_SHAPE: &str = "skel.soft_shape";
/// Extras key of a plane's deprecated `<point>`.
pub(crate) const PLANE_POINT: &str = "skel.plane_point";
/// Extras key prefix of `<world>` children DART does not read (`skel.world.<tag>`).
pub(crate) const WORLD_PREFIX: &str = "world.";

/// The extras keys (without the `skel.` prefix) that are data of the writer, not verbatim
/// elements to write back.
pub(crate) const NOT_VERBATIM: &[&str] = &["name", "soft_shape", "plane_point", "no_world", "version"];

/// DART's default gravity (m/s²).
pub(crate) const DEFAULT_GRAVITY: [f64; 3] = [0.0, 0.0, -9.81];
/// DART's default time step (s).
pub(crate) const DEFAULT_TIME_STEP: f64 = 0.001;

/// Where each IR free-joint coordinate (`[x y z, rx ry rz]`) sits in DART's order
/// (`[rx ry rz, x y z]`): DART coordinate `i` is IR coordinate `FREE_DART_ORDER[i]`, and the
/// same permutation maps back.
pub(crate) const FREE_DART_ORDER: [usize; 6] = [3, 4, 5, 0, 1, 2];

/// DOF properties with nothing set: unlimited, no damping, friction or spring, gear ratio 1
/// (the IR's serialised default; `DofProperties::default()` derives a gear ratio of 0).
pub(crate) fn plain_dof() -> DofProperties {
    DofProperties {
        gear_ratio: 1.0,
        ..DofProperties::default()
    }
}

/// The pose a `<transformation>` 6-vector stands for: translation, then `Rx·Ry·Rz` angles.
pub(crate) fn pose_from_numbers(v: [f64; 6]) -> Pose {
    Pose::new(
        Vector3::new(v[0], v[1], v[2]),
        xyz_angles::to_quaternion([v[3], v[4], v[5]]),
    )
}

/// The `<transformation>` 6-vector of `pose` (a computed `-0` becomes `0`).
pub(crate) fn numbers_from_pose(pose: &Pose) -> [f64; 6] {
    let [a, b, c] = xyz_angles::from_quaternion(&pose.rotation);
    let t = pose.translation;
    [t.x, t.y, t.z, a, b, c].map(|x| x + 0.0)
}

/// The `actuator` attribute values DART reads.
pub(crate) const ACTUATORS: [(&str, ActuatorKind); 6] = [
    ("force", ActuatorKind::Force),
    ("passive", ActuatorKind::Passive),
    ("servo", ActuatorKind::Servo),
    ("acceleration", ActuatorKind::Acceleration),
    ("velocity", ActuatorKind::Velocity),
    ("locked", ActuatorKind::Locked),
];

/// The SKEL name of an actuator kind (`None`: DART has no such actuator).
pub(crate) fn actuator_name(kind: ActuatorKind) -> Option<&'static str> {
    ACTUATORS.iter().find(|(_, k)| *k == kind).map(|(name, _)| *name)
}

/// The `<axis_order>` values of euler joints.
pub(crate) const EULER_ORDERS: [(&str, EulerOrder); 2] = [("xyz", EulerOrder::Xyz), ("zyx", EulerOrder::Zyx)];

/// The `<axis_order>` text of an euler order.
pub(crate) fn euler_order_name(order: EulerOrder) -> &'static str {
    EULER_ORDERS
        .iter()
        .find(|(_, o)| *o == order)
        .map_or("xyz", |(name, _)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transformation_numbers_round_trip_through_a_pose() {
        let numbers = [0.5, -1.0, 2.0, 0.3, -0.2, 0.1];
        let back = numbers_from_pose(&pose_from_numbers(numbers));
        for (a, b) in numbers.iter().zip(back) {
            assert!((a - b).abs() < 1e-15, "{a} vs {b}");
        }
        assert_eq!(numbers_from_pose(&Pose::identity()), [0.0; 6]);
    }

    #[test]
    fn every_actuator_and_order_has_one_name() {
        for (name, kind) in ACTUATORS {
            assert_eq!(actuator_name(kind), Some(name));
        }
        assert_eq!(actuator_name(ActuatorKind::Position), None);
        assert_eq!(euler_order_name(EulerOrder::Zyx), "zyx");
    }
}
