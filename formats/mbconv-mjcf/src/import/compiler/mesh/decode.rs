//! Mesh files as MuJoCo 4.0's decoders read them, decoded by the shared mesh layer
//! (`mbconv-mesh`) with MuJoCo's own rules on top: binary STL only (its `stl_decoder` refuses
//! ASCII, counts outside 1 to 200000 and files of the wrong size, with its words; vertices
//! shared between triangles merged by their exact bits, as both merge them), Wavefront OBJ (its
//! `obj_decoder` over tinyobjloader: the first object's faces, a quad split along its shorter
//! diagonal, larger polygons as a fan from their first corner, which `mbconv-mesh`'s OBJ reader
//! does) and MuJoCo's own binary `.msh`, read here (no other program writes it). Vertices stay
//! in single precision, as MuJoCo stores them.
//!
//! One difference from tinyobjloader is known: an OBJ object keeps only the vertices its faces
//! use (`tobj` renumbers each object's vertices), where MuJoCo keeps every `v` line of the file;
//! the faces, and so the volume, centre and inertia, are the same, but `inertia="convex"` of a
//! file whose first object leaves some vertices unused takes the hull of the used ones.

/// Triangles over single-precision vertices, as a decoder hands them to the compiler.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RawMesh {
    /// Vertex positions in the file's coordinates.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles as vertex indices (not checked against `vertices` here: the compiler checks).
    pub faces: Vec<[i64; 3]>,
}

/// Which decoder a file goes to, by its extension (MuJoCo's content types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MeshFormat {
    /// `.stl`
    Stl,
    /// `.obj`
    Obj,
    /// `.msh`
    Msh,
}

impl MeshFormat {
    /// The decoder for a file name, `None` when MuJoCo has none.
    pub(crate) fn of(file: &str) -> Option<MeshFormat> {
        let ext = file.rsplit_once('.')?.1;
        match ext {
            "stl" | "STL" => Some(MeshFormat::Stl),
            "obj" | "OBJ" => Some(MeshFormat::Obj),
            "msh" | "MSH" => Some(MeshFormat::Msh),
            _ => None,
        }
    }
}

/// Decodes `bytes` of a file in `format`; the error is MuJoCo's reason.
pub(crate) fn decode(format: MeshFormat, bytes: &[u8], negative_scale: bool) -> Result<RawMesh, String> {
    match format {
        MeshFormat::Stl => stl(bytes),
        MeshFormat::Obj => obj(bytes),
        MeshFormat::Msh => msh(bytes, negative_scale),
    }
}

fn f32_at(bytes: &[u8], at: usize) -> f32 {
    f32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn i32_at(bytes: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Binary STL: an 80-byte header, a triangle count (1 to 200000), then 50 bytes a triangle;
/// MuJoCo's checks on the bytes, then the shared STL reader.
pub(crate) fn stl(bytes: &[u8]) -> Result<RawMesh, String> {
    if bytes.is_empty() {
        return Err("STL file is empty".into());
    }
    if bytes.len() < 84 {
        return Err("invalid header in STL file".into());
    }
    let count = i32_at(bytes, 80);
    if !(1..=200_000).contains(&count) {
        return Err(
            "number of faces should be between 1 and 200000 in STL file; perhaps this is an ASCII file?"
                .into(),
        );
    }
    if !mbconv_mesh::stl::is_binary(bytes) {
        return Err("STL file has wrong size; perhaps this is an ASCII file?".into());
    }
    let mesh = mbconv_mesh::stl::decode(bytes)?;
    let limit = 2f64.powi(30);
    if mesh.vertices.iter().flatten().any(|x| x.abs() > limit) {
        return Err("vertex in STL file exceeds maximum bounds".into());
    }
    Ok(RawMesh {
        // Binary STL coordinates are single precision: the cast back is exact.
        vertices: mesh.vertices.iter().map(|v| v.map(|x| x as f32)).collect(),
        faces: mesh.faces.iter().map(|f| f.map(|i| i as i64)).collect(),
    })
}

/// Wavefront OBJ: the first object's faces (see the module's note on its vertices), the
/// coordinates parsed in double precision and stored in single, as tinyobjloader does.
pub(crate) fn obj(bytes: &[u8]) -> Result<RawMesh, String> {
    let objects = mbconv_mesh::obj::objects(bytes)?;
    let Some(first) = objects.into_iter().next() else {
        return Ok(RawMesh::default());
    };
    Ok(RawMesh {
        vertices: first.vertices.iter().map(|v| v.map(|x| x as f32)).collect(),
        faces: first.faces.iter().map(|f| f.map(|i| i as i64)).collect(),
    })
}

/// MuJoCo's binary `.msh`: four counts (vertices, normals, texture coordinates, faces), then
/// the arrays; a left-handed scale reverses the faces' winding at load, as MuJoCo does.
pub(crate) fn msh(bytes: &[u8], negative_scale: bool) -> Result<RawMesh, String> {
    if bytes.is_empty() {
        return Err("MSH file is empty".into());
    }
    if bytes.len() < 16 {
        return Err("missing header in MSH file".into());
    }
    let (nv, nn, nt, nf) = (
        i32_at(bytes, 0),
        i32_at(bytes, 4),
        i32_at(bytes, 8),
        i32_at(bytes, 12),
    );
    if nv < 4 || nf < 0 || nn < 0 || nt < 0 || (nn > 0 && nn != nv) || (nt > 0 && nt != nv) {
        return Err("invalid sizes in MSH file".into());
    }
    let (nv, nn, nt, nf) = (nv as usize, nn as usize, nt as usize, nf as usize);
    if bytes.len() != 16 + 12 * nv + 12 * nn + 8 * nt + 12 * nf {
        return Err("unexpected file size in MSH file".into());
    }
    let mut mesh = RawMesh::default();
    for i in 0..nv {
        let at = 16 + 12 * i;
        mesh.vertices
            .push([f32_at(bytes, at), f32_at(bytes, at + 4), f32_at(bytes, at + 8)]);
    }
    let faces_at = 16 + 12 * nv + 12 * nn + 8 * nt;
    for i in 0..nf {
        let at = faces_at + 12 * i;
        let (a, b, c) = (i32_at(bytes, at), i32_at(bytes, at + 4), i32_at(bytes, at + 8));
        let face = if negative_scale { [a, c, b] } else { [a, b, c] };
        mesh.faces.push(face.map(i64::from));
    }
    Ok(mesh)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A binary STL of the given triangles.
    pub(crate) fn binary_stl(triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
        let mut out = vec![0u8; 80];
        out.extend_from_slice(&(triangles.len() as u32).to_le_bytes());
        for t in triangles {
            out.extend_from_slice(&[0u8; 12]);
            for v in t {
                for x in v {
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
            out.extend_from_slice(&[0u8; 2]);
        }
        out
    }

    #[test]
    fn stl_merges_shared_vertices_by_their_bits() {
        let a = [0.0, 0.0, 0.0];
        let b = [1.0, 0.0, 0.0];
        let c = [0.0, 1.0, 0.0];
        let d = [-0.0, 0.0, 1.0];
        let m = stl(&binary_stl(&[[a, b, c], [a, c, d], [[-0.0, 0.0, 0.0], b, d]])).unwrap();
        // -0.0 is not 0.0 bit for bit, as in MuJoCo's decoder.
        assert_eq!(m.vertices.len(), 5);
        assert_eq!(m.faces, [[0, 1, 2], [0, 2, 3], [4, 1, 3]]);
        let mut short = binary_stl(&[[a, b, c]]);
        short.pop();
        assert!(stl(&short).unwrap_err().contains("wrong size"));
        assert!(stl(&[]).unwrap_err().contains("empty"));
    }

    #[test]
    fn obj_reads_the_first_shape_with_every_index_form() {
        let text = b"# c\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvn 0 0 1\nf 1//1 2//1 3//1\nf -4/1/1 -2 -3\ng second\nf 2 3 4\n";
        let m = obj(text).unwrap();
        // The first object's vertices, in the order its faces first use them.
        assert_eq!(m.vertices.len(), 3);
        assert_eq!(m.faces, [[0, 1, 2], [0, 2, 1]]);
        // A face of two corners is a line: no triangle.
        assert!(obj(b"v 0 0 0\nv 1 0 0\nf 1 2\n").unwrap().faces.is_empty());
        // A pentagon: a fan from its first corner.
        let pentagon = obj(b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv -1 0 0\nf 1 2 3 4 5\n").unwrap();
        assert_eq!(pentagon.faces, [[0, 1, 2], [0, 2, 3], [0, 3, 4]]);
        assert!(obj(b"v 0 x 0\n").is_err());
    }

    #[test]
    fn msh_layout_and_checks() {
        let mut b = Vec::new();
        for n in [4i32, 0, 0, 1] {
            b.extend_from_slice(&n.to_le_bytes());
        }
        for v in [[0f32, 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]] {
            for x in v {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        for i in [0i32, 1, 2] {
            b.extend_from_slice(&i.to_le_bytes());
        }
        let m = msh(&b, false).unwrap();
        assert_eq!((m.vertices.len(), m.faces.clone()), (4, vec![[0, 1, 2]]));
        assert_eq!(msh(&b, true).unwrap().faces, [[0, 2, 1]]);
        b.pop();
        assert!(msh(&b, false).unwrap_err().contains("unexpected file size"));
    }

    #[test]
    fn example_mesh_format_of() {
        assert_eq!(MeshFormat::of("meshes/link.STL"), Some(MeshFormat::Stl));
        assert_eq!(MeshFormat::of("part.dae"), None);
    }

    #[test]
    fn example_stl() {
        let ascii = "solid cube\n  facet normal 0 0 1\n    outer loop\n      vertex 0 0 0\n".repeat(4);
        assert!(stl(ascii.as_bytes()).unwrap_err().contains("ASCII"));
    }

    #[test]
    fn example_obj() {
        let m = obj(b"v 0 0 0\nv 1 0 0\nv 1 1 0.5\nv 0 1 0\nf 1 2 3 4\n").unwrap();
        assert_eq!(m.faces, [[0, 1, 3], [1, 2, 3]]);
    }
}
