//! Which lowering pass moved which body: when the original (A) and the lowered model (L) move
//! apart, the format's passes are replayed one at a time ([`Format::lower_traced`]); every
//! intermediate model that differs from the one before is simulated, and each change of
//! motion is attributed to the pass that made it, body by body: every body the pass moved must
//! be explained by one of the pass's own findings that can move that body. A finding can move
//! bodies when it records a loss of a quantity mbconv's solver simulates
//! ([`Finding::can_change_motion`]; velocity and effort limits only on a joint whose servo
//! uses them), and it can move the bodies its item touches and every body coupled to them
//! through joints, constraints, force elements and motors, up to the world: a body welded to
//! the world (massless or not) moves nothing beyond itself. A pass with a moved body no such
//! finding explains is excused only when its whole change is within what rounding alone does
//! to the model before it ([`crate::rounding`]).

use crate::compare::{BodyMatch, Difference, Tolerances, moved_bodies};
use crate::motion::{DynamicsKey, Motion, MotionMemo, SimulationSettings};
use crate::rounding::covering_sensitivity;
use crate::roundtrip::{Step, StepError};
use mbconv_ir::format::kit::PassSnapshot;
use mbconv_ir::format::support::Feature;
use mbconv_ir::format::{Format, Options, Registry};
use mbconv_ir::{
    ActuatorKind, BodyRef, ConstraintKind, Finding, ForceKind, JointKind, Model, MotorTarget, Report,
    RestraintTarget,
};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

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

/// The motions the check has already simulated: the original's, and the lowered model's with
/// its [`DynamicsKey`] (in the converted world). A pass whose model the solver reads as the
/// one before it, or as the lowered one, is not simulated again.
pub(crate) struct Known<'m> {
    pub original: &'m Motion,
    pub lowered: (DynamicsKey, &'m Motion),
    /// Every motion the check simulated (another target's passes may have made the same model).
    pub motions: &'m MotionMemo,
}

/// Replays `format`'s lowering of `model` pass by pass, simulating each model that changed what
/// the solver reads with `simulation` (the others reuse a motion already known), starting from
/// the original's motion. A turn by the shared write setting `up` is the first pass
/// (`reorient`); the models after it move in the turned world, and their motion is turned back
/// before it is compared.
pub(crate) fn attribute(
    registry: &Registry,
    format: &dyn Format,
    model: &Model,
    options: &Options,
    known: &Known,
    simulation: &SimulationSettings,
    tolerances: &Tolerances,
) -> Result<Attribution, StepError> {
    let original = known.original;
    let traced = registry
        .lower_traced(format, model, options)
        .map_err(|e| StepError::new(Step::Lower, e))?;
    let turn_back = traced.turned_by.map(|turn| turn.inverse());
    let mut before_model = model.clone();
    let mut before_key = DynamicsKey::of(model);
    let mut before_motion = original.clone();
    // The model before the pass moving in its own world (turned by `up` after that pass).
    let mut before_own_motion = original.clone();
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
        let after_key = DynamicsKey::of(after_model);
        let reused = if after_key == before_key {
            Some(before_own_motion.reused_for(after_model))
        } else if after_key == known.lowered.0 {
            Some(known.lowered.1.reused_for(after_model))
        } else {
            None
        };
        let after_motion = match reused.map_or_else(|| known.motions.simulate(after_model, simulation), Ok) {
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
        let difference = Difference::between_lowering_steps(&before_motion, &after_seen, &matching);
        if !difference.within(tolerances) {
            let moved = moved_bodies(&before_motion, &after_seen, &matching, tolerances);
            let findings: Vec<(&str, &Finding)> = pending
                .iter()
                .flat_map(|p| p.report.findings.iter().map(move |f| (p.pass.as_str(), f)))
                .filter(|(_, f)| can_move(f, &before_model))
                .collect();
            let reaches: Vec<Reach> = findings
                .iter()
                .map(|(_, f)| reach(&before_model, after_model, f.path.as_deref().unwrap_or("")))
                .collect();
            let unexplained: Vec<String> = moved
                .iter()
                .filter(|body| !reaches.iter().any(|r| r.contains(body)))
                .cloned()
                .collect();
            if !unexplained.is_empty() {
                // Not the pass's doing if rounding alone moves the model before it as far.
                let rounding = covering_sensitivity(
                    &before_model,
                    simulation,
                    &before_own_motion,
                    &difference,
                    tolerances,
                );
                let Some(sensitivity) = rounding else {
                    return Ok(Attribution::Guilty {
                        pass,
                        difference,
                        moved: unexplained,
                        others: explanations,
                    });
                };
                explanations.push(Explanation {
                    pass: pass.clone(),
                    code: ROUNDING_CODE.to_owned(),
                    path: String::new(),
                    max_com_error: difference.max_com_error,
                    rounding_sensitivity: Some(sensitivity),
                });
            }
            let mut seen = BTreeSet::new();
            for ((pass, finding), reach) in findings.iter().zip(&reaches) {
                if !moved.iter().any(|body| reach.contains(body)) {
                    continue;
                }
                let path = finding.path.clone().unwrap_or_default();
                if seen.insert((finding.code.clone(), path.clone())) {
                    explanations.push(Explanation {
                        pass: (*pass).to_owned(),
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
        before_key = after_key;
        before_own_motion = match after_unturned {
            Some(own) => own,
            None => after_seen.clone(),
        };
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

/// Whether `finding` can move bodies in `model`: a loss of a quantity mbconv's solver
/// simulates ([`Finding::can_change_motion`]). Velocity and effort limits are simulated only
/// where a servo actuator uses its effort limits, so a finding about them excuses motion only
/// at a joint with a servo.
fn can_move(finding: &Finding, model: &Model) -> bool {
    if !finding.can_change_motion() {
        return false;
    }
    if finding.feature != Some(Feature::JointVelocityEffortLimits) {
        return true;
    }
    let path = finding.path.as_deref().unwrap_or("");
    match item_of(path) {
        Some(("joints", name)) => model
            .joints
            .iter()
            .find(|j| j.name == name)
            .is_some_and(|j| j.actuator == Some(ActuatorKind::Servo)),
        _ => false,
    }
}

/// The bodies a change at one item can move.
#[derive(Debug)]
enum Reach {
    /// Every body (gravity, the model as a whole).
    All,
    /// These bodies, by name.
    Bodies(BTreeSet<String>),
}

impl Reach {
    fn contains(&self, body: &str) -> bool {
        match self {
            Reach::All => true,
            Reach::Bodies(names) => names.contains(body),
        }
    }
}

/// The bodies a change at the item at `path` can move: the bodies the item touches and every
/// body coupled to them ([`coupled`]). The item is looked up in the model before the pass and,
/// if the pass removed it there, after it; an item found in neither moves nothing.
fn reach(before: &Model, after: &Model, path: &str) -> Reach {
    let (model, touched) = match bodies_of(before, path) {
        Some(touched) => (before, touched),
        None => match bodies_of(after, path) {
            Some(touched) => (after, touched),
            None => return Reach::Bodies(BTreeSet::new()),
        },
    };
    match touched {
        Touched::All => Reach::All,
        Touched::Bodies(names) => Reach::Bodies(coupled(model, names)),
    }
}

/// `names` and every body coupled to one of them through joints, constraints, force elements
/// and motors, stopping at the world: a body welded to the world ([`grounded`]) is reached but
/// carries the coupling no further (what happens at it cannot move the bodies beyond it, nor
/// can what happens beyond it reach across it).
fn coupled(model: &Model, names: Vec<String>) -> BTreeSet<String> {
    let grounded = grounded(model);
    let links = couplings(model);
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut queue = names;
    while let Some(name) = queue.pop() {
        if !reached.insert(name.clone()) || grounded.contains(&name) {
            continue;
        }
        for other in links.get(name.as_str()).into_iter().flatten() {
            if !reached.contains(*other) {
                queue.push((*other).to_owned());
            }
        }
    }
    reached
}

/// Body pairs each element of the model couples, as an adjacency list (the world left out).
fn couplings(model: &Model) -> BTreeMap<&str, Vec<&str>> {
    let mut pairs: Vec<(&BodyRef, &BodyRef)> = Vec::new();
    pairs.extend(model.joints.iter().map(|j| (&j.parent, &j.child)));
    for c in &model.constraints {
        match &c.kind {
            ConstraintKind::Distance { body1, body2, .. }
            | ConstraintKind::RevoluteSpherical { body1, body2, .. }
            | ConstraintKind::RevoluteTranslational { body1, body2, .. }
            | ConstraintKind::ExtraJoint { body1, body2, .. } => pairs.push((body1, body2)),
        }
    }
    for e in &model.force_elements {
        match &e.kind {
            ForceKind::Tsda(t) => pairs.push((&t.body1, &t.body2)),
            ForceKind::Rsda(r) => pairs.push((&r.body1, &r.body2)),
            ForceKind::Bushing(b) => pairs.push((&b.body_a, &b.body_c)),
            ForceKind::Restraint(r) => {
                if let RestraintTarget::FramePair { body1, body2, .. } = &r.target {
                    pairs.push((body1, body2));
                }
            }
        }
    }
    for m in &model.motors {
        if let MotorTarget::BodyPair { body1, body2, .. } = &m.target {
            pairs.push((body1, body2));
        }
    }
    let mut links: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in pairs {
        if let (Some(a), Some(b)) = (a.name(), b.name()) {
            links.entry(a).or_default().push(b);
            links.entry(b).or_default().push(a);
        }
    }
    links
}

/// The bodies welded to the world: joined to it, directly or through other such bodies, by
/// fixed joints only. They never move, whatever a conversion does to their mass.
fn grounded(model: &Model) -> BTreeSet<String> {
    let mut grounded: BTreeSet<String> = BTreeSet::new();
    loop {
        let before = grounded.len();
        for joint in model.joints.iter().filter(|j| matches!(j.kind, JointKind::Fixed)) {
            let (parent, child) = (&joint.parent, &joint.child);
            let fixed_to = |r: &BodyRef| match r.name() {
                None => true,
                Some(name) => grounded.contains(name),
            };
            let newly: Option<&str> = if fixed_to(parent) {
                child.name()
            } else if fixed_to(child) {
                parent.name()
            } else {
                None
            };
            if let Some(name) = newly {
                grounded.insert(name.to_owned());
            }
        }
        if grounded.len() == before {
            return grounded;
        }
    }
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
    // initial position lost at a drum moves the nozzle on it; a loop joint dropped at a body
    // welded to the world still changes the constraint projection of what hangs from it), and
    // through [`coupled`] whatever is joined to them.
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

    fn reaches(m: &Model, path: &str, body: &str) -> bool {
        reach(m, m, path).contains(body)
    }

    #[test]
    fn a_joint_reaches_its_bodies_and_gravity_reaches_all() {
        let mut m = Model::new("m");
        m.bodies.push(Body::new("upper"));
        m.bodies.push(Body::new("lower"));
        m.bodies.push(Body::new("apart"));
        m.joints.push(Joint::new(
            "shoulder",
            JointKind::Spherical,
            BodyRef::World,
            BodyRef::body("upper"),
        ));
        m.joints.push(Joint::new(
            "elbow",
            JointKind::Revolute {
                axis: nalgebra::Vector3::z(),
            },
            BodyRef::body("upper"),
            BodyRef::body("lower"),
        ));
        m.joints.push(Joint::new(
            "pin",
            JointKind::Spherical,
            BodyRef::World,
            BodyRef::body("apart"),
        ));
        assert!(reaches(&m, "joints[\"elbow\"].dofs[0].damping", "lower"));
        assert!(reaches(&m, "joints[\"elbow\"].dofs[0].damping", "upper"));
        assert!(
            reaches(&m, "bodies[\"lower\"]", "upper"),
            "coupled through the elbow"
        );
        assert!(
            !reaches(&m, "bodies[\"lower\"]", "apart"),
            "only through the world"
        );
        assert!(reaches(&m, "simulation.gravity", "apart"));
        assert!(!reaches(&m, "joints[\"gone\"]", "upper"));
    }

    #[test]
    fn a_massless_body_carries_what_happens_at_its_joint() {
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
        assert!(reaches(&m, "joints[\"slide\"].dofs[0].damping", "load"));
        assert!(!reaches(&m, "joints[\"slide\"].dofs[0].damping", "elsewhere"));
    }

    #[test]
    fn a_body_welded_to_the_world_relays_nothing() {
        let mut m = Model::new("m");
        let mut mount = Body::new("mount");
        mount.inertial.mass = 0.0;
        m.bodies.push(mount);
        m.bodies.push(Body::new("arm"));
        m.joints.push(Joint::new(
            "weld",
            JointKind::Fixed,
            BodyRef::World,
            BodyRef::body("mount"),
        ));
        m.joints.push(Joint::new(
            "hinge",
            JointKind::Revolute {
                axis: nalgebra::Vector3::y(),
            },
            BodyRef::body("mount"),
            BodyRef::body("arm"),
        ));
        assert!(!reaches(&m, "bodies[\"mount\"].inertial", "arm"));
        assert!(reaches(&m, "joints[\"hinge\"].dofs[0].damping", "arm"));
        assert!(
            reaches(&m, "bodies[\"arm\"]", "mount"),
            "reached, though it never moves"
        );
    }
}
