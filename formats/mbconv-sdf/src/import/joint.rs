//! Joints: types, parent and child frames, `<axis>`/`<axis2>` with limits and dynamics as
//! each version reads them.

use super::{AxisDef, BallConstraintDef, JointDef, MODEL_FRAME, Reader, push_extra};
use crate::raw::SDF;
use crate::spec;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::{DofProperties, Extras, Limits};
use mbconv_xml::{
    Node, child, element_value, elements, qualified_name, span_of_attribute, span_of_node, text,
};
use nalgebra::Vector3;

impl Reader<'_> {
    pub(super) fn joint(&mut self, file: usize, version: u32, node: Node) -> SourceResult<JointDef> {
        let source = self.files[file].clone();
        let at = self.loc(file, node);
        let name = SDF.required_attribute(&source, node, "name")?.to_owned();
        let kind = SDF.required_attribute(&source, node, "type")?.to_owned();
        let drake = qualified_name(node) == "drake:joint";
        let known = matches!(
            kind.as_str(),
            "revolute"
                | "revolute2"
                | "prismatic"
                | "ball"
                | "universal"
                | "screw"
                | "gearbox"
                | "continuous"
                | "fixed"
        );
        if !(known || drake) {
            return Err(SDF.error(
                &source,
                "joint_type",
                Some(span_of_attribute(&source, node, "type")),
                format!("unknown joint type {kind:?}"),
            ));
        }
        let parent = text(SDF.required_child(&source, node, "parent")?);
        let child_name = text(SDF.required_child(&source, node, "child")?);
        if child_name == "world" {
            return Err(SDF.error(
                &source,
                "joint",
                Some(span_of_node(&source, SDF.required_child(&source, node, "child")?)),
                format!("joint {name:?}: the child cannot be the world"),
            ));
        }
        if child_name == parent {
            return Err(self.err(
                at,
                "joint",
                format!("joint {name:?}: parent and child are the same frame {parent:?}"),
            ));
        }
        let mut axes = [None, None];
        for (i, tag) in ["axis", "axis2"].iter().enumerate() {
            if let Some(axis) = child(node, tag) {
                axes[i] = Some(self.axis(file, version, axis, &kind)?);
            }
        }
        let pitch = {
            let new = if version >= 10 {
                SDF.child_scalar(&source, node, "screw_thread_pitch")?
            } else {
                None
            };
            match (new, SDF.child_scalar(&source, node, "thread_pitch")?) {
                (Some(p), _) => p,
                (None, Some(t)) => {
                    if t == 0.0 {
                        return Err(self.err(
                            at,
                            "screw",
                            format!("joint {name:?}: a thread_pitch of 0 is no screw"),
                        ));
                    }
                    spec::pitch_from_thread_pitch(t)
                }
                (None, None) => spec::pitch_from_thread_pitch(1.0),
            }
        };
        let mut planar_damping = None;
        if drake
            && kind == "planar"
            && let Some(d) = child(node, "damping")
        {
            planar_damping = Some(SDF.fixed::<3>(&source, d)?);
        }
        let mut extras = Extras::default();
        for element in elements(node) {
            match qualified_name(element).as_str() {
                "parent" | "child" | "axis" | "axis2" | "pose" | "thread_pitch" | "screw_thread_pitch"
                | "drake:parent" | "drake:child" | "drake:damping" => {}
                tag => push_extra(&mut extras, &format!("sdf.{tag}"), element_value(element)),
            }
        }
        Ok(JointDef {
            name,
            kind,
            parent,
            child: child_name,
            axes,
            pitch,
            planar_damping,
            extras,
            at,
        })
    }

    /// A `<drake:ball_constraint>` of a model: its two links and points (children by their
    /// local names, as the other elements).
    pub(super) fn ball_constraint(&mut self, file: usize, node: Node) -> SourceResult<BallConstraintDef> {
        let source = self.files[file].clone();
        let local = |qualified: &'static str| qualified.trim_start_matches("drake:");
        let name_of = |tag| -> SourceResult<String> {
            Ok(text(SDF.required_child(&source, node, local(tag))?)
                .trim()
                .to_owned())
        };
        let point = |tag| -> SourceResult<Vector3<f64>> {
            let element = SDF.required_child(&source, node, local(tag))?;
            Ok(Vector3::from(SDF.fixed::<3>(&source, element)?))
        };
        Ok(BallConstraintDef {
            name: node
                .attribute("name")
                .filter(|n| !n.is_empty())
                .map(str::to_owned),
            body_a: name_of(spec::DRAKE_BALL_BODY_A)?,
            body_b: name_of(spec::DRAKE_BALL_BODY_B)?,
            p_ap: point(spec::DRAKE_BALL_P_AP)?,
            p_bq: point(spec::DRAKE_BALL_P_BQ)?,
            at: self.loc(file, node),
        })
    }

    fn axis(&mut self, file: usize, version: u32, node: Node, kind: &str) -> SourceResult<AxisDef> {
        let source = self.files[file].clone();
        let xyz_node = child(node, "xyz");
        let xyz = match xyz_node {
            Some(x) => Vector3::from(SDF.fixed::<3>(&source, x)?),
            None => Vector3::z(),
        };
        let norm = xyz.norm();
        if !(norm.is_finite() && norm > 0.0) {
            let span = span_of_node(&source, xyz_node.unwrap_or(node));
            return Err(SDF.error(
                &source,
                "axis",
                Some(span),
                "the axis <xyz> is zero or not finite (libsdformat refuses it)",
            ));
        }
        let mut expressed_in = None;
        if let Some(e) = xyz_node
            .and_then(|x| x.attribute("expressed_in"))
            .filter(|e| !e.is_empty())
        {
            expressed_in = Some(e.to_owned());
        } else if version == 4 {
            // 1.4 axes are in the model frame: libsdformat's 1.4 -> 1.5 conversion adds
            // <use_parent_model_frame>true</use_parent_model_frame> to every axis.
            expressed_in = Some(MODEL_FRAME.to_owned());
        } else if version < 7
            && let Some(u) = child(node, "use_parent_model_frame")
            && SDF.boolean(&source, u)?
        {
            expressed_in = Some(MODEL_FRAME.to_owned());
        }
        let mut dof = DofProperties::default();
        if let Some(limit) = child(node, "limit") {
            if kind != "continuous" {
                let lower = SDF.child_limit(&source, limit, "lower")?.unwrap_or(-1e16);
                let upper = SDF.child_limit(&source, limit, "upper")?.unwrap_or(1e16);
                dof.position_limits = Limits {
                    lower: spec::bound(lower),
                    upper: spec::bound(upper),
                };
            }
            if let Some(effort) = SDF.child_limit(&source, limit, "effort")?
                && effort >= 0.0
                && effort.is_finite()
            {
                dof.effort_limits = Limits {
                    lower: Some(-effort),
                    upper: Some(effort),
                };
            }
            if let Some(velocity) = SDF.child_limit(&source, limit, "velocity")?
                && velocity >= 0.0
                && velocity.is_finite()
            {
                dof.velocity_limits = Limits {
                    lower: Some(-velocity),
                    upper: Some(velocity),
                };
            }
        }
        if let Some(dynamics) = child(node, "dynamics") {
            dof.damping = SDF.child_scalar(&source, dynamics, "damping")?.unwrap_or(0.0);
            dof.friction = SDF.child_scalar(&source, dynamics, "friction")?.unwrap_or(0.0);
            dof.spring_rest_position = SDF
                .child_scalar(&source, dynamics, "spring_reference")?
                .unwrap_or(0.0);
            dof.spring_stiffness = SDF
                .child_scalar(&source, dynamics, "spring_stiffness")?
                .unwrap_or(0.0);
        }
        // A unit vector to rounding (what a writer prints from a normalised axis) is kept bit
        // for bit: dividing it by its norm again could turn its last bits, and a file written
        // back would not read the same.
        let unit = if (norm - 1.0).abs() <= 4.0 * f64::EPSILON {
            xyz
        } else {
            xyz / norm
        };
        Ok(AxisDef {
            xyz: unit,
            expressed_in,
            dof,
        })
    }
}
