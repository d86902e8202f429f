//! Mesh files as one shared layer: this crate reads STL (binary and ASCII), Wavefront OBJ,
//! COLLADA (`.dae`), glTF (`.gltf`, `.glb`) and PLY into one triangle mesh ([`TriangleMesh`],
//! vertices in double precision, faces as vertex indices), and computes what the rest of mbconv
//! needs of a mesh: its axis-aligned extents ([`Aabb`]), a bounding sphere ([`Sphere`]), the
//! volume, centre of volume and inertia of the solid it encloses and of its surface as a shell
//! ([`MassProperties`]), and its convex hull ([`convex_hull`]); it writes a mesh back as binary
//! STL or OBJ ([`TriangleMesh::to_binary_stl`], [`TriangleMesh::to_obj`]) for writers whose
//! target reads only those. It reads through maintained crates
//! (`stl_io`, `tobj`, `gltf`, `ply-rs-bw`, and `roxmltree` under the small COLLADA reader of
//! [`dae`]) and takes hulls from `parry3d-f64`; `docs/meshes.md` says why each.
//!
//! It is not a simulator's mesh compiler: MuJoCo's rules for `inertiafromgeom` (its binary-only
//! STL decoder, its first OBJ object, its face-centroid tetrahedra and equivalent inertia box)
//! stay in the MJCF crate, which reads files and takes hulls through this one. Nor is it a
//! renderer: materials, normals, texture coordinates and animations are not read. It knows no
//! model format and depends on no other mbconv crate.
//!
//! ```
//! let mesh = mbconv_mesh::TriangleMesh::cuboid([0.5, 0.5, 0.5]);
//! let solid = mesh.solid();
//! assert!((solid.volume - 1.0).abs() < 1e-12);
//! assert_eq!(mesh.aabb().unwrap().max, [0.5; 3]);
//! ```

pub mod dae;
mod error;
mod gltf_file;
mod hull;
pub mod obj;
mod ply;
mod properties;
pub mod stl;
mod write;

pub use error::MeshError;
pub use hull::{HullError, convex_hull};
pub use properties::{Aabb, MassProperties, Sphere};
pub use write::MUJOCO_STL_MAX_TRIANGLES;

use std::path::Path;

/// A mesh as triangles: vertex positions and faces as indices into them, counter-clockwise
/// seen from outside where the file orients its faces so.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TriangleMesh {
    /// Vertex positions, in the file's units and coordinates (after the file's own node
    /// transforms for COLLADA and glTF).
    pub vertices: Vec<[f64; 3]>,
    /// Triangles as indices into `vertices` (each index in range: the readers check).
    pub faces: Vec<[usize; 3]>,
}

impl TriangleMesh {
    /// The 12 outward triangles of an axis-aligned box of half sizes `half` centred at the
    /// origin.
    ///
    /// ```
    /// let cube = mbconv_mesh::TriangleMesh::cuboid([1.0, 2.0, 3.0]);
    /// assert_eq!((cube.vertices.len(), cube.faces.len()), (8, 12));
    /// ```
    pub fn cuboid(half: [f64; 3]) -> TriangleMesh {
        // Corner i has the sign of bit k of i along axis k.
        let vertices: Vec<[f64; 3]> = (0..8)
            .map(|i| std::array::from_fn(|k| if i >> k & 1 == 1 { half[k] } else { -half[k] }))
            .collect();
        let mut faces = Vec::new();
        // The six sides, counter-clockwise seen from outside: -z, +z, -y, +y, -x, +x.
        for side in [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ] {
            triangulate(&side, &vertices, &mut faces);
        }
        TriangleMesh { vertices, faces }
    }

    /// This mesh and `other` as one (vertices appended, `other`'s faces renumbered).
    ///
    /// ```
    /// let mut a = mbconv_mesh::TriangleMesh::cuboid([1.0; 3]);
    /// a.append(&mbconv_mesh::TriangleMesh::cuboid([2.0; 3]));
    /// assert_eq!((a.vertices.len(), a.faces[12]), (16, [8, 10, 11]));
    /// ```
    pub fn append(&mut self, other: &TriangleMesh) {
        let offset = self.vertices.len();
        self.vertices.extend_from_slice(&other.vertices);
        self.faces
            .extend(other.faces.iter().map(|f| f.map(|i| i + offset)));
    }

    /// The mesh with every vertex scaled by `scale` along the axes and then moved by
    /// `translation`; a left-handed scale (negative product) reverses the faces' winding so
    /// they stay outward.
    ///
    /// ```
    /// let moved = mbconv_mesh::TriangleMesh::cuboid([1.0; 3]).scaled([2.0, 1.0, 1.0], [0.0, 0.0, 5.0]);
    /// assert_eq!(moved.aabb().unwrap().min, [-2.0, -1.0, 4.0]);
    /// ```
    pub fn scaled(&self, scale: [f64; 3], translation: [f64; 3]) -> TriangleMesh {
        let vertices = self
            .vertices
            .iter()
            .map(|v| std::array::from_fn(|k| v[k] * scale[k] + translation[k]))
            .collect();
        let flip = scale[0] * scale[1] * scale[2] < 0.0;
        let faces = self
            .faces
            .iter()
            .map(|f| if flip { [f[0], f[2], f[1]] } else { *f })
            .collect();
        TriangleMesh { vertices, faces }
    }
}

/// The mesh file formats this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MeshFormat {
    /// STL, binary or ASCII (`.stl`).
    Stl,
    /// Wavefront OBJ (`.obj`).
    Obj,
    /// COLLADA (`.dae`).
    Collada,
    /// glTF 2.0, as JSON (`.gltf`) or binary (`.glb`).
    Gltf,
    /// PLY, ASCII or binary (`.ply`).
    Ply,
}

impl MeshFormat {
    /// The format a file name's extension says (any letter case), `None` for others.
    ///
    /// ```
    /// use mbconv_mesh::MeshFormat;
    /// assert_eq!(MeshFormat::of_path("meshes/base_link.STL".as_ref()), Some(MeshFormat::Stl));
    /// assert_eq!(MeshFormat::of_path("part.wrl".as_ref()), None);
    /// ```
    pub fn of_path(path: &Path) -> Option<MeshFormat> {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        Some(match ext.as_str() {
            "stl" => MeshFormat::Stl,
            "obj" => MeshFormat::Obj,
            "dae" => MeshFormat::Collada,
            "gltf" | "glb" => MeshFormat::Gltf,
            "ply" => MeshFormat::Ply,
            _ => return None,
        })
    }

    /// The format's usual name.
    pub fn name(self) -> &'static str {
        match self {
            MeshFormat::Stl => "STL",
            MeshFormat::Obj => "OBJ",
            MeshFormat::Collada => "COLLADA",
            MeshFormat::Gltf => "glTF",
            MeshFormat::Ply => "PLY",
        }
    }
}

impl std::fmt::Display for MeshFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads the mesh file at `path`, its format taken from the extension; every object of the
/// file is kept (for OBJ, every object and group).
///
/// ```
/// let err = mbconv_mesh::read("/nonexistent/part.stl".as_ref()).unwrap_err();
/// assert!(err.to_string().contains("/nonexistent/part.stl"));
/// ```
pub fn read(path: &Path) -> Result<TriangleMesh, MeshError> {
    let format = MeshFormat::of_path(path).ok_or_else(|| MeshError::UnknownFormat {
        path: path.to_path_buf(),
    })?;
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode(&bytes, format, path)
}

/// Decodes `bytes` of a file in `format`; `path` names the file in errors and is where a
/// glTF file's external buffers are looked for (beside it).
///
/// ```
/// use mbconv_mesh::{MeshFormat, decode};
/// let obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
/// let mesh = decode(obj, MeshFormat::Obj, "tri.obj".as_ref()).unwrap();
/// assert_eq!(mesh.faces, [[0, 1, 2]]);
/// ```
pub fn decode(bytes: &[u8], format: MeshFormat, path: &Path) -> Result<TriangleMesh, MeshError> {
    let mesh = match format {
        MeshFormat::Stl => stl::decode(bytes),
        MeshFormat::Obj => obj::objects(bytes).map(|objects| {
            let mut all = TriangleMesh::default();
            for o in &objects {
                all.append(o);
            }
            all
        }),
        MeshFormat::Collada => dae::decode(bytes),
        MeshFormat::Gltf => gltf_file::decode(bytes, path.parent()),
        MeshFormat::Ply => ply::decode(bytes),
    }
    .map_err(|reason| MeshError::Decode {
        path: path.to_path_buf(),
        format,
        reason,
    })?;
    check_indices(&mesh).map_err(|reason| MeshError::Decode {
        path: path.to_path_buf(),
        format,
        reason,
    })?;
    Ok(mesh)
}

/// Every face index names a vertex.
fn check_indices(mesh: &TriangleMesh) -> Result<(), String> {
    let n = mesh.vertices.len();
    match mesh
        .faces
        .iter()
        .enumerate()
        .find(|(_, f)| f.iter().any(|&i| i >= n))
    {
        Some((i, f)) => Err(format!(
            "face {i} names vertex {} of {n}",
            f.iter().copied().max().unwrap_or(0)
        )),
        None => Ok(()),
    }
}

/// Splits a polygon (indices of its corners in order) into triangles appended to `faces`: a
/// quad along its shorter diagonal (the first one when both are as long), measured in single
/// precision as tinyobjloader (MuJoCo's OBJ loader) measures it, a larger polygon as a fan
/// from its first corner.
pub(crate) fn triangulate(corners: &[usize], vertices: &[[f64; 3]], faces: &mut Vec<[usize; 3]>) {
    match *corners {
        [a, b, c] => faces.push([a, b, c]),
        [a, b, c, d] => {
            let squared = |p: usize, q: usize| {
                let (p, q) = (vertices[p].map(|x| x as f32), vertices[q].map(|x| x as f32));
                (0..3).map(|k| (p[k] - q[k]) * (p[k] - q[k])).sum::<f32>()
            };
            if squared(a, c) <= squared(b, d) {
                faces.extend([[a, b, c], [a, c, d]]);
            } else {
                faces.extend([[a, b, d], [b, c, d]]);
            }
        }
        _ if corners.len() > 4 => {
            for pair in corners[1..].windows(2) {
                faces.push([corners[0], pair[0], pair[1]]);
            }
        }
        _ => {}
    }
}
