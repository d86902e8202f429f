//! The convex hull MuJoCo's compiler takes for meshes given as vertices only (their faces
//! come from the hull) and for `inertia="convex"`: MuJoCo's own checks on the points (its
//! order, tolerance and words), then the hull of the shared mesh layer
//! ([`mbconv_mesh::convex_hull`]), triangulated and oriented outwards, so areas, volumes and
//! inertias summed over its triangles are those of the hull. MuJoCo triangulates with qhull;
//! another triangulation of the same faces changes the sums only by rounding
//! (docs/meshes.md).

/// Why no hull could be made (MuJoCo's checks, made before its hull is built).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HullError {
    /// Fewer than four points.
    TooFew,
    /// Every point is at the same place.
    Colocated,
    /// The points lie on one line.
    Collinear,
    /// The points lie in one plane.
    Coplanar,
}

impl std::fmt::Display for HullError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HullError::TooFew => "at least 4 vertices required",
            HullError::Colocated => {
                "has colocated vertices, cannot compute convex hull. Consider using a small sphere instead"
            }
            HullError::Collinear => {
                "has collinear vertices, cannot compute convex hull. Consider using a thin capsule instead"
            }
            HullError::Coplanar => {
                "has coplanar vertices, cannot compute convex hull. Consider using a primitive geom type (plane or thin box) instead"
            }
        })
    }
}

use crate::spec::arith::{cross, dot3 as dot};

fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm(a: &[f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// MuJoCo's degeneracy checks on the points, in its order and with its tolerance.
fn check(points: &[[f64; 3]]) -> Result<(), HullError> {
    const MINVAL: f64 = 1e-15;
    if points.len() < 4 {
        return Err(HullError::TooFew);
    }
    let p0 = points[0];
    let Some((v1, len1)) = points
        .iter()
        .enumerate()
        .skip(1)
        .map(|(i, p)| (i, norm(&sub(p, &p0))))
        .find(|(_, l)| *l > MINVAL)
    else {
        return Err(HullError::Colocated);
    };
    let e1 = sub(&points[v1], &p0);
    let mut normal = None;
    for (i, p) in points.iter().enumerate().skip(1) {
        if i == v1 {
            continue;
        }
        let e2 = sub(p, &p0);
        let len2 = norm(&e2);
        if len2 < MINVAL {
            continue;
        }
        let n = cross(&e1, &e2);
        let l = norm(&n);
        if l > MINVAL * len1 * len2 {
            normal = Some([n[0] / l, n[1] / l, n[2] / l]);
            break;
        }
    }
    let Some(n) = normal else {
        return Err(HullError::Collinear);
    };
    let d = dot(&n, &p0);
    if points.iter().all(|p| (dot(&n, p) - d).abs() <= MINVAL * len1) {
        return Err(HullError::Coplanar);
    }
    Ok(())
}

/// The hull of `points` as outward triangles (indices into `points`).
pub(crate) fn hull(points: &[[f64; 3]]) -> Result<Vec<[usize; 3]>, HullError> {
    check(points)?;
    // MuJoCo's checks have refused every point set the library calls degenerate but one too
    // thin for its arithmetic: that one is flat for MuJoCo's purpose too.
    mbconv_mesh::convex_hull(points).map_err(|_| HullError::Coplanar)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Volume enclosed by outward triangles (divergence theorem).
    fn volume(points: &[[f64; 3]], faces: &[[usize; 3]]) -> f64 {
        faces
            .iter()
            .map(|f| dot(&points[f[0]], &cross(&points[f[1]], &points[f[2]])) / 6.0)
            .sum()
    }

    fn closed(faces: &[[usize; 3]]) -> bool {
        let mut edges = std::collections::HashSet::new();
        for f in faces {
            for k in 0..3 {
                if !edges.insert((f[k], f[(k + 1) % 3])) {
                    return false;
                }
            }
        }
        edges.iter().all(|&(a, b)| edges.contains(&(b, a)))
    }

    #[test]
    fn cube_with_coplanar_and_inner_points() {
        let mut points: Vec<[f64; 3]> = Vec::new();
        // A 3x3x3 grid on a cube of side 2: many points on the faces and edges, one inside.
        for i in 0..27 {
            points.push([
                (i % 3) as f64 - 1.0,
                ((i / 3) % 3) as f64 - 1.0,
                (i / 9) as f64 - 1.0,
            ]);
        }
        let faces = hull(&points).unwrap();
        assert!(closed(&faces));
        assert!((volume(&points, &faces) - 8.0).abs() < 1e-12);
    }

    #[test]
    fn sphere_points_give_a_closed_outward_hull() {
        let mut points = Vec::new();
        let mut s = 12345u64;
        let mut rand = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..500 {
            let (u, v) = (rand() * 2.0 - 1.0, rand() * std::f64::consts::TAU);
            let r = (1.0 - u * u).sqrt();
            points.push([r * v.cos(), r * v.sin(), u]);
        }
        let faces = hull(&points).unwrap();
        assert!(closed(&faces));
        let vol = volume(&points, &faces);
        assert!(vol > 4.0 && vol < 4.0 / 3.0 * std::f64::consts::PI, "{vol}");
        // Every point is inside or on every face's plane.
        for f in &faces {
            let [a, b, c] = f.map(|i| points[i]);
            let n = cross(&sub(&b, &a), &sub(&c, &a));
            for p in &points {
                assert!(dot(&n, &sub(p, &a)) <= 1e-9);
            }
        }
    }

    #[test]
    fn degenerate_point_sets_are_refused_as_mujoco_refuses_them() {
        assert_eq!(hull(&[[0.0; 3]; 3]), Err(HullError::TooFew));
        assert_eq!(hull(&[[1.0; 3]; 5]), Err(HullError::Colocated));
        let line: Vec<[f64; 3]> = (0..5).map(|i| [i as f64, 0.0, 0.0]).collect();
        assert_eq!(hull(&line), Err(HullError::Collinear));
        let plane: Vec<[f64; 3]> = (0..6).map(|i| [i as f64, (i * i) as f64, 0.0]).collect();
        assert_eq!(hull(&plane), Err(HullError::Coplanar));
    }

    #[test]
    fn example_hull() {
        let cube: Vec<[f64; 3]> = (0..8)
            .map(|i| [(i & 1) as f64, ((i >> 1) & 1) as f64, (i >> 2) as f64])
            .collect();
        let mut points = cube.clone();
        points.push([0.5, 0.5, 0.5]); // inside
        assert_eq!(hull(&points).unwrap().len(), 12);
    }
}
