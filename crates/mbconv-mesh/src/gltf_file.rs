//! glTF 2.0 through the `gltf` crate (JSON `.gltf` with its buffers beside it or inline as
//! base64 `data:` URIs, and binary `.glb`): the triangles of every mesh primitive of the
//! default scene (or the first), placed by their nodes' transforms; without a scene, every
//! mesh unmoved. Point and line primitives are left out. glTF's unit is the metre.

use crate::TriangleMesh;
use base64::Engine;
use gltf::mesh::Mode;
use std::path::Path;

/// Column-major 4x4, as glTF gives it.
type Matrix = [[f64; 4]; 4];

fn multiply(a: &Matrix, b: &Matrix) -> Matrix {
    // Column-major: (a b)[col][row] = sum_k a[k][row] b[col][k].
    std::array::from_fn(|col| std::array::from_fn(|row| (0..4).map(|k| a[k][row] * b[col][k]).sum()))
}

const IDENTITY: Matrix = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// Decodes a glTF or GLB file; external buffers are read from `dir`.
pub(crate) fn decode(bytes: &[u8], dir: Option<&Path>) -> Result<TriangleMesh, String> {
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| e.to_string())?;
    let mut buffers = Vec::new();
    for buffer in gltf.buffers() {
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => gltf
                .blob
                .clone()
                .ok_or("a buffer refers to a missing binary chunk")?,
            gltf::buffer::Source::Uri(uri) => match uri.strip_prefix("data:") {
                Some(data) => {
                    let (_, payload) = data
                        .split_once(";base64,")
                        .ok_or("a data URI buffer is not base64")?;
                    base64::engine::general_purpose::STANDARD
                        .decode(payload)
                        .map_err(|e| format!("a data URI buffer: {e}"))?
                }
                None => {
                    let path = dir.unwrap_or(Path::new("")).join(uri);
                    std::fs::read(&path).map_err(|e| format!("buffer {}: {e}", path.display()))?
                }
            },
        };
        buffers.push(data);
    }
    let mut out = TriangleMesh::default();
    let scene = gltf.default_scene().or_else(|| gltf.scenes().next());
    match scene {
        Some(scene) => {
            let mut stack: Vec<(gltf::Node, Matrix)> = scene.nodes().map(|n| (n, IDENTITY)).collect();
            let mut visited = 0usize;
            while let Some((node, parent)) = stack.pop() {
                visited += 1;
                if visited > 1_000_000 {
                    return Err("the node hierarchy does not end (a cycle?)".into());
                }
                let local = node.transform().matrix().map(|c| c.map(f64::from));
                let m = multiply(&parent, &local);
                if let Some(mesh) = node.mesh() {
                    append(&mut out, &mesh, &m, &buffers)?;
                }
                stack.extend(node.children().map(|c| (c, m)));
            }
        }
        None => {
            for mesh in gltf.meshes() {
                append(&mut out, &mesh, &IDENTITY, &buffers)?;
            }
        }
    }
    Ok(out)
}

fn append(out: &mut TriangleMesh, mesh: &gltf::Mesh, m: &Matrix, buffers: &[Vec<u8>]) -> Result<(), String> {
    let det = m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2])
        - m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2])
        + m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2]);
    for primitive in mesh.primitives() {
        let reader = primitive.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
        let Some(positions) = reader.read_positions() else {
            continue;
        };
        let base = out.vertices.len();
        out.vertices.extend(positions.map(|p| {
            let p = p.map(f64::from);
            std::array::from_fn(|row| m[0][row] * p[0] + m[1][row] * p[1] + m[2][row] * p[2] + m[3][row])
        }));
        let n = out.vertices.len() - base;
        let order: Vec<usize> = match reader.read_indices() {
            Some(indices) => indices.into_u32().map(|i| i as usize).collect(),
            None => (0..n).collect(),
        };
        if let Some(bad) = order.iter().find(|&&i| i >= n) {
            return Err(format!("a primitive's index {bad} is past its {n} vertices"));
        }
        let mut faces: Vec<[usize; 3]> = match primitive.mode() {
            Mode::Triangles => order.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
            Mode::TriangleStrip => order
                .windows(3)
                .enumerate()
                .map(|(j, w)| {
                    if j % 2 == 0 {
                        [w[0], w[1], w[2]]
                    } else {
                        [w[1], w[0], w[2]]
                    }
                })
                .collect(),
            Mode::TriangleFan => order
                .get(1..)
                .unwrap_or(&[])
                .windows(2)
                .map(|w| [order[0], w[0], w[1]])
                .collect(),
            _ => Vec::new(),
        };
        for f in &mut faces {
            *f = f.map(|i| i + base);
            if det < 0.0 {
                f.swap(1, 2);
            }
        }
        out.faces.extend(faces);
    }
    Ok(())
}
