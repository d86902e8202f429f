//! The Choreonoid project written beside a body file (`NAME.cnoid` beside `NAME.body`): a
//! `WorldItem` holding one `BodyItem` (the body file, its root's initial position and rotation,
//! `joint_displacements` in Choreonoid's joint order and in degrees, prismatic joints too, as
//! Choreonoid writes them, and `fix_root`) and an `AISTSimulatorItem` with the model's time
//! step, gravity and integration mode, keyed as Choreonoid's own project files are.

use crate::spec::joint_order::joint_slots;
use crate::spec::{self, DEFAULT_TIME_STEP, FORMAT, GRAVITY};
use mbconv_ir::kinematics::relative_pose;
use mbconv_ir::{JointKind, Model, Value};
use mbconv_yaml::emit::{self as yaml, Yaml as Y};
use std::path::Path;

/// The file names of the project written beside the body file: `NAME.cnoid` beside `NAME.body`
/// (or the `project-out` setting's name) whenever the body goes to a file; never to standard
/// output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProjectNames {
    /// The body file, as the project names it (beside it).
    pub body: String,
    /// The project file.
    pub project: String,
}

/// The project a write with `options` puts beside the body file (`project-out`, or
/// `NAME.cnoid` beside an output file); none for standard output.
pub(crate) fn project_for(options: &mbconv_ir::format::Options) -> Option<ProjectNames> {
    project_names(options.text("project-out"), options.output_path.as_deref())
}

/// The project to write, if any (see [`ProjectNames`]).
pub(crate) fn project_names(project_out: Option<&str>, output_path: Option<&Path>) -> Option<ProjectNames> {
    let body = output_path?.file_name()?.to_str()?.to_owned();
    let project = match project_out {
        Some(name) => name.to_owned(),
        None => format!("{}.cnoid", body.strip_suffix(".body").unwrap_or(&body)),
    };
    Some(ProjectNames { body, project })
}

/// The project text for a lowered model written to `names.body`.
pub(crate) fn write(model: &Model, names: &ProjectNames) -> String {
    let mut data: Vec<(String, Y)> = vec![
        ("file".into(), Y::Str(names.body.clone())),
        ("format".into(), Y::Plain("CHOREONOID-BODY".into())),
    ];
    // The root link's joint from the world: where it starts, and whether it is fixed.
    let root_joint = model.joints.iter().find(|j| j.parent.is_world());
    let fixed = root_joint.is_none_or(|j| matches!(j.kind, JointKind::Fixed));
    if let Some(joint) = root_joint {
        let pose = relative_pose(joint, &joint.q0);
        let t = pose.translation;
        let rotation = Y::nums(&spec::written_rotation(&pose.rotation));
        data.push(("root_translation".into(), Y::nums(&[t.x, t.y, t.z])));
        data.push(("root_rotation".into(), rotation.clone()));
        let slots = joint_slots(model);
        if !slots.is_empty() {
            let values: Vec<f64> = slots
                .iter()
                .map(|slot| {
                    slot.and_then(|j| model.joints[j].q0.first().copied())
                        .map_or(0.0, spec::degrees_exact)
                })
                .collect();
            data.push(("joint_displacements".into(), Y::nums(&values)));
        }
        data.push(("initial_root_translation".into(), Y::nums(&[t.x, t.y, t.z])));
        data.push(("initial_root_rotation".into(), rotation));
    }
    data.push(("fix_root".into(), Y::Bool(fixed)));
    let body_item = item(
        2,
        &model.name,
        "Body",
        "BodyItem",
        vec![
            ("is_checked".into(), Y::Bool(true)),
            ("data".into(), Y::Map(data)),
        ],
    );
    let simulator = item(
        3,
        "AISTSimulator",
        "Body",
        "AISTSimulatorItem",
        vec![("data".into(), Y::Map(simulator_data(model)))],
    );
    let world = item(
        1,
        "World",
        "Body",
        "WorldItem",
        vec![
            ("is_checked".into(), Y::Bool(true)),
            ("children".into(), Y::Seq(vec![body_item, simulator])),
        ],
    );
    let root_item = item(
        0,
        "RootItem",
        "Base",
        "RootItem",
        vec![
            ("is_builtin_item".into(), Y::Bool(true)),
            ("children".into(), Y::Seq(vec![world])),
        ],
    );
    yaml::document(&[("items".into(), root_item)])
}

/// A project item: its id, name, plugin and class, then `rest`.
fn item(id: u32, name: &str, plugin: &str, class: &str, rest: Vec<(String, Y)>) -> Y {
    let mut entries = vec![
        ("id".into(), Y::Plain(id.to_string())),
        ("name".into(), Y::Str(name.to_owned())),
        ("plugin".into(), Y::Plain(plugin.to_owned())),
        ("class".into(), Y::Plain(class.to_owned())),
    ];
    entries.extend(rest);
    Y::Map(entries)
}

fn simulator_data(model: &Model) -> Vec<(String, Y)> {
    let sim = &model.simulation;
    let text = |key: &str| match sim.extras.get(&format!("{FORMAT}.{key}")) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let mut data: Vec<(String, Y)> = vec![(
        "time_step".into(),
        Y::Num(sim.time_step.unwrap_or(DEFAULT_TIME_STEP)),
    )];
    match sim.end_time {
        Some(t) => {
            data.push(("time_range_mode".into(), Y::Plain("specified".into())));
            data.push(("time_length".into(), Y::Num(t)));
        }
        None => data.push(("time_range_mode".into(), Y::Plain("unlimited".into()))),
    }
    let dynamics = text("dynamics_mode").unwrap_or_else(|| "Forward dynamics".to_owned());
    data.push(("dynamics_mode".into(), Y::Str(dynamics)));
    let integration = text("integration_mode").unwrap_or_else(|| "semi-implicit_euler".to_owned());
    data.push(("integration_mode".into(), Y::Str(integration)));
    let g = sim.gravity.map_or(GRAVITY, |g| [g.x, g.y, g.z]);
    data.push(("gravity".into(), Y::nums(&g)));
    data
}
