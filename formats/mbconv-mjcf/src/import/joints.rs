//! `<joint>` and `<freejoint>`: MuJoCo's joint types as IR joints (axis and anchor through the
//! frames they stand in, `ref`, springs, damping, friction, armature, limits with `limited`
//! and the compiler's `autolimits`), and the coordinate layout keyframes are read against.

use super::Reader;
use super::bodies::{Place, pose, translation};
use crate::import::compiler::defaults::ClassId;
use crate::import::compiler::defaults::Origin;
use crate::import::compiler::orientation::AngleUnit;
use crate::raw::{Attr, Element};
use crate::spec::arith::{EPS, Frame, normalize, rotate};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity, path};
use mbconv_ir::{BodyRef, DofProperties, Joint, JointKind, Limits, Value};
use nalgebra::Vector3;

/// MuJoCo's joint types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MjJoint {
    Free,
    Ball,
    Slide,
    Hinge,
}

/// A joint in MuJoCo's coordinate order, for keyframes.
#[derive(Debug, Clone)]
pub(crate) struct JointSlot {
    /// IR joint name.
    pub name: String,
    pub kind: MjJoint,
    /// `ref` in the IR's unit (hinge: radians).
    pub reference: f64,
    /// Free joints: the pose of the parent joint frame (the body's reference pose).
    pub frame: Frame,
}

/// What a joint says of its coordinate as written (angles in the model's unit until
/// [`JointValues::convert_angles`]).
struct JointValues<'d> {
    reference: f64,
    springref: f64,
    stiffness: Vec<f64>,
    damping: Vec<f64>,
    armature: f64,
    frictionloss: f64,
    range: Vec<f64>,
    limited: Option<(&'d Attr, Origin)>,
}

impl JointValues<'_> {
    /// `ref`, `springref` and `range` in radians as MuJoCo converts them: a hinge's `ref` and
    /// `springref`, a hinge's or ball's nonzero range ends.
    fn convert_angles(&mut self, kind: MjJoint, unit: AngleUnit) {
        let angular = matches!(kind, MjJoint::Hinge);
        let conv = |x: f64| if angular { unit.joint_to_radians(x) } else { x };
        let to_rad = |x: f64| {
            if matches!(kind, MjJoint::Hinge | MjJoint::Ball) && x != 0.0 {
                unit.joint_to_radians(x)
            } else {
                x
            }
        };
        (self.reference, self.springref) = (conv(self.reference), conv(self.springref));
        self.range = vec![to_rad(self.range[0]), to_rad(self.range[1])];
    }
}

impl<'d> Reader<'d> {
    /// Whether a joint element is a free joint (`<freejoint>`, or `type="free"`).
    pub(super) fn is_free(&self, j: &Element) -> SourceResult<bool> {
        if j.name == "freejoint" {
            return Ok(true);
        }
        Ok(self.values.word(
            j,
            "joint",
            self.class_of(j, ClassId::MAIN)?,
            "type",
            &["free", "ball", "slide", "hinge"],
            "hinge",
        )? == "free")
    }

    /// Whether a free joint aligns its body with the inertial frame (`align`, else the
    /// compiler's `alignfree`).
    pub(super) fn aligns(&self, j: &Element) -> SourceResult<bool> {
        match j.attr("align") {
            Some(a) => Ok(match self.values.keyword(a, &["false", "true", "auto"])? {
                "true" => true,
                "false" => false,
                _ => self.compiler.alignfree,
            }),
            None => Ok(self.compiler.alignfree),
        }
    }

    /// A `<joint>` (or `<freejoint>`) of a body: an IR joint from `parent` to `child`, its
    /// parent frame offset by `parent_offset` (the body's frame for the first joint of a body,
    /// identity for the next ones of its chain), and its slot in MuJoCo's coordinates.
    pub(super) fn joint(
        &mut self,
        j: &'d Element,
        place: Place,
        parent: &BodyRef,
        child: &str,
        parent_offset: Frame,
        body_name: &str,
    ) -> SourceResult<()> {
        let (free, class, kind) = self.joint_type(j, place)?;
        let wanted = self
            .name_of(j, place)
            .unwrap_or_else(|| format!("{body_name}.joint"));
        let name = self.session.unique_name("joints", &wanted, body_name);
        let jpath = path::item("joints", &name);
        self.record(&jpath, &j.loc);
        if kind == MjJoint::Free && !parent.is_world() {
            return Err(self.error(&j.loc, "joint", "free joint can only be used on top level"));
        }
        let (axis, anchor) = self.joint_axis_anchor(j, kind, class, place)?;
        let mut values = self.joint_values(j, class, free)?;
        let limited = self.joint_limited(j, kind, &values)?;
        values.convert_angles(kind, self.compiler.angle);
        let reference = values.reference;

        let ir_kind = match kind {
            MjJoint::Hinge => JointKind::Revolute {
                axis: Vector3::from(axis),
            },
            MjJoint::Slide => JointKind::Prismatic {
                axis: Vector3::from(axis),
            },
            MjJoint::Ball => JointKind::Spherical,
            MjJoint::Free => JointKind::Free,
        };
        let mut joint = Joint::new(
            name.clone(),
            ir_kind.clone(),
            parent.clone(),
            BodyRef::body(child),
        );
        let anchor_frame = translation(anchor);
        joint.parent_frame = pose(&parent_offset.compose(&anchor_frame));
        joint.child_frame = pose(&anchor_frame);
        let nv = ir_kind.nv();
        joint.q0 = vec![0.0; ir_kind.nq()];
        joint.v0 = vec![0.0; nv];
        let dof = self.joint_dof(j, kind, &values, limited, &name, &jpath);
        if dof != DofProperties::default() {
            joint.dofs = vec![dof; nv];
        }
        if reference != 0.0 {
            joint.extras.insert("mjcf.ref", Value::Float(reference));
        }
        if free {
            joint.extras.insert("mjcf.freejoint", Value::Bool(true));
        }
        self.joint_extras(j, class, free, &mut joint, &name, &jpath);
        self.qpos_layout.push(JointSlot {
            name: name.clone(),
            kind,
            reference,
            frame: parent_offset.compose(&anchor_frame),
        });
        self.model.joints.push(joint);
        Ok(())
    }

    /// Whether the element is a `<freejoint>`, its class and its MuJoCo type.
    fn joint_type(&self, j: &'d Element, place: Place) -> SourceResult<(bool, ClassId, MjJoint)> {
        let v = self.values;
        let free = j.name == "freejoint";
        let class = if free {
            place.class
        } else {
            self.class_of(j, place.class)?
        };
        let kind = if free {
            MjJoint::Free
        } else {
            match v.word(
                j,
                "joint",
                class,
                "type",
                &["free", "ball", "slide", "hinge"],
                "hinge",
            )? {
                "free" => MjJoint::Free,
                "ball" => MjJoint::Ball,
                "slide" => MjJoint::Slide,
                _ => MjJoint::Hinge,
            }
        };
        Ok((free, class, kind))
    }

    /// A joint's axis and anchor in the body frame: the `<frame>`s it stands in turn the axis
    /// and move the anchor.
    fn joint_axis_anchor(
        &self,
        j: &'d Element,
        kind: MjJoint,
        class: ClassId,
        place: Place,
    ) -> SourceResult<([f64; 3], [f64; 3])> {
        let v = self.values;
        let free = j.name == "freejoint";
        let (pos, axis_raw) = if free {
            ([0.0; 3], [0.0, 0.0, 1.0])
        } else {
            let pos = v.vector(j, "joint", class, "pos", &[0.0; 3], true)?.0;
            let axis = v.vector(j, "joint", class, "axis", &[0.0, 0.0, 1.0], true)?.0;
            ([pos[0], pos[1], pos[2]], [axis[0], axis[1], axis[2]])
        };
        // Frames: the axis turns with them, the anchor moves with them.
        let mut axis = match kind {
            MjJoint::Free | MjJoint::Ball => [0.0, 0.0, 1.0],
            _ => rotate(&axis_raw, &place.frame.quat),
        };
        if normalize(&mut axis) < EPS {
            let loc = j.attr("axis").map_or(j.loc.clone(), |a| a.loc.clone());
            return Err(self.error(&loc, "joint", "axis too small in joint"));
        }
        let anchor = match kind {
            MjJoint::Free => [0.0; 3],
            _ => place.frame.compose(&translation(pos)).pos,
        };
        Ok((axis, anchor))
    }

    /// What a joint says of its coordinate (a `<freejoint>` says nothing).
    fn joint_values(&self, j: &'d Element, class: ClassId, free: bool) -> SourceResult<JointValues<'d>> {
        let v = self.values;
        if free {
            return Ok(JointValues {
                reference: 0.0,
                springref: 0.0,
                stiffness: vec![0.0],
                damping: vec![0.0],
                armature: 0.0,
                frictionloss: 0.0,
                range: vec![0.0, 0.0],
                limited: None,
            });
        }
        Ok(JointValues {
            reference: v.scalar(j, "joint", class, "ref", 0.0)?,
            springref: v.scalar(j, "joint", class, "springref", 0.0)?,
            stiffness: v.vector(j, "joint", class, "stiffness", &[0.0; 4], false)?.0,
            damping: v.vector(j, "joint", class, "damping", &[0.0; 4], false)?.0,
            armature: v.scalar(j, "joint", class, "armature", 0.0)?,
            frictionloss: v.scalar(j, "joint", class, "frictionloss", 0.0)?,
            range: v.vector(j, "joint", class, "range", &[0.0, 0.0], true)?.0,
            limited: v.get(j, "joint", class, "limited"),
        })
    }

    /// Whether a joint is limited: MuJoCo's `limited` (false, true, auto) and the compiler's
    /// autolimits, with MuJoCo's checks of the range.
    fn joint_limited(&self, j: &'d Element, kind: MjJoint, values: &JointValues<'d>) -> SourceResult<bool> {
        let v = self.values;
        let range = &values.range;
        let limited_word = match values.limited {
            Some((a, _)) => v.keyword(a, &["false", "true", "auto"])?,
            None => "auto",
        };
        let has_range = !(range[0] == 0.0 && range[1] == 0.0);
        if kind != MjJoint::Free && limited_word == "auto" && has_range && !self.compiler.autolimits {
            return Err(self.error(
                &j.loc,
                "joint",
                "joint has `range` but not `limited`. set the autolimits=\"true\" compiler option, specify `limited` explicitly (\"true\" or \"false\"), or remove the `range` attribute.",
            ));
        }
        let limited = kind != MjJoint::Free
            && (limited_word == "true" || (limited_word == "auto" && range[0] < range[1]));
        if limited && kind != MjJoint::Ball && range[0] >= range[1] {
            return Err(self.error(
                &j.loc,
                "joint",
                "range[0] should be smaller than range[1] in joint",
            ));
        }
        if limited && kind == MjJoint::Ball && range[0] != 0.0 {
            return Err(self.error(&j.loc, "joint", "range[0] should be 0 in ball joint"));
        }
        Ok(limited)
    }

    /// A joint's degree-of-freedom properties (`ref` moves the IR's zero), with a finding for
    /// each value the IR has no home for.
    fn joint_dof(
        &mut self,
        j: &'d Element,
        kind: MjJoint,
        values: &JointValues<'d>,
        limited: bool,
        name: &str,
        jpath: &str,
    ) -> DofProperties {
        let (reference, springref) = (values.reference, values.springref);
        let (stiffness, damping) = (&values.stiffness, &values.damping);
        let (lo, hi) = (values.range[0], values.range[1]);
        let mut dof = DofProperties {
            damping: damping[0],
            friction: values.frictionloss,
            rotor_inertia: values.armature,
            ..DofProperties::default()
        };
        match kind {
            MjJoint::Hinge | MjJoint::Slide => {
                dof.spring_stiffness = stiffness[0];
                dof.spring_rest_position = springref - reference;
                if limited {
                    dof.position_limits = Limits {
                        lower: Some(lo - reference),
                        upper: Some(hi - reference),
                    };
                }
            }
            MjJoint::Ball | MjJoint::Free => {
                if stiffness[0] != 0.0 {
                    self.finding(
                        "joint_spring",
                        Severity::Warning,
                        Category::Dropped,
                        jpath,
                        Some(&j.loc),
                        format!("joint '{name}': the stiffness of a {kind:?} joint (a spring on its rotation) has no IR home; kept as an extra"),
                    );
                }
                if limited && kind == MjJoint::Ball {
                    self.finding(
                        "ball_limit",
                        Severity::Warning,
                        Category::Dropped,
                        jpath,
                        Some(&j.loc),
                        format!("joint '{name}': a ball joint's cone limit ({hi} rad) has no IR home; kept as an extra"),
                    );
                }
            }
        }
        if stiffness.iter().skip(1).any(|&x| x != 0.0) || damping.iter().skip(1).any(|&x| x != 0.0) {
            self.finding(
                "joint_polynomial",
                Severity::Warning,
                Category::Dropped,
                jpath,
                Some(&j.loc),
                format!("joint '{name}': nonlinear stiffness or damping terms are kept as extras; the IR keeps the linear coefficient"),
            );
        }
        dof
    }

    /// What a joint says beyond its coordinate, kept as `mjcf.*` extras: its class and what it
    /// takes from its classes, `springdamper` (reported), other attributes.
    fn joint_extras(
        &mut self,
        j: &'d Element,
        class: ClassId,
        free: bool,
        joint: &mut Joint,
        name: &str,
        jpath: &str,
    ) {
        if j.attr("class").is_some() {
            joint.extras.insert(
                "mjcf.class",
                Value::String(self.values.classes.name(class).to_string()),
            );
        }
        if !free && let Some(origins) = self.class_origins(j, "joint", class) {
            joint.extras.insert("mjcf.from_class", origins);
        }
        for a in &j.attrs {
            match a.name.as_str() {
                "name" | "type" | "pos" | "axis" | "ref" | "springref" | "armature" | "frictionloss"
                | "range" | "limited" | "class" => {}
                "stiffness" | "damping" if a.value.split_ascii_whitespace().count() == 1 => {}
                "springdamper" => {
                    joint
                        .extras
                        .insert("mjcf.springdamper", Value::String(a.value.clone()));
                    self.finding(
                        "springdamper",
                        Severity::Warning,
                        Category::Dropped,
                        jpath,
                        Some(&a.loc),
                        format!("joint '{name}': springdamper (stiffness and damping from a time constant and damping ratio) is kept as an extra only"),
                    );
                }
                _ => joint
                    .extras
                    .insert(format!("mjcf.{}", a.name), Value::String(a.value.clone())),
            }
        }
    }
}
