//! The frame-independent motion of a model: each body's world centre of mass and its rotation
//! since t = 0, sampled at every step of a simulation.

use mbconv_ir::{Model, Pose};
use mbconv_solver::{Integrator, LimitReached, SimulateOptions, SolverError};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use std::sync::{Mutex, PoisonError};

/// How to simulate the models a check compares (all three get the same settings).
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationSettings {
    /// Simulated time (s).
    pub duration: f64,
    /// Time step (s).
    pub dt: f64,
    /// The integrator.
    pub integrator: Integrator,
    /// Enforce joint position limits as inelastic stops.
    pub joint_limits: bool,
    /// The most integrator steps a run may take (see [`mbconv_solver::SimulateOptions::max_steps`]).
    pub max_steps: Option<usize>,
}

impl SimulationSettings {
    /// Fixed-step settings with `integrator`, no joint limits and no step budget.
    ///
    /// ```
    /// let s = mbconv_check::SimulationSettings::new(1.0, 1e-3, mbconv_solver::Integrator::Rk4);
    /// assert!(!s.joint_limits);
    /// ```
    pub fn new(duration: f64, dt: f64, integrator: Integrator) -> Self {
        Self {
            duration,
            dt,
            integrator,
            joint_limits: false,
            max_steps: None,
        }
    }
}

/// Each body's world centre of mass and rotation since t = 0, at every sample.
///
/// Both quantities do not depend on where a format puts a body's frame, so a writer that
/// moves a frame (to the joint, to the centre of mass) is not blamed for it.
///
/// ```
/// use mbconv_ir::{Body, Model};
/// use mbconv_check::{Motion, SimulationSettings};
/// let mut model = Model::new("drop");
/// model.bodies.push(Body::new("ball"));
/// let settings = SimulationSettings::new(0.1, 1e-3, mbconv_solver::Integrator::Rk4);
/// let motion = Motion::simulate(&model, &settings).unwrap();
/// assert_eq!(motion.bodies, ["ball"]);
/// assert_eq!(motion.times.len(), 101);
/// assert!(motion.com[100][0].z < -0.04);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Motion {
    /// Body names, in model order.
    pub bodies: Vec<String>,
    /// Per body: it carries nothing (no mass, no shapes, no named frames), so it has no centre
    /// of mass; such a body is compared by its rotation only (see [`Motion::is_void`]).
    pub void: Vec<bool>,
    /// Per body: its mass (kg); empty for a motion recorded elsewhere (another simulator's),
    /// whose bodies' centres of mass are then compared as they are.
    pub mass: Vec<f64>,
    /// Per body: the first body of the rigid assembly it belongs to through fixed joints (see
    /// [`Motion::welded_assemblies`]); a body on no fixed joint is its own. Empty with `mass`.
    pub welded: Vec<usize>,
    /// Sample times (s).
    pub times: Vec<f64>,
    /// `com[sample][body]`: world position of the body's centre of mass (m).
    pub com: Vec<Vec<Vector3<f64>>>,
    /// `rotation[sample][body]`: `R(t)·R(0)ᵀ`, the body's rotation since t = 0.
    pub rotation: Vec<Vec<UnitQuaternion<f64>>>,
    /// `poses[sample][body]`: the body frame's world pose (for the contact test).
    pub poses: Vec<Vec<Pose>>,
    /// The joints that reached a position limit, and when first.
    pub limits_reached: Vec<LimitReached>,
    /// The integrator steps the run took, accepted and rejected: its work (0 for a motion
    /// not integrated).
    pub steps: usize,
}

impl Motion {
    /// True when `body` carries nothing physical: no mass, no shapes, no named frames. Such a
    /// body is a kinematic intermediate (the link between two joints of a chain); it has no
    /// centre of mass, and where its frame sits is a format's convention (MuJoCo's several
    /// joints in one body are read as such links placed at the body's frame), so the check
    /// matches it by name and compares its rotation since t = 0 only.
    ///
    /// ```
    /// use mbconv_check::Motion;
    /// let mut link = mbconv_ir::Body::new("link");
    /// link.inertial.mass = 0.0;
    /// assert!(Motion::is_void(&link));
    /// link.inertial.mass = 1.0;
    /// assert!(!Motion::is_void(&link));
    /// ```
    pub fn is_void(body: &mbconv_ir::Body) -> bool {
        body.inertial.mass == 0.0 && body.shapes.is_empty() && body.frames.is_empty()
    }

    /// Per body of `model`, the first body (in tree order) of the rigid assembly it belongs to:
    /// the bodies joined by enabled fixed joints of the spanning tree move as one body, however
    /// their mass is shared out among them (a writer may move it across a fixed joint,
    /// `mbconv_ir::lower::lump_unphysical_inertias`).
    ///
    /// ```
    /// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
    /// let mut model = Model::new("finger");
    /// model.bodies = vec![Body::new("finger"), Body::new("tip"), Body::new("free")];
    /// model.joints.push(Joint::new("hinge", JointKind::Revolute { axis: nalgebra::Vector3::x() }, BodyRef::World, BodyRef::body("finger")));
    /// model.joints.push(Joint::new("weld", JointKind::Fixed, BodyRef::body("finger"), BodyRef::body("tip")));
    /// assert_eq!(mbconv_check::Motion::welded_assemblies(&model), [0, 0, 2]);
    /// ```
    pub fn welded_assemblies(model: &Model) -> Vec<usize> {
        let tree = mbconv_ir::kinematics::SpanningTree::new(model);
        let mut welded: Vec<usize> = (0..model.bodies.len()).collect();
        for &b in &tree.order {
            if let mbconv_ir::kinematics::Attachment::Joint {
                joint,
                parent: Some(p),
                ..
            } = tree.attachments[b]
                && matches!(model.joints[joint].kind, mbconv_ir::JointKind::Fixed)
            {
                welded[b] = welded[p];
            }
        }
        welded
    }

    /// The centre of mass of the rigid assembly body `i` belongs to ([`Motion::welded`]) at
    /// sample `s`; the body's own when the assembly has no mass.
    pub fn assembly_com(&self, s: usize, i: usize) -> Vector3<f64> {
        if self.welded.len() != self.bodies.len() || self.mass.len() != self.bodies.len() {
            return self.com[s][i];
        }
        let mut mass = 0.0;
        let mut first = Vector3::zeros();
        for (k, &w) in self.welded.iter().enumerate() {
            if w == self.welded[i] {
                mass += self.mass[k];
                first += self.mass[k] * self.com[s][k];
            }
        }
        if mass > 0.0 { first / mass } else { self.com[s][i] }
    }

    /// Simulates `model` from its initial state and records the motion of every body.
    pub fn simulate(model: &Model, settings: &SimulationSettings) -> Result<Self, SolverError> {
        Self::simulate_every(model, settings, 1)
    }

    /// As [`Motion::simulate`], recording every `every`-th step only (and the first); the
    /// integration is the same, so each recorded sample equals the full run's sample at that
    /// time. `mbconv view` records its frames this way, at a fraction of the memory.
    ///
    /// ```
    /// use mbconv_check::{Motion, SimulationSettings};
    /// let mut model = mbconv_ir::Model::new("drop");
    /// model.bodies.push(mbconv_ir::Body::new("ball"));
    /// let settings = SimulationSettings::new(0.1, 1e-3, mbconv_solver::Integrator::Rk4);
    /// let full = Motion::simulate(&model, &settings).unwrap();
    /// let sparse = Motion::simulate_every(&model, &settings, 10).unwrap();
    /// assert_eq!(sparse.times.len(), 11);
    /// assert_eq!(sparse.com[10], full.com[100]);
    /// ```
    pub fn simulate_every(
        model: &Model,
        settings: &SimulationSettings,
        every: usize,
    ) -> Result<Self, SolverError> {
        let options = SimulateOptions {
            duration: settings.duration,
            dt: settings.dt,
            integrator: settings.integrator,
            every: every.max(1),
            energy: false,
            joint_limits: settings.joint_limits,
            max_steps: settings.max_steps,
        };
        // Refused before the sample buffers are sized from duration / dt.
        options.validate()?;
        let local_com: Vec<Vector3<f64>> = model.bodies.iter().map(|b| b.inertial.com).collect();
        let samples = (settings.duration / settings.dt).round() as usize / every.max(1) + 1;
        let mut motion = Motion {
            bodies: model.bodies.iter().map(|b| b.name.clone()).collect(),
            void: model.bodies.iter().map(Motion::is_void).collect(),
            mass: model.bodies.iter().map(|b| b.inertial.mass).collect(),
            welded: Motion::welded_assemblies(model),
            times: Vec::with_capacity(samples),
            com: Vec::with_capacity(samples),
            rotation: Vec::with_capacity(samples),
            poses: Vec::with_capacity(samples),
            limits_reached: Vec::new(),
            steps: 0,
        };
        let mut initial: Vec<UnitQuaternion<f64>> = Vec::new();
        let started = std::time::Instant::now();
        let result = mbconv_solver::simulate(model, &options, &mut |sample| {
            let orientations: Vec<UnitQuaternion<f64>> = sample
                .poses
                .iter()
                .map(|p| UnitQuaternion::from_quaternion(Quaternion::new(p[3], p[4], p[5], p[6])))
                .collect();
            if initial.is_empty() {
                initial.clone_from(&orientations);
            }
            let com = sample
                .poses
                .iter()
                .zip(&orientations)
                .zip(&local_com)
                .map(|((p, r), c)| Vector3::new(p[0], p[1], p[2]) + r * c)
                .collect();
            let rotation = orientations
                .iter()
                .zip(&initial)
                .map(|(r, r0)| r * r0.inverse())
                .collect();
            motion.times.push(sample.t);
            motion.com.push(com);
            motion.rotation.push(rotation);
            motion.poses.push(
                sample
                    .poses
                    .iter()
                    .zip(&orientations)
                    .map(|(p, r)| Pose::new(Vector3::new(p[0], p[1], p[2]), *r))
                    .collect(),
            );
        });
        if std::env::var_os(TRACE).is_some() {
            eprintln!(
                "{TRACE}: simulated {:?} ({} bodies, {:?}, {} s) in {:.3} s{}",
                model.name,
                model.bodies.len(),
                settings.integrator,
                settings.duration,
                started.elapsed().as_secs_f64(),
                result
                    .as_ref()
                    .err()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            );
        }
        let summary = result?;
        motion.limits_reached = summary.limits_reached;
        motion.steps = summary.steps + summary.rejected_steps;
        Ok(motion)
    }

    /// This motion as the motion of `model`, whose [`DynamicsKey`] is the one this motion was
    /// simulated from: the same samples, bit for bit (the solver reads nothing the key leaves
    /// out), with the bodies that carry nothing recomputed for `model` (a pass that drops a
    /// body's shapes can make it void).
    ///
    /// ```
    /// use mbconv_check::{Motion, SimulationSettings};
    /// let mut model = mbconv_ir::Model::new("drop");
    /// model.bodies.push(mbconv_ir::Body::new("ball"));
    /// let motion = Motion::simulate(&model, &SimulationSettings::new(0.1, 1e-3, mbconv_solver::Integrator::Rk4)).unwrap();
    /// let mut massless = model.clone();
    /// massless.bodies[0].inertial.mass = 0.0;
    /// assert!(motion.reused_for(&massless).void[0]);
    /// ```
    pub fn reused_for(&self, model: &Model) -> Motion {
        Motion {
            void: model.bodies.iter().map(Motion::is_void).collect(),
            mass: model.bodies.iter().map(|b| b.inertial.mass).collect(),
            welded: Motion::welded_assemblies(model),
            ..self.clone()
        }
    }

    /// This motion seen from a world turned by `rotation` about its origin: centres of mass
    /// and body frames turned, rotations since t = 0 conjugated (`Q·R·Qᵀ`). A conversion made
    /// with the shared write setting `up` moves as the original turned by its
    /// [`Lowered::turned_by`](mbconv_ir::format::Lowered::turned_by); its motion turned by the
    /// inverse is compared with the original's.
    ///
    /// ```
    /// use mbconv_check::{Motion, SimulationSettings};
    /// use nalgebra::{UnitQuaternion, Vector3};
    /// let model = mbconv_ir::Model::new("empty");
    /// let mut motion = Motion::simulate(&model, &SimulationSettings::new(0.0, 1e-3, mbconv_solver::Integrator::Rk4)).unwrap();
    /// motion.com = vec![vec![Vector3::new(0.0, 1.0, 0.0)]];
    /// let quarter = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::FRAC_PI_2);
    /// let turned = motion.turned(&quarter);
    /// assert!((turned.com[0][0] - Vector3::new(0.0, 0.0, 1.0)).norm() < 1e-15);
    /// ```
    pub fn turned(&self, rotation: &UnitQuaternion<f64>) -> Motion {
        let frame = Pose::from_rotation(*rotation);
        let inverse = rotation.inverse();
        Motion {
            bodies: self.bodies.clone(),
            void: self.void.clone(),
            mass: self.mass.clone(),
            welded: self.welded.clone(),
            times: self.times.clone(),
            limits_reached: self.limits_reached.clone(),
            steps: self.steps,
            com: self
                .com
                .iter()
                .map(|sample| sample.iter().map(|c| rotation * c).collect())
                .collect(),
            rotation: self
                .rotation
                .iter()
                .map(|sample| sample.iter().map(|r| rotation * r * inverse).collect())
                .collect(),
            poses: self
                .poses
                .iter()
                .map(|sample| sample.iter().map(|p| frame * *p).collect())
                .collect(),
        }
    }

    /// The index of the body called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b == name)
    }
}

/// Set, this environment variable makes every simulation the check runs print a line to
/// standard error (model, integrator, duration, wall time): how a check spends its time.
pub const TRACE: &str = "MBCONV_CHECK_TRACE";

/// The part of a model mbconv's solver reads: the model without what no simulation depends on
/// (shapes and their contact materials, devices, format-specific extras, the model's name,
/// velocity and acceleration limits, effort limits but a servo's).
/// Two models with equal keys move alike bit for bit under the same settings, so a motion
/// simulated for one is the other's ([`Motion::reused_for`]): a lowering pass that only drops
/// meshes or extras costs the check no simulation.
///
/// ```
/// use mbconv_check::DynamicsKey;
/// let mut model = mbconv_ir::Model::new("robot");
/// model.bodies.push(mbconv_ir::Body::new("link"));
/// let mut renamed = model.clone();
/// renamed.name = "another name".into();
/// assert_eq!(DynamicsKey::of(&model), DynamicsKey::of(&renamed));
/// renamed.bodies[0].inertial.mass = 2.0;
/// assert_ne!(DynamicsKey::of(&model), DynamicsKey::of(&renamed));
///
/// // A coordinate's default properties, stated or not, are one key; its velocity limit is
/// // not simulated.
/// model.bodies.push(mbconv_ir::Body::new("wheel"));
/// let axis = nalgebra::Vector3::y();
/// let kind = mbconv_ir::JointKind::Revolute { axis };
/// let spin = mbconv_ir::Joint::new("spin", kind, mbconv_ir::BodyRef::body("link"), mbconv_ir::BodyRef::body("wheel"));
/// let mut stated = model.clone();
/// model.joints.push(spin.clone());
/// let mut limited = spin;
/// limited.dofs = vec![mbconv_ir::DofProperties::default()];
/// limited.dofs[0].velocity_limits = mbconv_ir::Limits { lower: Some(-10.0), upper: Some(10.0) };
/// stated.joints.push(limited);
/// assert_eq!(DynamicsKey::of(&model), DynamicsKey::of(&stated));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicsKey(Model);

/// The frames a restraint of `model` measures between: (body name, or `None` for the world;
/// frame name).
fn measured_frames(model: &Model) -> std::collections::BTreeSet<(Option<&str>, &str)> {
    use mbconv_ir::{BodyRef, ForceKind, RestraintTarget};
    fn body(b: &BodyRef) -> Option<&str> {
        match b {
            BodyRef::World => None,
            BodyRef::Body(name) => Some(name.as_str()),
        }
    }
    let mut measured = std::collections::BTreeSet::new();
    for element in &model.force_elements {
        if let ForceKind::Restraint(restraint) = &element.kind
            && let RestraintTarget::FramePair {
                body1,
                frame1,
                body2,
                frame2,
                ..
            } = &restraint.target
        {
            measured.insert((body(body1), frame1.as_str()));
            measured.insert((body(body2), frame2.as_str()));
        }
    }
    measured
}

impl DynamicsKey {
    /// The key of `model`.
    pub fn of(model: &Model) -> Self {
        let mut key = model.clone();
        key.name.clear();
        key.devices.clear();
        key.extras = Default::default();
        for body in &mut key.bodies {
            body.shapes.clear();
            body.contact_materials.clear();
            body.extras = Default::default();
            for frame in &mut body.frames {
                frame.extras = Default::default();
            }
        }
        for frame in &mut key.world_frames {
            frame.extras = Default::default();
        }
        // A named frame moves nothing unless a restraint measures from it (the only place the
        // solver looks frames up by name), and a group nothing unless it holds its bodies
        // still: the markers and assemblies a Shift model carries, and no writer but Shift's
        // keeps, would otherwise keep the check from reusing a motion across targets.
        let measured = measured_frames(model);
        for body in &mut key.bodies {
            let name = body.name.clone();
            body.frames
                .retain(|f| measured.contains(&(Some(name.as_str()), f.name.as_str())));
        }
        key.world_frames
            .retain(|f| measured.contains(&(None, f.name.as_str())));
        key.groups.retain(|g| !g.mobile);
        for group in &mut key.groups {
            let mut still = mbconv_ir::Group::new("", mbconv_ir::GroupType::Other);
            still.mobile = false;
            still.bodies = std::mem::take(&mut group.bodies);
            *group = still;
        }
        for joint in &mut key.joints {
            joint.extras = Default::default();
            // Velocity and acceleration limits are never simulated; effort limits only decide
            // whether a servo holds its joint.
            let servo = joint.actuator == Some(mbconv_ir::ActuatorKind::Servo);
            for dof in &mut joint.dofs {
                dof.velocity_limits = Default::default();
                dof.acceleration_limits = Default::default();
                if !servo {
                    dof.effort_limits = Default::default();
                }
            }
            // No properties and default properties for every coordinate say the same (a
            // URDF continuous joint's limits above are all it had; MJCF states none).
            if joint
                .dofs
                .iter()
                .all(|dof| *dof == mbconv_ir::DofProperties::default())
            {
                joint.dofs.clear();
            }
        }
        Self(key)
    }

    /// How far `other`'s numbers are from this key's, when the two differ in nothing but the
    /// last bits of their floating-point numbers: the same structure, names, kinds and
    /// integers, every float within [`LastBits::ulps`] units in the last place of its
    /// quantity (a component of a vector or matrix is rounded at the scale of its largest
    /// component). The two are compared in one canonical form: bodies and joints in name
    /// order, a body welded to the world as a fixed joint, fixed joints unnamed, a pose's
    /// translation and rotation compared with zero and the identity where one form leaves
    /// them out as defaults, a rotation's quaternion compared with the other's sign (`q` and
    /// `-q` are one rotation: a reader that takes it from a matrix may land on either). `None` when
    /// anything else differs (or a number differs by more than `u32::MAX` units).
    ///
    /// ```
    /// use mbconv_check::DynamicsKey;
    /// let mut model = mbconv_ir::Model::new("robot");
    /// let mut link = mbconv_ir::Body::new("link");
    /// link.inertial.mass = 0.3;
    /// model.bodies.push(link);
    /// let mut rounded = model.clone();
    /// rounded.bodies[0].inertial.mass = 0.3_f64.next_up();
    /// let apart = DynamicsKey::of(&model).last_bits_from(&DynamicsKey::of(&rounded)).unwrap();
    /// assert_eq!((apart.numbers, apart.ulps), (1, 1));
    /// rounded.bodies[0].name = "other".into();
    /// assert!(DynamicsKey::of(&model).last_bits_from(&DynamicsKey::of(&rounded)).is_none());
    /// ```
    pub fn last_bits_from(&self, other: &DynamicsKey) -> Option<LastBits> {
        let (ours, theirs) = (
            serde_json::to_value(canonical(&self.0)).ok()?,
            serde_json::to_value(canonical(&other.0)).ok()?,
        );
        let extent = extent(&ours).max(extent(&theirs));
        let mut apart = LastBits::default();
        last_bits(&ours, &theirs, &Scales { vector: 0.0, extent }, &mut apart).then_some(apart)
    }
}

/// `model` written one way where formats write it several ways that move alike: the
/// simulation settings the check's motions read (gravity) and no other, the groups as the
/// bodies that cannot move, frames without their kind, an inertia as its tensor in the body's axes (not principal
/// moments and a rotation), a body
/// welded to the world as a fixed joint from the world, fixed joints without names (formats
/// that cannot name a weld make names up), bodies and joints in name order.
fn canonical(model: &Model) -> Model {
    let mut model = model.clone();
    // What the check's motions never read: the source simulator's step and end time, whether
    // its contact takes jointed bodies (contact is not simulated); gravity unstated is the
    // gravity the solver then takes.
    let gravity = model
        .simulation
        .gravity
        .unwrap_or(nalgebra::Vector3::from(mbconv_ir::Simulation::UNSTATED_GRAVITY));
    model.simulation = mbconv_ir::Simulation {
        gravity: Some(gravity),
        ..Default::default()
    };
    // Of the groups, the solver reads only which bodies cannot move.
    let mut immobile: Vec<String> = model
        .groups
        .iter()
        .filter(|g| !g.mobile)
        .flat_map(|g| g.bodies.iter().cloned())
        .collect();
    immobile.sort();
    model.groups.clear();
    if !immobile.is_empty() {
        let mut held = mbconv_ir::Group::new("immobile", mbconv_ir::GroupType::Other);
        held.bodies = immobile;
        held.mobile = false;
        model.groups.push(held);
    }
    for body in &mut model.bodies {
        // What a frame is for (a marker, a site) moves nothing.
        for frame in &mut body.frames {
            frame.kind = mbconv_ir::FrameKind::default();
        }
        // One inertia, two forms: principal moments turned by `inertia_rotation`, or the
        // tensor in the body's axes (formats without the rotation write it so).
        if body.inertial.inertia_rotation != nalgebra::UnitQuaternion::identity() {
            body.inertial.inertia = mbconv_ir::Inertia::from_matrix(&body.inertial.inertia_in_body_axes());
            body.inertial.inertia_rotation = nalgebra::UnitQuaternion::identity();
        }
        if std::mem::take(&mut body.fixed) {
            let weld = mbconv_ir::Joint::new(
                "",
                mbconv_ir::JointKind::Fixed,
                mbconv_ir::BodyRef::World,
                mbconv_ir::BodyRef::body(body.name.clone()),
            );
            model.joints.push(weld);
        }
    }
    for joint in &mut model.joints {
        if matches!(joint.kind, mbconv_ir::JointKind::Fixed) {
            joint.name.clear();
        }
    }
    model.bodies.sort_by(|a, b| a.name.cmp(&b.name));
    model
        .joints
        .sort_by(|a, b| (&a.child, &a.name).cmp(&(&b.child, &b.name)));
    model
}

/// How two otherwise equal models differ in the last bits of their numbers
/// ([`DynamicsKey::last_bits_from`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LastBits {
    /// How many numbers differ.
    pub numbers: usize,
    /// The largest difference, in units in the last place of the quantity (the vector or
    /// matrix) the number belongs to.
    pub ulps: u64,
}

/// The magnitudes a number is rounded at: its vector's or matrix's largest component, and
/// for a translation the model's extent (a writer that composes frames rounds a 3 mm offset
/// at the size of the robot it sits on).
#[derive(Clone, Copy)]
struct Scales {
    vector: f64,
    extent: f64,
}

/// The largest component of any `translation` in a model's JSON form.
pub(crate) fn extent(value: &serde_json::Value) -> f64 {
    use serde_json::Value;
    match value {
        Value::Object(fields) => fields
            .iter()
            .map(|(k, v)| {
                if k == "translation" {
                    numeric_scale(v)
                } else {
                    extent(v)
                }
            })
            .fold(0.0, f64::max),
        Value::Array(items) => items.iter().map(extent).fold(0.0, f64::max),
        _ => 0.0,
    }
}

/// Walks two JSON forms side by side, adding every float difference to `apart`; false when
/// they differ in anything else. A component is rounded with its quantity ([`Scales`]), so
/// a rotation element of 3e-12 computed beside elements near 1 carries errors of 1e-16, not
/// of 1e-28.
fn last_bits(a: &serde_json::Value, b: &serde_json::Value, scales: &Scales, apart: &mut LastBits) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (Some(x), Some(y)) = (x.as_f64(), y.as_f64()) else {
                return false;
            };
            let Some(units) = rounding_units(x, y, scales.vector) else {
                return false;
            };
            if units > 0 {
                apart.numbers += 1;
                apart.ulps = apart.ulps.max(units);
            }
            true
        }
        (Value::Array(x), Value::Array(y)) => {
            let vector = scales.vector.max(numeric_scale(a)).max(numeric_scale(b));
            let scales = Scales { vector, ..*scales };
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| last_bits(x, y, &scales, apart))
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().all(|k| {
                let vector = if k == "translation" { scales.extent } else { 0.0 };
                let scales = Scales { vector, ..*scales };
                let implied = implied_default(k);
                match (x.get(k).or(implied.as_ref()), y.get(k).or(implied.as_ref())) {
                    (Some(v), Some(w)) if is_rotation(k) => {
                        last_bits(v, &same_hemisphere(v, w), &scales, apart)
                    }
                    (Some(v), Some(w)) => last_bits(v, w, &scales, apart),
                    _ => false,
                }
            })
        }
        _ => a == b,
    }
}

/// True for the keys under which a model's JSON form holds a rotation as a quaternion.
fn is_rotation(key: &str) -> bool {
    matches!(key, "rotation" | "inertia_rotation")
}

/// `w`, a quaternion `[w, x, y, z]`, negated when it lies in the other hemisphere from `v`
/// (their dot product is negative): `q` and `-q` are the same rotation. Anything but two
/// quaternions is returned as it is.
fn same_hemisphere(v: &serde_json::Value, w: &serde_json::Value) -> serde_json::Value {
    let components = |q: &serde_json::Value| -> Option<Vec<f64>> {
        let q = q.as_array().filter(|q| q.len() == 4)?;
        q.iter().map(serde_json::Value::as_f64).collect()
    };
    match (components(v), components(w)) {
        (Some(p), Some(q)) if p.iter().zip(&q).map(|(a, b)| a * b).sum::<f64>() < 0.0 => {
            serde_json::json!(q.iter().map(|c| -c).collect::<Vec<_>>())
        }
        _ => w.clone(),
    }
}

/// The value a model's JSON form leaves out for `key` when it is the default: a pose writes
/// no `translation` when it is zero and no `rotation` when it is the identity (nor a body its
/// `inertia_rotation`), a joint's degree of freedom no zero damping, friction, spring or rotor
/// inertia and no gear ratio of one. So a read-back whose weld turns by 1e-32 (a rotation a
/// reader composed) still compares, number by number, with a lowered model that does not turn.
/// `None` for any other key: a field one form has and the other lacks is a difference in
/// structure.
fn implied_default(key: &str) -> Option<serde_json::Value> {
    match key {
        "translation" => Some(serde_json::json!([0.0, 0.0, 0.0])),
        "rotation" | "inertia_rotation" => Some(serde_json::json!([1.0, 0.0, 0.0, 0.0])),
        "damping" | "friction" | "spring_stiffness" | "spring_rest_position" | "rotor_inertia" => {
            Some(serde_json::json!(0.0))
        }
        "gear_ratio" => Some(serde_json::json!(1.0)),
        _ => None,
    }
}

/// The largest magnitude among the numbers of an array of numbers (or of arrays of
/// numbers); 0 for anything else.
pub(crate) fn numeric_scale(value: &serde_json::Value) -> f64 {
    use serde_json::Value;
    match value {
        Value::Number(n) => n.as_f64().map_or(0.0, f64::abs),
        Value::Array(items) if items.iter().all(|v| v.is_number() || v.is_array()) => {
            items.iter().map(numeric_scale).fold(0.0, f64::max)
        }
        _ => 0.0,
    }
}

/// How many units in the last place of `scale` (or of the larger of `x` and `y` when that is
/// larger) `x` and `y` are apart, rounded up: 0 when equal (0 and -0 included); `None` when
/// either is not finite and they differ, or they are more than `u32::MAX` units apart.
fn rounding_units(x: f64, y: f64, scale: f64) -> Option<u64> {
    if x == y {
        return Some(0);
    }
    if !x.is_finite() || !y.is_finite() {
        return None;
    }
    let scale = scale.max(x.abs()).max(y.abs());
    // The gap below `scale`: the smaller of its two neighbouring gaps.
    let unit = scale - scale.next_down();
    let units = ((x - y).abs() / unit).ceil();
    (units <= f64::from(u32::MAX)).then_some(units as u64)
}

/// The motions one check has simulated, by the model's [`DynamicsKey`] and the settings: a
/// model the solver reads as one simulated before (another target's lowered model, the same
/// lowering pass replayed for a second target) reuses that motion instead of being simulated
/// again. Equal keys move alike bit for bit, so reuse changes no verdict; it only saves time
/// (`check --all` on a Shift vehicle simulated 68 models, most of them more than once).
///
/// It keeps at most [`MotionMemo::BODY_SAMPLES`] body-samples (about 100 bytes each), the
/// oldest motions dropped first.
///
/// ```
/// use mbconv_check::{MotionMemo, SimulationSettings};
/// let mut model = mbconv_ir::Model::new("drop");
/// model.bodies.push(mbconv_ir::Body::new("ball"));
/// let settings = SimulationSettings::new(0.1, 1e-3, mbconv_solver::Integrator::Rk4);
/// let memo = MotionMemo::default();
/// let first = memo.simulate(&model, &settings).unwrap();
/// let mut renamed = model.clone();
/// renamed.name = "the same drop".into();
/// assert_eq!(memo.simulate(&renamed, &settings).unwrap().com, first.com);
/// assert_eq!(memo.simulations(), 1);
/// ```
#[derive(Debug, Default)]
pub struct MotionMemo {
    entries: Mutex<MemoEntries>,
}

#[derive(Debug, Default)]
struct MemoEntries {
    motions: Vec<(DynamicsKey, SimulationSettings, Motion)>,
    simulations: usize,
}

impl MemoEntries {
    fn body_samples(&self) -> usize {
        self.motions
            .iter()
            .map(|(_, _, m)| m.bodies.len() * m.times.len())
            .sum()
    }
}

impl MotionMemo {
    /// The most body-samples the memo keeps.
    pub const BODY_SAMPLES: usize = 1_000_000;

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoEntries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `model`'s motion under `settings`: one simulated before for an equal key and settings
    /// ([`Motion::reused_for`] `model`), else [`Motion::simulate`], kept for later.
    pub fn simulate(&self, model: &Model, settings: &SimulationSettings) -> Result<Motion, SolverError> {
        let key = DynamicsKey::of(model);
        if let Some(known) = self.reused(&key, settings, model) {
            return Ok(known);
        }
        let motion = Motion::simulate(model, settings)?;
        self.lock().simulations += 1;
        self.keep(key, settings, &motion);
        Ok(motion)
    }

    /// Remembers `motion` as `model`'s under `settings` (a motion simulated elsewhere).
    pub fn remember(&self, model: &Model, settings: &SimulationSettings, motion: &Motion) {
        let key = DynamicsKey::of(model);
        let known = self
            .lock()
            .motions
            .iter()
            .any(|(k, s, _)| s == settings && *k == key);
        if !known {
            self.keep(key, settings, motion);
        }
    }

    /// How many simulations [`MotionMemo::simulate`] ran (the others reused a motion).
    pub fn simulations(&self) -> usize {
        self.lock().simulations
    }

    /// The motion kept for `key` and `settings`, as `model`'s (one copy, made under the lock).
    fn reused(&self, key: &DynamicsKey, settings: &SimulationSettings, model: &Model) -> Option<Motion> {
        self.lock()
            .motions
            .iter()
            .find(|(k, s, _)| s == settings && k == key)
            .map(|(_, _, m)| m.reused_for(model))
    }

    fn keep(&self, key: DynamicsKey, settings: &SimulationSettings, motion: &Motion) {
        let size = motion.bodies.len() * motion.times.len();
        if size > Self::BODY_SAMPLES {
            return;
        }
        let mut entries = self.lock();
        while entries.body_samples() + size > Self::BODY_SAMPLES && !entries.motions.is_empty() {
            entries.motions.remove(0);
        }
        entries.motions.push((key, settings.clone(), motion.clone()));
    }
}
