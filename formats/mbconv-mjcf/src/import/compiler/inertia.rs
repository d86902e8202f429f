//! Mass and inertia as MuJoCo's compiler computes them: each primitive geom's volume (or
//! surface, `shellinertia`) and diagonal inertia, a geom's mass from `mass` or `density`, which
//! geoms count for a body (`inertiagrouprange`, tiny masses skipped), how they combine, and
//! the explicit `<inertial>` forms (`diaginertia` or `fullinertia`) with the compiler's
//! `boundmass`, `boundinertia` and `balanceinertia`.
//!
//! Which geoms count: in MuJoCo 4.0 only the geom `group` decides (inside the compiler's
//! `inertiagrouprange`, `0 5` by default); `contype`/`conaffinity` do not, except that the
//! compiler's `discardvisual` removes geoms with both zero before anything is computed.
//! Meshes are weighed by [`super::mesh`].

use crate::spec::arith::{EPS, eig3, global_inertia, offset_inertia};
use std::f64::consts::PI;

/// Geom types of MJCF (`type` attribute; `sphere` is the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GeomType {
    /// Infinite plane (`size`: half extents for drawing, grid spacing).
    Plane,
    /// Height field (sizes come from the `<hfield>` asset).
    Hfield,
    /// Sphere (`size`: radius).
    Sphere,
    /// Capsule along z (`size`: radius, half length of the cylinder part).
    Capsule,
    /// Ellipsoid (`size`: three radii).
    Ellipsoid,
    /// Cylinder along z (`size`: radius, half length).
    Cylinder,
    /// Box (`size`: three half sizes).
    Box,
    /// Triangle mesh (from a `<mesh>` asset).
    Mesh,
    /// Signed distance field (a plugin).
    Sdf,
}

impl GeomType {
    /// Parses the `type` attribute.
    pub(crate) fn parse(text: &str) -> Option<GeomType> {
        Some(match text {
            "plane" => GeomType::Plane,
            "hfield" => GeomType::Hfield,
            "sphere" => GeomType::Sphere,
            "capsule" => GeomType::Capsule,
            "ellipsoid" => GeomType::Ellipsoid,
            "cylinder" => GeomType::Cylinder,
            "box" => GeomType::Box,
            "mesh" => GeomType::Mesh,
            "sdf" => GeomType::Sdf,
            _ => return None,
        })
    }

    /// How many `size` numbers the type needs to be positive (MuJoCo's `mjGEOMINFO`).
    pub(crate) fn size_count(self) -> usize {
        match self {
            GeomType::Plane => 3,
            GeomType::Hfield | GeomType::Mesh | GeomType::Sdf => 0,
            GeomType::Sphere => 1,
            GeomType::Capsule | GeomType::Cylinder => 2,
            GeomType::Ellipsoid | GeomType::Box => 3,
        }
    }
}

/// Whether a geom's mass fills its volume or lies on its surface (`shellinertia`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum InertiaKind {
    /// Solid (the default).
    #[default]
    Volume,
    /// Thin shell (`shellinertia="true"`).
    Shell,
}

/// Volume (or, for a shell, surface area) of a primitive geom of half sizes `size`; `None` for
/// meshes and signed distance fields, `0` for planes.
pub(crate) fn volume(kind: GeomType, size: &[f64; 3], inertia: InertiaKind) -> Option<f64> {
    let shell = inertia == InertiaKind::Shell;
    let [a, b, c] = *size;
    Some(match kind {
        GeomType::Mesh | GeomType::Sdf => return None,
        GeomType::Sphere if shell => 4.0 * PI * a * a,
        GeomType::Sphere => 4.0 * PI * a * a * a / 3.0,
        GeomType::Capsule => {
            let height = 2.0 * b;
            if shell {
                4.0 * PI * a * a + 2.0 * PI * a * height
            } else {
                PI * (a * a * height + 4.0 * a * a * a / 3.0)
            }
        }
        GeomType::Cylinder => {
            let height = 2.0 * b;
            if shell {
                2.0 * PI * a * a + 2.0 * PI * a * height
            } else {
                PI * a * a * height
            }
        }
        GeomType::Ellipsoid if shell => {
            // Thomsen's approximation of the surface, as MuJoCo uses it.
            let p = 1.6075;
            let t = (a * b).powf(p) + (b * c).powf(p) + (c * a).powf(p);
            4.0 * PI * (t / 3.0).powf(1.0 / p)
        }
        GeomType::Ellipsoid => 4.0 * PI * a * b * c / 3.0,
        GeomType::Box | GeomType::Hfield if shell => 8.0 * (a * b + b * c + c * a),
        GeomType::Box | GeomType::Hfield => a * b * c * 8.0,
        GeomType::Plane => 0.0,
    })
}

/// Principal moments of a primitive geom of mass `mass` about its centre, in the geom frame
/// (MuJoCo's formulas, including its split of a capsule into a cylinder and two hemispheres);
/// zeros for planes, meshes and signed distance fields.
// Long: one arm per geom type, MuJoCo's solid and shell formulas side by side.
pub(crate) fn diagonal_inertia(kind: GeomType, size: &[f64; 3], inertia: InertiaKind, mass: f64) -> [f64; 3] {
    let shell = inertia == InertiaKind::Shell;
    let [a, b, c] = *size;
    match kind {
        GeomType::Sphere => {
            let i = if shell {
                2.0 * mass * a * a / 3.0
            } else {
                2.0 * mass * a * a / 5.0
            };
            [i, i, i]
        }
        GeomType::Capsule => {
            let (radius, half, height) = (a, b, 2.0 * b);
            if shell {
                let sphere_area = 4.0 * PI * radius * radius;
                let total = sphere_area + 2.0 * PI * radius * height;
                let sphere_mass = mass * sphere_area / total;
                let cylinder_mass = mass - sphere_mass;
                let mut x = cylinder_mass * (6.0 * radius * radius + height * height) / 12.0;
                let mut z = cylinder_mass * radius * radius;
                let sphere = 2.0 * sphere_mass * radius * radius / 3.0;
                let com = radius / 2.0;
                let at = half + com;
                x += sphere + sphere_mass * (at * at - com * com);
                z += sphere;
                [x, x, z]
            } else {
                let sphere_mass = mass * 4.0 * radius / (4.0 * radius + 3.0 * height);
                let cylinder_mass = mass - sphere_mass;
                let mut x = cylinder_mass * (3.0 * radius * radius + height * height) / 12.0;
                let mut z = cylinder_mass * radius * radius / 2.0;
                let sphere = 2.0 * sphere_mass * radius * radius / 5.0;
                x += sphere + sphere_mass * height * (3.0 * radius + 2.0 * height) / 8.0;
                z += sphere;
                [x, x, z]
            }
        }
        GeomType::Cylinder => {
            let (radius, half, height) = (a, b, 2.0 * b);
            if shell {
                let disk_area = PI * radius * radius;
                let total = 2.0 * disk_area + 2.0 * PI * radius * height;
                let disk_mass = mass * disk_area / total;
                let tube_mass = mass - 2.0 * disk_mass;
                let x = tube_mass * (6.0 * radius * radius + height * height) / 12.0;
                let z = tube_mass * radius * radius;
                let disk_x = disk_mass * radius * radius / 4.0 + disk_mass * half * half;
                let disk_z = disk_mass * radius * radius / 2.0;
                [x + 2.0 * disk_x, x + 2.0 * disk_x, z + 2.0 * disk_z]
            } else {
                let x = mass * (3.0 * radius * radius + height * height) / 12.0;
                [x, x, mass * radius * radius / 2.0]
            }
        }
        GeomType::Ellipsoid => {
            let (s0, s1, s2) = (a * a, b * b, c * c);
            if shell {
                // A thin layer: an ellipsoid grown by 1e-6 minus the solid one.
                let eps = 1e-6;
                let inner = 4.0 * PI * a * b * c / 3.0;
                let (ae, be, ce) = (a + eps, b + eps, c + eps);
                let outer = 4.0 * PI * ae * be * ce / 3.0;
                let density = mass / (outer - inner);
                let (mi, mo) = (inner * density, outer * density);
                [
                    mo * (be * be + ce * ce) / 5.0 - mi * (s1 + s2) / 5.0,
                    mo * (ae * ae + ce * ce) / 5.0 - mi * (s0 + s2) / 5.0,
                    mo * (ae * ae + be * be) / 5.0 - mi * (s0 + s1) / 5.0,
                ]
            } else {
                [
                    mass * (s1 + s2) / 5.0,
                    mass * (s0 + s2) / 5.0,
                    mass * (s0 + s1) / 5.0,
                ]
            }
        }
        GeomType::Box | GeomType::Hfield => {
            let (s0, s1, s2) = (a * a, b * b, c * c);
            if shell {
                let (lx, ly, lz) = (2.0 * a, 2.0 * b, 2.0 * c);
                let (a0, a1, a2) = (lx * ly, ly * lz, lz * lx);
                let total = 2.0 * (a0 + a1 + a2);
                let m0 = mass * a0 / total;
                let (ix0, iy0, iz0) = (
                    m0 * ly * ly / 12.0,
                    m0 * lx * lx / 12.0,
                    m0 * (lx * lx + ly * ly) / 12.0,
                );
                let m1 = mass * a1 / total;
                let (ix1, iy1, iz1) = (
                    m1 * (ly * ly + lz * lz) / 12.0,
                    m1 * lz * lz / 12.0,
                    m1 * ly * ly / 12.0,
                );
                let m2 = mass * a2 / total;
                let (ix2, iy2, iz2) = (
                    m2 * lz * lz / 12.0,
                    m2 * (lx * lx + lz * lz) / 12.0,
                    m2 * lx * lx / 12.0,
                );
                [
                    2.0 * (m0 * s2 + m2 * s1 + ix0 + ix1 + ix2),
                    2.0 * (m0 * s2 + m1 * s0 + iy0 + iy1 + iy2),
                    2.0 * (m1 * s0 + m2 * s1 + iz0 + iz1 + iz2),
                ]
            } else {
                [
                    mass * (s1 + s2) / 3.0,
                    mass * (s0 + s2) / 3.0,
                    mass * (s0 + s1) / 3.0,
                ]
            }
        }
        GeomType::Plane | GeomType::Mesh | GeomType::Sdf => [0.0; 3],
    }
}

/// What a geom contributes to its body: mass, principal moments and the geom frame (in the
/// body frame) they are expressed in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GeomMass {
    /// Mass (kg).
    pub mass: f64,
    /// Principal moments about the geom centre, geom axes.
    pub inertia: [f64; 3],
    /// Geom centre in the body frame.
    pub pos: [f64; 3],
    /// Geom orientation in the body frame.
    pub quat: [f64; 4],
}

/// Why a geom or body mass cannot be computed (MuJoCo's words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MassError {
    /// A negative mass, density or moment.
    #[error("mass, inertia or density are negative in geom")]
    NegativeGeom,
    /// Several geoms whose masses sum to (nearly) nothing.
    #[error("body mass is too small, cannot compute center of mass")]
    TooSmall,
    /// A mass or a principal moment below zero after bounding.
    #[error("mass and inertia cannot be negative")]
    Negative,
    /// Principal moments that break the triangle inequality, without `balanceinertia`.
    #[error("inertia must satisfy A + B >= C; use 'balanceinertia' to fix")]
    Triangle,
    /// A `fullinertia` that is not positive definite.
    #[error("inertia must have positive eigenvalues")]
    NotPositive,
}

/// Mass and moments of a primitive geom: `mass` when given (the density follows from the
/// volume; a geom without volume then weighs nothing), otherwise `density × volume`.
pub(crate) fn geom_mass(
    kind: GeomType,
    size: &[f64; 3],
    inertia: InertiaKind,
    mass: Option<f64>,
    density: f64,
) -> Result<(f64, [f64; 3]), MassError> {
    let vol = volume(kind, size, inertia).unwrap_or(0.0);
    let (m, d, moments) = match mass {
        Some(0.0) => (0.0, 0.0, [0.0; 3]),
        Some(m) if vol > EPS => (m, m / vol, diagonal_inertia(kind, size, inertia, m)),
        Some(_) => (0.0, density, [0.0; 3]),
        None if density == 0.0 => (0.0, 0.0, [0.0; 3]),
        None => {
            let m = density * vol;
            (m, density, diagonal_inertia(kind, size, inertia, m))
        }
    };
    if m < 0.0 || d < 0.0 || moments.iter().any(|&i| i < 0.0) {
        return Err(MassError::NegativeGeom);
    }
    Ok((m, moments))
}

/// Whether a geom of `group` with mass `mass` counts for its body's inertia.
pub(crate) fn counts_for_inertia(group: i64, range: [i64; 2], mass: f64) -> bool {
    group >= range[0] && group <= range[1] && mass > EPS
}

/// A body's mass properties as the compiler leaves them before bounding: the centre of mass
/// and the inertia about it, either principal moments in a rotated frame or a full tensor in
/// body axes (the IR keeps either without the eigen decomposition MuJoCo adds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BodyMass {
    /// Mass (kg).
    pub mass: f64,
    /// Centre of mass in the body frame.
    pub com: [f64; 3],
    /// The inertia about the centre of mass.
    pub inertia: BodyInertia,
}

/// The two forms a body inertia comes in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum BodyInertia {
    /// Principal moments in axes rotated by `quat` from the body frame.
    Principal {
        /// The moments.
        moments: [f64; 3],
        /// The principal axes' orientation in the body frame.
        quat: [f64; 4],
    },
    /// A full tensor in body axes, `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`.
    Full([f64; 6]),
}

/// Combines the geoms that count (see [`counts_for_inertia`]) the way the compiler does: none
/// gives `None` (the body keeps whatever it had), one is copied (its frame becomes the inertial
/// frame), several are summed about their common centre of mass.
pub(crate) fn combine(geoms: &[GeomMass]) -> Result<Option<BodyMass>, MassError> {
    match geoms {
        [] => Ok(None),
        [one] => Ok(Some(BodyMass {
            mass: one.mass,
            com: one.pos,
            inertia: BodyInertia::Principal {
                moments: one.inertia,
                quat: one.quat,
            },
        })),
        several => {
            let mut mass = 0.0;
            let mut sum = [0.0; 3];
            for g in several {
                mass += g.mass;
                for (s, p) in sum.iter_mut().zip(g.pos) {
                    *s += g.mass * p;
                }
            }
            if mass < EPS {
                return Err(MassError::TooSmall);
            }
            let com = [sum[0] / mass, sum[1] / mass, sum[2] / mass];
            let mut total = [0.0; 6];
            for g in several {
                let d = [g.pos[0] - com[0], g.pos[1] - com[1], g.pos[2] - com[2]];
                let own = global_inertia(&g.inertia, &g.quat);
                let shift = offset_inertia(g.mass, &d);
                for ((t, o), s) in total.iter_mut().zip(own).zip(shift) {
                    *t = *t + o + s;
                }
            }
            Ok(Some(BodyMass {
                mass,
                com,
                inertia: BodyInertia::Full(total),
            }))
        }
    }
}

/// The body's inertia in principal axes, as the compiler stores it: a full tensor (several
/// geoms, `fullinertia`) goes through [`eig3`](super::arith::eig3), whose accuracy (about
/// 1e-8 relative) is MuJoCo's.
pub(crate) fn principal(body: BodyMass) -> BodyMass {
    match body.inertia {
        BodyInertia::Full(t) => {
            let (moments, quat) = eig3(&t);
            BodyMass {
                inertia: BodyInertia::Principal { moments, quat },
                ..body
            }
        }
        BodyInertia::Principal { .. } => body,
    }
}

/// Checks a `fullinertia` as the compiler does (its smallest principal moment must reach
/// [`EPS`]).
pub(crate) fn check_full_inertia(tensor: &[f64; 6]) -> Result<(), MassError> {
    let (values, _) = eig3(tensor);
    if values[2] < EPS {
        Err(MassError::NotPositive)
    } else {
        Ok(())
    }
}

/// The compiler's last corrections of a moving body's mass properties: `boundmass` and
/// `boundinertia` as lower bounds (on the principal moments), the negative check, and the
/// triangle inequality, either refused or, with `balanceinertia`, replaced by the mean moment.
/// Returns the corrected properties and whether anything changed.
pub(crate) fn finish(
    body: BodyMass,
    boundmass: f64,
    boundinertia: f64,
    balance: bool,
) -> Result<(BodyMass, bool), MassError> {
    let mut out = body;
    let mut changed = false;
    if out.mass < boundmass {
        out.mass = boundmass;
        changed = true;
    }
    // Principal moments: as stored, or of the full tensor by the compiler's decomposition.
    let (mut moments, quat) = match body.inertia {
        BodyInertia::Principal { moments, quat } => (moments, quat),
        BodyInertia::Full(t) => eig3(&t),
    };
    let original = moments;
    for m in moments.iter_mut() {
        if *m < boundinertia {
            *m = boundinertia;
        }
    }
    if out.mass < 0.0 || moments.iter().any(|&m| m < 0.0) {
        return Err(MassError::Negative);
    }
    let [a, b, c] = moments;
    if a + b < c || a + c < b || b + c < a {
        if !balance {
            return Err(MassError::Triangle);
        }
        let mean = (a + b + c) / 3.0;
        moments = [mean; 3];
    }
    if moments != original {
        changed = true;
        out.inertia = BodyInertia::Principal { moments, quat };
    }
    Ok((out, changed))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const SOLID: InertiaKind = InertiaKind::Volume;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn solid_primitives_against_textbook_formulas() {
        // Sphere r = 0.2, density 1000.
        let (m, i) = geom_mass(GeomType::Sphere, &[0.2, 0.0, 0.0], SOLID, None, 1000.0).unwrap();
        assert!(close(m, 1000.0 * 4.0 / 3.0 * PI * 0.008));
        assert!(close(i[0], 0.4 * m * 0.04));
        // Cylinder r = 0.1, half length 0.3.
        let (m, i) = geom_mass(GeomType::Cylinder, &[0.1, 0.3, 0.0], SOLID, None, 500.0).unwrap();
        assert!(close(m, 500.0 * PI * 0.01 * 0.6));
        assert!(close(i[0], m * (3.0 * 0.01 + 0.36) / 12.0));
        assert!(close(i[2], m * 0.01 / 2.0));
        // Ellipsoid.
        let (m, i) = geom_mass(GeomType::Ellipsoid, &[0.1, 0.2, 0.3], SOLID, None, 1000.0).unwrap();
        assert!(close(m, 1000.0 * 4.0 / 3.0 * PI * 0.006));
        assert!(close(i[0], m * (0.04 + 0.09) / 5.0));
        assert!(close(i[2], m * (0.01 + 0.04) / 5.0));
        // Box: full sides 0.2 0.4 0.6.
        let (m, i) = geom_mass(GeomType::Box, &[0.1, 0.2, 0.3], SOLID, None, 1000.0).unwrap();
        assert!(close(m, 1000.0 * 0.2 * 0.4 * 0.6));
        assert!(close(i[1], m * (0.04 + 0.36) / 12.0));
    }

    #[test]
    fn capsule_is_a_cylinder_and_two_hemispheres() {
        // Independent integration: cylinder plus two hemispheres, each with the parallel-axis
        // shift of its centre of mass (3r/8 from the flat face).
        let (r, h) = (0.1f64, 0.25f64);
        let rho = 1000.0;
        let (m, i) = geom_mass(GeomType::Capsule, &[r, h, 0.0], SOLID, None, rho).unwrap();
        let mc = rho * PI * r * r * 2.0 * h;
        let ms = rho * 4.0 / 3.0 * PI * r * r * r;
        assert!(close(m, mc + ms));
        let cyl_x = mc * (3.0 * r * r + 4.0 * h * h) / 12.0;
        let hemi_own = 2.0 * (ms / 2.0) * r * r / 5.0 - (ms / 2.0) * (3.0 * r / 8.0).powi(2);
        let d = h + 3.0 * r / 8.0;
        let expected_x = cyl_x + 2.0 * (hemi_own + (ms / 2.0) * d * d);
        assert!(close(i[0], expected_x), "{} vs {}", i[0], expected_x);
        assert!(close(i[2], mc * r * r / 2.0 + 2.0 * ms * r * r / 5.0));
    }

    #[test]
    fn shells_against_limits_of_thin_layers() {
        // A thin spherical shell: 2/3 m r².
        let (m, i) = geom_mass(GeomType::Sphere, &[0.5, 0.0, 0.0], InertiaKind::Shell, None, 2.0).unwrap();
        assert!(close(m, 2.0 * 4.0 * PI * 0.25));
        assert!(close(i[0], 2.0 / 3.0 * m * 0.25));
        // Shell ellipsoid of equal radii approaches the sphere shell.
        let (m, i) = geom_mass(GeomType::Ellipsoid, &[0.5; 3], InertiaKind::Shell, Some(1.0), 0.0).unwrap();
        assert_eq!(m, 1.0);
        assert!((i[0] - 2.0 / 3.0 * 0.25).abs() < 1e-5);
        // Shell cube of side 2: six plates of mass m/6, I = 5/18·m·... = m·(5/9)·a²·... check
        // against the sum of plates: 2 faces ⊥ x: (m/6)(a²+a²)/12·... computed directly.
        let (m, i) = geom_mass(GeomType::Box, &[1.0; 3], InertiaKind::Shell, Some(6.0), 0.0).unwrap();
        assert_eq!(m, 6.0);
        // Each plate of mass 1, side 2: about an axis normal to it 2·4/12 = 2/3, in-plane 1/3,
        // plates off-axis at distance 1 add 1 each: 2·(2/3) + 4·(1/3 + 1) = 20/3.
        assert!(close(i[0], 20.0 / 3.0));
        // Shell cylinder and capsule are positive and symmetric about z.
        let (_, i) = geom_mass(
            GeomType::Cylinder,
            &[0.1, 0.2, 0.0],
            InertiaKind::Shell,
            Some(1.0),
            0.0,
        )
        .unwrap();
        assert!(i[0] == i[1] && i[2] > 0.0);
        let (_, i) = geom_mass(
            GeomType::Capsule,
            &[0.1, 0.2, 0.0],
            InertiaKind::Shell,
            Some(1.0),
            0.0,
        )
        .unwrap();
        assert!(i[0] == i[1] && i[2] > 0.0);
    }

    #[test]
    fn mass_attribute_and_zero_volume() {
        let (m, i) = geom_mass(GeomType::Sphere, &[0.5, 0.0, 0.0], SOLID, Some(3.0), 1000.0).unwrap();
        assert_eq!(m, 3.0);
        assert!(close(i[0], 0.4 * 3.0 * 0.25));
        let (m, i) = geom_mass(GeomType::Plane, &[1.0, 1.0, 0.1], SOLID, Some(3.0), 1000.0).unwrap();
        assert_eq!((m, i), (0.0, [0.0; 3]));
        let (m, _) = geom_mass(GeomType::Sphere, &[0.5, 0.0, 0.0], SOLID, None, 0.0).unwrap();
        assert_eq!(m, 0.0);
        assert_eq!(
            geom_mass(GeomType::Sphere, &[0.5, 0.0, 0.0], SOLID, None, -1.0),
            Err(MassError::NegativeGeom)
        );
        assert_eq!(
            geom_mass(GeomType::Sphere, &[0.5, 0.0, 0.0], SOLID, Some(-1.0), 1.0),
            Err(MassError::NegativeGeom)
        );
    }

    #[test]
    fn combining_geoms_uses_the_parallel_axis_theorem() {
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let a = GeomMass {
            mass: 1.0,
            inertia: [1.0, 2.0, 3.0],
            pos: [0.0, 0.0, 1.0],
            quat: [h, 0.0, 0.0, h],
        };
        let b = GeomMass {
            mass: 3.0,
            inertia: [0.5; 3],
            pos: [0.0, 0.0, -1.0],
            quat: [1.0, 0.0, 0.0, 0.0],
        };
        let body = combine(&[a, b]).unwrap().unwrap();
        assert_eq!(body.mass, 4.0);
        assert_eq!(body.com, [0.0, 0.0, -0.5]);
        let BodyInertia::Full(t) = body.inertia else {
            panic!("several geoms give a full tensor")
        };
        // x: a rotated has Ixx = 2, plus 1·1.5²; b: 0.5 + 3·0.5².
        assert!(close(t[0], 2.0 + 2.25 + 0.5 + 0.75));
        assert!(close(t[1], 1.0 + 2.25 + 0.5 + 0.75));
        assert!(close(t[2], 3.0 + 0.5));
        // A single geom is copied with its frame.
        let one = combine(&[a]).unwrap().unwrap();
        assert_eq!(
            one.inertia,
            BodyInertia::Principal {
                moments: a.inertia,
                quat: a.quat
            }
        );
        assert_eq!(combine(&[]).unwrap(), None);
    }

    #[test]
    fn bounds_and_balance() {
        let thin = BodyMass {
            mass: 1.0,
            com: [0.0; 3],
            inertia: BodyInertia::Principal {
                moments: [1.0, 1.0, 5.0],
                quat: [1.0, 0.0, 0.0, 0.0],
            },
        };
        assert_eq!(finish(thin, 0.0, 0.0, false), Err(MassError::Triangle));
        let (fixed, changed) = finish(thin, 0.0, 0.0, true).unwrap();
        assert!(changed);
        assert_eq!(
            fixed.inertia,
            BodyInertia::Principal {
                moments: [7.0 / 3.0; 3],
                quat: [1.0, 0.0, 0.0, 0.0]
            }
        );
        let (same, changed) = finish(
            BodyMass {
                inertia: BodyInertia::Full([2.0, 2.0, 2.0, 0.1, 0.0, 0.0]),
                ..thin
            },
            0.5,
            0.0,
            false,
        )
        .unwrap();
        assert!(!changed);
        assert_eq!(same.inertia, BodyInertia::Full([2.0, 2.0, 2.0, 0.1, 0.0, 0.0]));
        // A full tensor raised to a bound becomes principal moments in its principal axes.
        let (raised, _) = finish(
            BodyMass {
                inertia: BodyInertia::Full([1.0, 1.0, 1e-9, 0.0, 0.0, 0.0]),
                ..thin
            },
            0.0,
            0.01,
            false,
        )
        .unwrap();
        let BodyInertia::Principal { moments, .. } = raised.inertia else {
            panic!("a bounded tensor is given in principal axes")
        };
        assert_eq!(moments, [1.0, 1.0, 0.01]);
        let p = principal(BodyMass {
            inertia: BodyInertia::Full([1.0, 3.0, 2.0, 0.0, 0.0, 0.0]),
            ..thin
        });
        assert!(matches!(
            p.inertia,
            BodyInertia::Principal {
                moments: [3.0, 2.0, 1.0],
                ..
            }
        ));
        assert_eq!(
            check_full_inertia(&[1.0, 1.0, 1.0, 1.0, 0.0, 0.0]),
            Err(MassError::NotPositive)
        );
    }

    #[test]
    fn example_geom_type_parse() {
        assert_eq!(GeomType::parse("capsule"), Some(GeomType::Capsule));
        assert_eq!(GeomType::parse("cone"), None);
    }

    #[test]
    fn example_volume() {
        assert_eq!(
            volume(GeomType::Box, &[1.0, 1.0, 0.5], InertiaKind::Volume),
            Some(4.0)
        );
    }

    #[test]
    fn example_diagonal_inertia() {
        assert_eq!(
            diagonal_inertia(GeomType::Sphere, &[0.5, 0.0, 0.0], InertiaKind::Volume, 10.0),
            [1.0; 3]
        );
    }

    #[test]
    fn example_geom_mass() {
        let (mass, moments) =
            geom_mass(GeomType::Box, &[0.5, 0.5, 0.5], InertiaKind::Volume, None, 1000.0).unwrap();
        assert_eq!(mass, 1000.0);
        assert_eq!(moments[0], 1000.0 * 0.5 / 3.0);
    }

    #[test]
    fn example_counts_for_inertia() {
        assert!(counts_for_inertia(3, [0, 5], 1.0));
        assert!(!counts_for_inertia(3, [0, 2], 1.0));
        assert!(!counts_for_inertia(0, [0, 5], 0.0));
    }

    #[test]
    fn example_combine() {
        let g = |x: f64| GeomMass {
            mass: 1.0,
            inertia: [1.0; 3],
            pos: [x, 0.0, 0.0],
            quat: [1.0, 0.0, 0.0, 0.0],
        };
        let body = combine(&[g(-1.0), g(1.0)]).unwrap().unwrap();
        assert_eq!(body.mass, 2.0);
        assert_eq!(body.com, [0.0; 3]);
        assert_eq!(body.inertia, BodyInertia::Full([2.0, 4.0, 4.0, -0.0, -0.0, -0.0]));
    }

    #[test]
    fn example_principal() {
        let body = BodyMass {
            mass: 1.0,
            com: [0.0; 3],
            inertia: BodyInertia::Full([1.0, 2.0, 3.0, 0.0, 0.0, 0.0]),
        };
        assert!(matches!(
            principal(body).inertia,
            BodyInertia::Principal {
                moments: [3.0, 2.0, 1.0],
                ..
            }
        ));
    }

    #[test]
    fn example_check_full_inertia() {
        assert!(check_full_inertia(&[1.0, 1.0, 1.0, 0.0, 0.0, 0.0]).is_ok());
        assert!(check_full_inertia(&[1.0, 1.0, 0.0, 0.0, 0.0, 0.0]).is_err());
    }

    #[test]
    fn example_finish() {
        let body = BodyMass {
            mass: 0.0,
            com: [0.0; 3],
            inertia: BodyInertia::Principal {
                moments: [0.0; 3],
                quat: [1.0, 0.0, 0.0, 0.0],
            },
        };
        let (fixed, changed) = finish(body, 0.1, 0.01, false).unwrap();
        assert!(changed);
        assert_eq!(fixed.mass, 0.1);
    }
}
