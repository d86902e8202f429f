//! A three-dimensional convex hull by quickhull, for meshes given as vertices only (MuJoCo's
//! compiler takes their faces from the hull) and for `inertia="convex"`.
//!
//! The hull is triangulated: faces whose points are coplanar (within a tolerance relative to
//! the size of the point set) stay as the triangles first made over them, never overlapping,
//! so areas, volumes and inertias summed over the triangles are those of the hull. Faces are
//! oriented outwards (counter-clockwise seen from outside).

use std::collections::HashMap;

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

fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
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

struct Face {
    v: [usize; 3],
    normal: [f64; 3],
    offset: f64,
    outside: Vec<usize>,
    alive: bool,
}

struct Hull<'p> {
    points: &'p [[f64; 3]],
    faces: Vec<Face>,
    /// Directed edge (a, b) -> the face that has it.
    edges: HashMap<(usize, usize), usize>,
    eps: f64,
}

impl Hull<'_> {
    fn distance(&self, f: usize, p: usize) -> f64 {
        let face = &self.faces[f];
        dot(&face.normal, &self.points[p]) - face.offset
    }

    fn add_face(&mut self, v: [usize; 3]) -> usize {
        let [a, b, c] = v.map(|i| self.points[i]);
        let n = cross(&sub(&b, &a), &sub(&c, &a));
        let l = norm(&n);
        let normal = if l > 0.0 {
            [n[0] / l, n[1] / l, n[2] / l]
        } else {
            [0.0; 3]
        };
        let offset = dot(&normal, &a);
        let id = self.faces.len();
        self.faces.push(Face {
            v,
            normal,
            offset,
            outside: Vec::new(),
            alive: true,
        });
        for k in 0..3 {
            self.edges.insert((v[k], v[(k + 1) % 3]), id);
        }
        id
    }

    fn remove_face(&mut self, f: usize) {
        let v = self.faces[f].v;
        for k in 0..3 {
            if self.edges.get(&(v[k], v[(k + 1) % 3])) == Some(&f) {
                self.edges.remove(&(v[k], v[(k + 1) % 3]));
            }
        }
        self.faces[f].alive = false;
    }

    /// Gives each point to the first face of `faces` it lies outside of.
    fn assign(&mut self, candidates: &[usize], faces: &[usize]) {
        for &p in candidates {
            let mut best: Option<(usize, f64)> = None;
            for &f in faces {
                let d = self.distance(f, p);
                if d > self.eps && best.is_none_or(|(_, bd)| d > bd) {
                    best = Some((f, d));
                }
            }
            if let Some((f, _)) = best {
                self.faces[f].outside.push(p);
            }
        }
    }

    /// One step: the farthest outside point of some face joins the hull. False when done.
    fn step(&mut self) -> bool {
        let Some((start, apex)) = self.faces.iter().enumerate().find_map(|(i, f)| {
            if !f.alive || f.outside.is_empty() {
                return None;
            }
            let far = f.outside.iter().copied().max_by(|&a, &b| {
                let da = dot(&f.normal, &self.points[a]);
                let db = dot(&f.normal, &self.points[b]);
                da.total_cmp(&db)
            })?;
            Some((i, far))
        }) else {
            return false;
        };
        // Faces the apex sees, grown from the face it came from across shared edges.
        let mut visible = vec![start];
        let mut seen = std::collections::HashSet::from([start]);
        let mut k = 0;
        while k < visible.len() {
            let f = visible[k];
            k += 1;
            let v = self.faces[f].v;
            for e in 0..3 {
                if let Some(&g) = self.edges.get(&(v[(e + 1) % 3], v[e]))
                    && self.faces[g].alive
                    && !seen.contains(&g)
                    && self.distance(g, apex) > self.eps
                {
                    seen.insert(g);
                    visible.push(g);
                }
            }
        }
        // Horizon: edges of visible faces whose other side is not visible.
        let mut horizon = Vec::new();
        for &f in &visible {
            let v = self.faces[f].v;
            for e in 0..3 {
                let (a, b) = (v[e], v[(e + 1) % 3]);
                let other = self.edges.get(&(b, a)).copied();
                if other.is_none_or(|g| !seen.contains(&g)) {
                    horizon.push((a, b));
                }
            }
        }
        let mut orphans = Vec::new();
        for &f in &visible {
            orphans.append(&mut self.faces[f].outside);
            self.remove_face(f);
        }
        let new: Vec<usize> = horizon
            .iter()
            .map(|&(a, b)| self.add_face([a, b, apex]))
            .collect();
        orphans.retain(|&p| p != apex);
        self.assign(&orphans, &new);
        true
    }
}

/// The hull of `points` as outward triangles (indices into `points`).
pub(crate) fn hull(points: &[[f64; 3]]) -> Result<Vec<[usize; 3]>, HullError> {
    check(points)?;
    let extent = points
        .iter()
        .flat_map(|p| p.iter())
        .fold(0.0_f64, |m, x| m.max(x.abs()));
    let eps = 1e-10 * extent.max(f64::MIN_POSITIVE);
    // Initial simplex: the two points farthest apart along an axis, the point farthest from
    // their line, the point farthest from their plane.
    let mut pair = (0, 0, -1.0);
    for axis in 0..3 {
        let lo = (0..points.len())
            .min_by(|&a, &b| points[a][axis].total_cmp(&points[b][axis]))
            .unwrap_or(0);
        let hi = (0..points.len())
            .max_by(|&a, &b| points[a][axis].total_cmp(&points[b][axis]))
            .unwrap_or(0);
        let d = norm(&sub(&points[hi], &points[lo]));
        if d > pair.2 {
            pair = (lo, hi, d);
        }
    }
    let (a, b) = (pair.0, pair.1);
    let ab = sub(&points[b], &points[a]);
    let c = (0..points.len())
        .max_by(|&x, &y| {
            let dx = norm(&cross(&ab, &sub(&points[x], &points[a])));
            let dy = norm(&cross(&ab, &sub(&points[y], &points[a])));
            dx.total_cmp(&dy)
        })
        .unwrap_or(0);
    let n = cross(&ab, &sub(&points[c], &points[a]));
    let d = (0..points.len())
        .max_by(|&x, &y| {
            let dx = dot(&n, &sub(&points[x], &points[a])).abs();
            let dy = dot(&n, &sub(&points[y], &points[a])).abs();
            dx.total_cmp(&dy)
        })
        .unwrap_or(0);
    if a == b || c == a || c == b || d == a || d == b || d == c {
        return Err(HullError::Coplanar);
    }
    let mut h = Hull {
        points,
        faces: Vec::new(),
        edges: HashMap::new(),
        eps,
    };
    // Orient the simplex outwards: d must lie below the face (a, b, c).
    let (a, b) = if dot(&n, &sub(&points[d], &points[a])) > 0.0 {
        (b, a)
    } else {
        (a, b)
    };
    let first = [
        h.add_face([a, b, c]),
        h.add_face([a, d, b]),
        h.add_face([b, d, c]),
        h.add_face([c, d, a]),
    ];
    let rest: Vec<usize> = (0..points.len()).filter(|p| ![a, b, c, d].contains(p)).collect();
    h.assign(&rest, &first);
    while h.step() {}
    Ok(h.faces.iter().filter(|f| f.alive).map(|f| f.v).collect())
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
