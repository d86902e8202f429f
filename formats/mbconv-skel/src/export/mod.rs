//! IR -> SKEL text.
//!
//! One `<skeleton>` per IR skeleton group, and one per connected tree for bodies outside
//! skeleton groups. Body `<transformation>`s are the stored reference-configuration poses
//! relative to the skeleton frame; joint `<transformation>`s are the child-side joint frames
//! (DART derives the parent side from the poses). Everything SKEL cannot say is reported as
//! dropped or approximated. Output is deterministic; floats use Rust's shortest round-trip form.

mod body;
mod joint;
mod xml;

use crate::import::{
    DEFAULT_GRAVITY, DEFAULT_TIME_STEP, NAME, NO_WORLD, TRANSFORMATION, pose_from_numbers, value_numbers,
};
use crate::verbatim::{XmlElement, value_element};
use mbconv_ir::format::Exported;
use mbconv_ir::kinematics::{Attachment, Configuration, SpanningTree, world_poses};
use mbconv_ir::report::path;
use mbconv_ir::rotation::skel::quaternion_to_xyz;
use mbconv_ir::{Category, Extras, GroupType, Model, Pose, Report, Severity, Value};
use nalgebra::Vector3;
use std::collections::{BTreeSet, HashMap};

/// Writes `model` as SKEL.
pub fn export(model: &Model) -> Exported {
    export_to(model, None)
}

/// Writes `model` as SKEL for a file saved at `output`: mesh references are made relative
/// to it (DART resolves them beside the `.skel` file), see [`mbconv_ir::MeshRef::uri_for_output`].
pub fn export_to(model: &Model, output: Option<&std::path::Path>) -> Exported {
    let mut exporter = Exporter {
        model,
        report: Report::default(),
        tree: SpanningTree::new(model),
        output,
    };
    let root = exporter.document();
    Exported::text(xml::serialize(&root), exporter.report)
}

struct Exporter<'m> {
    model: &'m Model,
    report: Report,
    tree: SpanningTree,
    /// Where the file will be saved, when known.
    output: Option<&'m std::path::Path>,
}

/// One skeleton to write.
struct SkeletonPlan {
    name: String,
    pose: Option<Pose>,
    mobile: bool,
    extras: Option<Extras>,
    bodies: Vec<usize>,
}

fn fmt(x: f64) -> String {
    format!("{x}")
}

fn join(values: &[f64]) -> String {
    values.iter().map(|x| fmt(*x)).collect::<Vec<_>>().join(" ")
}

fn vec3(v: &Vector3<f64>) -> String {
    join(&[v.x, v.y, v.z])
}

/// The SKEL name of an item: the original name when the importer had to rename it.
fn skel_name<'a>(name: &'a str, extras: &'a Extras) -> &'a str {
    match extras.get(NAME) {
        Some(Value::String(original)) => original,
        _ => name,
    }
}

/// `<transformation>` text for `pose` relative to `frame`, reusing the numbers read from SKEL
/// when they reproduce the pose bit for bit.
fn transformation(frame: &Pose, pose: &Pose, extras: &Extras) -> Option<String> {
    if let Some(numbers) = value_numbers::<6>(extras.get(TRANSFORMATION))
        && *frame * pose_from_numbers(numbers) == *pose
    {
        return Some(join(&numbers));
    }
    if extras.get(TRANSFORMATION).is_none() && *pose == *frame {
        return None;
    }
    let relative = frame.inverse() * *pose;
    if relative.is_exact_identity() && extras.get(TRANSFORMATION).is_none() {
        return None;
    }
    let [a, b, c] = quaternion_to_xyz(&relative.rotation);
    let t = relative.translation;
    // Fresh numbers: write a computed -0 as 0.
    Some(join(&[t.x, t.y, t.z, a, b, c].map(|x| x + 0.0)))
}

fn verbatim_children(extras: &Extras, skip: &[&str]) -> Vec<XmlElement> {
    extras
        .for_format("skel")
        .filter(|(key, _)| !key.contains('.') && !skip.contains(key))
        .flat_map(|(key, value)| value_element(key, value))
        .collect()
}

impl Exporter<'_> {
    fn drop(&mut self, code: &str, at: impl Into<String>, message: impl Into<String>) {
        self.report
            .add(code, Severity::Warning, Category::Dropped, at, message);
    }

    fn foreign_extras(&mut self, at: &str, extras: &Extras) {
        let keys: Vec<String> = extras.not_for_format("skel").map(|(k, _)| k.to_owned()).collect();
        if !keys.is_empty() {
            self.drop(
                "export.extras",
                at,
                format!("format-specific data SKEL cannot hold: {}", keys.join(", ")),
            );
        }
    }

    fn document(&mut self) -> XmlElement {
        let model = self.model;
        self.report_unsayable();
        let plans = self.plan();
        let skeletons: Vec<XmlElement> = plans.iter().map(|p| self.skeleton(p)).collect();
        let version = match model.extras.get("skel.version") {
            Some(Value::String(v)) => v.clone(),
            _ => "1.0".to_owned(),
        };
        let root = XmlElement::new("skel").attr("version", version);
        let sim = &model.simulation;
        let default_physics = sim.gravity == Some(Vector3::from(DEFAULT_GRAVITY))
            && sim.time_step == Some(DEFAULT_TIME_STEP)
            && sim.extras.is_empty()
            && sim.end_time.is_none();
        if matches!(model.extras.get(NO_WORLD), Some(Value::Bool(true)))
            && skeletons.len() == 1
            && default_physics
            && plans[0].name == model.name
        {
            return root.children(skeletons);
        }
        let mut physics = XmlElement::new("physics");
        if let Some(dt) = sim.time_step {
            physics = physics.child(XmlElement::text("time_step", fmt(dt)));
        }
        match sim.gravity {
            Some(g) => physics = physics.child(XmlElement::text("gravity", vec3(&g))),
            None => self.report.add(
                "export.gravity_default",
                Severity::Info,
                Category::Note,
                "simulation.gravity",
                "the model gives no gravity; DART will use 0 0 -9.81",
            ),
        }
        if sim.end_time.is_some() {
            self.drop("export.end_time", "simulation.end_time", "SKEL has no end time");
        }
        for (key, value) in sim.extras.for_format("skel") {
            physics.children.extend(value_element(key, value));
        }
        self.foreign_extras("simulation", &sim.extras);
        let mut world = XmlElement::new("world").attr("name", model.name.clone());
        if !physics.children.is_empty() {
            world = world.child(physics);
        }
        for (key, value) in model.extras.for_format("skel") {
            if let Some(tag) = key.strip_prefix("world.") {
                world.children.extend(value_element(tag, value));
            }
        }
        self.foreign_extras("model", &model.extras);
        root.child(world.children(skeletons))
    }

    /// Reports every model item SKEL cannot say.
    fn report_unsayable(&mut self) {
        let m = self.model;
        for c in &m.constraints {
            self.drop(
                "export.constraint",
                path::item("constraints", &c.name),
                "SKEL has no constraints",
            );
        }
        for f in &m.force_elements {
            self.drop(
                "export.force_element",
                path::item("force_elements", &f.name),
                "SKEL has no spring-dampers, bushings or restraints",
            );
        }
        for x in &m.motors {
            self.drop(
                "export.motor",
                path::item("motors", &x.name),
                "SKEL has no motors",
            );
        }
        for x in &m.loads {
            self.drop(
                "export.load",
                path::item("loads", &x.name),
                "SKEL has no external loads",
            );
        }
        for x in &m.devices {
            self.drop(
                "export.device",
                path::item("devices", &x.name),
                "SKEL has no sensors, cameras or lights",
            );
        }
        for x in &m.world_frames {
            self.drop(
                "export.world_frame",
                path::item("world_frames", &x.name),
                "SKEL has no world frames",
            );
        }
        for j in self.tree.loop_joints.clone() {
            let name = &m.joints[j].name;
            self.drop(
                "export.loop_joint",
                path::item("joints", name),
                "closes a kinematic loop; DART discards a second parent joint, so SKEL cannot say it",
            );
        }
        for j in self.tree.ignored_joints.clone() {
            let joint = &m.joints[j];
            let why = if !joint.enabled {
                "disabled"
            } else {
                "refers to unknown bodies or joins a body to itself"
            };
            self.drop(
                "export.joint",
                path::item("joints", &joint.name),
                format!("joint is {why}"),
            );
        }
        for g in &m.groups {
            if g.group_type != GroupType::Skeleton {
                self.report.add(
                    "export.group",
                    Severity::Info,
                    Category::Dropped,
                    path::item("groups", &g.name),
                    "group is not a DART skeleton; its bodies are written by connected tree",
                );
            }
        }
    }

    /// Splits the bodies into skeletons: IR skeleton groups first, then one per tree.
    fn plan(&mut self) -> Vec<SkeletonPlan> {
        let m = self.model;
        let mut assigned: Vec<Option<usize>> = vec![None; m.bodies.len()];
        let mut plans: Vec<SkeletonPlan> = Vec::new();
        for g in m.groups.iter().filter(|g| g.group_type == GroupType::Skeleton) {
            let mut bodies = Vec::new();
            for name in &g.bodies {
                if let Some(i) = m.body_index(name)
                    && assigned[i].is_none()
                {
                    assigned[i] = Some(plans.len());
                    bodies.push(i);
                }
            }
            plans.push(SkeletonPlan {
                name: skel_name(&g.name, &g.extras).to_owned(),
                pose: g.pose,
                mobile: g.mobile,
                extras: Some(g.extras.clone()),
                bodies,
            });
        }
        // Remaining bodies: grouped by the root of their tree.
        let mut root_of = vec![0usize; m.bodies.len()];
        for &b in &self.tree.order {
            root_of[b] = match self.tree.attachments[b] {
                Attachment::Joint { parent: Some(p), .. } => root_of[p],
                _ => b,
            };
        }
        let mut by_root: HashMap<usize, usize> = HashMap::new();
        let mut taken: BTreeSet<String> = plans.iter().map(|p| p.name.clone()).collect();
        for b in 0..m.bodies.len() {
            if assigned[b].is_some() {
                continue;
            }
            let root = root_of[b];
            let plan = *by_root.entry(root).or_insert_with(|| {
                let mut name = m.bodies[root].name.clone();
                let mut n = 2;
                while taken.contains(&name) {
                    name = format!("{}#{n}", m.bodies[root].name);
                    n += 1;
                }
                taken.insert(name.clone());
                plans.push(SkeletonPlan {
                    name,
                    pose: None,
                    mobile: true,
                    extras: None,
                    bodies: Vec::new(),
                });
                plans.len() - 1
            });
            assigned[b] = Some(plan);
            plans[plan].bodies.push(b);
        }
        plans
    }

    fn skeleton(&mut self, plan: &SkeletonPlan) -> XmlElement {
        let m = self.model;
        let mut element = XmlElement::new("skeleton").attr("name", plan.name.clone());
        let frame = plan.pose.unwrap_or_else(Pose::identity);
        if let Some(pose) = plan.pose {
            let extras = plan.extras.clone().unwrap_or_default();
            let text = transformation(&Pose::identity(), &pose, &extras).unwrap_or_else(|| join(&[0.0; 6]));
            element = element.child(XmlElement::text("transformation", text));
        }
        if !plan.mobile {
            element = element.child(XmlElement::text("mobile", "false"));
        }
        if let Some(extras) = &plan.extras {
            element
                .children
                .extend(verbatim_children(extras, &[TRANSFORMATION_KEY, NAME_KEY]));
            self.foreign_extras(&path::item("groups", &plan.name), extras);
        }
        if plan
            .bodies
            .iter()
            .any(|&b| skel_name(&m.bodies[b].name, &m.bodies[b].extras) == "world")
        {
            self.report.add(
                "export.body_named_world",
                Severity::Warning,
                Category::Approximated,
                path::item("groups", &plan.name),
                "a body named \"world\" makes every <parent>world</parent> of its skeleton refer to that body in DART",
            );
        }
        let reference = world_poses(m, &self.tree, Configuration::Reference);
        for &b in &plan.bodies {
            let body = &m.bodies[b];
            if reference[b].distance(&body.pose) > 1e-6 {
                self.report.add(
                    "export.pose_mismatch",
                    Severity::Warning,
                    Category::Approximated,
                    path::item("bodies", &body.name),
                    "the stored body pose disagrees with its joint frames; DART derives the parent-side joint \
                     frame from the stored poses",
                );
            }
            element = element.child(self.body(body, &frame));
        }
        // Joints: bodies without a tree joint first (free or weld to the world), then the tree
        // joints of this skeleton in model order.
        let in_plan: BTreeSet<usize> = plan.bodies.iter().copied().collect();
        let mut used_names: BTreeSet<String> = m
            .joints
            .iter()
            .map(|j| skel_name(&j.name, &j.extras).to_owned())
            .collect();
        for &b in &plan.bodies {
            let body = &m.bodies[b];
            let kind = match self.tree.attachments[b] {
                Attachment::Fixed => "weld",
                Attachment::Floating => "free",
                Attachment::Joint { .. } => continue,
            };
            let mut name = format!("{}_{kind}", body.name);
            let mut n = 2;
            while used_names.contains(&name) {
                name = format!("{}_{kind}{n}", body.name);
                n += 1;
            }
            used_names.insert(name.clone());
            self.report.add(
                "export.implicit_joint",
                Severity::Info,
                Category::Note,
                path::item("bodies", &body.name),
                format!("body has no joint; written with a {kind} joint {name:?} to the world at its pose"),
            );
            element = element.child(
                XmlElement::new("joint")
                    .attr("type", kind)
                    .attr("name", name)
                    .child(XmlElement::text("parent", "world"))
                    .child(XmlElement::text("child", skel_name(&body.name, &body.extras))),
            );
        }
        for j in 0..m.joints.len() {
            let child_body = self
                .tree
                .attachments
                .iter()
                .enumerate()
                .find_map(|(b, a)| match a {
                    Attachment::Joint { joint, .. } if *joint == j => Some(b),
                    _ => None,
                });
            let Some(child_body) = child_body else { continue };
            if !in_plan.contains(&child_body) {
                continue;
            }
            if let Some(x) = self.joint(j, child_body, &in_plan) {
                element = element.child(x);
            }
        }
        element
    }
}

const TRANSFORMATION_KEY: &str = "source.transformation";
const NAME_KEY: &str = "name";
const INIT_VEL_KEY: &str = "source.init_vel";
const SOFT_SHAPE_KEY: &str = "soft_shape";
const PLANE_POINT_KEY: &str = "plane_point";
const PLANE_AXES_KEY: &str = "source.plane_axes";
