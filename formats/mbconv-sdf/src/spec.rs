//! SDFormat's conventions and settings, shared by the reader and the writer: the versions
//! read and written, the read and write settings, the rotation spellings of `<pose>`, the
//! defaults of `<limit>`, the screw thread pitch conversion and the names SDFormat reserves.

use mbconv_ir::Geometry;
use mbconv_ir::format::{SettingKind, SettingSpec};
use mbconv_ir::rotation;
use nalgebra::{Matrix3, UnitQuaternion};

/// The read setting listing directories searched for `model://NAME` URIs, `:`-separated,
/// before `GZ_SIM_RESOURCE_PATH` and `SDF_PATH`.
pub(crate) const MODEL_PATH: &str = "model_path";

/// The read setting listing directories holding ROS packages, `:`-separated, searched before
/// `ROS_PACKAGE_PATH` for `package://NAME/...` mesh URIs (as the URDF reader's setting of the
/// same name).
pub(crate) const PACKAGE_PATH: &str = "package_path";

/// The settings the SDFormat reader understands.
pub(crate) const READ_SETTINGS: &[SettingSpec] = &[
    SettingSpec {
        name: MODEL_PATH,
        kind: SettingKind::Text,
        default: "none",
        help: "directories holding models, `:`-separated, searched before GZ_SIM_RESOURCE_PATH and SDF_PATH for model:// URIs",
    },
    SettingSpec {
        name: PACKAGE_PATH,
        kind: SettingKind::Text,
        default: "none",
        help: "directories holding ROS packages, `:`-separated, searched before ROS_PACKAGE_PATH for package:// mesh URIs",
    },
];

/// The write setting choosing the `<sdf version>` written (see [`WRITE_VERSIONS`]).
pub(crate) const WRITE_VERSION: &str = "version";
/// The versions the writer writes: 1.9 (the default) is the oldest with everything the writer
/// uses (`relative_to` and `<frame>` since 1.7, `::` scopes and world joints since 1.8,
/// `rotation_format` since 1.9) and the newest that libsdformat 12 (Gazebo Fortress) reads;
/// 1.10 adds `<screw_thread_pitch>`, 1.11 `<cone>`.
pub(crate) const WRITE_VERSIONS: &[&str] = &["1.9", "1.10", "1.11", "1.12"];
/// The write setting choosing what link poses are relative to (see [`WRITE_POSES_CHOICES`]).
pub(crate) const WRITE_POSES: &str = "poses";
/// `parent` (the default): a link's pose is relative to the link its joint hangs it from
/// (when that link is in the same model), so the file reads like the tree; `model`: every
/// link pose is relative to its model frame.
pub(crate) const WRITE_POSES_CHOICES: &[&str] = &["parent", "model"];
/// The write setting choosing how a loop-closing ball joint is written (see
/// [`WRITE_LOOPS_CHOICES`]).
pub(crate) const WRITE_LOOPS: &str = "loops";
/// `joints` (the default): a loop-closing joint is a `<joint>` whose child already has a
/// parent, as libsdformat and Gazebo read it (Drake refuses such a model); `drake`: a
/// loop-closing ball joint is Drake's `<drake:ball_constraint>`, which Drake 1.51 reads (and
/// applies in its discrete SAP solver) and libsdformat keeps as an extension element that
/// Gazebo ignores.
pub(crate) const WRITE_LOOPS_CHOICES: &[&str] = &["joints", "drake"];
/// The element Drake reads as a ball constraint between two links, and its children.
pub(crate) const DRAKE_BALL_CONSTRAINT: &str = "drake:ball_constraint";
pub(crate) const DRAKE_BALL_BODY_A: &str = "drake:ball_constraint_body_A";
pub(crate) const DRAKE_BALL_BODY_B: &str = "drake:ball_constraint_body_B";
pub(crate) const DRAKE_BALL_P_AP: &str = "drake:ball_constraint_p_AP";
pub(crate) const DRAKE_BALL_P_BQ: &str = "drake:ball_constraint_p_BQ";

/// The settings the SDFormat writer understands.
pub(crate) const WRITE_SETTINGS: &[SettingSpec] = &[
    SettingSpec {
        name: WRITE_VERSION,
        kind: SettingKind::Choice(WRITE_VERSIONS),
        default: "1.9",
        help: "the SDFormat version written: 1.9 (read by libsdformat 12 and later: Gazebo Fortress, Harmonic, Drake), 1.10 (screw pitch in metres per turn), 1.11 (cones), 1.12",
    },
    SettingSpec {
        name: WRITE_POSES,
        kind: SettingKind::Choice(WRITE_POSES_CHOICES),
        default: "parent",
        help: "what link poses are written relative to: parent (the link a joint hangs it from, in the same model) or model (the model frame)",
    },
    SettingSpec {
        name: WRITE_LOOPS,
        kind: SettingKind::Choice(WRITE_LOOPS_CHOICES),
        default: "joints",
        help: "how a loop-closing ball joint is written: joints (a <joint> whose child already has a parent: libsdformat and Gazebo read it, Drake refuses it) or drake (<drake:ball_constraint>: Drake reads it, Gazebo ignores it)",
    },
];

/// The oldest SDFormat minor version read (1.4).
pub(crate) const OLDEST: u32 = 4;
/// The newest SDFormat minor version read (1.12).
pub(crate) const NEWEST: u32 = 12;

/// The minor version of an `<sdf version>` value, when it is `1.4` to `1.12`.
pub(crate) fn minor_version(text: &str) -> Option<u32> {
    let (major, minor) = text.trim().split_once('.')?;
    if major != "1" || minor.is_empty() || !minor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let minor: u32 = minor.parse().ok()?;
    (OLDEST..=NEWEST).contains(&minor).then_some(minor)
}

/// The rotation of a pose's `roll pitch yaw` (radians): fixed axes X, then Y, then Z,
/// `R = Rz(yaw)·Ry(pitch)·Rx(roll)`, as libsdformat (gz-math `Pose3d`) reads it.
pub(crate) fn rpy(angles: [f64; 3]) -> UnitQuaternion<f64> {
    rotation::rpy::to_quaternion(angles)
}

/// The bound the writer states for a side of a position limit the model leaves open: the
/// older spec default, which [`bound`] (and libsdformat's readers) take as no limit.
pub(crate) const NO_LIMIT: f64 = 1e16;

/// libsdformat's `<limit>` bounds `-1e16`/`1e16` (the defaults) mean "no limit": a bound at or
/// beyond `1e16` in size, or not finite, is no bound.
pub(crate) fn bound(value: f64) -> Option<f64> {
    (value.is_finite() && value.abs() < 1e16).then_some(value)
}

/// The screw pitch in metres per revolution (the IR's, right-handed positive) of the
/// pre-1.10 `<thread_pitch>`, which Gazebo reads in radians per metre with the opposite
/// sign: `-2π / thread_pitch` (libsdformat's own conversion between the two elements).
pub(crate) fn pitch_from_thread_pitch(thread_pitch: f64) -> f64 {
    -std::f64::consts::TAU / thread_pitch
}

/// The pre-1.10 `<thread_pitch>` (Gazebo's radians per metre, opposite sign) of a screw
/// pitch in metres per revolution: the inverse of [`pitch_from_thread_pitch`].
pub(crate) fn thread_pitch_from_pitch(pitch: f64) -> f64 {
    -std::f64::consts::TAU / pitch
}

/// The `roll pitch yaw` the writer states for a rotation (the inverse of [`rpy`]: roll and
/// yaw in `[-π, π]`, pitch in `[-π/2, π/2]`).
pub(crate) fn rpy_angles(rotation: &UnitQuaternion<f64>) -> [f64; 3] {
    rotation::rpy::from_quaternion(rotation)
}

/// The separator of scoped names (`outer::inner::link`), reserved in names since 1.8.
pub(crate) const SCOPE: &str = "::";

/// The start of the tag of a model's own element kept on its canonical link
/// (`sdf.model.plugin`): written back in the `<model>`, not in the link.
pub(crate) const MODEL_EXTRA: &str = "model.";

/// The model extra holding the XML namespaces the files read declare (a map from prefix to
/// URI, in the order met; a prefix declared twice keeps its first URI): the writer declares
/// them on `<sdf>` for the kept elements and attributes of those namespaces
/// (`<fdir1 gz:expressed_in=...>`), which may have been declared on an inner element.
pub(crate) const NAMESPACES_EXTRA: &str = "sdf.source.namespaces";

/// True when `name` may name a link, joint, frame or model in SDFormat 1.8 and later: not
/// empty, without `::`, not `world` or `__model__`, not starting and ending with `__`.
pub(crate) fn is_plain_name(name: &str) -> bool {
    let reserved = name == "world" || (name.len() >= 4 && name.starts_with("__") && name.ends_with("__"));
    !(name.is_empty() || name.contains(SCOPE) || reserved)
}

/// A solid shape's volume, inertia per unit mass about its centre of mass, and centre of mass,
/// in its own frame.
pub(crate) struct Solid {
    /// Volume (m³).
    pub(crate) volume: f64,
    /// Inertia per unit mass about the centre of mass (m²).
    pub(crate) unit_inertia: Matrix3<f64>,
    /// The centre of mass in the shape's frame: its origin, except for a cone (a quarter of
    /// its length below the origin, which is halfway up the axis, as gz-math places it).
    pub(crate) centroid: nalgebra::Vector3<f64>,
}

/// The volume of a solid shape, its inertia per unit mass about its centre of mass and that
/// centre, in its own frame (cylinders, capsules and cones along z), for
/// `<inertial auto="true">`, as libsdformat (gz-math) computes them; `None` for shapes without
/// a closed form here (meshes, planes).
pub(crate) fn solid(geometry: &Geometry) -> Option<Solid> {
    use std::f64::consts::PI;
    let diagonal = |x: f64, y: f64, z: f64| Matrix3::from_diagonal(&nalgebra::Vector3::new(x, y, z));
    if let Geometry::Cone { radius: r, length: l } = *geometry {
        // gz-math's MassMatrix3::SetFromConeZ; the centre of mass a quarter of the length
        // above the base.
        let side = 3.0 / 20.0 * r * r + 3.0 / 80.0 * l * l;
        return Some(Solid {
            volume: PI * r * r * l / 3.0,
            unit_inertia: diagonal(side, side, 0.3 * r * r),
            centroid: nalgebra::Vector3::new(0.0, 0.0, -l / 4.0),
        });
    }
    let (volume, unit_inertia) = match *geometry {
        Geometry::Box { size: [x, y, z] } => (
            x * y * z,
            diagonal(y * y + z * z, x * x + z * z, x * x + y * y) / 12.0,
        ),
        Geometry::Sphere { radius: r } => (
            4.0 / 3.0 * PI * r.powi(3),
            diagonal(1.0, 1.0, 1.0) * (0.4 * r * r),
        ),
        Geometry::Ellipsoid { radii: [a, b, c] } => (
            4.0 / 3.0 * PI * a * b * c,
            diagonal(b * b + c * c, a * a + c * c, a * a + b * b) / 5.0,
        ),
        Geometry::Cylinder { radius: r, length: l } => {
            let side = (3.0 * r * r + l * l) / 12.0;
            (PI * r * r * l, diagonal(side, side, r * r / 2.0))
        }
        Geometry::Capsule { radius: r, length: l } => {
            // A cylinder and two hemispheres, each hemisphere's inertia moved from its own
            // centre of mass (3r/8 from the flat face) to the capsule's centre.
            let cylinder = PI * r * r * l;
            let hemisphere = 2.0 / 3.0 * PI * r.powi(3);
            let total = cylinder + 2.0 * hemisphere;
            let axial = cylinder * r * r / 2.0 + 2.0 * hemisphere * 0.4 * r * r;
            let side = cylinder * (3.0 * r * r + l * l) / 12.0
                + 2.0 * hemisphere * (0.4 * r * r + l * l / 4.0 + 3.0 * l * r / 8.0);
            (total, diagonal(side, side, axial) / total)
        }
        _ => return None,
    };
    Some(Solid {
        volume,
        unit_inertia,
        centroid: nalgebra::Vector3::zeros(),
    })
}

/// The mass (kg) and principal moment (kg m²) of the "plausible" inertia Drake's parser reads
/// where it cannot make a spatial inertia of what a link states (a zero mass under a non-zero
/// inertia): a solid sphere of water (1000 kg/m³) of 1 kg, computed as Drake computes it (its
/// radius from the volume, its mass back from the radius).
pub(crate) fn drake_plausible_sphere() -> (f64, f64) {
    const DENSITY: f64 = 1000.0;
    let radius = (3.0 / (4.0 * std::f64::consts::PI) * (1.0 / DENSITY)).cbrt();
    let mass = DENSITY * (4.0 / 3.0) * std::f64::consts::PI * radius.powi(3);
    (mass, 0.4 * mass * radius * radius)
}

/// gz-math's tolerance factor in `MassMatrix3::IsValid` (`GZ_MASSMATRIX3_DEFAULT_TOLERANCE`).
const GZ_TOLERANCE: f64 = 10.0;

/// True when libsdformat takes `inertia` (symmetric, kg m²) as a link's valid inertia, as
/// gz-math's `MassMatrix3::IsValid` decides it (libsdformat reports "A link named X has
/// invalid inertia" otherwise, and Drake then refuses a world: "Failed to load a world"):
/// positive semi-definite by the leading minors, and principal moments that meet the triangle
/// inequality, each within ten ε of twice the largest moment. The principal moments are those
/// gz-math computes, by the closed-form roots of the characteristic cubic (Kronenburg, "A
/// method for fast diagonalization of a 2x2 or 3x3 real symmetric matrix", 2013): near a
/// repeated moment they are off by about √ε of the moments (4e-9 kg m² on pybullet's
/// `cube_no_rotation.urdf`, moments 0, 0.215, 0.215), far more than an eigen-decomposition's
/// rounding. Checked against Drake 1.51.1's loading of 160 tensors near the triangle's edge:
/// the same verdict on each.
pub(crate) fn libsdformat_accepts_inertia(inertia: &Matrix3<f64>) -> bool {
    let diagonal = [inertia[(0, 0)], inertia[(1, 1)], inertia[(2, 2)]];
    let products = [inertia[(0, 1)], inertia[(0, 2)], inertia[(1, 2)]];
    let [xx, yy, xy] = [diagonal[0], diagonal[1], products[0]];
    let near_positive = {
        let epsilon = gz_epsilon(diagonal);
        xx + epsilon >= 0.0 && xx * yy - xy * xy + epsilon >= 0.0 && inertia.determinant() + epsilon >= 0.0
    };
    let m = gz_principal_moments(diagonal, products);
    let epsilon = gz_epsilon(m);
    near_positive
        && m.iter().all(|x| x + epsilon >= 0.0)
        && m[0] + m[1] + epsilon >= m[2]
        && m[1] + m[2] + epsilon >= m[0]
        && m[2] + m[0] + epsilon >= m[1]
}

/// gz-math's allowance for rounding on `moments`: its tolerance times ε times twice the
/// largest moment.
fn gz_epsilon(moments: [f64; 3]) -> f64 {
    let largest = moments.iter().fold(0.0_f64, |a, m| a.max(2.0 * m.abs()));
    GZ_TOLERANCE * f64::EPSILON * largest
}

/// The principal moments gz-math computes (`MassMatrix3::PrincipalMoments` with its default
/// tolerance 1e-6 of the largest diagonal entry), ascending: the diagonal when the products are
/// within that tolerance of zero, their mean when the moments are within it of each other, else
/// the three roots of the characteristic cubic in trigonometric form.
fn gz_principal_moments(diagonal: [f64; 3], products: [f64; 3]) -> [f64; 3] {
    let tolerance = 1e-6 * diagonal.iter().fold(f64::NEG_INFINITY, |a, &d| a.max(d));
    let mut moments = if products.iter().all(|p| p.abs() <= tolerance) {
        diagonal
    } else {
        let [xx, yy, zz] = diagonal;
        let [xy, xz, yz] = products;
        // The characteristic polynomial λ³ − bλ² + cλ + d.
        let b = xx + yy + zz;
        let c = xx * yy - xy * xy + xx * zz - xz * xz + yy * zz - yz * yz;
        let d = xx * yz * yz + yy * xz * xz + zz * xy * xy - xx * yy * zz - 2.0 * xy * xz * yz;
        let p = b * b - 3.0 * c;
        if p < tolerance * tolerance {
            [b / 3.0; 3]
        } else {
            let q = 2.0 * b * b * b - 9.0 * b * c - 27.0 * d;
            let delta = (0.5 * q / p.powf(1.5)).clamp(-1.0, 1.0).acos();
            let root = |shift: f64| (b + 2.0 * p.sqrt() * ((delta + shift) / 3.0).cos()) / 3.0;
            [
                root(0.0),
                root(2.0 * std::f64::consts::PI),
                root(-2.0 * std::f64::consts::PI),
            ]
        }
    };
    moments.sort_by(f64::total_cmp);
    moments
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::f64::consts::{FRAC_PI_2, PI};

    #[test]
    fn versions_1_4_to_1_12_are_read() {
        assert_eq!(minor_version("1.7"), Some(7));
        assert_eq!(minor_version("1.12"), Some(12));
        assert_eq!(minor_version("1.3"), None);
        assert_eq!(minor_version("2.0"), None);
    }

    #[test]
    fn roll_pitch_yaw_turn_about_fixed_axes_and_back() {
        let q = rpy([0.0, 0.0, FRAC_PI_2]);
        assert!((q * nalgebra::Vector3::x() - nalgebra::Vector3::y()).norm() < 1e-15);
        let angles = [0.1, -0.2, 0.3];
        let back = rpy_angles(&rpy(angles));
        assert!(back.iter().zip(angles).all(|(a, b)| (a - b).abs() < 1e-15));
    }

    #[test]
    fn a_bound_of_1e16_is_no_bound() {
        assert_eq!(bound(1e16), None);
        assert_eq!(bound(-0.5), Some(-0.5));
    }

    #[test]
    fn thread_pitch_and_pitch_convert_both_ways() {
        assert!((pitch_from_thread_pitch(-4.0 * PI) - 0.5).abs() < 1e-15);
        assert!((thread_pitch_from_pitch(0.5) + 4.0 * PI).abs() < 1e-15);
    }

    #[test]
    fn plain_names_avoid_scopes_and_reserved_names() {
        assert!(is_plain_name("upper_arm"));
        assert!(!is_plain_name("world"));
        assert!(!is_plain_name("__hidden__"));
        assert!(!is_plain_name("a::b"));
    }

    #[test]
    fn a_box_has_its_volume_and_unit_inertia() {
        let box_ = solid(&Geometry::Box {
            size: [1.0, 2.0, 3.0],
        })
        .unwrap();
        assert_eq!(box_.volume, 6.0);
        assert!((box_.unit_inertia[(0, 0)] - 13.0 / 12.0).abs() < 1e-15);
    }

    #[test]
    fn a_cone_has_its_volume_centre_and_unit_inertia() {
        // Held-out round (docs/held-out.md): gz-sim's shapes.sdf cone, radius 0.5 and length
        // 1 at density 1, which Drake reads as 0.2618 kg a quarter of the length below the
        // origin.
        let cone = solid(&Geometry::Cone {
            radius: 0.5,
            length: 1.0,
        })
        .unwrap();
        assert!((cone.volume - 0.2617993877991494).abs() < 1e-15);
        assert_eq!(cone.centroid, nalgebra::Vector3::new(0.0, 0.0, -0.25));
        assert!((cone.unit_inertia[(0, 0)] - (0.15 * 0.25 + 3.0 / 80.0)).abs() < 1e-15);
        assert!((cone.unit_inertia[(2, 2)] - 0.075).abs() < 1e-15);
    }

    #[test]
    fn libsdformat_judges_inertias_near_the_triangle_edge_as_drake_measured() {
        let tensor = |[xx, yy, zz, xy, xz, yz]: [f64; 6]| Matrix3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz);
        // pybullet's cube_no_rotation.urdf: a rod (moments 0, 0.215, 0.215). Drake 1.51.1 loads
        // it as written, and refuses it ("A link named x_prismatic has invalid inertia", then
        // "Failed to load a world") with 1e-9 of the sum added about every axis.
        let rod = [0.2125, 0.205, 0.0125, -0.005, 0.0225, 0.045];
        assert!(libsdformat_accepts_inertia(&tensor(rod)));
        let nudged = [
            0.21250000043000003,
            0.20500000042999997,
            0.012500000430000024,
            -0.005,
            0.0225,
            0.044999999999999984,
        ];
        assert!(!libsdformat_accepts_inertia(&tensor(nudged)));
        // Diagonal tensors: the triangle inequality within ten ε of twice the largest moment.
        assert!(libsdformat_accepts_inertia(&Matrix3::from_diagonal(
            &[1.0, 2.0, 3.0].into()
        )));
        assert!(!libsdformat_accepts_inertia(&Matrix3::from_diagonal(
            &[1.0, 2.0, 3.0 + 1e-12].into()
        )));
        assert!(!libsdformat_accepts_inertia(&Matrix3::from_diagonal(
            &[-1e-9, 1.0, 1.0].into()
        )));
    }
}
