//! Wavefront OBJ through `tobj` (a port of tinyobjloader, the loader MuJoCo uses), with
//! coordinates parsed in double precision. A file is a list of objects, a new one starting at
//! an `o` or `g` line that follows faces (materials are not loaded, so `usemtl` starts none);
//! each object keeps the vertices its faces use, in the order first used. Polygons are split
//! as [`crate::triangulate`] says: a quad along its shorter diagonal, as tinyobjloader splits
//! it. Points and lines are left out.

use crate::TriangleMesh;
use std::collections::HashMap;

/// The objects of an OBJ file, each as a triangle mesh (objects without faces are left out).
///
/// ```
/// let text = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\no second\nf 1 2 4\nf 2 3 4\n";
/// let objects = mbconv_mesh::obj::objects(text).unwrap();
/// assert_eq!(objects.len(), 2);
/// assert_eq!(objects[1].faces, [[0, 1, 2], [1, 3, 2]]);
/// ```
pub fn objects(bytes: &[u8]) -> Result<Vec<TriangleMesh>, String> {
    let options = tobj::LoadOptions {
        triangulate: false,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    let no_materials = |_: &std::path::Path| -> tobj::MTLLoadResult { Ok((Vec::new(), HashMap::new())) };
    let (models, _) = tobj::load_obj_buf(&mut std::io::Cursor::new(bytes), &options, no_materials)
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for model in models {
        let m = &model.mesh;
        let vertices: Vec<[f64; 3]> = m.positions.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
        let mut faces = Vec::new();
        let indices: Vec<usize> = m.indices.iter().map(|&i| i as usize).collect();
        if m.face_arities.is_empty() {
            for t in indices.chunks_exact(3) {
                faces.push([t[0], t[1], t[2]]);
            }
        } else {
            let mut at = 0;
            for &n in &m.face_arities {
                let n = n as usize;
                let corners = indices
                    .get(at..at + n)
                    .ok_or_else(|| format!("object {:?}: a face runs past the indices", model.name))?;
                crate::triangulate(corners, &vertices, &mut faces);
                at += n;
            }
        }
        if !faces.is_empty() {
            out.push(TriangleMesh { vertices, faces });
        }
    }
    Ok(out)
}
