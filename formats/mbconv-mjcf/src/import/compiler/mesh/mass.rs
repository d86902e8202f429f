//! A mesh's volume (or area), centre and inertia as MuJoCo 4.0's compiler computes them
//! (`mjCMesh::Process`): the user transformations (`refpos`, `refquat`, `scale`), the
//! area-weighted centroid of the faces as apex of one tetrahedron (or, for a shell, one
//! triangle) a face, the products of inertia about the centre of mass, MuJoCo's
//! eigen-decomposition for the principal axes, and the equivalent inertia box a geom's inertia
//! is taken from. Each `<mesh inertia>` mode: `legacy` (the default: every tetrahedron counted
//! positive), `exact` (signed, the faces must be consistently oriented), `convex` (the
//! tetrahedra of the convex hull) and `shell` (mass on the surface).

use super::hull::{HullError, hull};
use crate::spec::arith::{MINVAL, eig3, normalize, quat_to_mat};

/// `<mesh inertia=...>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum MeshInertia {
    /// Volume of the convex hull.
    Convex,
    /// Signed volume of the mesh (closed, consistently oriented).
    Exact,
    /// Every tetrahedron counted positive (MuJoCo's default).
    #[default]
    Legacy,
    /// Mass on the surface.
    Shell,
}

impl MeshInertia {
    /// Parses the attribute.
    pub(crate) fn parse(word: &str) -> Option<MeshInertia> {
        Some(match word {
            "convex" => MeshInertia::Convex,
            "exact" => MeshInertia::Exact,
            "legacy" => MeshInertia::Legacy,
            "shell" => MeshInertia::Shell,
            _ => return None,
        })
    }
}

/// The mesh asset's own transformation of its vertices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MeshTransform {
    /// `scale`.
    pub scale: [f64; 3],
    /// `refpos`: subtracted from every vertex first.
    pub refpos: [f64; 3],
    /// `refquat`: the vertices are then turned by its inverse.
    pub refquat: [f64; 4],
}

impl Default for MeshTransform {
    fn default() -> Self {
        MeshTransform {
            scale: [1.0; 3],
            refpos: [0.0; 3],
            refquat: [1.0, 0.0, 0.0, 0.0],
        }
    }
}

/// What the compiler keeps of a mesh for mass and placement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MeshMass {
    /// Volume (area for a shell) a geom's density multiplies.
    pub volume: f64,
    /// Centre of mass in the mesh's (transformed) coordinates: where the compiler moves the
    /// mesh's origin.
    pub pos: [f64; 3],
    /// Principal axes in the mesh's coordinates.
    pub quat: [f64; 4],
    /// Half sizes of the box of uniform density with the same inertia per unit volume.
    pub boxsz: [f64; 3],
    /// Bounds of the vertices in the principal frame: min x, y, z, max x, y, z.
    pub aamm: [f64; 6],
}

impl MeshMass {
    /// Principal moments of a geom of mass `mass` made of this mesh (MuJoCo's geom inertia
    /// from the equivalent box).
    pub(crate) fn moments(&self, mass: f64) -> [f64; 3] {
        let b = self.boxsz;
        [
            mass * (b[1] * b[1] + b[2] * b[2]) / 3.0,
            mass * (b[0] * b[0] + b[2] * b[2]) / 3.0,
            mass * (b[0] * b[0] + b[1] * b[1]) / 3.0,
        ]
    }
}

/// Why the compiler refuses a mesh (MuJoCo's messages, without the mesh name).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MeshError {
    /// A face names a vertex that does not exist.
    BadIndex {
        /// The face (0-based).
        face: usize,
        /// The index it gives.
        index: i64,
    },
    /// A vertex coordinate is not finite.
    NotFinite(usize),
    /// No convex hull (vertices only, or `convex` inertia).
    Hull(HullError),
    /// Inconsistently oriented faces with `exact` inertia (1-based vertex numbers).
    Orientation(usize, usize),
    /// Too small a surface.
    SmallArea,
    /// Negative volume.
    NegativeVolume,
    /// Too small a volume.
    SmallVolume,
    /// Non-positive principal moment.
    NotPositive,
    /// The principal moments violate the triangle inequality.
    Triangle,
}

impl std::fmt::Display for MeshError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MeshError::BadIndex { face, index } => {
                write!(f, "in face {face}, vertex index {index} does not exist")
            }
            MeshError::NotFinite(i) => write!(f, "vertex coordinate {i} is not finite"),
            MeshError::Hull(e) => write!(f, "{e}"),
            MeshError::Orientation(a, b) => write!(
                f,
                "faces have inconsistent orientation. Please check the faces containing the vertices {a} and {b}"
            ),
            MeshError::SmallArea => f.write_str("mesh surface area is too small"),
            MeshError::NegativeVolume => f.write_str("mesh volume is negative (misoriented triangles)"),
            MeshError::SmallVolume => f.write_str("mesh volume is too small. Try setting inertia to shell"),
            MeshError::NotPositive => f.write_str("eigenvalue of mesh inertia must be positive"),
            MeshError::Triangle => f.write_str("eigenvalues of mesh inertia violate A + B >= C"),
        }
    }
}

fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Area, unit normal and centre of a triangle (MuJoCo's: tiny triangles have area 0 and a
/// zero normal).
fn triangle(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> (f64, [f64; 3], [f64; 3]) {
    let center = [
        (a[0] + b[0] + c[0]) / 3.0,
        (a[1] + b[1] + c[1]) / 3.0,
        (a[2] + b[2] + c[2]) / 3.0,
    ];
    let e1 = sub(b, a);
    let e2 = sub(c, a);
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let len = dot(&n, &n).sqrt();
    if len < MINVAL {
        return (0.0, [0.0; 3], center);
    }
    (0.5 * len, [n[0] / len, n[1] / len, n[2] / len], center)
}

/// Computes what the compiler keeps of a mesh of single-precision `vertices` and `faces`
/// (empty: the convex hull's), step by step as `user_mesh.cc` does.
pub(crate) fn process(
    vertices: &[[f32; 3]],
    faces: &[[i64; 3]],
    transform: MeshTransform,
    mode: MeshInertia,
) -> Result<MeshMass, MeshError> {
    let (mut dvert, mut face) = checked(vertices, faces)?;
    check_orientation(&dvert, &face, mode)?;
    // The hull, on the vertices before the user transformations.
    let hull_faces = if face.is_empty() || mode == MeshInertia::Convex {
        Some(hull(&dvert).map_err(MeshError::Hull)?)
    } else {
        None
    };
    if face.is_empty() {
        face = hull_faces.clone().unwrap_or_default();
    }
    let s = transform.scale;
    if s[0] * s[1] * s[2] <= 0.0 {
        for f in &mut face {
            f.swap(1, 2);
        }
    }
    transform_vertices(&mut dvert, transform);
    let facecen = face_centroid(&dvert, &face)?;
    let volume_faces: &[[usize; 3]] = match (&hull_faces, mode) {
        (Some(h), MeshInertia::Convex) => h,
        _ => &face,
    };
    let used = if mode == MeshInertia::Shell {
        &face[..]
    } else {
        volume_faces
    };
    let com = centre_of_mass(&dvert, used, facecen, mode)?;
    // Products of inertia about the centre of mass; the volume again, about it.
    let centered: Vec<[f64; 3]> = dvert.iter().map(|v| sub(v, &com)).collect();
    let (inertia, volume) = inertia_about_com(&centered, used, mode);
    let (eig, quat) = eig3(&inertia);
    if eig[2] <= 0.0 {
        return Err(MeshError::NotPositive);
    }
    let (atol, rtol) = (1e-9, 1e-6);
    let [a, b, c] = eig;
    if a + b < c * (1.0 - rtol) - atol || a + c < b * (1.0 - rtol) - atol || b + c < a * (1.0 - rtol) - atol {
        return Err(MeshError::Triangle);
    }
    let boxsz = [
        0.5 * (6.0 * (b + c - a) / volume).sqrt(),
        0.5 * (6.0 * (a + c - b) / volume).sqrt(),
        0.5 * (6.0 * (a + b - c) / volume).sqrt(),
    ];
    Ok(MeshMass {
        volume,
        pos: com,
        quat,
        boxsz,
        aamm: bounds(&centered, &quat),
    })
}

/// The vertices in double precision (each finite) and the faces' indices (each in range);
/// at least four vertices.
#[allow(clippy::type_complexity)]
fn checked(vertices: &[[f32; 3]], faces: &[[i64; 3]]) -> Result<(Vec<[f64; 3]>, Vec<[usize; 3]>), MeshError> {
    let mut dvert: Vec<[f64; 3]> = Vec::with_capacity(vertices.len());
    for (i, v) in vertices.iter().enumerate() {
        if v.iter().any(|x| !x.is_finite()) {
            return Err(MeshError::NotFinite(i));
        }
        dvert.push(v.map(f64::from));
    }
    if dvert.len() < 4 {
        return Err(MeshError::Hull(HullError::TooFew));
    }
    let mut face: Vec<[usize; 3]> = Vec::with_capacity(faces.len());
    for (i, f) in faces.iter().enumerate() {
        let mut out = [0usize; 3];
        for (o, &index) in out.iter_mut().zip(f) {
            if index < 0 || index as usize >= dvert.len() {
                return Err(MeshError::BadIndex { face: i, index });
            }
            *o = index as usize;
        }
        face.push(out);
    }
    Ok((dvert, face))
}

/// The orientation check on the faces as given: a half-edge used twice (only `exact` refuses).
fn check_orientation(dvert: &[[f64; 3]], face: &[[usize; 3]], mode: MeshInertia) -> Result<(), MeshError> {
    if !face.is_empty() {
        let mut half: Vec<(usize, usize)> = Vec::new();
        for f in face {
            let (area, _, _) = triangle(&dvert[f[0]], &dvert[f[1]], &dvert[f[2]]);
            if area > MINVAL.sqrt() {
                half.extend([(f[0], f[1]), (f[1], f[2]), (f[2], f[0])]);
            }
        }
        half.sort();
        if let Some(w) = half.windows(2).find(|w| w[0] == w[1])
            && mode == MeshInertia::Exact
        {
            return Err(MeshError::Orientation(w[0].0 + 1, w[0].1 + 1));
        }
    }
    Ok(())
}

/// `refpos`, `refquat` and `scale` applied to the vertices.
fn transform_vertices(dvert: &mut [[f64; 3]], transform: MeshTransform) {
    let s = transform.scale;
    let mut refquat = transform.refquat;
    let turn = refquat != [1.0, 0.0, 0.0, 0.0];
    normalize(&mut refquat);
    let mat = quat_to_mat(&refquat);
    for v in dvert.iter_mut() {
        if transform.refpos != [0.0; 3] {
            *v = sub(v, &transform.refpos);
        }
        if turn {
            // mulvecmatT: the transposed matrix, the inverse rotation.
            let x = *v;
            *v = [
                mat[0] * x[0] + mat[3] * x[1] + mat[6] * x[2],
                mat[1] * x[0] + mat[4] * x[1] + mat[7] * x[2],
                mat[2] * x[0] + mat[5] * x[1] + mat[8] * x[2],
            ];
        }
        if s != [1.0; 3] {
            *v = [v[0] * s[0], v[1] * s[1], v[2] * s[2]];
        }
    }
}

/// The area-weighted centroid of the faces.
fn face_centroid(dvert: &[[f64; 3]], face: &[[usize; 3]]) -> Result<[f64; 3], MeshError> {
    let mut facecen = [0.0; 3];
    let mut total_area = 0.0;
    for f in face {
        let (area, _, c) = triangle(&dvert[f[0]], &dvert[f[1]], &dvert[f[2]]);
        for k in 0..3 {
            facecen[k] += area * c[k];
        }
        total_area += area;
    }
    if total_area < MINVAL {
        return Err(MeshError::SmallArea);
    }
    for x in &mut facecen {
        *x /= total_area;
    }
    Ok(facecen)
}

/// The centre of mass: tetrahedra (or, for a shell, triangles) with the centroid as apex.
fn centre_of_mass(
    dvert: &[[f64; 3]],
    used: &[[usize; 3]],
    facecen: [f64; 3],
    mode: MeshInertia,
) -> Result<[f64; 3], MeshError> {
    let mut com = [0.0; 3];
    let mut total = 0.0;
    for f in used {
        let (area, normal, c) = triangle(&dvert[f[0]], &dvert[f[1]], &dvert[f[2]]);
        let weight = if mode == MeshInertia::Shell {
            area
        } else {
            let mut v = dot(&sub(&c, &facecen), &normal) * area / 3.0;
            if mode == MeshInertia::Legacy {
                v = v.abs();
            }
            v
        };
        total += weight;
        for k in 0..3 {
            com[k] += weight * (c[k] * 3.0 / 4.0 + facecen[k] / 4.0);
        }
    }
    if total >= MINVAL {
        for x in &mut com {
            *x /= total;
        }
    }
    if mode == MeshInertia::Shell {
        if total < MINVAL {
            return Err(MeshError::SmallArea);
        }
    } else if total < MINVAL {
        return Err(if total < 0.0 {
            MeshError::NegativeVolume
        } else {
            MeshError::SmallVolume
        });
    }
    Ok(com)
}

/// The inertia tensor about the centre of mass (`[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`, unit
/// density) of the `centered` vertices, and the volume (or area) about it.
fn inertia_about_com(centered: &[[f64; 3]], used: &[[usize; 3]], mode: MeshInertia) -> ([f64; 6], f64) {
    let pairs = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)];
    let mut p = [0.0; 6];
    let mut volume = 0.0;
    let divisor = if mode == MeshInertia::Shell { 12.0 } else { 20.0 };
    for f in used {
        let (d, e, g) = (&centered[f[0]], &centered[f[1]], &centered[f[2]]);
        let (area, normal, c) = triangle(d, e, g);
        let mut v = if mode == MeshInertia::Shell {
            area
        } else {
            dot(&c, &normal) * area / 3.0
        };
        if mode == MeshInertia::Legacy {
            v = v.abs();
        }
        volume += v;
        for (j, &(a, b)) in pairs.iter().enumerate() {
            p[j] += v / divisor
                * (2.0 * (d[a] * d[b] + e[a] * e[b] + g[a] * g[b])
                    + d[a] * e[b]
                    + d[b] * e[a]
                    + d[a] * g[b]
                    + d[b] * g[a]
                    + e[a] * g[b]
                    + e[b] * g[a]);
        }
    }
    let inertia = [p[1] + p[2], p[0] + p[2], p[0] + p[1], -p[3], -p[4], -p[5]];
    (inertia, volume)
}

/// The bounds of the `centered` vertices in the principal frame `quat`: `R^T (v - com)`, as
/// `[min x, min y, min z, max x, max y, max z]`.
fn bounds(centered: &[[f64; 3]], quat: &[f64; 4]) -> [f64; 6] {
    let r = quat_to_mat(quat);
    let mut aamm: [f64; 6] = [1e10, 1e10, 1e10, -1e10, -1e10, -1e10];
    for v in centered {
        let x = [
            r[0] * v[0] + r[3] * v[1] + r[6] * v[2],
            r[1] * v[0] + r[4] * v[1] + r[7] * v[2],
            r[2] * v[0] + r[5] * v[1] + r[8] * v[2],
        ];
        for k in 0..3 {
            aamm[k] = aamm[k].min(x[k]);
            aamm[k + 3] = aamm[k + 3].max(x[k]);
        }
    }
    aamm
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::import::compiler::inertia::{GeomType, InertiaKind, geom_mass};

    /// A box of half sizes `h` centred at `c`, as 12 outward triangles.
    fn cuboid(h: [f32; 3], c: [f32; 3]) -> (Vec<[f32; 3]>, Vec<[i64; 3]>) {
        let mesh = mbconv_mesh::TriangleMesh::cuboid(h.map(f64::from));
        let v = mesh
            .vertices
            .iter()
            .map(|p| std::array::from_fn(|k| c[k] + p[k] as f32))
            .collect();
        let f = mesh.faces.iter().map(|t| t.map(|i| i as i64)).collect();
        (v, f)
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-300)
    }

    #[test]
    fn a_box_mesh_weighs_what_the_box_primitive_weighs() {
        let (v, f) = cuboid([0.1, 0.2, 0.3], [1.0, -2.0, 0.5]);
        for mode in [MeshInertia::Legacy, MeshInertia::Exact, MeshInertia::Convex] {
            let m = process(&v, &f, MeshTransform::default(), mode).unwrap();
            let (mass, moments) =
                geom_mass(GeomType::Box, &[0.1, 0.2, 0.3], InertiaKind::Volume, None, 1000.0).unwrap();
            assert!(close(m.volume * 1000.0, mass, 1e-6), "{mode:?} {}", m.volume);
            assert!(close(m.pos[0], 1.0, 1e-7) && close(m.pos[1], -2.0, 1e-7));
            let mut ours = m.moments(mass);
            ours.sort_by(f64::total_cmp);
            let mut theirs = moments;
            theirs.sort_by(f64::total_cmp);
            for (a, b) in ours.iter().zip(theirs) {
                assert!(close(*a, b, 1e-6), "{mode:?}: {ours:?} vs {theirs:?}");
            }
        }
        // The hull of the corners alone gives the same.
        let hull_only = process(&v, &[], MeshTransform::default(), MeshInertia::Legacy).unwrap();
        let full = process(&v, &f, MeshTransform::default(), MeshInertia::Legacy).unwrap();
        assert!(close(hull_only.volume, full.volume, 1e-12));
    }

    #[test]
    fn scale_refpos_and_shell() {
        let (v, f) = cuboid([1.0, 1.0, 1.0], [0.0; 3]);
        let t = MeshTransform {
            scale: [0.5, 1.0, 2.0],
            refpos: [1.0, 0.0, 0.0],
            refquat: [1.0, 0.0, 0.0, 0.0],
        };
        let m = process(&v, &f, t, MeshInertia::Legacy).unwrap();
        assert!(close(m.volume, 8.0, 1e-12));
        assert!(close(m.pos[0], -0.5, 1e-12));
        // A shell cube of side 2: area 24, the box-equivalent moments of six plates.
        let s = process(&v, &f, MeshTransform::default(), MeshInertia::Shell).unwrap();
        assert!(close(s.volume, 24.0, 1e-12));
        let i = s.moments(6.0);
        assert!(close(i[0], 20.0 / 3.0, 1e-9), "{i:?}");
    }

    #[test]
    fn a_tetrahedron_and_the_refusals() {
        let v = vec![
            [0.0f32, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let f = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
        let m = process(&v, &f, MeshTransform::default(), MeshInertia::Exact).unwrap();
        assert!(close(m.volume, 1.0 / 6.0, 1e-12));
        assert!(close(m.pos[0], 0.25, 1e-12));
        // One face turned: exact refuses, legacy counts it positive.
        let mut bad = f.clone();
        bad[3] = [1, 3, 2];
        assert!(matches!(
            process(&v, &bad, MeshTransform::default(), MeshInertia::Exact),
            Err(MeshError::Orientation(..))
        ));
        assert!(process(&v, &bad, MeshTransform::default(), MeshInertia::Legacy).is_ok());
        // Inside out: exact finds a negative volume.
        let inverted: Vec<[i64; 3]> = f.iter().map(|t| [t[0], t[2], t[1]]).collect();
        assert_eq!(
            process(&v, &inverted, MeshTransform::default(), MeshInertia::Exact),
            Err(MeshError::NegativeVolume)
        );
        assert!(matches!(
            process(&v, &[[0, 1, 7]], MeshTransform::default(), MeshInertia::Legacy),
            Err(MeshError::BadIndex { face: 0, index: 7 })
        ));
        let flat = vec![
            [0.0f32, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
        ];
        assert_eq!(
            process(&flat, &[], MeshTransform::default(), MeshInertia::Legacy),
            Err(MeshError::Hull(HullError::Coplanar))
        );
    }

    #[test]
    fn example_mesh_inertia_parse() {
        assert_eq!(MeshInertia::parse("shell"), Some(MeshInertia::Shell));
    }

    #[test]
    fn example_mesh_mass_moments() {
        let m = MeshMass {
            volume: 8.0,
            pos: [0.0; 3],
            quat: [1.0, 0.0, 0.0, 0.0],
            boxsz: [1.0; 3],
            aamm: [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0],
        };
        assert_eq!(m.moments(3.0), [2.0; 3]);
    }

    #[test]
    fn example_process() {
        // A unit cube given by its corners only: the faces come from the hull.
        let v: Vec<[f32; 3]> = (0..8)
            .map(|i| [(i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32])
            .collect();
        let m = process(&v, &[], MeshTransform::default(), MeshInertia::Legacy).unwrap();
        assert!((m.volume - 1.0).abs() < 1e-12);
        assert!((m.pos[0] - 0.5).abs() < 1e-12);
    }
}
