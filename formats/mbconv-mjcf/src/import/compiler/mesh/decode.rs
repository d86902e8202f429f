//! Mesh files as MuJoCo 4.0's decoders read them: binary STL (its `stl_decoder`: ASCII STL is
//! refused, vertices shared between triangles merged by their exact bits), Wavefront OBJ (its
//! `obj_decoder` over tinyobjloader: the first object's faces, a quad split along its shorter
//! diagonal, larger polygons as a fan from their first corner) and MuJoCo's own binary `.msh`. Vertices stay in single precision, as MuJoCo
//! stores them.

use std::collections::BTreeMap;

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

/// Binary STL: an 80-byte header, a triangle count (1 to 200000), then 50 bytes a triangle.
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
    let count = count as usize;
    if count * 50 != bytes.len() - 84 {
        return Err("STL file has wrong size; perhaps this is an ASCII file?".into());
    }
    let mut mesh = RawMesh::default();
    let mut seen: BTreeMap<[u32; 3], i64> = BTreeMap::new();
    let limit = 2f32.powi(30);
    for i in 0..count {
        let mut face = [0i64; 3];
        for (j, slot) in face.iter_mut().enumerate() {
            let at = 84 + 50 * i + 12 * (j + 1);
            let v = [f32_at(bytes, at), f32_at(bytes, at + 4), f32_at(bytes, at + 8)];
            if v.iter().any(|x| x.abs() > limit) {
                return Err("vertex in STL file exceeds maximum bounds".into());
            }
            let key = v.map(f32::to_bits);
            let next = mesh.vertices.len() as i64;
            let index = *seen.entry(key).or_insert(next);
            if index == next {
                mesh.vertices.push(v);
            }
            *slot = index;
        }
        mesh.faces.push(face);
    }
    Ok(mesh)
}

/// Wavefront OBJ: `v` lines, and the `f` lines of the first object or group (1-based or
/// negative indices, `v/vt/vn` forms), triangulated as MuJoCo's loader does (measured against
/// MuJoCo 4.0 on non-planar quads and pentagons): a quad along its shorter diagonal (`0-2`
/// unless `1-3` is shorter), a larger polygon as a fan from its first corner.
pub(crate) fn obj(bytes: &[u8]) -> Result<RawMesh, String> {
    let text = String::from_utf8_lossy(bytes);
    let mut mesh = RawMesh::default();
    // tinyobjloader, which MuJoCo uses, starts a new shape at an `o` or `g` line that follows
    // faces; MuJoCo keeps the first shape's faces.
    let mut shape_done = false;
    let mut logical = String::new();
    for raw in text.lines() {
        // Lines continued with a backslash.
        if let Some(stripped) = raw.strip_suffix('\\') {
            logical.push_str(stripped);
            continue;
        }
        logical.push_str(raw);
        let line = std::mem::take(&mut logical);
        let mut words = line.split_ascii_whitespace();
        let Some(tag) = words.next() else { continue };
        match tag {
            "v" => {
                let mut v = [0.0f32; 3];
                for (k, slot) in v.iter_mut().enumerate() {
                    let w = words
                        .next()
                        .ok_or_else(|| format!("a vertex needs 3 coordinates: {line:?}"))?;
                    *slot = w
                        .parse::<f64>()
                        .map_err(|_| format!("vertex coordinate {k} is not a number: {w:?}"))?
                        as f32;
                }
                mesh.vertices.push(v);
            }
            "o" | "g" if !mesh.faces.is_empty() => shape_done = true,
            "f" if !shape_done => {
                let n = mesh.vertices.len() as i64;
                let mut corners = Vec::new();
                for w in words {
                    let first = w.split('/').next().unwrap_or("");
                    let i: i64 = first
                        .parse()
                        .map_err(|_| format!("face index is not an integer: {w:?}"))?;
                    corners.push(if i < 0 { n + i } else { i - 1 });
                }
                let at = |i: i64| -> Option<[f32; 3]> {
                    usize::try_from(i)
                        .ok()
                        .and_then(|i| mesh.vertices.get(i))
                        .copied()
                };
                let squared = |a: Option<[f32; 3]>, b: Option<[f32; 3]>| match (a, b) {
                    (Some(a), Some(b)) => (0..3).map(|k| (a[k] - b[k]) * (a[k] - b[k])).sum::<f32>(),
                    _ => f32::INFINITY,
                };
                match corners.as_slice() {
                    [] | [_] | [_, _] => return Err("a face needs at least 3 corners".into()),
                    [a, b, c] => mesh.faces.push([*a, *b, *c]),
                    [a, b, c, d] => {
                        if squared(at(*a), at(*c)) <= squared(at(*b), at(*d)) {
                            mesh.faces.push([*a, *b, *c]);
                            mesh.faces.push([*a, *c, *d]);
                        } else {
                            mesh.faces.push([*a, *b, *d]);
                            mesh.faces.push([*b, *c, *d]);
                        }
                    }
                    [first, rest @ ..] => {
                        for pair in rest.windows(2) {
                            mesh.faces.push([*first, pair[0], pair[1]]);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(mesh)
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
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.faces, [[0, 1, 2], [0, 2, 1]]);
        assert!(obj(b"v 0 0 0\nf 1 1\n").unwrap_err().contains("3 corners"));
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
