//! The Gilbert–Johnson–Keerthi distance between two placed convex sets.
//!
//! GJK looks for the point `v` of the Minkowski difference `A - B` nearest the origin, from a
//! simplex of at most four points of that difference, each found by the support functions.
//! Every step gives an upper bound `|v|` and a lower bound `v̂ · w` (`w` the support point of
//! `A - B` along `-v`: the whole difference lies beyond it along `v̂`).

use super::support::Convex;
use nalgebra::{UnitQuaternion, Vector3};

type V3 = Vector3<f64>;

/// Iteration cap.
pub(super) const MAX_ITERATIONS: usize = 64;
/// Converged when the upper and lower bounds differ by this fraction of the distance…
const RELATIVE_TOLERANCE: f64 = 1e-10;
/// …or by this fraction of the size of the problem (coordinates of the support points).
const ABSOLUTE_TOLERANCE: f64 = 1e-14;

/// A convex set at a rigid placement (rotation, then translation).
pub(super) struct Placed<'a> {
    pub(super) convex: &'a Convex,
    pub(super) rotation: UnitQuaternion<f64>,
    pub(super) translation: V3,
}

impl Placed<'_> {
    fn support(&self, d: &V3) -> V3 {
        let local = self.rotation.inverse_transform_vector(d);
        self.rotation * self.convex.support(&local) + self.translation
    }
}

/// How GJK ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// The bounds met within tolerance.
    Converged,
    /// The sets overlap or touch (both bounds 0).
    Overlap,
    /// No progress in floating point: the support point along `-v` is already in the simplex,
    /// or the simplex's nearest point is no nearer.
    Stalled,
    /// [`MAX_ITERATIONS`] reached.
    Capped,
}

/// What GJK found: bounds on the distance, how it ended and after how many iterations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Outcome {
    /// The best lower bound (≥ 0): the distance it reports, in every case.
    pub(super) lower: f64,
    /// The last upper bound `|v|`.
    pub(super) upper: f64,
    pub(super) end: End,
    pub(super) iterations: usize,
}

/// The distance between `a` and `b`.
pub(super) fn distance(a: &Placed<'_>, b: &Placed<'_>) -> Outcome {
    let cso = |d: &V3| a.support(d) - b.support(&-d);
    let start = b.translation - a.translation;
    let d0 = if start.norm_squared() > 0.0 {
        start
    } else {
        V3::x()
    };
    let mut scale = a.translation.norm().max(b.translation.norm());
    let mut v = cso(&d0);
    let mut simplex = vec![v];
    let mut lower = 0.0f64;
    // Rounding may put the lower bound an ulp above the upper one.
    let outcome = |lower: f64, upper: f64, end: End, iterations: usize| Outcome {
        lower: lower.min(upper),
        upper,
        end,
        iterations,
    };
    for iteration in 1..=MAX_ITERATIONS {
        let vn = v.norm();
        scale = scale.max(vn);
        if vn <= ABSOLUTE_TOLERANCE * scale {
            return outcome(0.0, 0.0, End::Overlap, iteration);
        }
        let w = cso(&-v);
        scale = scale.max(w.norm());
        // The whole difference lies beyond w along v̂.
        lower = lower.max(v.dot(&w) / vn);
        if vn - lower <= (RELATIVE_TOLERANCE * vn).max(ABSOLUTE_TOLERANCE * scale) {
            return outcome(lower, vn, End::Converged, iteration);
        }
        if simplex.contains(&w) {
            return outcome(lower, vn, End::Stalled, iteration);
        }
        simplex.push(w);
        match nearest(&simplex) {
            (None, _) => return outcome(0.0, 0.0, End::Overlap, iteration),
            (Some(next), _) if next.norm_squared() >= vn * vn => {
                return outcome(lower, vn, End::Stalled, iteration);
            }
            (Some(next), kept) => {
                v = next;
                simplex = kept;
            }
        }
    }
    outcome(lower, v.norm(), End::Capped, MAX_ITERATIONS)
}

/// The point of the simplex nearest the origin and the vertices of the face it lies on;
/// `None` when the origin is inside (or on) a tetrahedron.
fn nearest(simplex: &[V3]) -> (Option<V3>, Vec<V3>) {
    match *simplex {
        [a] => (Some(a), vec![a]),
        [a, b] => {
            let (p, kept) = segment(a, b);
            (Some(p), kept)
        }
        [a, b, c] => {
            let (p, kept) = triangle(a, b, c);
            (Some(p), kept)
        }
        [a, b, c, d] => tetrahedron(a, b, c, d),
        _ => (None, simplex.to_vec()),
    }
}

fn segment(a: V3, b: V3) -> (V3, Vec<V3>) {
    let ab = b - a;
    let denominator = ab.norm_squared();
    let t = if denominator > 0.0 {
        -a.dot(&ab) / denominator
    } else {
        0.0
    };
    if t <= 0.0 {
        (a, vec![a])
    } else if t >= 1.0 {
        (b, vec![b])
    } else {
        (a + ab * t, vec![a, b])
    }
}

fn triangle(a: V3, b: V3, c: V3) -> (V3, Vec<V3>) {
    let (ab, ac) = (b - a, c - a);
    let n = ab.cross(&ac);
    let nn = n.norm_squared();
    // Not flat: the foot of the perpendicular from the origin, when it falls inside.
    if nn > 1e-24 * ab.norm_squared() * ac.norm_squared() {
        let foot = n * (n.dot(&a) / nn);
        let ap = foot - a;
        let s = ap.cross(&ac).dot(&n) / nn;
        let t = ab.cross(&ap).dot(&n) / nn;
        if s >= 0.0 && t >= 0.0 && s + t <= 1.0 {
            return (a + ab * s + ac * t, vec![a, b, c]);
        }
    }
    // Outside (or a flat triangle): the nearest point is on an edge.
    nearest_of([segment(a, b), segment(a, c), segment(b, c)])
}

fn tetrahedron(a: V3, b: V3, c: V3, d: V3) -> (Option<V3>, Vec<V3>) {
    let faces = [(a, b, c, d), (a, b, d, c), (a, c, d, b), (b, c, d, a)];
    let volume = (b - a).cross(&(c - a)).dot(&(d - a));
    let edges = (b - a).norm() * (c - a).norm() * (d - a).norm();
    let flat = volume.abs() <= 1e-12 * edges;
    let mut outside = Vec::new();
    for (p, q, r, opposite) in faces {
        let n = (q - p).cross(&(r - p));
        // The origin and the opposite vertex on either side of the face's plane.
        if flat || n.dot(&-p) * n.dot(&(opposite - p)) < 0.0 {
            outside.push(triangle(p, q, r));
        }
    }
    if outside.is_empty() {
        return (None, vec![a, b, c, d]);
    }
    let (p, kept) = nearest_of(outside);
    (Some(p), kept)
}

fn nearest_of(candidates: impl IntoIterator<Item = (V3, Vec<V3>)>) -> (V3, Vec<V3>) {
    let mut best: Option<(V3, Vec<V3>)> = None;
    for (p, kept) in candidates {
        if best
            .as_ref()
            .is_none_or(|(b, _)| p.norm_squared() < b.norm_squared())
        {
            best = Some((p, kept));
        }
    }
    best.unwrap_or((V3::zeros(), Vec::new()))
}
