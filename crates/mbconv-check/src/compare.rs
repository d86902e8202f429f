//! Comparing two motions body by body, sample by sample.

use crate::motion::Motion;
use mbconv_ir::Report;
use nalgebra::Vector3;
use serde::Serialize;

/// How far two motions may part and still count as the same.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Tolerances {
    /// Largest distance between matched centres of mass (m).
    pub position: f64,
    /// Largest angle between matched rotations since t = 0 (rad).
    pub rotation: f64,
}

impl Default for Tolerances {
    /// 1 µm and 1 µrad: see `docs/check.md` for why.
    fn default() -> Self {
        Self {
            position: 1e-6,
            rotation: 1e-6,
        }
    }
}

/// Which body of the converted model stands for each body of the original.
///
/// A body keeps its name unless a report renamed it. Names are matched exactly first; a name
/// with no exact match follows the renames of the reports in order (so a reader that renames
/// a second `link` to `skel2/link` does not move the first one).
///
/// ```
/// use mbconv_check::BodyMatch;
/// let mut report = mbconv_ir::Report::default();
/// report.rename("body", "link 1", "link_1", "bodies[\"link_1\"]");
/// let names = ["link_1".to_owned(), "base".to_owned()];
/// let matching = BodyMatch::new(&["base".to_owned(), "link 1".to_owned()], &names, &[&report]);
/// assert_eq!(matching.pairs, [(0, Some(1)), (1, Some(0))]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyMatch {
    /// `(index in the original, index in the converted model)`, `None` when the body is gone.
    pub pairs: Vec<(usize, Option<usize>)>,
}

impl BodyMatch {
    /// Matches `original` names to `converted` names through the renames of `reports`.
    pub fn new(original: &[String], converted: &[String], reports: &[&Report]) -> Self {
        let find = |name: &str| converted.iter().position(|c| c == name);
        let pairs = original
            .iter()
            .enumerate()
            .map(|(i, name)| {
                if let Some(j) = find(name) {
                    return (i, Some(j));
                }
                let mut current = name.clone();
                for report in reports {
                    for rename in report.renames.iter().filter(|r| r.item == "body") {
                        if rename.from == current {
                            current.clone_from(&rename.to);
                        }
                    }
                }
                (i, find(&current))
            })
            .collect();
        Self { pairs }
    }
}

/// The largest differences between two motions, and where and when they occur.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// Largest distance between matched centres of mass (m); infinite when a body is missing
    /// or a simulation gave a non-finite value.
    pub max_com_error: f64,
    /// When it occurs (s).
    pub max_com_error_time: f64,
    /// Which body (original name).
    pub max_com_error_body: Option<String>,
    /// Largest angle between matched rotations since t = 0 (rad).
    pub max_rotation_error: f64,
    /// Which body (original name).
    pub max_rotation_error_body: Option<String>,
    /// Bodies of the original with no counterpart.
    pub missing: Vec<String>,
}

impl Difference {
    /// True when the motions agree within `tolerances` and no body is missing.
    pub fn within(&self, tolerances: &Tolerances) -> bool {
        self.missing.is_empty()
            && self.max_com_error <= tolerances.position
            && self.max_rotation_error <= tolerances.rotation
    }

    /// Compares `b` with `a` at every common sample, bodies matched by `matching`.
    ///
    /// ```
    /// use mbconv_check::{BodyMatch, Difference, Motion, SimulationSettings};
    /// use mbconv_ir::{Body, Model};
    /// let mut model = Model::new("drop");
    /// model.bodies.push(Body::new("ball"));
    /// let settings = SimulationSettings::new(0.1, 1e-3, mbconv_solver::Integrator::Rk4);
    /// let a = Motion::simulate(&model, &settings).unwrap();
    /// model.bodies[0].pose.translation.x = 1e-3;
    /// let b = Motion::simulate(&model, &settings).unwrap();
    /// let matching = BodyMatch::new(&a.bodies, &b.bodies, &[]);
    /// let d = Difference::between(&a, &b, &matching);
    /// assert!((d.max_com_error - 1e-3).abs() < 1e-12);
    /// assert_eq!(d.max_rotation_error, 0.0);
    /// ```
    pub fn between(a: &Motion, b: &Motion, matching: &BodyMatch) -> Self {
        Self::compared(a, b, matching, Voids::Either)
    }

    /// As [`Difference::between`], for two steps of one lowering ([`Voids::Both`]).
    pub(crate) fn between_lowering_steps(a: &Motion, b: &Motion, matching: &BodyMatch) -> Self {
        Self::compared(a, b, matching, Voids::Both)
    }

    fn compared(a: &Motion, b: &Motion, matching: &BodyMatch, voids: Voids) -> Self {
        let mut d = Difference {
            max_com_error: 0.0,
            max_com_error_time: 0.0,
            max_com_error_body: None,
            max_rotation_error: 0.0,
            max_rotation_error_body: None,
            missing: Vec::new(),
        };
        for &(i, j) in &matching.pairs {
            let Some(j) = j else {
                d.missing.push(a.bodies[i].clone());
                continue;
            };
            for (s, t) in a.times.iter().enumerate().take(b.times.len()) {
                let com = com_distance(a, b, s, i, j, voids);
                if com > d.max_com_error {
                    d.max_com_error = com;
                    d.max_com_error_time = *t;
                    d.max_com_error_body = Some(a.bodies[i].clone());
                }
                let rotation = finite_or_infinite(a.rotation[s][i].angle_to(&b.rotation[s][j]));
                if rotation > d.max_rotation_error {
                    d.max_rotation_error = rotation;
                    d.max_rotation_error_body = Some(a.bodies[i].clone());
                }
            }
        }
        if !d.missing.is_empty() {
            d.max_com_error = f64::INFINITY;
        }
        d
    }
}

/// Which bodies a comparison leaves the centre of mass of out ([`Motion::is_void`]: a body that
/// carries nothing has none, and its frame is where a format's convention puts it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Voids {
    /// A body void on either side: the two motions are of models two formats placed.
    Either,
    /// Only a body void on both sides: the two motions are of two steps of one lowering, which
    /// place a void body alike, so a pass that gives one mass (MuJoCo's mass floor) moves a
    /// centre of mass that the step before had at the body's frame, and that motion is
    /// measured.
    Both,
}

/// The bodies of `a` (by name) whose centre of mass or rotation parts from their match in `b`
/// by more than `tolerances` at some sample, and the bodies `b` has no match for; `a` and `b`
/// are two steps of one lowering ([`Voids::Both`]).
pub(crate) fn moved_bodies(
    a: &Motion,
    b: &Motion,
    matching: &BodyMatch,
    tolerances: &Tolerances,
) -> Vec<String> {
    let mut moved = Vec::new();
    for &(i, j) in &matching.pairs {
        let parted = match j {
            None => true,
            Some(j) => a.times.iter().enumerate().take(b.times.len()).any(|(s, _)| {
                let com = com_distance(a, b, s, i, j, Voids::Both);
                let rotation = finite_or_infinite(a.rotation[s][i].angle_to(&b.rotation[s][j]));
                com > tolerances.position || rotation > tolerances.rotation
            }),
        };
        if parted {
            moved.push(a.bodies[i].clone());
        }
    }
    moved
}

/// Every body's error at every sample both motions reached: `(position, rotation)`, each
/// `[sample][body of a]`, the centre-of-mass distance (m) and the rotation angle (rad) that
/// [`Difference::between`] takes the largest of; NaN for a body with no match in `b`.
pub(crate) fn body_errors(a: &Motion, b: &Motion, matching: &BodyMatch) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let samples = a.times.len().min(b.times.len());
    let mut position = vec![vec![f64::NAN; a.bodies.len()]; samples];
    let mut rotation = position.clone();
    for &(i, j) in &matching.pairs {
        let Some(j) = j else { continue };
        for s in 0..samples {
            position[s][i] = com_distance(a, b, s, i, j, Voids::Either);
            rotation[s][i] = finite_or_infinite(a.rotation[s][i].angle_to(&b.rotation[s][j]));
        }
    }
    (position, rotation)
}

/// The distance between the centres of mass of body `i` of `a` and body `j` of `b` at sample
/// `s`; zero when a body carries nothing ([`Motion::is_void`]: it has no centre of mass) on the
/// sides `voids` says. Where the two bodies' masses differ, the centres of mass of the rigid assemblies they
/// belong to through fixed joints ([`Motion::assembly_com`]) are compared instead: mass moved
/// across a fixed joint (a writer's `inertia_lumped`) moves a body's own centre of mass but
/// not its assembly's, nor anything's motion, while a mass that changed moves both.
fn com_distance(a: &Motion, b: &Motion, s: usize, i: usize, j: usize, voids: Voids) -> f64 {
    let a_void = a.void.get(i).copied().unwrap_or(false);
    let b_void = b.void.get(j).copied().unwrap_or(false);
    let skipped = match voids {
        Voids::Either => a_void || b_void,
        Voids::Both => a_void && b_void,
    };
    if skipped {
        return 0.0;
    }
    if let (Some(x), Some(y)) = (a.mass.get(i), b.mass.get(j))
        && x != y
    {
        return finite_or_infinite((a.assembly_com(s, i) - b.assembly_com(s, j)).norm());
    }
    finite_or_infinite((a.com[s][i] - b.com[s][j]).norm())
}

fn finite_or_infinite(x: f64) -> f64 {
    if x.is_finite() { x } else { f64::INFINITY }
}

/// The centre-of-mass path of body `i` of a motion.
pub(crate) fn com_path(motion: &Motion, i: usize) -> Vec<Vector3<f64>> {
    motion.com.iter().map(|sample| sample[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    /// A reader that renames a second `link` to `skel2/link` must not move the first one.
    #[test]
    fn exact_names_win_over_renames() {
        let mut report = Report::default();
        report.rename("body", "link", "skel2/link", "bodies[\"skel2/link\"]");
        let original = names(&["link", "skel2/link"]);
        let converted = names(&["link", "skel2/link"]);
        let matching = BodyMatch::new(&original, &converted, &[&report]);
        assert_eq!(matching.pairs, [(0, Some(0)), (1, Some(1))]);
    }

    /// Renames chain through the reports in order: lower, emit, then the reader.
    #[test]
    fn renames_chain_through_the_reports() {
        let mut lower = Report::default();
        lower.rename("body", "a b", "a_b", "bodies[\"a_b\"]");
        let mut reader = Report::default();
        reader.rename("body", "a_b", "s/a_b", "bodies[\"s/a_b\"]");
        reader.rename("joint", "x", "y", "joints[\"y\"]");
        let matching = BodyMatch::new(&names(&["a b"]), &names(&["s/a_b"]), &[&lower, &reader]);
        assert_eq!(matching.pairs, [(0, Some(0))]);
        let unmatched = BodyMatch::new(&names(&["x"]), &names(&["y"]), &[&reader]);
        assert_eq!(unmatched.pairs, [(0, None)], "joint renames do not rename bodies");
    }
}
