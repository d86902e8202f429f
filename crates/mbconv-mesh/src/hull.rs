//! Convex hulls through `parry3d-f64` (quickhull in double precision, robust to the coplanar
//! points CAD meshes are full of; `docs/meshes.md` says why this library).

use std::collections::HashMap;

/// Why no hull could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HullError {
    /// Fewer than four points.
    #[error("a convex hull needs at least 4 points")]
    TooFew,
    /// The library could not make a hull of these points (they are degenerate: all in one
    /// plane, on one line or at one place, or too close to that for its arithmetic).
    #[error("no convex hull of these points: {0}")]
    Degenerate(String),
}

/// The convex hull of `points` as outward triangles (counter-clockwise seen from outside),
/// each an index into `points` (the first of equal points).
///
/// ```
/// let mut points: Vec<[f64; 3]> = (0..8)
///     .map(|i| [(i & 1) as f64, ((i >> 1) & 1) as f64, (i >> 2) as f64])
///     .collect();
/// points.push([0.5, 0.5, 0.5]); // inside
/// let faces = mbconv_mesh::convex_hull(&points).unwrap();
/// assert_eq!(faces.len(), 12);
/// assert!(faces.iter().flatten().all(|&i| i < 8));
/// ```
pub fn convex_hull(points: &[[f64; 3]]) -> Result<Vec<[usize; 3]>, HullError> {
    if points.len() < 4 {
        return Err(HullError::TooFew);
    }
    let input: Vec<parry3d_f64::math::Vector3> = points
        .iter()
        .map(|p| parry3d_f64::math::Vector3::new(p[0], p[1], p[2]))
        .collect();
    // The library returns errors for the degenerate inputs it detects; a panic inside it is
    // turned into the same error rather than ending the program.
    let result = std::panic::catch_unwind(|| parry3d_f64::transformation::try_convex_hull(&input))
        .map_err(|_| HullError::Degenerate("the hull computation failed".into()))?;
    let (vertices, faces) = result.map_err(|e| HullError::Degenerate(format!("{e:?}")))?;
    let mut index: HashMap<[u64; 3], usize> = HashMap::new();
    for (i, p) in points.iter().enumerate() {
        index.entry(p.map(f64::to_bits)).or_insert(i);
    }
    let original = |v: &parry3d_f64::math::Vector3| -> Result<usize, HullError> {
        index
            .get(&[v.x.to_bits(), v.y.to_bits(), v.z.to_bits()])
            .copied()
            .ok_or_else(|| HullError::Degenerate("a hull vertex is not among the points".into()))
    };
    faces
        .iter()
        .map(|f| {
            Ok([
                original(&vertices[f[0] as usize])?,
                original(&vertices[f[1] as usize])?,
                original(&vertices[f[2] as usize])?,
            ])
        })
        .collect()
}
