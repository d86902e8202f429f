//! A mesh written back as a file: binary STL (single precision, as every STL reader expects)
//! or Wavefront OBJ (shortest round-trip decimals, one object). Both writers are
//! deterministic: the same mesh gives the same bytes, so a converted file changes only when
//! its mesh does.

use crate::TriangleMesh;
use std::fmt::Write as _;

/// The most triangles MuJoCo 4.0 reads from a binary STL file; a larger mesh is written as
/// OBJ by a converter that writes for MuJoCo.
pub const MUJOCO_STL_MAX_TRIANGLES: usize = 200_000;

/// The free-text header of the binary STL files this crate writes (80 bytes, zero padded; it
/// does not start with `solid`, so no reader takes the file for ASCII).
const STL_HEADER: &[u8] = b"binary STL written by mbconv";

impl TriangleMesh {
    /// The mesh as a binary STL file: an 80-byte header, the triangle count, then per
    /// triangle its unit normal (from the corners, zero for a degenerate triangle), its three
    /// corners in single precision and a zero attribute word.
    ///
    /// ```
    /// let cube = mbconv_mesh::TriangleMesh::cuboid([0.5; 3]);
    /// let bytes = cube.to_binary_stl();
    /// assert_eq!(bytes.len(), 84 + 50 * 12);
    /// assert!(mbconv_mesh::stl::is_binary(&bytes));
    /// let back = mbconv_mesh::stl::decode(&bytes).unwrap();
    /// assert_eq!((back.vertices.len(), back.faces.len()), (8, 12));
    /// ```
    pub fn to_binary_stl(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(84 + 50 * self.faces.len());
        bytes.extend_from_slice(STL_HEADER);
        bytes.resize(80, 0);
        let count = u32::try_from(self.faces.len()).unwrap_or(u32::MAX);
        bytes.extend_from_slice(&count.to_le_bytes());
        for face in self.faces.iter().take(count as usize) {
            let [a, b, c] = face.map(|i| self.vertices[i]);
            let u: [f64; 3] = std::array::from_fn(|k| b[k] - a[k]);
            let v: [f64; 3] = std::array::from_fn(|k| c[k] - a[k]);
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let normal = if length > 0.0 && length.is_finite() {
                n.map(|x| x / length)
            } else {
                [0.0; 3]
            };
            for point in [normal, a, b, c] {
                for x in point {
                    bytes.extend_from_slice(&(x as f32).to_le_bytes());
                }
            }
            bytes.extend_from_slice(&[0, 0]);
        }
        bytes
    }

    /// The mesh as a Wavefront OBJ file of one object: a `v` line per vertex (the shortest
    /// decimals that read back to the same double), an `f` line per triangle (1-based).
    ///
    /// ```
    /// let tri = mbconv_mesh::TriangleMesh {
    ///     vertices: vec![[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 1.0, 0.0]],
    ///     faces: vec![[0, 1, 2]],
    /// };
    /// let text = tri.to_obj();
    /// assert!(text.contains("v 0.1 0 0\n") && text.ends_with("f 1 2 3\n"));
    /// let back = mbconv_mesh::decode(text.as_bytes(), mbconv_mesh::MeshFormat::Obj, "t.obj".as_ref()).unwrap();
    /// assert_eq!(back, tri);
    /// ```
    pub fn to_obj(&self) -> String {
        let mut text = String::from("# written by mbconv\no mesh\n");
        for v in &self.vertices {
            let _ = writeln!(text, "v {} {} {}", v[0], v[1], v[2]);
        }
        for f in &self.faces {
            let _ = writeln!(text, "f {} {} {}", f[0] + 1, f[1] + 1, f[2] + 1);
        }
        text
    }
}
