//! Writing a lowered model as SKEL text. Everything SKEL cannot say was decided (and reported)
//! by lowering; this step only writes. Its report holds notes, never a loss: a body welded to
//! the world by its `fixed` flag gets an explicit weld joint, and a mesh that was never
//! resolved is written as it is.

mod body;
mod joint;
mod xml;

use super::skel_name;
use super::skeletons::{SkeletonPlan, plan};
use crate::spec::verbatim::{XmlElement, value_element};
use crate::spec::{
    DEFAULT_GRAVITY, DEFAULT_TIME_STEP, FORMAT, NO_WORLD, NOT_VERBATIM, TRANSFORMATION_AID, VERSION,
    WORLD_PREFIX, numbers_from_pose, pose_from_numbers,
};
use mbconv_ir::format::Exported;
use mbconv_ir::format::kit::{aids, numbers};
use mbconv_ir::format::support::Feature;
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::report::path;
use mbconv_ir::{Category, Extras, Finding, Model, Pose, Report, Severity, Value};
use nalgebra::Vector3;
use std::collections::BTreeSet;
use std::path::Path;

/// Writes a lowered `model` as SKEL for a file saved at `output` (mesh references are made
/// relative to it, see [`mbconv_ir::MeshRef::uri_for_output`]).
pub(crate) fn emit(model: &Model, output: Option<&Path>) -> Exported {
    let mut emitter = Emitter {
        model,
        report: Report::default(),
        tree: SpanningTree::new(model),
        output,
    };
    let root = emitter.document();
    Exported::text(xml::serialize(&root), emitter.report)
}

struct Emitter<'m> {
    model: &'m Model,
    report: Report,
    tree: SpanningTree,
    /// Where the file will be saved, when known.
    output: Option<&'m Path>,
}

/// A number as written in SKEL.
fn fmt(x: f64) -> String {
    numbers::format_number(x)
}

/// Numbers separated by spaces.
fn join(values: &[f64]) -> String {
    numbers::join(values, " ")
}

fn vec3(v: &Vector3<f64>) -> String {
    join(&[v.x, v.y, v.z])
}

/// `<transformation>` text for `pose` relative to `frame`, reusing the numbers read from SKEL
/// when they reproduce the pose bit for bit; `None` when nothing needs writing.
fn transformation(frame: &Pose, pose: &Pose, extras: &Extras) -> Option<String> {
    let kept = aids::kept_array::<6>(extras, FORMAT, TRANSFORMATION_AID);
    if let Some(numbers) = kept
        && *frame * pose_from_numbers(numbers) == *pose
    {
        return Some(join(&numbers));
    }
    if kept.is_none() && *pose == *frame {
        return None;
    }
    let relative = frame.inverse() * *pose;
    if relative.is_exact_identity() && kept.is_none() {
        return None;
    }
    Some(join(&numbers_from_pose(&relative)))
}

/// The verbatim SKEL elements kept in `extras` (`skel.<tag>` keys that are not writer data).
fn verbatim_children(extras: &Extras) -> Vec<XmlElement> {
    extras
        .for_format(FORMAT)
        .filter(|(key, _)| !key.contains('.') && !NOT_VERBATIM.contains(key))
        .flat_map(|(key, value)| value_element(key, value))
        .collect()
}

impl Emitter<'_> {
    fn document(&mut self) -> XmlElement {
        let model = self.model;
        let plans = plan(model, &self.tree);
        let skeletons: Vec<XmlElement> = plans.iter().map(|p| self.skeleton(p)).collect();
        let version = match model.extras.get(VERSION) {
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
        if let Some(g) = sim.gravity {
            physics = physics.child(XmlElement::text("gravity", vec3(&g)));
        }
        for (key, value) in sim.extras.for_format(FORMAT) {
            physics.children.extend(value_element(key, value));
        }
        let mut world = XmlElement::new("world").attr("name", model.name.clone());
        if !physics.children.is_empty() {
            world = world.child(physics);
        }
        for (key, value) in model.extras.for_format(FORMAT) {
            if let Some(tag) = key.strip_prefix(WORLD_PREFIX) {
                world.children.extend(value_element(tag, value));
            }
        }
        root.child(world.children(skeletons))
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
            element.children.extend(verbatim_children(extras));
        }
        for &b in &plan.bodies {
            element = element.child(self.body(&m.bodies[b], &frame));
        }
        // Joints: bodies welded by their `fixed` flag first, then the tree joints of this
        // skeleton in model order.
        let in_plan: BTreeSet<usize> = plan.bodies.iter().copied().collect();
        let mut used_names: BTreeSet<String> = m
            .joints
            .iter()
            .map(|j| skel_name(&j.name, &j.extras).to_owned())
            .collect();
        for &b in &plan.bodies {
            let body = &m.bodies[b];
            let (kind, code, feature) = match self.tree.attachments[b] {
                Attachment::Fixed => ("weld", "skel.fixed_body_as_weld_joint", Feature::FixedBodies),
                Attachment::Floating => ("free", "skel.floating_body_as_free_joint", Feature::FreeJoint),
                Attachment::Joint { .. } => continue,
            };
            let mut name = format!("{}_{kind}", body.name);
            let mut n = 2;
            while used_names.contains(&name) {
                name = format!("{}_{kind}{n}", body.name);
                n += 1;
            }
            used_names.insert(name.clone());
            self.report.push(
                Finding::new(
                    code,
                    Severity::Info,
                    Category::Note,
                    format!(
                        "body has no joint; written with a {kind} joint {name:?} to the world at its pose"
                    ),
                )
                .for_feature(feature)
                .at(path::item("bodies", &body.name)),
            );
            element = element.child(
                XmlElement::new("joint")
                    .attr("type", kind)
                    .attr("name", name)
                    .child(XmlElement::text("parent", "world"))
                    .child(XmlElement::text("child", skel_name(&body.name, &body.extras))),
            );
        }
        let mut tree_joints: Vec<usize> = (0..m.bodies.len())
            .filter(|b| in_plan.contains(b))
            .filter_map(|b| match self.tree.attachments[b] {
                Attachment::Joint { joint, .. } => Some(joint),
                _ => None,
            })
            .collect();
        tree_joints.sort_unstable();
        for j in tree_joints {
            element = element.child(self.joint(j));
        }
        element
    }
}
