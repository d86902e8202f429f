//! URDF's keys, conventions and settings, shared by the reader and the writer: the read and
//! write settings, the `urdf.*` extras both directions name, the rotation conventions of
//! `<origin>` and the plane of a `planar` joint.

use mbconv_ir::format::{SettingKind, SettingSpec};
use mbconv_ir::rotation;
use nalgebra::{UnitQuaternion, Vector3};

/// The name URDF gives the world link.
pub(crate) const WORLD: &str = "world";
/// The extras key of a link or joint name changed to keep IR names unique (the name as the
/// file wrote it).
pub(crate) const NAME: &str = "urdf.name";
/// The model extras key of the namespace prefixes declared on `<robot>` (prefix -> URI).
pub(crate) const XMLNS: &str = "urdf.xmlns";
/// The shape extras key of a visual's material name.
pub(crate) const MATERIAL: &str = "urdf.material";
/// The joint extras key of a `planar` joint's `<axis>` (the plane's normal) as written.
pub(crate) const AXIS: &str = "urdf.axis";

/// The read setting that says what holds the root link: `fixed` (welded to the world, as
/// Pinocchio and MuJoCo load it; the default) or `free` (a floating body, as DART and Drake
/// load it).
pub(crate) const ROOT: &str = "root";
/// The words [`ROOT`] takes.
pub(crate) const ROOT_CHOICES: &[&str] = &["fixed", "free"];
/// The read setting listing directories that hold ROS packages, separated by `:` (searched
/// before `ROS_PACKAGE_PATH` to resolve `package://NAME/...` mesh URIs).
pub(crate) const PACKAGE_PATH: &str = "package_path";

/// The write setting that says how a floating root is written: `floating_joint` (the default:
/// a `floating` joint from a `world` link, which every loader reads as free) or `free` (the root
/// link alone, as DART and Drake free it; Pinocchio and MuJoCo weld such a root, and mbconv
/// reads it free only with the read setting `root=free`).
pub(crate) const WRITE_ROOT: &str = "root";
/// The words [`WRITE_ROOT`] takes.
pub(crate) const WRITE_ROOT_CHOICES: &[&str] = &["floating_joint", "free"];

/// The settings the URDF writer understands.
pub const WRITE_SETTINGS: &[SettingSpec] = &[SettingSpec {
    name: WRITE_ROOT,
    kind: SettingKind::Choice(WRITE_ROOT_CHOICES),
    default: "floating_joint",
    help: "how a floating root is written: floating_joint (a `floating` joint from a `world` link, free in every loader) or free (the root link alone: free in DART and Drake, welded by Pinocchio and MuJoCo; read it back with root=free)",
}];

/// The settings the URDF reader understands.
pub const READ_SETTINGS: &[SettingSpec] = &[
    SettingSpec {
        name: ROOT,
        kind: SettingKind::Choice(ROOT_CHOICES),
        default: "fixed",
        help: "what holds the root link: fixed (welded to the world, as Pinocchio and MuJoCo do) or free (floating, as DART and Drake do)",
    },
    SettingSpec {
        name: PACKAGE_PATH,
        kind: SettingKind::Text,
        default: "none",
        help: "directories holding ROS packages, `:`-separated, searched before ROS_PACKAGE_PATH for package:// mesh URIs",
    },
];

/// The rotation of `<origin rpy="r p y">`: fixed axes X, then Y, then Z, `R = Rz(y)·Ry(p)·Rx(r)`.
pub(crate) fn rpy(angles: [f64; 3]) -> UnitQuaternion<f64> {
    rotation::rpy::to_quaternion(angles)
}

/// The `rpy` the writer states for a rotation (the inverse of [`rpy`]: roll and yaw in
/// `[-π, π]`, pitch in `[-π/2, π/2]`).
pub(crate) fn rpy_angles(rotation: &UnitQuaternion<f64>) -> [f64; 3] {
    rotation::rpy::from_quaternion(rotation)
}

/// A rotation as URDF 1.1's `quat_xyzw`.
pub(crate) fn quat_xyzw(rotation: &UnitQuaternion<f64>) -> [f64; 4] {
    [rotation.i, rotation.j, rotation.k, rotation.w]
}

/// Two in-plane axes for a `planar` joint whose `<axis>` is the plane's normal: `axis1 ×
/// axis2` is the normal direction, `axis1` as close to the joint frame's x as the plane
/// allows (y when the normal is along x). `None` for a zero normal.
pub(crate) fn plane_axes(normal: &Vector3<f64>) -> Option<(Vector3<f64>, Vector3<f64>)> {
    let n = rotation::unit_vector(normal)?;
    let suggestion = if n.x.abs() > 0.9 {
        Vector3::y()
    } else {
        Vector3::x()
    };
    let a1 = rotation::unit_vector(&(suggestion - n * n.dot(&suggestion)))?;
    let a2 = n.cross(&a1);
    Some((a1, a2))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rpy_turns_about_fixed_axes_and_back() {
        let q = rpy([0.0, 0.0, std::f64::consts::FRAC_PI_2]);
        assert!((q * Vector3::x() - Vector3::y()).norm() < 1e-15);
        let angles = [0.1, -0.2, 0.3];
        let back = rpy_angles(&rpy(angles));
        assert!(back.iter().zip(angles).all(|(a, b)| (a - b).abs() < 1e-15));
    }

    #[test]
    fn plane_axes_span_the_plane() {
        assert_eq!(plane_axes(&Vector3::z()).unwrap(), (Vector3::x(), Vector3::y()));
        for normal in [
            Vector3::x(),
            Vector3::new(0.0, 1.0, 1.0),
            Vector3::new(-3.0, 0.1, 0.2),
        ] {
            let (a1, a2) = plane_axes(&normal).unwrap();
            let n = normal.normalize();
            assert!(a1.dot(&n).abs() < 1e-15 && a2.dot(&n).abs() < 1e-15);
            assert!((a1.cross(&a2) - n).norm() < 1e-15);
        }
        assert!(plane_axes(&Vector3::zeros()).is_none());
    }
}
