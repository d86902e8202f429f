//! STL through `stl_io`, binary or ASCII. Vertices shared between triangles are merged by
//! their exact bits (as `stl_io` and MuJoCo both merge them), in the order first met.
//!
//! A binary file whose 80-byte header starts with `solid` (as some CAD exporters write it)
//! would be taken for ASCII by `stl_io`'s probe; a file whose size is exactly that of a binary
//! STL of its triangle count is read as binary whatever its header says.

use crate::TriangleMesh;

/// True when `bytes` have the exact size of a binary STL of the triangle count they give
/// (an 80-byte header, a count, 50 bytes a triangle).
///
/// ```
/// let mut binary = vec![0u8; 84];
/// assert!(mbconv_mesh::stl::is_binary(&binary));
/// binary[80] = 1;
/// assert!(!mbconv_mesh::stl::is_binary(&binary));
/// assert!(!mbconv_mesh::stl::is_binary(b"solid a\nendsolid a\n"));
/// ```
pub fn is_binary(bytes: &[u8]) -> bool {
    if bytes.len() < 84 {
        return false;
    }
    let count = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as u64;
    count * 50 == bytes.len() as u64 - 84
}

/// Decodes an STL file, binary or ASCII; the error is `stl_io`'s reason.
///
/// ```
/// let ascii = b"solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
/// let mesh = mbconv_mesh::stl::decode(ascii).unwrap();
/// assert_eq!((mesh.vertices.len(), mesh.faces.len()), (3, 1));
/// ```
pub fn decode(bytes: &[u8]) -> Result<TriangleMesh, String> {
    if bytes.is_empty() {
        return Err("the file is empty".into());
    }
    let indexed = if is_binary(bytes) {
        // The header is free text: blank it so that `stl_io` does not take a header starting
        // with "solid " for an ASCII file.
        let mut copy = bytes.to_vec();
        copy[..80].fill(0);
        stl_io::read_stl(&mut std::io::Cursor::new(copy))
    } else {
        stl_io::read_stl(&mut std::io::Cursor::new(bytes))
    }
    .map_err(|e| e.to_string())?;
    Ok(TriangleMesh {
        vertices: indexed.vertices.iter().map(|v| v.0.map(f64::from)).collect(),
        faces: indexed.faces.iter().map(|f| f.vertices).collect(),
    })
}
