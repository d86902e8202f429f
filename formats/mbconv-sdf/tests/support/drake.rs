//! Drake's reading of SDFormat as the tests compare mbconv's with it: shared by
//! `tests/golden.rs` (the reader against Drake) and `tests/written_all.rs` (the writer against
//! Drake). Drake's golden data comes from `oracles/drake/sdf_golden.py` (whose functions
//! `oracles/drake/sdf_written_golden.py` uses): bodies named `<model instance>::<link>`, the
//! plant's gravity, and a 1 s trajectory from `trajectory.start`.

use mbconv_ir::JointKind;
use mbconv_solver::{Integrator, SimulateOptions};
use mbconv_test_support::written_golden::{relative_deviation, world_com};
use nalgebra::Vector3;
use serde_json::Value;

/// The numbers of a JSON array.
pub fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// mbconv's name of Drake's body or joint `<instance>::<name>`: the same in a file whose root
/// is a `<world>` (every model of the world is a scope of mbconv's names); without the first
/// segment (the lone model's name) when the file's root is a `<model>`.
pub fn our_name(drake: &str, world: bool) -> String {
    if world {
        drake.to_owned()
    } else {
        drake.split_once("::").map_or(drake, |(_, rest)| rest).to_owned()
    }
}

/// What Drake's SDFormat parser does not read, which mbconv's model is brought to Drake's
/// reading of before it is simulated against Drake (the reading itself is judged elsewhere):
/// Drake 1.51 ignores `<world><gravity>` (its plant keeps -9.81 m/s², while mbconv reads the
/// world's gravity, SDFormat's default being -9.8) and `<axis><dynamics><friction>` (no
/// warning; checked by running a fixture with and without it); its SDFormat parser
/// (`multibody/parsing/detail_sdf_parser.cc`) adds joint springs to revolute, continuous and
/// prismatic joints only (a universal or screw joint's `<spring_stiffness>` is ignored without
/// a warning) and gives a universal joint the damping of its first axis for both (with a
/// warning when `<axis2>` says otherwise); a link's `<gravity>false</gravity>` is refused with a
/// warning ("Unsupported value for SDFormat element gravity: false") and the link falls.
/// `drake["gravity"]` is the plant's gravity, which
/// replaces a gravity mbconv read (a model without one falls under the solver's default,
/// Drake's -9.81 too); joint friction and the springs Drake ignores are set to zero, a
/// universal joint's second damping to its first, every body falls. Returns what changed.
pub fn as_drake_reads_it(model: &mut mbconv_ir::Model, drake: &Value) -> Vec<String> {
    let mut changed = Vec::new();
    let gravity = Vector3::from_vec(floats(&drake["gravity"]));
    match model.simulation.gravity {
        Some(ours) if ours != gravity => {
            changed.push(format!(
                "gravity {:?} -> {:?}",
                ours.as_slice(),
                gravity.as_slice()
            ));
            model.simulation.gravity = Some(gravity);
        }
        _ => {}
    }
    for joint in &mut model.joints {
        for dof in &mut joint.dofs {
            if dof.friction != 0.0 {
                changed.push(format!("{}: friction {} -> 0", joint.name, dof.friction));
                dof.friction = 0.0;
            }
        }
        let universal = matches!(joint.kind, JointKind::Universal { .. });
        if universal || matches!(joint.kind, JointKind::Screw { .. }) {
            for dof in &mut joint.dofs {
                if dof.spring_stiffness != 0.0 {
                    changed.push(format!("{}: spring {} -> 0", joint.name, dof.spring_stiffness));
                    dof.spring_stiffness = 0.0;
                }
            }
        }
        if universal
            && let [first, second] = joint.dofs.as_mut_slice()
            && second.damping != first.damping
        {
            changed.push(format!(
                "{}: second axis's damping {} -> {}",
                joint.name, second.damping, first.damping
            ));
            second.damping = first.damping;
        }
    }
    for body in &mut model.bodies {
        if !body.gravity {
            changed.push(format!("{}: gravity off -> on", body.name));
            body.gravity = true;
        }
    }
    changed
}

/// Sets the joints' initial positions and velocities Drake started its trajectory from
/// (`trajectory.start`, by `<instance>::<joint>`, named as bodies are). Drake puts a joint in
/// its child link's model instance, so a joint of an outer model between the links of two
/// nested models is `<child's instance>::<joint>` there, and mbconv's joint of that local name
/// whose child is in that instance is meant.
pub fn start_where_drake_started(model: &mut mbconv_ir::Model, trajectory: &Value, world: bool, name: &str) {
    for (drake_name, start) in trajectory["start"].as_object().expect("start") {
        let ours = our_name(drake_name, world);
        let (instance, local) = ours.rsplit_once("::").unwrap_or(("", &ours));
        let in_child_instance = |j: &mbconv_ir::Joint| {
            j.name.rsplit("::").next() == Some(local)
                && j.child
                    .name()
                    .and_then(|c| c.rsplit_once("::"))
                    .is_some_and(|(prefix, _)| prefix == instance)
        };
        let index = model
            .joints
            .iter()
            .position(|j| j.name == ours)
            .or_else(|| model.joints.iter().position(in_child_instance))
            .unwrap_or_else(|| panic!("{name}: no joint {ours} (Drake's {drake_name})"));
        let joint = &mut model.joints[index];
        joint.q0 = floats(&start["q"]);
        joint.v0 = floats(&start["v"]);
    }
}

/// mbconv's solver on `model` with `integrator` (RK4: fixed steps of 1e-4 s; Dopri5: its output
/// every 0.1 s; no joint limits: Drake's continuous plant has none) against Drake's
/// `trajectory` (its samples every 0.1 s of the world centre of mass of each of
/// `trajectory.bodies`): the worst deviation (m, relative to max(1, |Drake's coordinate|)) and
/// one line per body and time off by more than `tolerance` (or the solver's error). Drake
/// reports a massless body's centre of mass at its frame's origin (whatever the inertial's
/// pose), so the origin is compared for those; the bodies named in `skip` (Drake's names) are
/// left out.
pub fn compare_with_drake(
    name: &str,
    model: &mbconv_ir::Model,
    trajectory: &Value,
    world: bool,
    tolerance: f64,
    integrator: Integrator,
    skip: &[&str],
) -> (f64, Vec<String>) {
    let every = trajectory["every"].as_f64().expect("every");
    let (dt, steps_per_sample) = match integrator {
        Integrator::Dopri5 { .. } => (every, 1),
        _ => (1e-4, (every / 1e-4).round() as usize),
    };
    let options = SimulateOptions {
        duration: trajectory["duration"].as_f64().expect("duration"),
        dt,
        integrator,
        every: steps_per_sample,
        energy: false,
        joint_limits: false,
        max_steps: None,
    };
    let solver = mbconv_solver::Model::new(model).unwrap_or_else(|e| panic!("{name}: {e}"));
    let names: Vec<String> = solver.body_names().map(str::to_owned).collect();
    let mut samples: Vec<Vec<[f64; 7]>> = Vec::new();
    if let Err(e) = mbconv_solver::simulate(model, &options, &mut |s| samples.push(s.poses.to_vec())) {
        return (f64::INFINITY, vec![format!("{name}: mbconv's solver: {e}")]);
    }
    let drake_samples = trajectory["samples"].as_array().expect("samples");
    assert_eq!(samples.len(), drake_samples.len(), "{name}: samples");
    let mut worst = 0.0_f64;
    let mut failures = Vec::new();
    for (b, drake_name) in trajectory["bodies"]
        .as_array()
        .expect("bodies")
        .iter()
        .enumerate()
    {
        let drake_name = drake_name.as_str().expect("name");
        if skip.contains(&drake_name) {
            continue;
        }
        let ours = our_name(drake_name, world);
        let body = model
            .bodies
            .iter()
            .find(|x| x.name == ours)
            .unwrap_or_else(|| panic!("{name}: no body {ours} (Drake's {drake_name})"));
        let i = names
            .iter()
            .position(|n| *n == ours)
            .unwrap_or_else(|| panic!("{name}: {ours} is not a body of the solver"));
        for (k, sample) in drake_samples.iter().enumerate() {
            let com = if body.inertial.mass == 0.0 {
                let p = &samples[k][i];
                Vector3::new(p[0], p[1], p[2])
            } else {
                world_com(body, &samples[k][i])
            };
            let d = relative_deviation(com.as_slice(), &floats(&sample["com"][b]));
            let t = sample["t"].as_f64().expect("t");
            if d > tolerance {
                failures.push(format!(
                    "{name}: body {drake_name} at t = {t}: COM off by {d:e} m"
                ));
            }
            worst = worst.max(d);
        }
    }
    (worst, failures)
}
