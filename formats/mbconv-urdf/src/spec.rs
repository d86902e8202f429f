//! URDF's conventions and settings, shared by the reader and the writer: the read and write
//! settings, the rotation conventions of `<origin>`, the plane of a `planar` joint, and the
//! resolution of mesh URIs.

use mbconv_ir::format::{SettingKind, SettingSpec};
use mbconv_ir::rotation;
use nalgebra::{UnitQuaternion, Vector3};
use std::path::{Path, PathBuf};

/// The read setting that says what holds the root link: `fixed` (welded to the world, as
/// Pinocchio and MuJoCo load it; the default) or `free` (a floating body, as DART and Drake
/// load it).
pub const ROOT: &str = "root";
/// The words [`ROOT`] takes.
pub const ROOT_CHOICES: &[&str] = &["fixed", "free"];
/// The read setting listing directories that hold ROS packages, separated by `:` (searched
/// before `ROS_PACKAGE_PATH` to resolve `package://NAME/...` mesh URIs).
pub const PACKAGE_PATH: &str = "package_path";

/// The write setting that says how a floating root is written: `floating_joint` (the default:
/// a `floating` joint from a `world` link, which every loader reads as free) or `free` (the root
/// link alone, as DART and Drake free it; Pinocchio and MuJoCo weld such a root, and mbconv
/// reads it free only with the read setting `root=free`).
pub const WRITE_ROOT: &str = "root";
/// The words [`WRITE_ROOT`] takes.
pub const WRITE_ROOT_CHOICES: &[&str] = &["floating_joint", "free"];

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
///
/// ```
/// let q = mbconv_urdf::spec::rpy([0.0, 0.0, std::f64::consts::FRAC_PI_2]);
/// assert!((q * nalgebra::Vector3::x() - nalgebra::Vector3::y()).norm() < 1e-15);
/// ```
pub fn rpy(angles: [f64; 3]) -> UnitQuaternion<f64> {
    rotation::rpy::to_quaternion(angles)
}

/// The `rpy` the writer states for a rotation (the inverse of [`rpy`]: roll and yaw in
/// `[-π, π]`, pitch in `[-π/2, π/2]`).
///
/// ```
/// let angles = [0.1, -0.2, 0.3];
/// let back = mbconv_urdf::spec::rpy_angles(&mbconv_urdf::spec::rpy(angles));
/// assert!(back.iter().zip(angles).all(|(a, b)| (a - b).abs() < 1e-15));
/// ```
pub fn rpy_angles(rotation: &UnitQuaternion<f64>) -> [f64; 3] {
    rotation::rpy::from_quaternion(rotation)
}

/// A rotation as URDF 1.1's `quat_xyzw`.
pub fn quat_xyzw(rotation: &UnitQuaternion<f64>) -> [f64; 4] {
    [rotation.i, rotation.j, rotation.k, rotation.w]
}

/// Two in-plane axes for a `planar` joint whose `<axis>` is the plane's normal: `axis1 ×
/// axis2` is the normal direction, `axis1` as close to the joint frame's x as the plane
/// allows (y when the normal is along x). `None` for a zero normal.
///
/// ```
/// let (a1, a2) = mbconv_urdf::spec::plane_axes(&nalgebra::Vector3::z()).unwrap();
/// assert_eq!((a1, a2), (nalgebra::Vector3::x(), nalgebra::Vector3::y()));
/// ```
pub fn plane_axes(normal: &Vector3<f64>) -> Option<(Vector3<f64>, Vector3<f64>)> {
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

/// Where a mesh URI points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MeshLocation {
    /// A file path (resolved; it may not exist).
    File(PathBuf),
    /// A `package://` URI whose package was not found under any root.
    UnresolvedPackage(String),
    /// A scheme the reader does not resolve (`http://`, `model://`, ...), kept as written.
    Other,
}

/// Resolves a mesh URI as the ROS resource retriever does: `package://NAME/rest` under the
/// first of `package_roots` holding a directory `NAME` (or named `NAME`) that contains
/// `rest`, `file://PATH` to `PATH`, and a plain path relative to `base` (the model file's
/// directory).
///
/// ```
/// use mbconv_urdf::spec::{resolve_mesh, MeshLocation};
/// use std::path::{Path, PathBuf};
/// assert_eq!(resolve_mesh("m/a.stl", Some(Path::new("/r")), &[]), MeshLocation::File(PathBuf::from("/r/m/a.stl")));
/// assert_eq!(resolve_mesh("file:///x/a.stl", None, &[]), MeshLocation::File(PathBuf::from("/x/a.stl")));
/// assert_eq!(resolve_mesh("package://p/a.stl", None, &[]), MeshLocation::UnresolvedPackage("p".into()));
/// ```
pub fn resolve_mesh(uri: &str, base: Option<&Path>, package_roots: &[PathBuf]) -> MeshLocation {
    if let Some(rest) = uri.strip_prefix("package://") {
        let (package, inner) = rest.split_once('/').unwrap_or((rest, ""));
        for root in package_roots {
            let candidates = [
                root.join(package),
                if root.file_name().is_some_and(|n| n == package) {
                    root.clone()
                } else {
                    PathBuf::new()
                },
            ];
            for dir in candidates.iter().filter(|d| !d.as_os_str().is_empty()) {
                let file = dir.join(inner);
                if file.exists() {
                    return MeshLocation::File(file);
                }
            }
        }
        return MeshLocation::UnresolvedPackage(package.to_owned());
    }
    if let Some(path) = uri.strip_prefix("file://") {
        let path = Path::new(path);
        return MeshLocation::File(match base {
            Some(base) if path.is_relative() => base.join(path),
            _ => path.to_path_buf(),
        });
    }
    if uri.contains("://") {
        return MeshLocation::Other;
    }
    let path = Path::new(uri);
    MeshLocation::File(match base {
        Some(base) if path.is_relative() => base.join(path),
        _ => path.to_path_buf(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn plane_axes_span_the_plane() {
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

    #[test]
    fn packages_resolve_under_their_roots() {
        let dir = std::env::temp_dir().join(format!("mbconv-urdf-spec-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg/meshes")).unwrap();
        std::fs::write(dir.join("pkg/meshes/a.stl"), "solid").unwrap();
        let roots = [PathBuf::from("/nonexistent"), dir.clone()];
        assert_eq!(
            resolve_mesh("package://pkg/meshes/a.stl", None, &roots),
            MeshLocation::File(dir.join("pkg/meshes/a.stl"))
        );
        assert_eq!(
            resolve_mesh("package://pkg/meshes/a.stl", None, &[dir.join("pkg")]),
            MeshLocation::File(dir.join("pkg/meshes/a.stl"))
        );
        assert_eq!(
            resolve_mesh("package://pkg/meshes/b.stl", None, &roots),
            MeshLocation::UnresolvedPackage("pkg".into())
        );
        assert_eq!(resolve_mesh("https://x/a.stl", None, &roots), MeshLocation::Other);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
