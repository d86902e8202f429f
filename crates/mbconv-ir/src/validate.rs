//! Validation: checks a model against the rules of the IR and returns findings, never panics.
//!
//! Findings follow one policy (see `docs/errors.md`), which [`admission`] applies:
//!
//! - **Errors**: the model cannot mean anything. Non-finite numbers, negative mass, duplicate
//!   or empty names,
//!   references to unknown items, zero or parallel axes, a zero quaternion, coordinate vectors
//!   of the wrong length, inverted limits, negative bushing constants, badly ordered tables,
//!   group cycles. Every command refuses such a model (exit 2) and writes nothing.
//! - **Warnings**: the source simulator accepts the model but it is physically dubious. An
//!   inertia that is not symmetric (its symmetric part is used), has a negative principal
//!   moment (URDF's loaders, Pinocchio and Drake, keep one and simulate it; a writer whose
//!   target refuses it repairs it for that target), breaks the triangle inequality or is
//!   singular, a shape with a negative or
//!   zero size, a quaternion that is not of unit norm, a tree body whose stored pose disagrees
//!   with its joints, a massless free body, a body named `world`. Such a model converts;
//!   `--strict` refuses it (exit 1).
//!
//! The inertia checks are relative to the model's scale ([`inertial_tolerance`]): round-off in
//! a tensor is neither unphysical nor a broken triangle inequality.

use crate::format::SourceMap;
use crate::kinematics::{Attachment, Configuration, SpanningTree, world_poses};
use crate::model::body::{Body, Inertial};
use crate::model::constraint::ConstraintKind;
use crate::model::force::{ForceKind, ORIGIN_FRAME, RestraintTarget, SpringDamperLaw};
use crate::model::function::TimeFunction;
use crate::model::geometry::Geometry;
use crate::model::joint::Joint;
use crate::model::joint::{DofProperties, Limits};
use crate::model::motor::MotorTarget;
use crate::model::{BodyRef, Model};
use crate::pose::Pose;
use crate::report::{Category, Finding, Report, Severity, number, numbers, path};
use nalgebra::{Matrix3, SymmetricEigen, UnitQuaternion, Vector3};
use std::collections::{HashMap, HashSet};

/// Tolerance on `|q| − 1` for stored quaternions.
pub const UNIT_QUATERNION_TOLERANCE: f64 = 1e-9;
/// Relative tolerance for inertia checks, times the body's inertia scale ([`inertia_scale`]).
pub const INERTIA_TOLERANCE: f64 = 1e-9;
/// Relative tolerance for inertia checks, times the model's inertia scale
/// ([`model_inertia_scale`]): a defect below it is round-off whatever the body.
pub const MODEL_INERTIA_TOLERANCE: f64 = 1e-12;
/// Distance/angle tolerance between a stored body pose and its pose from the joints.
pub const POSE_TOLERANCE: f64 = 1e-6;

/// Checks `model` and returns every finding.
///
/// ```
/// use mbconv_ir::{validate, Body, Model};
/// let mut model = Model::new("m");
/// let mut body = Body::new("b");
/// body.inertial.mass = -1.0;
/// model.bodies.push(body);
/// let report = validate(&model);
/// assert!(report.contains("mass.negative"));
/// ```
pub fn validate(model: &Model) -> Report {
    let mut v = Validator {
        model,
        report: Report::default(),
        bodies: model.body_indices(),
        joints: model.joint_indices(),
        model_scale: model_inertia_scale(model),
    };
    v.names();
    v.bodies();
    v.joints();
    v.constraints();
    v.force_elements();
    v.motors();
    v.loads_devices_groups();
    v.simulation();
    v.graph();
    v.report
}

/// What the policy makes of a model, from its validation report (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// No errors and no warnings.
    Clean,
    /// Physically dubious: converts, but `--strict` refuses it.
    Dubious {
        /// Number of warnings.
        warnings: usize,
    },
    /// Cannot mean anything: every command refuses it.
    Invalid {
        /// Number of errors.
        errors: usize,
    },
}

/// Applies the policy to a validation report: any error makes the model invalid, else any
/// warning makes it dubious. Information findings do not count.
///
/// ```
/// use mbconv_ir::validate::{Admission, admission};
/// use mbconv_ir::{Body, Model, validate};
/// let mut model = Model::new("m");
/// model.bodies.push(Body::new("b"));
/// assert_eq!(admission(&validate(&model)), Admission::Clean);
/// model.bodies[0].inertial.mass = 0.0; // a free massless body
/// assert_eq!(admission(&validate(&model)), Admission::Dubious { warnings: 1 });
/// model.bodies[0].inertial.mass = f64::NAN;
/// assert!(matches!(admission(&validate(&model)), Admission::Invalid { .. }));
/// ```
pub fn admission(report: &Report) -> Admission {
    let errors = report.at_least(Severity::Error).count();
    let warnings = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    match (errors, warnings) {
        (0, 0) => Admission::Clean,
        (0, warnings) => Admission::Dubious { warnings },
        (errors, _) => Admission::Invalid { errors },
    }
}

/// The principal moments of a symmetric inertia matrix, smallest first, or `None` when an
/// entry is not finite. The symmetric part is used, so an asymmetry must be checked apart.
///
/// ```
/// use nalgebra::Matrix3;
/// let p = mbconv_ir::validate::principal_moments(&Matrix3::from_diagonal(&[3.0, 1.0, 2.0].into()));
/// assert_eq!(p, Some([1.0, 2.0, 3.0]));
/// ```
pub fn principal_moments(m: &Matrix3<f64>) -> Option<[f64; 3]> {
    if m.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let eig = SymmetricEigen::new((m + m.transpose()) * 0.5).eigenvalues;
    let mut p = [eig[0], eig[1], eig[2]];
    p.sort_by(f64::total_cmp);
    Some(p)
}

/// [`INERTIA_TOLERANCE`] times the largest entry of `m`: the tolerance of a tensor without its
/// body (validation uses [`inertial_tolerance`], which knows the body and the model).
///
/// ```
/// use nalgebra::Matrix3;
/// assert_eq!(mbconv_ir::validate::inertia_tolerance(&Matrix3::identity()), 1e-9);
/// ```
pub fn inertia_tolerance(m: &Matrix3<f64>) -> f64 {
    INERTIA_TOLERANCE * m.abs().max().max(f64::MIN_POSITIVE)
}

/// The size of a body's rotational inertia: the largest of the central tensor's entries and
/// `m·|c|²`, `c` the centre of mass in the body frame (the size of the body's inertia about its
/// frame origin, the numbers a file's generator worked from before it moved them to the centre
/// of mass, so its round-off is relative to them).
///
/// ```
/// use mbconv_ir::{Inertia, Inertial};
/// use nalgebra::{Matrix3, Vector3};
/// let mut point = Inertial::default();
/// point.mass = 2.0;
/// point.com = Vector3::new(0.0, 0.0, 0.5);
/// point.inertia = Inertia::from_matrix(&Matrix3::zeros());
/// assert_eq!(mbconv_ir::validate::inertia_scale(&point), 0.5);
/// ```
pub fn inertia_scale(inertial: &Inertial) -> f64 {
    let tensor = inertial.inertia.matrix().abs().max();
    let about_origin = inertial.mass.abs() * inertial.com.norm_squared();
    if tensor.is_finite() && about_origin.is_finite() {
        tensor.max(about_origin)
    } else {
        0.0
    }
}

/// The inertia scale of a model: the largest [`inertia_scale`] of its bodies.
///
/// ```
/// use mbconv_ir::{Body, Model};
/// let mut model = Model::new("m");
/// let mut body = Body::new("b");
/// body.inertial.mass = 2.0;
/// body.inertial.com.z = 1.0;
/// model.bodies.push(body);
/// assert_eq!(mbconv_ir::validate::model_inertia_scale(&model), 2.0);
/// ```
pub fn model_inertia_scale(model: &Model) -> f64 {
    model
        .bodies
        .iter()
        .map(|b| inertia_scale(&b.inertial))
        .fold(0.0, f64::max)
}

/// The tolerance of the inertia checks of a body (negative principal moment, triangle
/// inequality, singular, asymmetric) in a model of inertia scale `model_scale`:
/// [`INERTIA_TOLERANCE`] times the body's [`inertia_scale`], or [`MODEL_INERTIA_TOLERANCE`]
/// times `model_scale` when that is larger. So a defect is judged relative to the body's own
/// size, and one below 1e-12 of the model's largest inertia is round-off whatever the body
/// (iCub's URDF gives moving links tensors of 1e-20 whose principal moments come out
/// negative; Pinocchio and Drake read them).
///
/// ```
/// use mbconv_ir::Inertial;
/// use mbconv_ir::validate::inertial_tolerance;
/// let mut unit = Inertial::default();
/// unit.mass = 1.0;
/// assert_eq!(inertial_tolerance(&unit, 0.0), 1e-9);
/// assert_eq!(inertial_tolerance(&unit, 1e6), 1e-6);
/// ```
pub fn inertial_tolerance(inertial: &Inertial, model_scale: f64) -> f64 {
    let model = if model_scale.is_finite() {
        MODEL_INERTIA_TOLERANCE * model_scale
    } else {
        0.0
    };
    (INERTIA_TOLERANCE * inertia_scale(inertial))
        .max(model)
        .max(f64::MIN_POSITIVE)
}

/// Validates and attaches source spans from an importer's source map.
pub fn validate_with_spans(model: &Model, map: &SourceMap) -> Report {
    let mut report = validate(model);
    for f in &mut report.findings {
        if f.span.is_none() {
            f.span = f.path.as_deref().and_then(|p| crate::format::span_of(map, p));
        }
    }
    report
}

struct Validator<'a> {
    model: &'a Model,
    report: Report,
    /// Body and joint indices by name: references resolve in constant time.
    bodies: HashMap<&'a str, usize>,
    joints: HashMap<&'a str, usize>,
    /// [`model_inertia_scale`], for the inertia checks' tolerance.
    model_scale: f64,
}

impl<'a> Validator<'a> {
    fn body(&self, name: &str) -> Option<&'a Body> {
        let model = self.model;
        self.bodies.get(name).map(|&i| &model.bodies[i])
    }

    fn joint(&self, name: &str) -> Option<&'a Joint> {
        let model = self.model;
        self.joints.get(name).map(|&i| &model.joints[i])
    }

    fn error(&mut self, code: &str, at: impl Into<String>, message: impl Into<String>) {
        self.report
            .push(Finding::new(code, Severity::Error, Category::Invalid, message).at(at));
    }

    fn warning(&mut self, code: &str, at: impl Into<String>, message: impl Into<String>) {
        self.report
            .push(Finding::new(code, Severity::Warning, Category::Note, message).at(at));
    }

    fn finite(&mut self, at: &str, what: &str, values: &[f64]) {
        if values.iter().any(|x| !x.is_finite()) {
            self.error(
                "number.not_finite",
                at,
                format!("{what} has a non-finite value: {values:?}"),
            );
        }
    }

    fn pose(&mut self, at: &str, what: &str, pose: &Pose) {
        self.finite(at, what, pose.translation.as_slice());
        self.rotation(at, what, &pose.rotation);
    }

    fn rotation(&mut self, at: &str, what: &str, q: &UnitQuaternion<f64>) {
        let norm = q.quaternion().norm();
        if !norm.is_finite() {
            self.error(
                "number.not_finite",
                at,
                format!("{what}: quaternion has a non-finite value"),
            );
        } else if norm == 0.0 {
            self.error(
                "rotation.zero",
                at,
                format!("{what}: quaternion is zero and means no rotation"),
            );
        } else if (norm - 1.0).abs() > UNIT_QUATERNION_TOLERANCE {
            self.warning(
                "rotation.not_unit",
                at,
                format!(
                    "{what}: quaternion has norm {}, expected 1 (it is used normalised)",
                    number(norm)
                ),
            );
        }
    }

    fn body_ref(&mut self, at: &str, what: &str, r: &BodyRef) {
        if let BodyRef::Body(name) = r
            && self.body(name).is_none()
        {
            self.error(
                "ref.unresolved",
                at,
                format!("{what} refers to unknown body {name:?}"),
            );
        }
    }

    fn axis(&mut self, at: &str, what: &str, axis: &Vector3<f64>) {
        self.finite(at, what, axis.as_slice());
        if axis.norm() == 0.0 {
            self.error("axis.zero", at, format!("{what} is the zero vector"));
        }
    }

    fn names(&mut self) {
        let m = self.model;
        let lists = m.item_names();
        for (list, names) in lists {
            self.unique(list, &names);
        }
        let world_frames: Vec<&str> = m.world_frames.iter().map(|f| f.name.as_str()).collect();
        self.unique("world_frames", &world_frames);
        for body in &m.bodies {
            let base = path::item("bodies", &body.name);
            let frames: Vec<&str> = body.frames.iter().map(|f| f.name.as_str()).collect();
            self.unique(&path::field(&base, "frames"), &frames);
            let materials: Vec<&str> = body.contact_materials.iter().map(|c| c.name.as_str()).collect();
            self.unique(&path::field(&base, "contact_materials"), &materials);
        }
        if m.body("world").is_some() {
            self.warning(
                "name.world",
                path::item("bodies", "world"),
                "a body named \"world\" is easily confused with the world frame",
            );
        }
    }

    fn unique(&mut self, list: &str, names: &[&str]) {
        let mut seen = HashSet::new();
        for (i, name) in names.iter().enumerate() {
            if name.is_empty() {
                self.error(
                    "name.empty",
                    format!("{list}[{i}]"),
                    format!("item {i} of {list} has an empty name"),
                );
            } else if !seen.insert(*name) {
                self.error(
                    "name.duplicate",
                    format!("{list}[{name:?}]"),
                    format!("the name {name:?} is used more than once in {list}"),
                );
            }
        }
    }

    /// `mass.zero` for a massless body that is not fixed: a note when it is welded to another
    /// body without inertia (a frame) or moves with bodies welded to it that have mass, else a
    /// warning.
    fn zero_mass(&mut self, body: &Body, at: &str) {
        let own = self
            .model
            .joints
            .iter()
            .find(|j| j.enabled && j.child.name() == Some(body.name.as_str()));
        let name = &body.name;
        let (severity, message) = match own {
            Some(j) if matches!(j.kind, crate::model::joint::JointKind::Fixed) => {
                let to = j
                    .parent
                    .name()
                    .map_or_else(|| "the world".to_owned(), |p| format!("body {p:?}"));
                if body.inertial.inertia.matrix().iter().all(|x| *x == 0.0) {
                    let message = format!(
                        "body {name:?} has zero mass; the fixed joint {:?} welds it to {to}: a frame, it adds nothing to that body",
                        j.name
                    );
                    (Severity::Info, message)
                } else {
                    let message = format!(
                        "body {name:?} has zero mass but a non-zero inertia; the fixed joint {:?} welds it to {to}",
                        j.name
                    );
                    (Severity::Warning, message)
                }
            }
            Some(j) => match self.welded_mass(name) {
                Some(carried) if carried > 0.0 => (
                    Severity::Info,
                    format!(
                        "body {name:?} has zero mass; it moves on joint {:?} with the bodies welded to it, which carry {} kg",
                        j.name,
                        number(carried)
                    ),
                ),
                welded => (
                    Severity::Warning,
                    format!(
                        "body {name:?} moves on joint {:?} and has zero mass{}",
                        j.name,
                        if welded.is_some() {
                            ", as have the bodies welded to it"
                        } else {
                            ""
                        }
                    ),
                ),
            },
            None => (
                Severity::Warning,
                format!("body {name:?} is neither fixed nor held by a joint and has zero mass"),
            ),
        };
        self.report
            .push(Finding::new("mass.zero", severity, Category::Note, message).at(at));
    }

    /// The mass of the bodies welded below body `name` by enabled fixed joints (its own not
    /// counted), or `None` when no body is welded below it.
    fn welded_mass(&self, name: &str) -> Option<f64> {
        let mut below = vec![name];
        let mut seen = std::collections::HashSet::from([name]);
        let mut mass = None;
        while let Some(parent) = below.pop() {
            for j in &self.model.joints {
                let child = j.child.name();
                if j.enabled
                    && matches!(j.kind, crate::model::joint::JointKind::Fixed)
                    && j.parent.name() == Some(parent)
                    && let Some(child) = child.filter(|c| seen.insert(c))
                {
                    *mass.get_or_insert(0.0) += self.body(child).map_or(0.0, |b| b.inertial.mass.max(0.0));
                    below.push(child);
                }
            }
        }
        mass
    }

    fn bodies(&mut self) {
        for body in &self.model.bodies {
            let base = path::item("bodies", &body.name);
            self.pose(&path::field(&base, "pose"), "body pose", &body.pose);
            let at = path::field(&base, "inertial");
            let inertial = &body.inertial;
            self.finite(&at, "mass", &[inertial.mass]);
            self.finite(&at, "centre of mass", inertial.com.as_slice());
            self.rotation(&at, "inertia rotation", &inertial.inertia_rotation);
            if inertial.mass < 0.0 {
                self.error(
                    "mass.negative",
                    &at,
                    format!("body {:?} has negative mass {}", body.name, number(inertial.mass)),
                );
            }
            if inertial.mass == 0.0 && !body.fixed {
                self.zero_mass(body, &at);
            }
            self.inertia(
                &at,
                body,
                &inertial.inertia.matrix(),
                inertial_tolerance(inertial, self.model_scale),
            );
            if let Some(v) = &body.initial_velocity {
                self.finite(
                    &path::field(&base, "initial_velocity"),
                    "initial velocity",
                    &[v.linear.as_slice(), v.angular.as_slice()].concat(),
                );
            }
            for (i, shape) in body.shapes.iter().enumerate() {
                let at = path::index(&base, "shapes", i);
                self.pose(&at, "shape pose", &shape.pose);
                self.geometry(&at, &shape.geometry);
                if let Some(material) = &shape.contact_material
                    && !body.contact_materials.iter().any(|c| &c.name == material)
                {
                    self.error(
                        "ref.unresolved",
                        &at,
                        format!(
                            "shape refers to unknown contact material {material:?} of body {:?}",
                            body.name
                        ),
                    );
                }
            }
            for frame in &body.frames {
                self.pose(
                    &path::field(&base, &format!("frames[{:?}]", frame.name)),
                    "frame pose",
                    &frame.pose,
                );
            }
        }
    }

    fn inertia(&mut self, at: &str, body: &crate::Body, m: &Matrix3<f64>, tol: f64) {
        let name = &body.name;
        let Some(p) = principal_moments(m) else {
            self.error(
                "number.not_finite",
                at,
                format!("inertia of body {name:?} has a non-finite entry"),
            );
            return;
        };
        let asymmetry = (m - m.transpose()).abs().max();
        if asymmetry > tol {
            // Choreonoid loads such a tensor (WAREC1 has one, off by 1.2e-5): dubious, not
            // meaningless. Its symmetric part is what the solver uses and what is checked on.
            self.warning(
                "inertia.asymmetric",
                at,
                format!(
                    "inertia of body {name:?} is not symmetric (largest difference {}); its symmetric part is used",
                    number(asymmetry)
                ),
            );
        }
        if p[0] < -tol {
            // Pinocchio and Drake load and simulate such a tensor (example-robot-data's
            // romeo_laas_small has three, down to -0.021 kg·m²): dubious, not meaningless. The
            // equations of motion hold as long as what the joints move is positive; the solver
            // says so when it is not.
            self.warning(
                "inertia.not_psd",
                at,
                format!(
                    "inertia of body {name:?} has a negative principal moment of {} ({:.2} of its largest; principal moments {}): no rigid body has it; kept as read",
                    number(p[0]),
                    -p[0] / p[2].abs().max(f64::MIN_POSITIVE),
                    numbers(&p)
                ),
            );
        } else if p[0] + p[1] < p[2] - tol {
            self.warning(
                "inertia.triangle",
                at,
                format!(
                    "inertia of body {name:?} breaks the triangle inequality: {} + {} < {}",
                    number(p[0]),
                    number(p[1]),
                    number(p[2])
                ),
            );
        } else if p[0] <= tol && body.inertial.mass > 0.0 && !body.fixed {
            self.warning(
                "inertia.singular",
                at,
                format!(
                    "inertia of body {name:?} is singular (principal moments {}): the body has mass but no inertia about an axis",
                    numbers(&p)
                ),
            );
        }
    }

    fn geometry(&mut self, at: &str, g: &Geometry) {
        // The numbers that size the shape: any non-finite one is an error.
        let sizes: Vec<f64> = match g {
            Geometry::Box { size } => size.to_vec(),
            Geometry::Sphere { radius } => vec![*radius],
            Geometry::Ellipsoid { radii } => radii.to_vec(),
            Geometry::Cylinder { radius, length }
            | Geometry::Capsule { radius, length }
            | Geometry::Cone { radius, length } => vec![*radius, *length],
            Geometry::Pyramid {
                base_width,
                base_depth,
                height,
            } => vec![*base_width, *base_depth, *height],
            Geometry::Plane { normal, offset } => [normal.as_slice(), &[*offset]].concat(),
            Geometry::MultiSphere { spheres } => spheres
                .iter()
                .flat_map(|s| [s.radius, s.center.x, s.center.y, s.center.z])
                .collect(),
            Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh) | Geometry::FittedPrimitive { mesh, .. } => {
                mesh.scale.to_vec()
            }
            _ => Vec::new(),
        };
        if sizes.iter().any(|x| !x.is_finite()) {
            self.error(
                "number.not_finite",
                at,
                format!("geometry has a non-finite size: {g:?}"),
            );
            return;
        }
        let meaningless = match g {
            Geometry::Plane { normal, .. } => {
                (normal.norm() == 0.0).then_some("the plane's normal is the zero vector")
            }
            Geometry::ElevationGrid(grid) => (grid.height.len()
                != (grid.x_dimension as usize) * (grid.z_dimension as usize))
                .then_some("the elevation grid's height count is not x_dimension × z_dimension"),
            Geometry::TriangleMesh { vertices, triangles } => triangles
                .iter()
                .flatten()
                .any(|&i| (i as usize) >= vertices.len())
                .then_some("a triangle refers to a vertex that does not exist"),
            _ => None,
        };
        if let Some(why) = meaningless {
            self.error("shape.invalid", at, why);
            return;
        }
        let positive = |v: &[f64]| v.iter().all(|x| *x > 0.0);
        let non_negative = |v: &[f64]| v.iter().all(|x| *x >= 0.0);
        let ok = match g {
            Geometry::Box { size } => non_negative(size.as_slice()),
            Geometry::Sphere { radius } => positive(&[*radius]),
            Geometry::Ellipsoid { radii } => positive(radii.as_slice()),
            Geometry::Cylinder { radius, length }
            | Geometry::Capsule { radius, length }
            | Geometry::Cone { radius, length } => positive(&[*radius]) && non_negative(&[*length]),
            Geometry::Pyramid {
                base_width,
                base_depth,
                height,
            } => positive(&[*base_width, *base_depth, *height]),
            Geometry::MultiSphere { spheres } => spheres.iter().all(|s| positive(&[s.radius])),
            _ => true,
        };
        if !ok {
            self.warning(
                "shape.size",
                at,
                format!("geometry has a negative or zero size: {g:?}"),
            );
        }
    }

    fn joints(&mut self) {
        for joint in &self.model.joints {
            let base = path::item("joints", &joint.name);
            self.body_ref(&path::field(&base, "parent"), "joint parent", &joint.parent);
            self.body_ref(&path::field(&base, "child"), "joint child", &joint.child);
            if joint.parent == joint.child {
                let code = if joint.parent.is_world() {
                    "joint.world_to_world"
                } else {
                    "joint.self"
                };
                self.error(
                    code,
                    &base,
                    format!("joint {:?} connects {} to itself", joint.name, joint.parent),
                );
            }
            self.pose(
                &path::field(&base, "parent_frame"),
                "parent joint frame",
                &joint.parent_frame,
            );
            self.pose(
                &path::field(&base, "child_frame"),
                "child joint frame",
                &joint.child_frame,
            );
            for (name, axis) in joint.kind.axes() {
                self.axis(
                    &path::field(&base, &format!("kind.{name}")),
                    &format!("joint {:?} {name}", joint.name),
                    &axis,
                );
            }
            let axes = joint.kind.axes();
            if axes.len() == 2 && axes[0].1.norm() > 0.0 && axes[1].1.norm() > 0.0 {
                let sine = axes[0].1.normalize().cross(&axes[1].1.normalize()).norm();
                if sine < 1e-9 {
                    self.error(
                        "axis.parallel",
                        path::field(&base, "kind"),
                        format!("joint {:?} has parallel axes", joint.name),
                    );
                }
            }
            let (nq, nv) = (joint.kind.nq(), joint.kind.nv());
            if joint.q0.len() != nq {
                self.error(
                    "joint.q0_length",
                    path::field(&base, "q0"),
                    format!(
                        "a {} joint has {nq} position coordinates, q0 has {}",
                        joint.kind.type_name(),
                        joint.q0.len()
                    ),
                );
            }
            if joint.v0.len() != nv {
                self.error(
                    "joint.v0_length",
                    path::field(&base, "v0"),
                    format!(
                        "a {} joint has {nv} velocity coordinates, v0 has {}",
                        joint.kind.type_name(),
                        joint.v0.len()
                    ),
                );
            }
            self.finite(&path::field(&base, "q0"), "q0", &joint.q0);
            self.finite(&path::field(&base, "v0"), "v0", &joint.v0);
            if !joint.dofs.is_empty() && joint.dofs.len() != nv {
                self.error(
                    "joint.dofs_length",
                    path::field(&base, "dofs"),
                    format!(
                        "joint {:?} has {nv} degrees of freedom but {} dof entries",
                        joint.name,
                        joint.dofs.len()
                    ),
                );
            }
            for (i, dof) in joint.dofs.iter().enumerate() {
                self.dof(&path::index(&base, "dofs", i), dof);
            }
            if let Some(bushing) = &joint.bushing {
                let c = [bushing.constrained].into_iter().chain(bushing.free);
                if c.flat_map(|c| {
                    [
                        c.stiffness_linear,
                        c.damping_linear,
                        c.stiffness_rotational,
                        c.damping_rotational,
                    ]
                })
                .any(|x| !non_negative(x))
                {
                    self.error(
                        "bushing.negative",
                        path::field(&base, "bushing"),
                        "bushing constants must be non-negative",
                    );
                }
            }
        }
    }

    fn dof(&mut self, at: &str, dof: &DofProperties) {
        for (what, limits) in [
            ("position_limits", dof.position_limits),
            ("velocity_limits", dof.velocity_limits),
            ("acceleration_limits", dof.acceleration_limits),
            ("effort_limits", dof.effort_limits),
        ] {
            self.limits(&path::field(at, what), what, &limits);
        }
        self.finite(
            at,
            "dof properties",
            &[
                dof.damping,
                dof.friction,
                dof.spring_stiffness,
                dof.spring_rest_position,
                dof.rotor_inertia,
                dof.gear_ratio,
            ],
        );
    }

    fn limits(&mut self, at: &str, what: &str, limits: &Limits) {
        if let (Some(lo), Some(hi)) = (limits.lower, limits.upper)
            && lo > hi
        {
            self.error(
                "limits.inverted",
                at,
                format!(
                    "{what}: lower bound {} is above upper bound {}",
                    number(lo),
                    number(hi)
                ),
            );
        }
        let values: Vec<f64> = limits.lower.into_iter().chain(limits.upper).collect();
        self.finite(at, what, &values);
    }

    fn constraints(&mut self) {
        for c in &self.model.constraints {
            let base = path::item("constraints", &c.name);
            let [b1, b2] = c.kind.bodies();
            self.body_ref(&path::field(&base, "body1"), "constraint body1", b1);
            self.body_ref(&path::field(&base, "body2"), "constraint body2", b2);
            if b1 == b2 {
                self.error(
                    "constraint.self",
                    &base,
                    format!("constraint {:?} connects {b1} to itself", c.name),
                );
            }
            match &c.kind {
                ConstraintKind::Distance { distance, .. }
                | ConstraintKind::RevoluteSpherical { distance, .. }
                | ConstraintKind::RevoluteTranslational { distance, .. } => {
                    if distance.is_some_and(|d| !non_negative(d)) {
                        self.error("constraint.distance", &base, "distance must be non-negative");
                    }
                }
                ConstraintKind::ExtraJoint {
                    frame1, frame2, axis, ..
                } => {
                    self.pose(&path::field(&base, "frame1"), "anchor frame", frame1);
                    self.pose(&path::field(&base, "frame2"), "anchor frame", frame2);
                    self.axis(&path::field(&base, "axis"), "extra joint axis", axis);
                }
            }
        }
    }

    fn force_elements(&mut self) {
        for f in &self.model.force_elements {
            let base = path::item("force_elements", &f.name);
            match &f.kind {
                ForceKind::Tsda(t) => {
                    self.body_ref(&path::field(&base, "body1"), "TSDA body1", &t.body1);
                    self.body_ref(&path::field(&base, "body2"), "TSDA body2", &t.body2);
                    self.law(&path::field(&base, "law"), &t.law);
                    if let (Some(lo), Some(hi)) = (t.min_length, t.max_length)
                        && lo > hi
                    {
                        self.error(
                            "limits.inverted",
                            &base,
                            format!(
                                "minimum length {} is above maximum length {}",
                                number(lo),
                                number(hi)
                            ),
                        );
                    }
                }
                ForceKind::Rsda(r) => {
                    self.body_ref(&path::field(&base, "body1"), "RSDA body1", &r.body1);
                    self.body_ref(&path::field(&base, "body2"), "RSDA body2", &r.body2);
                    self.pose(&path::field(&base, "frame1"), "RSDA frame", &r.frame1);
                    self.pose(&path::field(&base, "frame2"), "RSDA frame", &r.frame2);
                    self.law(&path::field(&base, "law"), &r.law);
                }
                ForceKind::Bushing(b) => {
                    self.body_ref(&path::field(&base, "body_a"), "bushing body A", &b.body_a);
                    self.body_ref(&path::field(&base, "body_c"), "bushing body C", &b.body_c);
                    self.pose(&path::field(&base, "frame_a"), "bushing frame A", &b.frame_a);
                    self.pose(&path::field(&base, "frame_c"), "bushing frame C", &b.frame_c);
                    let all = [
                        b.torque_stiffness,
                        b.torque_damping,
                        b.force_stiffness,
                        b.force_damping,
                    ]
                    .concat();
                    if all.iter().any(|x| !non_negative(*x)) {
                        self.error(
                            "bushing.negative",
                            &base,
                            format!(
                                "bushing {:?}: stiffness and damping must be non-negative and finite",
                                f.name
                            ),
                        );
                    }
                }
                ForceKind::Restraint(r) => {
                    match &r.target {
                        RestraintTarget::Joint { joint, dof } => self.joint_dof(&base, joint, *dof),
                        RestraintTarget::FramePair {
                            body1,
                            frame1,
                            body2,
                            frame2,
                            ..
                        } => {
                            self.frame_ref(&base, body1, frame1);
                            self.frame_ref(&base, body2, frame2);
                        }
                    }
                    if r.function.pieces.len() != r.function.knots.len() + 1 {
                        self.error(
                            "restraint.pieces",
                            path::field(&base, "function"),
                            format!(
                                "{} knots need {} coefficient lists, found {}",
                                r.function.knots.len(),
                                r.function.knots.len() + 1,
                                r.function.pieces.len()
                            ),
                        );
                    }
                    self.ascending(&path::field(&base, "function.knots"), "knots", &r.function.knots);
                }
            }
        }
    }

    fn frame_ref(&mut self, at: &str, body: &BodyRef, frame: &str) {
        let exists = match body {
            BodyRef::World => {
                frame == ORIGIN_FRAME || self.model.world_frames.iter().any(|f| f.name == frame)
            }
            BodyRef::Body(name) => match self.body(name) {
                Some(b) => frame == ORIGIN_FRAME || b.frame(frame).is_some(),
                None => {
                    self.error("ref.unresolved", at, format!("unknown body {name:?}"));
                    return;
                }
            },
        };
        if !exists {
            self.error("ref.unresolved", at, format!("unknown frame {frame:?} on {body}"));
        }
    }

    fn joint_dof(&mut self, at: &str, joint: &str, dof: usize) {
        match self.joint(joint) {
            None => self.error("ref.unresolved", at, format!("refers to unknown joint {joint:?}")),
            Some(j) if dof >= j.kind.nv() => self.error(
                "dof.index",
                at,
                format!(
                    "joint {joint:?} has {} degrees of freedom; index {dof} is out of range",
                    j.kind.nv()
                ),
            ),
            Some(_) => {}
        }
    }

    fn ascending(&mut self, at: &str, what: &str, xs: &[f64]) {
        if xs.iter().any(|x| !x.is_finite()) || xs.windows(2).any(|w| w[0] >= w[1]) {
            self.error(
                "table.order",
                at,
                format!("{what} must be finite and strictly increasing: {xs:?}"),
            );
        }
    }

    fn law(&mut self, at: &str, law: &SpringDamperLaw) {
        match law {
            SpringDamperLaw::Curves { spring, damping } => {
                for curve in [spring, damping].into_iter().flatten() {
                    let xs: Vec<f64> = curve.iter().map(|p| p[0]).collect();
                    self.ascending(at, "curve abscissae", &xs);
                }
            }
            SpringDamperLaw::Map {
                deformations,
                velocities,
                forces,
            } => {
                self.ascending(at, "map deformations", deformations);
                self.ascending(at, "map velocities", velocities);
                if forces.len() != velocities.len()
                    || forces.iter().any(|row| row.len() != deformations.len())
                {
                    self.error(
                        "table.shape",
                        at,
                        format!(
                            "a map over {} deformations and {} velocities needs {}×{} forces",
                            deformations.len(),
                            velocities.len(),
                            velocities.len(),
                            deformations.len()
                        ),
                    );
                }
            }
            _ => {}
        }
    }

    fn function(&mut self, at: &str, f: &TimeFunction) {
        match f {
            TimeFunction::Data { points } => {
                let xs: Vec<f64> = points.iter().map(|p| p[0]).collect();
                self.ascending(at, "data times", &xs);
            }
            TimeFunction::Repeat { function, width, .. } => {
                if !(width.is_finite() && *width > 0.0) {
                    self.error(
                        "function.repeat_width",
                        at,
                        format!("repeat width must be positive, got {}", number(*width)),
                    );
                }
                self.function(at, function);
            }
            TimeFunction::Piecewise { knots, pieces } => {
                if pieces.len() != knots.len() + 1 {
                    self.error(
                        "function.pieces",
                        at,
                        "a piecewise function needs one more piece than knots",
                    );
                }
                self.ascending(at, "knots", knots);
                for p in pieces {
                    self.function(at, p);
                }
            }
            _ => {}
        }
    }

    fn motors(&mut self) {
        for m in &self.model.motors {
            let base = path::item("motors", &m.name);
            match &m.target {
                MotorTarget::BodyPair {
                    body1,
                    frame1,
                    body2,
                    frame2,
                    ..
                } => {
                    self.body_ref(&path::field(&base, "body1"), "motor body1", body1);
                    self.body_ref(&path::field(&base, "body2"), "motor body2", body2);
                    self.pose(&path::field(&base, "frame1"), "motor frame", frame1);
                    self.pose(&path::field(&base, "frame2"), "motor frame", frame2);
                }
                MotorTarget::Joint { joint, dof } => self.joint_dof(&base, joint, *dof),
            }
            self.function(&path::field(&base, "function"), &m.function);
        }
    }

    fn loads_devices_groups(&mut self) {
        let m = self.model;
        for load in &m.loads {
            let base = path::item("loads", &load.name);
            self.body_ref(
                &path::field(&base, "body"),
                "load body",
                &BodyRef::body(load.body.clone()),
            );
            self.finite(
                &base,
                "load",
                &[load.vector.as_slice(), load.point.as_slice()].concat(),
            );
            if let Some(f) = &load.modulation {
                self.function(&path::field(&base, "modulation"), f);
            }
        }
        for d in &m.devices {
            let base = path::item("devices", &d.name);
            self.body_ref(&path::field(&base, "body"), "device body", &d.body);
            self.pose(&path::field(&base, "pose"), "device pose", &d.pose);
        }
        let names: HashMap<&str, Option<&str>> = m
            .groups
            .iter()
            .map(|g| (g.name.as_str(), g.parent.as_deref()))
            .collect();
        for g in &m.groups {
            let base = path::item("groups", &g.name);
            for b in &g.bodies {
                if self.body(b).is_none() {
                    self.error(
                        "ref.unresolved",
                        &base,
                        format!("group {:?} lists unknown body {b:?}", g.name),
                    );
                }
            }
            for j in &g.joints {
                if self.joint(j).is_none() {
                    self.error(
                        "ref.unresolved",
                        &base,
                        format!("group {:?} lists unknown joint {j:?}", g.name),
                    );
                }
            }
            if let Some(parent) = &g.parent
                && !names.contains_key(parent.as_str())
            {
                self.error(
                    "ref.unresolved",
                    &base,
                    format!("group {:?} has unknown parent group {parent:?}", g.name),
                );
            }
            // Walk up the parents; more steps than groups means a cycle.
            let mut current = g.parent.as_deref();
            let mut steps = 0;
            while let Some(p) = current {
                steps += 1;
                if steps > names.len() {
                    self.error(
                        "group.cycle",
                        &base,
                        format!("group {:?} is its own ancestor", g.name),
                    );
                    break;
                }
                current = names.get(p).copied().flatten();
            }
        }
    }

    fn simulation(&mut self) {
        let s = &self.model.simulation;
        if let Some(g) = &s.gravity {
            self.finite("simulation.gravity", "gravity", g.as_slice());
        }
        if let Some(dt) = s.time_step
            && !(dt.is_finite() && dt > 0.0)
        {
            self.error(
                "simulation.time_step",
                "simulation.time_step",
                format!("time step must be positive, got {}", number(dt)),
            );
        }
    }

    fn graph(&mut self) {
        if self.report.has_errors() {
            return; // poses of an invalid graph mean nothing
        }
        let tree = SpanningTree::new(self.model);
        let poses = world_poses(self.model, &tree, Configuration::Reference);
        for (b, body) in self.model.bodies.iter().enumerate() {
            if let Attachment::Joint { joint, .. } = tree.attachments[b] {
                let d = body.pose.distance(&poses[b]);
                if d > POSE_TOLERANCE {
                    self.warning(
                        "pose.inconsistent",
                        path::field(&path::item("bodies", &body.name), "pose"),
                        format!(
                            "stored pose of body {:?} is {d:.3e} away from the pose its joint {:?} gives at zero",
                            body.name, self.model.joints[joint].name
                        ),
                    );
                }
            }
        }
    }
}

/// Finite and at least zero (NaN is not).
fn non_negative(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}
