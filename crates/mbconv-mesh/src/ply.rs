//! PLY (ASCII and binary) through `ply-rs-bw`, the maintained fork of `ply-rs`: the `x`, `y`,
//! `z` of the `vertex` elements and the `vertex_indices` (or `vertex_index`) lists of the
//! `face` elements, polygons split as [`crate::triangulate`] says.

use crate::TriangleMesh;
use ply_rs_bw::parser::Parser;
use ply_rs_bw::ply::{DefaultElement, Property};

fn scalar(p: &Property) -> Option<f64> {
    Some(match *p {
        Property::Char(x) => x.into(),
        Property::UChar(x) => x.into(),
        Property::Short(x) => x.into(),
        Property::UShort(x) => x.into(),
        Property::Int(x) => x.into(),
        Property::UInt(x) => x.into(),
        Property::Float(x) => x.into(),
        Property::Double(x) => x,
        _ => return None,
    })
}

fn list(p: &Property) -> Option<Vec<i64>> {
    Some(match p {
        Property::ListChar(v) => v.iter().map(|&x| x.into()).collect(),
        Property::ListUChar(v) => v.iter().map(|&x| x.into()).collect(),
        Property::ListShort(v) => v.iter().map(|&x| x.into()).collect(),
        Property::ListUShort(v) => v.iter().map(|&x| x.into()).collect(),
        Property::ListInt(v) => v.iter().map(|&x| x.into()).collect(),
        Property::ListUInt(v) => v.iter().map(|&x| x.into()).collect(),
        _ => return None,
    })
}

/// Decodes a PLY file.
pub(crate) fn decode(bytes: &[u8]) -> Result<TriangleMesh, String> {
    let ply = Parser::<DefaultElement>::new()
        .read_ply(&mut std::io::Cursor::new(bytes))
        .map_err(|e| e.to_string())?;
    let mut out = TriangleMesh::default();
    for (i, v) in ply
        .payload
        .get("vertex")
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let coordinate = |name: &str| {
            v.get(name)
                .and_then(scalar)
                .ok_or_else(|| format!("vertex {i} has no number {name}"))
        };
        out.vertices
            .push([coordinate("x")?, coordinate("y")?, coordinate("z")?]);
    }
    let n = out.vertices.len();
    for (i, f) in ply
        .payload
        .get("face")
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let corners = f
            .get("vertex_indices")
            .or_else(|| f.get("vertex_index"))
            .and_then(list)
            .ok_or_else(|| format!("face {i} has no vertex_indices list"))?;
        let corners = corners
            .iter()
            .map(|&c| usize::try_from(c).ok().filter(|&c| c < n))
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| format!("face {i} names a vertex that is not among the {n}"))?;
        crate::triangulate(&corners, &out.vertices, &mut out.faces);
    }
    Ok(out)
}
