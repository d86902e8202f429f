//! A model SDFormat can already say -> SDFormat text, through the shared XML writer.
//!
//! This is the `emit` half of the writer: it writes a model whose shape is SDFormat's (every
//! body a link of a model of the world, named `model::link` as the reader names it; joint kinds
//! SDFormat has, every joint pointing away from its tree's root; fixed bodies only in models
//! whose links are all fixed, written `static`; shapes SDFormat has) and loses nothing: reading
//! its text back gives the same model. A model it cannot say exactly is refused, naming the item;
//! `super::lower` turns any model into such a model.
//!
//! One `<world>` holds the gravity, the step (`<physics><max_step_size>`), the models (nested
//! as their names say, each model frame at the world's origin), fixed joints between models
//! (a world joint that moves is refused: Drake refuses it), the world's frames and the world's
//! kept elements. Link poses are relative to the link their tree joint hangs them from when it
//! is in the same model ([`Layout::Parent`]), else to their model ([`Layout::Model`] for all);
//! joint poses are in the child link (SDFormat's default), axes in the joint frame. Numbers
//! follow the number policy (shortest round trip).

mod check;
mod elements;

use super::{Scopes, split_scoped};
use crate::spec;
use check::{check_names, check_scopes, check_tree};
use elements::{
    axis_element, collect_prefixes, frame_element, inertial, model_elements, pose_element, shape_elements,
    vector, verbatim,
};
use mbconv_ir::format::kit::numbers::format_number;
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::report::path;
use mbconv_ir::{BodyRef, JointKind, Model};
use mbconv_xml::write::{XmlElement, serialize};
use std::collections::BTreeSet;

use mbconv_ir::format::kit::Unsayable;

fn unsayable(path: String, reason: impl Into<String>) -> Unsayable {
    Unsayable::new("SDFormat", path, reason)
}

/// What link poses are written relative to (the write setting [`spec::WRITE_POSES`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Layout {
    /// The link its tree joint hangs it from, when that link is in the same model; else the
    /// model frame.
    #[default]
    Parent,
    /// The model frame, for every link.
    Model,
}

/// How a loop-closing ball joint is written (the write setting [`spec::WRITE_LOOPS`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum LoopsAs {
    /// A `<joint>` whose child already has a parent (libsdformat and Gazebo read it).
    #[default]
    Joints,
    /// Drake's `<drake:ball_constraint>` (Drake reads it; Gazebo ignores it). Loop-closing
    /// joints of other kinds stay joints.
    DrakeBallConstraints,
}

/// How the writer writes: the version, the pose layout and the loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Writing {
    /// The minor version written (`1.<minor>`).
    pub(crate) minor: u32,
    /// What link poses are relative to.
    pub(crate) layout: Layout,
    /// How loop-closing ball joints are written.
    pub(crate) loops: LoopsAs,
}

impl Default for Writing {
    fn default() -> Self {
        Writing {
            minor: 9,
            layout: Layout::Parent,
            loops: LoopsAs::Joints,
        }
    }
}

impl Writing {
    /// The choices `options` make (the defaults where they make none).
    pub(crate) fn from_options(options: &mbconv_ir::format::Options) -> Self {
        let minor = options
            .choice(spec::WRITE_VERSION, spec::WRITE_VERSIONS)
            .and_then(spec::minor_version)
            .unwrap_or(9);
        let layout = match options.choice(spec::WRITE_POSES, spec::WRITE_POSES_CHOICES) {
            Some("model") => Layout::Model,
            _ => Layout::Parent,
        };
        let loops = match options.choice(spec::WRITE_LOOPS, spec::WRITE_LOOPS_CHOICES) {
            Some("drake") => LoopsAs::DrakeBallConstraints,
            _ => LoopsAs::Joints,
        };
        Writing { minor, layout, loops }
    }
}

/// Writes `model` as SDFormat 1.9 with link poses relative to their parent links, or says
/// which item SDFormat cannot say as it stands (for the unit tests: the writer takes its
/// settings from the options).
#[cfg(test)]
pub(crate) fn emit(model: &Model) -> Result<String, Unsayable> {
    emit_with(model, Writing::default())
}

/// Writes `model` as SDFormat the way `writing` says.
pub(crate) fn emit_with(model: &Model, writing: Writing) -> Result<String, Unsayable> {
    check_names(model)?;
    let (ball_cuts, stated) = match writing.loops {
        LoopsAs::DrakeBallConstraints => super::loop_cuts::written_cuts(model),
        LoopsAs::Joints => (Vec::new(), SpanningTree::new(model)),
    };
    let tree = check_tree(model, stated)?;
    let scopes = Scopes::new(model);
    check_scopes(model, &scopes)?;
    let mut world = XmlElement::new("world").attr("name", &model.name);
    if let Some(g) = model.simulation.gravity {
        world = world.child(XmlElement::text("gravity", vector(&g)));
    }
    if let Some(step) = model.simulation.time_step {
        world = world.child(
            XmlElement::new("physics")
                .attr("name", "default_physics")
                .attr("default", "true")
                .attr("type", "ode")
                .child(XmlElement::text("max_step_size", format_number(step))),
        );
    }
    let writer = Writer {
        model,
        tree: &tree,
        scopes: &scopes,
        writing,
        ball_cuts: &ball_cuts,
    };
    for &m in &scopes.scopes[0].models {
        world = world.child(writer.scope(m)?);
    }
    for &j in &scopes.scopes[0].joints {
        let joint = &model.joints[j];
        if !matches!(joint.kind, JointKind::Fixed) {
            return Err(unsayable(
                path::item("joints", &joint.name),
                "a joint of the world that is not fixed (Drake refuses it: \"Only fixed joints are permitted in world joints\"); the models it joins must be nested in one model",
            ));
        }
        world = world.child(writer.joint(0, j)?);
    }
    for frame in &model.world_frames {
        world = world.child(
            XmlElement::new("frame")
                .attr("name", &frame.name)
                .child_opt(pose_element(&frame.pose, None)),
        );
    }
    world = world.children(verbatim(&model.extras, &[]));
    let mut root = XmlElement::new("sdf").attr("version", format!("1.{}", writing.minor));
    let mut prefixes = BTreeSet::new();
    collect_prefixes(&world, &mut prefixes);
    for prefix in prefixes {
        match super::lower::namespace_uri(&model.extras, &prefix) {
            Some(uri) => root = root.attr(format!("xmlns:{prefix}"), uri),
            None => {
                return Err(unsayable(
                    "model".to_owned(),
                    format!("an element of the namespace prefix {prefix:?}, which the writer cannot declare"),
                ));
            }
        }
    }
    Ok(serialize(&root.child(world)))
}

struct Writer<'m> {
    model: &'m Model,
    tree: &'m SpanningTree,
    scopes: &'m Scopes,
    writing: Writing,
    /// The joints written as `<drake:ball_constraint>` (`loops=drake`).
    ball_cuts: &'m [usize],
}

impl Writer<'_> {
    fn scope(&self, s: usize) -> Result<XmlElement, Unsayable> {
        let scope = &self.scopes.scopes[s];
        let mut element = XmlElement::new("model").attr("name", &scope.name);
        let bodies: Vec<usize> = self.all_bodies(s);
        let top = self.scopes.scopes[0].models.contains(&s);
        if top && bodies.iter().all(|&b| self.model.bodies[b].fixed) {
            element = element.child(XmlElement::text("static", "true"));
        }
        for &b in &scope.links {
            element = element.child(self.link(s, b)?);
        }
        for &b in &scope.links {
            let body = &self.model.bodies[b];
            let (_, link) = split_scoped(&body.name);
            for frame in &body.frames {
                element = element.child(frame_element(&scope.prefix, link, frame));
            }
        }
        for &j in &scope.joints {
            element = element.child(self.joint(s, j)?);
        }
        for &m in &scope.models {
            element = element.child(self.scope(m)?);
        }
        for &b in &scope.links {
            element = element.children(model_elements(&self.model.bodies[b].extras));
        }
        Ok(element)
    }

    /// The bodies of scope `s` and of the models nested in it.
    fn all_bodies(&self, s: usize) -> Vec<usize> {
        let mut out = self.scopes.scopes[s].links.clone();
        for &m in &self.scopes.scopes[s].models {
            out.extend(self.all_bodies(m));
        }
        out
    }

    fn link(&self, s: usize, b: usize) -> Result<XmlElement, Unsayable> {
        let body = &self.model.bodies[b];
        let at = path::item("bodies", &body.name);
        let (_, name) = split_scoped(&body.name);
        let mut link = XmlElement::new("link").attr("name", name);
        let parent = match (self.writing.layout, &self.tree.attachments[b]) {
            (Layout::Parent, Attachment::Joint { parent: Some(p), .. }) if self.scopes.of_body[*p] == s => {
                Some(*p)
            }
            _ => None,
        };
        link = link.child_opt(match parent {
            Some(p) => {
                let parent_body = &self.model.bodies[p];
                let local = split_scoped(&parent_body.name).1;
                pose_element(&(parent_body.pose.inverse() * body.pose), Some(local))
            }
            None => pose_element(&body.pose, None),
        });
        link = link.child(inertial(body));
        if !body.gravity {
            link = link.child(XmlElement::text("gravity", "false"));
        }
        for shape in &body.shapes {
            link = link.children(shape_elements(shape, self.writing.minor, &at)?);
        }
        link = link.children(verbatim(&body.extras, &[]));
        Ok(link)
    }

    fn joint(&self, s: usize, j: usize) -> Result<XmlElement, Unsayable> {
        let joint = &self.model.joints[j];
        let at = path::item("joints", &joint.name);
        let prefix = &self.scopes.scopes[s].prefix;
        let local = joint
            .name
            .strip_prefix(prefix.as_str())
            .ok_or_else(|| unsayable(at.clone(), "its name is not in the model holding its links"))?;
        let type_name = match joint.kind {
            JointKind::Fixed => "fixed",
            JointKind::Revolute { .. } => "revolute",
            JointKind::Prismatic { .. } => "prismatic",
            JointKind::Screw { .. } => "screw",
            JointKind::Universal { .. } => "universal",
            JointKind::Spherical => "ball",
            _ => {
                return Err(unsayable(
                    at,
                    format!("SDFormat has no {} joint", joint.kind.type_name()),
                ));
            }
        };
        let end = |r: &BodyRef| match r {
            BodyRef::World => "world".to_owned(),
            BodyRef::Body(name) => name.strip_prefix(prefix.as_str()).unwrap_or(name).to_owned(),
        };
        if self.ball_cuts.contains(&j) {
            return Ok(ball_constraint(
                local,
                &end(&joint.parent),
                &end(&joint.child),
                joint,
            ));
        }
        let mut element = XmlElement::new("joint")
            .attr("name", local)
            .attr("type", type_name)
            .child_opt(pose_element(&joint.child_frame, None))
            .child(XmlElement::text("parent", end(&joint.parent)))
            .child(XmlElement::text("child", end(&joint.child)));
        for (k, (_, axis)) in joint.kind.axes().into_iter().enumerate() {
            let tag = if k == 0 { "axis" } else { "axis2" };
            element = element.child(axis_element(tag, &axis, &joint.dof(k)));
        }
        if let JointKind::Screw { pitch, .. } = joint.kind {
            element = element.child(if self.writing.minor >= 10 {
                XmlElement::text("screw_thread_pitch", format_number(pitch))
            } else {
                XmlElement::text(
                    "thread_pitch",
                    format_number(spec::thread_pitch_from_pitch(pitch)),
                )
            });
        }
        Ok(element.children(verbatim(&joint.extras, &[])))
    }
}

/// A loop-closing ball joint as Drake's `<drake:ball_constraint>`: the point P of link A (the
/// parent) held on the point Q of link B (the child), both at the joint frame's origin. The
/// `name` attribute is not Drake's (Drake passes it over); it keeps the joint's name for
/// mbconv's reader.
fn ball_constraint(name: &str, a: &str, b: &str, joint: &mbconv_ir::Joint) -> XmlElement {
    XmlElement::new(spec::DRAKE_BALL_CONSTRAINT)
        .attr("name", name)
        .child(XmlElement::text(spec::DRAKE_BALL_BODY_A, a))
        .child(XmlElement::text(spec::DRAKE_BALL_BODY_B, b))
        .child(XmlElement::text(
            spec::DRAKE_BALL_P_AP,
            vector(&joint.parent_frame.translation),
        ))
        .child(XmlElement::text(
            spec::DRAKE_BALL_P_BQ,
            vector(&joint.child_frame.translation),
        ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use mbconv_ir::Body;
    use mbconv_ir::format::Options;

    #[test]
    fn the_settings_choose_the_version_and_the_layout() {
        let mut options = Options::default();
        let writing = Writing::from_options(&options);
        assert_eq!(
            writing,
            Writing {
                minor: 9,
                layout: Layout::Parent,
                loops: LoopsAs::Joints,
            }
        );
        options.set("version", "1.11");
        options.set("poses", "model");
        options.set("loops", "drake");
        let writing = Writing::from_options(&options);
        assert_eq!(
            writing,
            Writing {
                minor: 11,
                layout: Layout::Model,
                loops: LoopsAs::DrakeBallConstraints,
            }
        );
    }

    #[test]
    fn only_a_fixed_joint_joins_two_models_of_the_world() {
        let mut model = Model::new("w");
        model.bodies.push(Body::new("jamb::post"));
        model.bodies.push(Body::new("door::leaf"));
        let (post, leaf) = (BodyRef::body("jamb::post"), BodyRef::body("door::leaf"));
        let hinge = JointKind::Revolute {
            axis: nalgebra::Vector3::z(),
        };
        model
            .joints
            .push(mbconv_ir::Joint::new("hinge", hinge, post.clone(), leaf.clone()));
        let refused = emit(&model).unwrap_err().to_string();
        assert!(
            refused.contains("\"hinge\"") && refused.contains("world joints"),
            "{refused}"
        );
        model.joints[0] = mbconv_ir::Joint::new("hinge", JointKind::Fixed, post, leaf);
        let text = emit(&model).unwrap();
        assert!(text.contains("<joint name=\"hinge\" type=\"fixed\">"), "{text}");
    }

    #[test]
    fn a_body_must_be_a_link_of_a_model() {
        let mut model = Model::new("w");
        model.bodies.push(Body::new("puck"));
        assert!(emit(&model).is_err()); // not a link of a model
        model.bodies[0].name = "table::puck".into();
        let text = emit(&model).unwrap();
        assert!(text.contains("<model name=\"table\">"));
        assert!(text.contains("<link name=\"puck\">"));
    }
}
