//! Lowered IR -> Shift JSON text. Loses nothing: every item the lowered model holds has its
//! key, and the numbers read back bit for bit.

use super::json::{Out, from_value, to_text};
use crate::spec::rows as rows_convention;
use crate::spec::{
    CHILD_FRAME_KEY, Dialect, FIXED, FORMAT, OFFSET_AID, ORIGIN, PARENT_FRAME_KEY, PATH_SEPARATOR, ROWS_AID,
    pose_numbers, primitive_name, rows_of_rotation_vector,
};
use mbconv_ir::format::Exported;
use mbconv_ir::format::kit::aids;
use mbconv_ir::rotation::rotation_vector;
use mbconv_ir::{
    Body, BodyRef, DistanceType, Extras, ForceElement, ForceKind, Frame, Group, Joint, JointKind, Model,
    Pose, Report, Restraint, RestraintTarget, RestraintType, Value,
};
use nalgebra::UnitQuaternion;
use std::collections::HashMap;

/// Joint-level coefficient arrays (ascending powers) and the restraint type each stands for.
const JOINT_ARRAYS: [(&str, RestraintType); 3] = [
    ("stiffness", RestraintType::Spring),
    ("damping", RestraintType::Damper),
    ("damping_coefficients", RestraintType::Damper),
];

/// Writes a lowered model.
pub(crate) fn emit(model: &Model, dialect: Dialect) -> Exported {
    let writer = Writer::new(model, dialect);
    let mut root = Out::object().with("model_parameters", writer.parameters());
    let frames = Out::Array(model.world_frames.iter().map(|f| writer.frame(f)).collect());
    let model_extras: Vec<(String, Out)> = shift_extras(&model.extras).collect();
    match dialect {
        Dialect::Spec => {
            let mut fixed = Out::object().with("frames", frames);
            for (key, value) in &model_extras {
                fixed.push(key, value.clone());
            }
            root.push("fixed", fixed);
        }
        Dialect::V2 => {
            root.push("frames", frames);
            for (key, value) in &model_extras {
                root.push(key, value.clone());
            }
        }
    }
    let assemblies = model
        .groups
        .iter()
        .filter(|g| g.parent.is_none())
        .map(|g| writer.assembly(g))
        .collect();
    root.push("assemblies", Out::Array(assemblies));
    let restraints: Vec<Out> = model
        .force_elements
        .iter()
        .filter(|e| writer.joint_array_of(e).is_none())
        .filter_map(|e| writer.restraint(e))
        .collect();
    if !restraints.is_empty() {
        root.push("restraints", Out::Array(restraints));
    }
    Exported::text(to_text(&root), Report::default())
}

/// The `shift.*` extras, without the prefix; exactness aids left out.
fn shift_extras(extras: &Extras) -> impl Iterator<Item = (String, Out)> + '_ {
    extras
        .for_format(FORMAT)
        .filter(|(key, _)| !key.starts_with("source.") && *key != "parent_frame" && *key != "child_frame")
        .map(|(key, value)| (key.to_owned(), from_value(value)))
}

struct Writer<'m> {
    model: &'m Model,
    dialect: Dialect,
    /// Body and joint indices by name, and the first group listing each body and joint, so
    /// that every reference resolves in constant time.
    bodies: HashMap<&'m str, usize>,
    joints: HashMap<&'m str, usize>,
    body_home: HashMap<&'m str, &'m Group>,
    joint_home: HashMap<&'m str, &'m Group>,
}

impl<'m> Writer<'m> {
    fn new(model: &'m Model, dialect: Dialect) -> Self {
        let (mut body_home, mut joint_home) = (HashMap::new(), HashMap::new());
        for g in &model.groups {
            for b in &g.bodies {
                body_home.entry(b.as_str()).or_insert(g);
            }
            for j in &g.joints {
                joint_home.entry(j.as_str()).or_insert(g);
            }
        }
        Self {
            model,
            dialect,
            bodies: model.body_indices(),
            joints: model.joint_indices(),
            body_home,
            joint_home,
        }
    }

    fn find_body(&self, name: &str) -> Option<&'m Body> {
        let model = self.model;
        self.bodies.get(name).map(|&i| &model.bodies[i])
    }

    fn find_joint(&self, name: &str) -> Option<&'m Joint> {
        let model = self.model;
        self.joints.get(name).map(|&i| &model.joints[i])
    }

    fn parameters(&self) -> Out {
        let simulation = &self.model.simulation;
        let extras: Vec<(String, Out)> = shift_extras(&simulation.extras).collect();
        // The version is written only as read (with the other settings, in their order):
        // Shift reads files without one, and the version string does not tell the dialect.
        let mut out = Out::object();
        out.push(
            "units",
            Out::object()
                .with("angle", Out::str("radians"))
                .with("length", Out::str("meters"))
                .with("mass", Out::str("kilograms"))
                .with("time", Out::str("seconds")),
        );
        if let Some(g) = simulation.gravity {
            out.push("gravity", Out::floats(g.as_slice()));
        }
        for (key, value) in extras.iter() {
            out.push(key, value.clone());
        }
        out
    }

    fn assembly(&self, group: &Group) -> Out {
        let own = group.name.rsplit(PATH_SEPARATOR).next().unwrap_or_default();
        let mut out = Out::object()
            .with("name", Out::str(own))
            .with("active", Out::Bool(group.enabled));
        let bodies = group
            .bodies
            .iter()
            .filter_map(|name| self.find_body(name))
            .map(|b| self.body(b))
            .collect();
        out.push("bodies", Out::Array(bodies));
        let joints = group
            .joints
            .iter()
            .filter_map(|name| self.find_joint(name))
            .map(|j| self.joint(j, group))
            .collect();
        out.push("joints", Out::Array(joints));
        for (key, value) in shift_extras(&group.extras) {
            out.push(&key, value);
        }
        let children: Vec<Out> = self
            .model
            .groups
            .iter()
            .filter(|g| g.parent.as_deref() == Some(group.name.as_str()))
            .map(|g| self.assembly(g))
            .collect();
        if !children.is_empty() {
            out.push("assemblies", Out::Array(children));
        }
        out
    }

    fn body(&self, body: &Body) -> Out {
        let own = body.name.rsplit(PATH_SEPARATOR).next().unwrap_or_default();
        let mut out = Out::object().with("name", Out::str(own));
        if !body.enabled {
            out.push("active", Out::Bool(false));
        }
        let inertial = &body.inertial;
        let i = inertial.inertia.0;
        let table = [
            ("Ixx", i[0][0]),
            ("Iyy", i[1][1]),
            ("Izz", i[2][2]),
            ("Ixy", i[0][1]),
            ("Iyz", i[1][2]),
            ("Izx", i[2][0]),
        ];
        out.push("center_of_mass", Out::floats(inertial.com.as_slice()));
        match self.dialect {
            Dialect::Spec => {
                out.push("mass", Out::Float(inertial.mass));
                out.push(
                    "moment_of_inertia",
                    Out::Object(
                        table
                            .iter()
                            .map(|(k, v)| (k.to_string(), Out::Float(*v)))
                            .collect(),
                    ),
                );
            }
            Dialect::V2 => {
                let mut members = vec![("mass".to_owned(), Out::Float(inertial.mass))];
                members.extend(table.iter().map(|(k, v)| (k.to_string(), Out::Float(*v))));
                out.push("inertia", Out::Object(members));
            }
        }
        if !body.frames.is_empty() {
            out.push(
                "frames",
                Out::Array(body.frames.iter().map(|f| self.frame(f)).collect()),
            );
        }
        for (key, value) in shift_extras(&body.extras) {
            out.push(&key, value);
        }
        out
    }

    fn frame(&self, frame: &Frame) -> Out {
        let mut out = Out::object().with("name", Out::str(&frame.name));
        let t = frame.pose.translation;
        if t.iter().any(|x| x.to_bits() != 0) {
            out.push("T", Out::floats(t.as_slice()));
        }
        let kept = aids::kept_array::<9>(&frame.extras, FORMAT, "R")
            .filter(|rows| same_rotation(&rows_convention::from_rows(as_rows(rows)).0, &frame.pose.rotation));
        if let Some(rows) = kept {
            out.push("R", rows_out(&as_rows(&rows)));
        } else if frame.pose.rotation.coords != UnitQuaternion::identity().coords {
            out.push("R", rows_out(&rows_convention::to_rows(&frame.pose.rotation)));
        }
        for (key, value) in shift_extras(&frame.extras) {
            out.push(&key, value);
        }
        out
    }

    /// A body reference as written from `group`: the plain name inside the same assembly, the
    /// full path elsewhere; `fixed` for the world.
    fn body_reference(&self, body: &BodyRef, group: Option<&Group>) -> (Vec<String>, String) {
        match body {
            BodyRef::World => (vec![FIXED.to_owned()], FIXED.to_owned()),
            BodyRef::Body(name) => {
                let own = name.rsplit(PATH_SEPARATOR).next().unwrap_or_default().to_owned();
                let home = self.body_home.get(name.as_str()).copied();
                match (home, group) {
                    (Some(h), Some(g)) if h.name == g.name => (vec![own.clone()], own),
                    (Some(h), _) => {
                        let path = format!("{}{PATH_SEPARATOR}{own}", h.name);
                        (path.split(PATH_SEPARATOR).map(str::to_owned).collect(), path)
                    }
                    (None, _) => (vec![own.clone()], own),
                }
            }
        }
    }

    fn end(&self, body: &BodyRef, frame: &str, group: Option<&Group>) -> Out {
        let (segments, flat) = self.body_reference(body, group);
        let body = match self.dialect {
            Dialect::Spec => Out::str(flat),
            Dialect::V2 => Out::Array(segments.into_iter().map(Out::String).collect()),
        };
        Out::Array(vec![body, Out::str(frame)])
    }

    fn joint(&self, joint: &Joint, group: &Group) -> Out {
        let frame_name = |key: &str| match joint.extras.get(key) {
            Some(Value::String(s)) => s.clone(),
            _ => ORIGIN.to_owned(),
        };
        let (parent_frame, child_frame) = (frame_name(PARENT_FRAME_KEY), frame_name(CHILD_FRAME_KEY));
        let mut out = Out::object().with("name", Out::str(&joint.name));
        let parent = self.end(&joint.parent, &parent_frame, Some(group));
        let child = self.end(&joint.child, &child_frame, Some(group));
        let (type_name, axis) = match (&joint.kind, self.dialect) {
            (JointKind::Revolute { axis }, Dialect::Spec) => {
                (primitive_name(true, axis).unwrap_or("Rz"), None)
            }
            (JointKind::Prismatic { axis }, Dialect::Spec) => {
                (primitive_name(false, axis).unwrap_or("Tz"), None)
            }
            (JointKind::Revolute { axis }, Dialect::V2) => ("revolute", Some(axis)),
            (JointKind::Prismatic { axis }, Dialect::V2) => ("prismatic", Some(axis)),
            (JointKind::Fixed, _) => ("rigid", None),
            (JointKind::Free, _) => ("float", None),
            _ => ("spherical", None),
        };
        match self.dialect {
            Dialect::Spec => {
                out.push("type", Out::str(type_name));
                out.push("body_frame_pairs", Out::Array(vec![parent, child]));
            }
            Dialect::V2 => {
                out.push("parent", parent);
                out.push("child", child);
                out.push("type", Out::str(type_name));
                if let Some(axis) = axis {
                    out.push("axis", Out::floats(axis.as_slice()));
                }
            }
        }
        let (displacement, velocity) = self.initial_state(joint, &parent_frame);
        out.push("initial_displacement", displacement);
        out.push("initial_velocity", velocity);
        if !joint.enabled {
            out.push("active", Out::Bool(false));
        }
        for (key, restraint_type) in JOINT_ARRAYS {
            let name = format!("{}.{key}", joint.name);
            if let Some(element) = self.model.force_elements.iter().find(|e| e.name == name)
                && let Some(restraint) = self.joint_array_of(element)
                && restraint.restraint_type == restraint_type
            {
                out.push(key, Out::floats(&restraint.function.pieces[0]));
            }
        }
        for (key, value) in shift_extras(&joint.extras) {
            out.push(&key, value);
        }
        out
    }

    fn initial_state(&self, joint: &Joint, parent_frame: &str) -> (Out, Out) {
        match joint.kind {
            JointKind::Fixed => {
                let frame_pose = self.frame_pose(&joint.parent, parent_frame);
                let offset = frame_pose.inverse() * joint.parent_frame;
                if offset.is_exact_identity() && frame_pose == joint.parent_frame {
                    return (Out::Int(0), Out::Int(0));
                }
                let numbers = aids::kept_array::<12>(&joint.extras, FORMAT, OFFSET_AID)
                    .filter(|n| {
                        let pose = Pose::new(
                            nalgebra::Vector3::new(n[0], n[1], n[2]),
                            rows_convention::from_rows(as_rows(&n[3..12])).0,
                        );
                        same_pose(&(frame_pose * pose), &joint.parent_frame)
                    })
                    .map_or_else(|| pose_numbers(&offset), |n| n.to_vec());
                (displacement_out(&numbers[0..3], &numbers[3..12]), Out::Int(0))
            }
            JointKind::Free => {
                let r = [joint.q0[3], joint.q0[4], joint.q0[5]];
                let rows = self.kept_rows(joint, r);
                (displacement_out(&joint.q0[0..3], &rows), Out::floats(&joint.v0))
            }
            JointKind::Spherical => {
                let r = [joint.q0[0], joint.q0[1], joint.q0[2]];
                let rows = self.kept_rows(joint, r);
                let out = Out::object().with("R", rows_out(&as_rows(&rows)));
                (out, Out::floats(&joint.v0))
            }
            _ => (Out::Float(joint.q0[0]), Out::Float(joint.v0[0])),
        }
    }

    /// The `R` rows to write for a rotation vector: the rows the file gave when they read back
    /// to exactly this vector.
    fn kept_rows(&self, joint: &Joint, r: [f64; 3]) -> Vec<f64> {
        aids::kept_array::<9>(&joint.extras, FORMAT, ROWS_AID)
            .filter(|rows| {
                let q = rows_convention::from_rows(as_rows(rows)).0;
                aids::same_bits(&rotation_vector::from_quaternion(&q), &r)
            })
            .map_or_else(|| rows_of_rotation_vector(r), |rows| rows.to_vec())
    }

    fn frame_pose(&self, body: &BodyRef, frame: &str) -> Pose {
        if frame == ORIGIN {
            return Pose::identity();
        }
        let frames = match body {
            BodyRef::World => &self.model.world_frames,
            BodyRef::Body(name) => match self.find_body(name) {
                Some(b) => &b.frames,
                None => return Pose::identity(),
            },
        };
        frames
            .iter()
            .find(|f| f.name == frame)
            .map_or_else(Pose::identity, |f| f.pose)
    }

    /// The restraint an element is, when it is written as a joint's `stiffness` / `damping`
    /// array: named `<joint>.<key>`, on that joint, one piece, no knots.
    fn joint_array_of<'e>(&self, element: &'e ForceElement) -> Option<&'e Restraint> {
        let ForceKind::Restraint(restraint) = &element.kind else {
            return None;
        };
        let RestraintTarget::Joint { joint, dof: 0 } = &restraint.target else {
            return None;
        };
        let (owner, key) = element.name.rsplit_once('.')?;
        let matches = owner == joint
            && self.find_joint(joint).is_some()
            && restraint.function.knots.is_empty()
            && restraint.function.pieces.len() == 1
            && element.extras.is_empty()
            && JOINT_ARRAYS
                .iter()
                .any(|(k, t)| *k == key && *t == restraint.restraint_type);
        matches.then_some(restraint)
    }

    fn restraint(&self, element: &ForceElement) -> Option<Out> {
        let ForceKind::Restraint(restraint) = &element.kind else {
            return None;
        };
        let type_name = match restraint.restraint_type {
            RestraintType::Spring => "spring",
            RestraintType::Damper => "damper",
            RestraintType::Friction => "friction",
        };
        let mut out = Out::object()
            .with("name", Out::str(&element.name))
            .with("type", Out::str(type_name));
        match &restraint.target {
            RestraintTarget::Joint { joint, .. } => {
                let home = self.joint_home.get(joint.as_str()).copied();
                let reference = match home {
                    Some(g) => format!("{}{PATH_SEPARATOR}{joint}", g.name),
                    None => joint.clone(),
                };
                out.push("joint", Out::str(reference));
            }
            RestraintTarget::FramePair {
                body1,
                frame1,
                body2,
                frame2,
                distance,
            } => {
                let pair = Out::Array(vec![self.end(body1, frame1, None), self.end(body2, frame2, None)]);
                out.push("body_frame_pair", pair);
                let axis = match distance {
                    DistanceType::Euclidean => None,
                    DistanceType::X => Some("Tx"),
                    DistanceType::Y => Some("Ty"),
                    DistanceType::Z => Some("Tz"),
                };
                if let Some(axis) = axis {
                    out.push("distance_type", Out::str(axis));
                }
            }
        }
        out.push("knot_points", Out::floats(&restraint.function.knots));
        let pieces = restraint
            .function
            .pieces
            .iter()
            .map(|p| Out::floats(&p.iter().rev().copied().collect::<Vec<_>>()))
            .collect();
        out.push("coefficients", Out::Array(pieces));
        for (key, value) in shift_extras(&element.extras) {
            out.push(&key, value);
        }
        Some(out)
    }
}

fn as_rows(n: &[f64]) -> [[f64; 3]; 3] {
    [[n[0], n[1], n[2]], [n[3], n[4], n[5]], [n[6], n[7], n[8]]]
}

fn rows_out(rows: &[[f64; 3]; 3]) -> Out {
    Out::Array(rows.iter().map(|r| Out::floats(r)).collect())
}

fn displacement_out(t: &[f64], rows: &[f64]) -> Out {
    Out::object()
        .with("R", rows_out(&as_rows(rows)))
        .with("T", Out::floats(t))
}

fn same_rotation(a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> bool {
    aids::same_bits(a.coords.as_slice(), b.coords.as_slice())
}

fn same_pose(a: &Pose, b: &Pose) -> bool {
    aids::same_bits(a.translation.as_slice(), b.translation.as_slice())
        && same_rotation(&a.rotation, &b.rotation)
}
