//! Convex shapes in their own frame, described by their support function.

use crate::model::geometry::{Geometry, IndexedFaceSet, SphereItem};
use nalgebra::Vector3;

/// A convex set in its shape frame, with the geometry's conventions applied (half sizes).
#[derive(Clone, Debug)]
pub(super) enum Convex {
    /// Box with half extents.
    Box(Vector3<f64>),
    /// Ellipsoid (a sphere has three equal radii).
    Ellipsoid(Vector3<f64>),
    /// Cylinder along Z from `-half` to `+half`.
    Cylinder { radius: f64, half: f64 },
    /// Segment from `-half` to `+half` along Z swept by a sphere of `radius`.
    Capsule { radius: f64, half: f64 },
    /// Cone along Z: base disc of `radius` at `-half`, apex at `+half`.
    Cone { radius: f64, half: f64 },
    /// The hull of a finite point set (pyramid corners, mesh vertices).
    Points(Vec<Vector3<f64>>),
    /// The hull of spheres (centre, radius).
    Spheres(Vec<(Vector3<f64>, f64)>),
}

/// A size the module accepts: finite and not negative.
fn size(x: f64) -> Option<f64> {
    (x.is_finite() && x >= 0.0).then_some(x)
}

fn sizes<const N: usize>(xs: [f64; N]) -> Option<Vector3<f64>> {
    let mut v = Vector3::zeros();
    for (i, x) in xs.into_iter().enumerate().take(3) {
        v[i] = size(x)?;
    }
    Some(v)
}

fn point(p: [f64; 3]) -> Option<Vector3<f64>> {
    p.iter().all(|x| x.is_finite()).then(|| Vector3::from(p))
}

impl Convex {
    /// The convex set of a geometry; `None` for a plane (not bounded), a geometry whose extent
    /// mbconv does not know, and sizes that are negative or not finite.
    pub(super) fn of(geometry: &Geometry) -> Option<Convex> {
        Some(match geometry {
            Geometry::Box { size } => Convex::Box(sizes(*size)? * 0.5),
            Geometry::Sphere { radius } => Convex::Ellipsoid(Vector3::repeat(size(*radius)?)),
            Geometry::Ellipsoid { radii } => Convex::Ellipsoid(sizes(*radii)?),
            Geometry::Cylinder { radius, length } => Convex::Cylinder {
                radius: size(*radius)?,
                half: 0.5 * size(*length)?,
            },
            Geometry::Capsule { radius, length } => Convex::Capsule {
                radius: size(*radius)?,
                half: 0.5 * size(*length)?,
            },
            Geometry::Cone { radius, length } => Convex::Cone {
                radius: size(*radius)?,
                half: 0.5 * size(*length)?,
            },
            // geometry.rs states only "along Z with a rectangular base". Taken as the other
            // axisymmetric shapes are, centred at mid-height: base at -height/2, apex at
            // +height/2, which is DART's own bounding box of its PyramidShape (±base/2,
            // ±height/2; the DART reader formats/mbconv-skel keeps DART's numbers and frame).
            // mbconv-check's bounding sphere, radius |(w/2, d/2, h)| about the shape origin,
            // holds this pyramid too.
            Geometry::Pyramid {
                base_width,
                base_depth,
                height,
            } => {
                let h = sizes([*base_width, *base_depth, *height])? * 0.5;
                let mut corners = vec![Vector3::new(0.0, 0.0, h.z)];
                for (sx, sy) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)] {
                    corners.push(Vector3::new(sx * h.x, sy * h.y, -h.z));
                }
                Convex::Points(corners)
            }
            Geometry::MultiSphere { spheres } => multi_sphere(spheres)?,
            Geometry::TriangleMesh { vertices, triangles } => {
                let indices = triangles.iter().flatten().map(|&i| i as usize);
                referenced(vertices, indices.map(Some))?
            }
            Geometry::IndexedFaceSet(set) => face_set(set)?,
            Geometry::Plane { .. }
            | Geometry::Mesh(_)
            | Geometry::ConvexHull(_)
            | Geometry::FittedPrimitive { .. }
            | Geometry::Extrusion(_)
            | Geometry::ElevationGrid(_) => return None,
        })
    }

    /// A point of the set farthest along `d` (any point of the set when `d` is zero).
    pub(super) fn support(&self, d: &Vector3<f64>) -> Vector3<f64> {
        match self {
            Convex::Box(h) => Vector3::new(signed(h.x, d.x), signed(h.y, d.y), signed(h.z, d.z)),
            Convex::Ellipsoid(r) => {
                // The point of x²/a² + … = 1 whose normal is d: D² d / |D d|, D = diag(radii).
                let dd = r.component_mul(d);
                let n = dd.norm();
                if n > 0.0 {
                    r.component_mul(&dd) / n
                } else {
                    Vector3::zeros()
                }
            }
            Convex::Cylinder { radius, half } => {
                let rim = radial(*radius, d);
                Vector3::new(rim.0, rim.1, signed(*half, d.z))
            }
            Convex::Capsule { radius, half } => {
                Vector3::new(0.0, 0.0, signed(*half, d.z)) + unit(d) * *radius
            }
            Convex::Cone { radius, half } => {
                let apex = Vector3::new(0.0, 0.0, *half);
                let rim = radial(*radius, d);
                let base = Vector3::new(rim.0, rim.1, -*half);
                if apex.dot(d) >= base.dot(d) { apex } else { base }
            }
            Convex::Points(points) => farthest(points.iter().copied(), d),
            Convex::Spheres(spheres) => {
                let u = unit(d);
                farthest(spheres.iter().map(|(c, r)| c + u * *r), d)
            }
        }
    }
}

/// `h` with the sign of `x` (`+h` for zero).
fn signed(h: f64, x: f64) -> f64 {
    if x < 0.0 { -h } else { h }
}

/// `d / |d|`, zero for a zero vector.
fn unit(d: &Vector3<f64>) -> Vector3<f64> {
    let n = d.norm();
    if n > 0.0 { d / n } else { Vector3::zeros() }
}

/// The point of the circle of `radius` in the XY plane farthest along `d` (its centre when `d`
/// is along Z).
fn radial(radius: f64, d: &Vector3<f64>) -> (f64, f64) {
    let n = d.x.hypot(d.y);
    if n > 0.0 {
        (radius * d.x / n, radius * d.y / n)
    } else {
        (0.0, 0.0)
    }
}

fn farthest(points: impl Iterator<Item = Vector3<f64>>, d: &Vector3<f64>) -> Vector3<f64> {
    let mut best = (f64::NEG_INFINITY, Vector3::zeros());
    for p in points {
        let s = p.dot(d);
        if s > best.0 {
            best = (s, p);
        }
    }
    best.1
}

fn multi_sphere(spheres: &[SphereItem]) -> Option<Convex> {
    let items = spheres
        .iter()
        .map(|s| {
            let c = s.center;
            let finite = c.iter().all(|x| x.is_finite());
            Some((finite.then_some(c)?, size(s.radius)?))
        })
        .collect::<Option<Vec<_>>>()?;
    (!items.is_empty()).then_some(Convex::Spheres(items))
}

/// The vertices a mesh's faces use (`None` for an index out of range, a coordinate that is not
/// finite, or no face at all).
fn referenced(vertices: &[[f64; 3]], indices: impl Iterator<Item = Option<usize>>) -> Option<Convex> {
    let mut used = vec![false; vertices.len()];
    for i in indices {
        *used.get_mut(i?)? = true;
    }
    let points = vertices
        .iter()
        .zip(&used)
        .filter(|(_, u)| **u)
        .map(|(p, _)| point(*p))
        .collect::<Option<Vec<_>>>()?;
    (!points.is_empty()).then_some(Convex::Points(points))
}

fn face_set(set: &IndexedFaceSet) -> Option<Convex> {
    // `-1` ends a face; any other negative index is malformed.
    let indices = set
        .coord_index
        .iter()
        .filter(|&&i| i != -1)
        .map(|&i| usize::try_from(i).ok());
    referenced(&set.coordinate, indices)
}
