//! Which lowering pass moved which body: when the original (A) and the lowered model (L) move
//! apart, the format's passes are replayed one at a time ([`Format::lower_traced`]); every
//! intermediate model that differs from the one before is simulated, and each change of
//! motion is attributed to the pass that made it. A pass that changed the motion is excused
//! only by one of its own findings that can change motion
//! ([`Finding::can_change_motion`]) on an item that touches a body that moved (through massless
//! bodies to the bodies they carry), or when its
//! change is within what rounding alone does to the model after it ([`crate::rounding`]).

use crate::compare::{BodyMatch, Difference, Tolerances, moved_bodies};
use crate::motion::{Motion, SimulationSettings};
use crate::rounding::{rounding_sensitivity, widened};
use crate::roundtrip::{Step, StepError};
use mbconv_ir::format::kit::PassSnapshot;
use mbconv_ir::format::{Format, Options, Registry};
use mbconv_ir::{BodyRef, ConstraintKind, Finding, ForceKind, Model, MotorTarget, Report, RestraintTarget};
use serde::Serialize;
use std::collections::BTreeSet;

/// One finding that explains (part of) a difference: the pass that made the change, the
/// finding's code and IR path, and how far the pass's change alone moved a body's centre of
/// mass (the replayed model after the pass against the one before it).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Explanation {
    /// The lowering pass.
    pub pass: String,
    /// The finding's code (`chrono.joint_limits_lost`).
    pub code: String,
    /// The IR path of the item the finding is about (empty for the whole model).
    pub path: String,
    /// The largest COM distance the pass's own change caused (m).
    pub max_com_error: f64,
    /// For [`ROUNDING_CODE`]: how far a last-bit change of the model's own numbers moves it
    /// (m and rad; see [`crate::rounding`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounding_sensitivity: Option<Tolerances>,
}

/// The code of an [`Explanation`] that is no finding: the pass changed the motion no more than
/// rounding alone moves the model ([`crate::rounding`]).
pub const ROUNDING_CODE: &str = "check.rounding";

/// What the replay found.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Attribution {
    /// Every pass that changed the motion reported a loss that can explain it.
    Explained(Vec<Explanation>),
    /// A pass changed the motion without such a finding.
    Guilty {
        /// The pass.
        pass: String,
        /// What its change did.
        difference: Difference,
        /// The bodies that moved.
        moved: Vec<String>,
        /// Findings that explain other passes.
        others: Vec<Explanation>,
    },
    /// No single pass changed the motion beyond the tolerances, yet together they did.
    Accumulated,
}

/// Replays `format`'s lowering of `model` pass by pass, simulating each changed model with
/// `simulation`, starting from the original's motion `original`. A turn by the shared write
/// setting `up` is the first pass (`reorient`); the models after it move in the turned
/// world, and their motion is turned back before it is compared.
pub(crate) fn attribute(
    registry: &Registry,
    format: &dyn Format,
    model: &Model,
    options: &Options,
    original: &Motion,
    simulation: &SimulationSettings,
    tolerances: &Tolerances,
) -> Result<Attribution, StepError> {
    let traced = registry
        .lower_traced(format, model, options)
        .map_err(|e| StepError::new(Step::Lower, e))?;
    let turn_back = traced.turned_by.map(|turn| turn.inverse());
    let mut before_model = model.clone();
    let mut before_motion = original.clone();
    let mut explanations = Vec::new();
    // Passes whose model could not be simulated on its own (a pass that drops a joint before
    // the pass that drops the elements naming it leaves such a model): their change is judged
    // together with the next pass's, and their findings excuse it too.
    let mut pending: Vec<&PassSnapshot> = Vec::new();
    let last = traced.passes.iter().rposition(|p| p.model.is_some());
    for (index, snapshot) in traced.passes.iter().enumerate() {
        let Some(after_model) = &snapshot.model else {
            continue;
        };
        pending.push(snapshot);
        let after_motion = match Motion::simulate(after_model, simulation) {
            Ok(motion) => motion,
            Err(_) if Some(index) != last => continue,
            Err(e) => {
                let names: Vec<&str> = pending.iter().map(|p| p.pass.as_str()).collect();
                return Err(StepError::new(
                    Step::SimulateLowered,
                    format!("after lowering pass {}: {e}", names.join(" + ")),
                ));
            }
        };
        let pass = pending
            .iter()
            .map(|p| p.pass.as_str())
            .collect::<Vec<_>>()
            .join(" + ");
        let reports: Vec<&Report> = pending.iter().map(|p| &p.report).collect();
        // Compared in the original's world: every pass after a turn moves in the turned one.
        let (after_seen, after_unturned) = match &turn_back {
            Some(turn) => (after_motion.turned(turn), Some(after_motion)),
            None => (after_motion, None),
        };
        let matching = BodyMatch::new(&before_motion.bodies, &after_seen.bodies, &reports);
        let difference = Difference::between(&before_motion, &after_seen, &matching);
        if !difference.within(tolerances) {
            let moved = moved_bodies(&before_motion, &after_seen, &matching, tolerances);
            let excuses: Vec<(&str, &Finding)> = pending
                .iter()
                .flat_map(|p| p.report.findings.iter().map(move |f| (p.pass.as_str(), f)))
                .filter(|(_, f)| f.can_change_motion())
                .filter(|(_, f)| {
                    touches(
                        &before_model,
                        after_model,
                        f.path.as_deref().unwrap_or(""),
                        &moved,
                    )
                })
                .collect();
            if excuses.is_empty() {
                // Not the pass's doing if rounding alone moves the model as far.
                let own_motion = after_unturned.as_ref().unwrap_or(&after_seen);
                let rounding = rounding_sensitivity(after_model, simulation, own_motion)
                    .filter(|s| difference.within(&widened(tolerances, s)));
                let Some(sensitivity) = rounding else {
                    return Ok(Attribution::Guilty {
                        pass,
                        difference,
                        moved,
                        others: explanations,
                    });
                };
                explanations.push(Explanation {
                    pass,
                    code: ROUNDING_CODE.to_owned(),
                    path: String::new(),
                    max_com_error: difference.max_com_error,
                    rounding_sensitivity: Some(sensitivity),
                });
            }
            let mut seen = BTreeSet::new();
            for (pass, finding) in excuses {
                let path = finding.path.clone().unwrap_or_default();
                if seen.insert((finding.code.clone(), path.clone())) {
                    explanations.push(Explanation {
                        pass: pass.to_owned(),
                        code: finding.code.clone(),
                        path,
                        max_com_error: difference.max_com_error,
                        rounding_sensitivity: None,
                    });
                }
            }
        }
        pending.clear();
        before_model.clone_from(after_model);
        before_motion = after_seen;
    }
    if explanations.is_empty() {
        Ok(Attribution::Accumulated)
    } else {
        Ok(Attribution::Explained(explanations))
    }
}

/// The sum over the explaining passes of the motion each caused on its own (each pass once).
pub(crate) fn summed_pass_motion(explanations: &[Explanation]) -> f64 {
    let mut passes = BTreeSet::new();
    explanations
        .iter()
        .filter(|e| passes.insert(e.pass.clone()))
        .map(|e| e.max_com_error)
        .sum()
}

/// Whether the item at `path` touches one of the bodies `moved`: the body itself, a joint's
/// parent or child, a force element's, motor's, load's or constraint's bodies, a group's
/// members; gravity and the model as a whole touch every body. The item is looked up in the
/// model before the pass and, if the pass removed it there, after it.
fn touches(before: &Model, after: &Model, path: &str, moved: &[String]) -> bool {
    let Some(bodies) = bodies_of(before, path).or_else(|| bodies_of(after, path)) else {
        return false;
    };
    match bodies {
        Touched::All => !moved.is_empty(),
        Touched::Bodies(names) => {
            let names = through_massless(before, names);
            names.iter().any(|n| moved.iter().any(|m| m == n))
        }
    }
}

/// `names` and, through every massless body among them, the bodies joined to it (again
/// through massless ones): a massless body has no centre of mass to compare, so what a change
/// at its joint does shows in the bodies it carries or hangs from.
fn through_massless(model: &Model, mut names: Vec<String>) -> Vec<String> {
    let massless = |name: &str| model.body(name).is_some_and(|b| b.inertial.mass == 0.0);
    let mut next = 0;
    while next < names.len() {
        let name = names[next].clone();
        next += 1;
        if !massless(&name) {
            continue;
        }
        for joint in &model.joints {
            let (parent, child) = (joint.parent.name(), joint.child.name());
            let other = if parent == Some(name.as_str()) {
                child
            } else if child == Some(name.as_str()) {
                parent
            } else {
                None
            };
            if let Some(other) = other
                && !names.iter().any(|n| n == other)
            {
                names.push(other.to_owned());
            }
        }
    }
    names
}

enum Touched {
    All,
    Bodies(Vec<String>),
}

fn bodies_of(model: &Model, path: &str) -> Option<Touched> {
    if path.is_empty() || path == "model" || path.starts_with("simulation") {
        return Some(Touched::All);
    }
    let (list, name) = item_of(path)?;
    let names = |refs: &[&BodyRef]| -> Vec<String> {
        refs.iter().filter_map(|r| r.name()).map(str::to_owned).collect()
    };
    // A change at a joint moves its two bodies and everything that hangs from its child (an
    // initial position lost at a drum moves the nozzle on it).
    let joint_bodies = |joint: &str| -> Option<Vec<String>> {
        let j = model.joints.iter().find(|j| j.name == joint)?;
        let mut bodies = names(&[&j.parent, &j.child]);
        let mut below: Vec<String> = names(&[&j.child]);
        while let Some(from) = below.pop() {
            for joint in &model.joints {
                if joint.parent.name() == Some(from.as_str())
                    && let Some(child) = joint.child.name()
                    && !bodies.iter().any(|b| b == child)
                {
                    bodies.push(child.to_owned());
                    below.push(child.to_owned());
                }
            }
        }
        Some(bodies)
    };
    let bodies = match list {
        "bodies" => vec![name],
        "joints" => joint_bodies(&name)?,
        "force_elements" => {
            let e = model.force_elements.iter().find(|e| e.name == name)?;
            match &e.kind {
                ForceKind::Tsda(t) => names(&[&t.body1, &t.body2]),
                ForceKind::Rsda(r) => names(&[&r.body1, &r.body2]),
                ForceKind::Bushing(b) => names(&[&b.body_a, &b.body_c]),
                ForceKind::Restraint(r) => match &r.target {
                    RestraintTarget::Joint { joint, .. } => joint_bodies(joint)?,
                    RestraintTarget::FramePair { body1, body2, .. } => names(&[body1, body2]),
                },
            }
        }
        "motors" => {
            let m = model.motors.iter().find(|m| m.name == name)?;
            match &m.target {
                MotorTarget::BodyPair { body1, body2, .. } => names(&[body1, body2]),
                MotorTarget::Joint { joint, .. } => joint_bodies(joint)?,
            }
        }
        "constraints" => {
            let c = model.constraints.iter().find(|c| c.name == name)?;
            match &c.kind {
                ConstraintKind::Distance { body1, body2, .. }
                | ConstraintKind::RevoluteSpherical { body1, body2, .. }
                | ConstraintKind::RevoluteTranslational { body1, body2, .. }
                | ConstraintKind::ExtraJoint { body1, body2, .. } => names(&[body1, body2]),
            }
        }
        "loads" => vec![model.loads.iter().find(|l| l.name == name)?.body.clone()],
        "groups" => {
            let g = model.groups.iter().find(|g| g.name == name)?;
            let mut bodies = g.bodies.clone();
            for joint in &g.joints {
                bodies.extend(joint_bodies(joint).unwrap_or_default());
            }
            bodies
        }
        _ => return None,
    };
    Some(Touched::Bodies(bodies))
}

/// `("joints", "elbow")` from `joints["elbow"].dofs[0]`: the list and the item's name, as
/// [`mbconv_ir::report::path::item`] writes them (a Rust string literal).
fn item_of(path: &str) -> Option<(&str, String)> {
    let open = path.find("[\"")?;
    let list = &path[..open];
    let mut name = String::new();
    let mut chars = path[open + 2..].chars();
    loop {
        match chars.next()? {
            '"' => return Some((list, name)),
            '\\' => match chars.next()? {
                'n' => name.push('\n'),
                't' => name.push('\t'),
                'r' => name.push('\r'),
                '0' => name.push('\0'),
                'u' => {
                    let hex: String = chars.by_ref().skip(1).take_while(|c| *c != '}').collect();
                    name.push(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)?);
                }
                other => name.push(other),
            },
            c => name.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use mbconv_ir::report::path;
    use mbconv_ir::{Body, Joint, JointKind};

    #[test]
    fn item_paths_round_trip_through_the_writer() {
        for name in ["elbow", "a \"quoted\" name", "back\\slash", "tab\there", "é"] {
            let p = path::field(&path::item("joints", name), "dofs[0]");
            assert_eq!(item_of(&p), Some(("joints", name.to_owned())), "{p}");
        }
        assert_eq!(item_of("simulation.gravity"), None);
    }

    #[test]
    fn a_joint_touches_its_bodies_and_gravity_touches_all() {
        let mut m = Model::new("m");
        m.bodies.push(Body::new("upper"));
        m.bodies.push(Body::new("lower"));
        m.joints.push(Joint::new(
            "elbow",
            JointKind::Revolute {
                axis: nalgebra::Vector3::z(),
            },
            BodyRef::body("upper"),
            BodyRef::body("lower"),
        ));
        let moved = ["lower".to_owned()];
        assert!(touches(&m, &m, "joints[\"elbow\"].dofs[0].damping", &moved));
        assert!(touches(&m, &m, "simulation.gravity", &moved));
        assert!(!touches(&m, &m, "bodies[\"upper\"]", &moved));
        assert!(!touches(&m, &m, "joints[\"gone\"]", &moved));
        assert!(!touches(&m, &m, "simulation.gravity", &[]));
    }

    #[test]
    fn a_joint_of_a_massless_body_touches_the_bodies_it_carries() {
        let mut m = Model::new("m");
        let mut link = Body::new("link");
        link.inertial.mass = 0.0;
        m.bodies.push(link);
        m.bodies.push(Body::new("load"));
        m.bodies.push(Body::new("elsewhere"));
        let slide = JointKind::Prismatic {
            axis: nalgebra::Vector3::x(),
        };
        m.joints
            .push(Joint::new("slide", slide, BodyRef::World, BodyRef::body("link")));
        m.joints.push(Joint::new(
            "weld",
            JointKind::Fixed,
            BodyRef::body("link"),
            BodyRef::body("load"),
        ));
        m.joints.push(Joint::new(
            "pin",
            JointKind::Spherical,
            BodyRef::World,
            BodyRef::body("elsewhere"),
        ));
        assert!(touches(
            &m,
            &m,
            "joints[\"slide\"].dofs[0].damping",
            &["load".to_owned()]
        ));
        assert!(!touches(
            &m,
            &m,
            "joints[\"slide\"].dofs[0].damping",
            &["elsewhere".to_owned()]
        ));
    }
}
