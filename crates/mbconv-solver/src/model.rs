//! The immutable solver model, built once from an IR model.

use crate::constraints::ConstraintSet;
use crate::error::SolverError;
use crate::forces::ForceSet;
use crate::joint::{JointModel, RotationPart};
use crate::spatial::{Inertia6, Se3};
use mbconv_ir::kinematics::{Attachment, SpanningTree, relative_pose};
use mbconv_ir::report::path;
use mbconv_ir::rotation::unit_vector;
use mbconv_ir::{JointKind, Model as IrModel};
use nalgebra::{UnitQuaternion, Vector3};

/// Gravity used when the IR model does not give one: `[0, 0, −9.81]` m/s², the default of
/// DART, Chrono, Pinocchio and MuJoCo ([`mbconv_ir::Simulation::UNSTATED_GRAVITY`]).
pub const DEFAULT_GRAVITY: [f64; 3] = mbconv_ir::Simulation::UNSTATED_GRAVITY;

/// One moving link of the tree: one or more IR bodies welded together, attached to its
/// parent by a joint with at least one degree of freedom.
#[derive(Clone, Debug)]
pub struct Node {
    /// Parent node, `None` for the world.
    pub parent: Option<usize>,
    /// The joint.
    pub joint: JointModel,
    /// Pose of the parent joint frame in the parent link frame.
    pub tree: Se3,
    /// First position coordinate.
    pub q_index: usize,
    /// First velocity coordinate.
    pub v_index: usize,
    /// Spatial inertia of the link (all welded bodies) in the link frame.
    pub inertia: Inertia6,
    /// Mass of the welded bodies gravity acts on.
    pub gravity_mass: f64,
    /// Their centre of mass in the link frame.
    pub gravity_com: Vector3<f64>,
    /// Origin, in the link frame, of the body the joint moves (the joint's child body, or
    /// its parent for a reversed joint): the point whose velocity a free joint's
    /// semi-implicit Euler step integrates, as DART does.
    pub moved_body_origin: Vector3<f64>,
    /// Name of the joint (or body for an implicit free joint), for messages.
    pub name: String,
}

/// Where an IR body lives in the solver tree.
#[derive(Clone, Debug)]
pub struct BodyMap {
    /// IR body name.
    pub name: String,
    /// Node carrying the body, `None` when welded to the world.
    pub node: Option<usize>,
    /// Pose of the body frame in the node's link frame (in the world for `node == None`).
    pub offset: Se3,
    /// Mass.
    pub mass: f64,
    /// Centre of mass in the body frame.
    pub com: Vector3<f64>,
    /// Whether gravity acts on the body.
    pub gravity: bool,
}

/// How an IR joint is represented.
#[derive(Clone, Debug, PartialEq)]
pub enum JointMap {
    /// A tree joint of node `node`; `reversed` when traversed from child to parent.
    Tree {
        /// The node.
        node: usize,
        /// Traversed child to parent.
        reversed: bool,
    },
    /// A zero-dof tree joint merged into its parent link.
    Welded,
    /// Closes a loop: becomes constraint rows.
    Loop,
    /// A compliant joint (`bushing` set): no constraint, a bushing force element instead.
    Compliant,
    /// Disabled or dangling.
    Ignored,
}

/// The solver model: tree, inertias, joint maps, force elements and constraints. Build it
/// once with [`Model::new`]; simulate with a [`crate::State`] and a [`crate::Data`].
///
/// ```
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model as Ir};
/// let mut ir = Ir::new("pendulum");
/// ir.bodies.push(Body::new("bob"));
/// ir.joints.push(Joint::new("pivot", JointKind::Revolute { axis: nalgebra::Vector3::y() }, BodyRef::World, BodyRef::body("bob")));
/// let model = mbconv_solver::Model::new(&ir).unwrap();
/// assert_eq!(model.nv(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Model {
    pub(crate) nodes: Vec<Node>,
    pub(crate) nq: usize,
    pub(crate) nv: usize,
    pub(crate) bodies: Vec<BodyMap>,
    pub(crate) joints: Vec<JointMap>,
    /// The IR joints' names, in IR order.
    pub(crate) joint_names: Vec<String>,
    pub(crate) gravity: Vector3<f64>,
    pub(crate) uniform_gravity: bool,
    /// Some body's inertia has a negative principal moment (beyond the validation's
    /// tolerance): the articulated-body algorithm then checks that what a joint of several
    /// coordinates moves stays positive definite.
    pub(crate) indefinite: bool,
    pub(crate) q_init: Vec<f64>,
    pub(crate) v_init: Vec<f64>,
    /// Reflected rotor inertia added to each velocity coordinate's diagonal.
    pub(crate) armature: Vec<f64>,
    /// Position limits of scalar tree coordinates (enforced only when asked).
    pub(crate) limits: Vec<CoordinateLimit>,
    /// IR `initial_velocity` the assembly fits the tree velocities to: those of bodies moved
    /// by tree joints, and with them those of the floating bodies their subtrees hang from (empty
    /// when no jointed body has one: floating bodies alone start at their twist exactly).
    pub(crate) initial_twists: Vec<InitialTwist>,
    pub(crate) forces: ForceSet,
    pub(crate) constraints: ConstraintSet,
}

impl Model {
    /// Builds the solver model from an IR model.
    pub fn new(ir: &IrModel) -> Result<Self, SolverError> {
        // A compliant joint is a force element, not a tree edge: pick the tree without them.
        let tree = if ir.joints.iter().any(|j| j.bushing.is_some()) {
            let mut rigid = ir.clone();
            rigid
                .joints
                .iter_mut()
                .filter(|j| j.bushing.is_some())
                .for_each(|j| j.enabled = false);
            SpanningTree::for_dynamics(&rigid)
        } else {
            SpanningTree::for_dynamics(ir)
        };
        let gravity = ir.simulation.gravity.unwrap_or(Vector3::from(DEFAULT_GRAVITY));
        let mut nodes: Vec<Node> = Vec::new();
        let mut bodies: Vec<Option<BodyMap>> = vec![None; ir.bodies.len()];
        let mut joints = vec![JointMap::Ignored; ir.joints.len()];
        let mut q_init = Vec::new();
        let mut v_init = Vec::new();
        let immobile: std::collections::HashSet<&str> = ir
            .groups
            .iter()
            .filter(|g| !g.mobile)
            .flat_map(|g| g.bodies.iter().map(String::as_str))
            .collect();
        for &j in &tree.loop_joints {
            joints[j] = if ir.joints[j].bushing.is_some() {
                JointMap::Compliant
            } else {
                JointMap::Loop
            };
        }
        for &b in &tree.order {
            let body = &ir.bodies[b];
            let frozen = immobile.contains(body.name.as_str());
            let (node, offset) = match &tree.attachments[b] {
                Attachment::Fixed => (None, Se3::from_pose(&body.pose)),
                Attachment::Floating if frozen => (None, Se3::from_pose(&body.pose)),
                Attachment::Floating => {
                    let index = nodes.len();
                    let mut q = vec![0.0; 7];
                    let r = UnitQuaternion::new_normalize(*body.pose.rotation.quaternion());
                    write_pose(&mut q, &body.pose.translation, &r);
                    let mut v = vec![0.0; 6];
                    if let Some(tw) = &body.initial_velocity {
                        let w = r.inverse() * tw.angular;
                        let l = r.inverse() * tw.linear;
                        v.copy_from_slice(&[w.x, w.y, w.z, l.x, l.y, l.z]);
                    }
                    nodes.push(Node::new(
                        None,
                        JointModel::Free,
                        Se3::identity(),
                        &q_init,
                        &v_init,
                        &body.name,
                    ));
                    q_init.extend(q);
                    v_init.extend(v);
                    (Some(index), Se3::identity())
                }
                Attachment::Joint {
                    joint,
                    parent,
                    reversed,
                } => {
                    let j = &ir.joints[*joint];
                    let item = path::item("joints", &j.name);
                    let (parent_node, parent_offset) = match parent {
                        None => (None, Se3::identity()),
                        Some(p) => match &bodies[*p] {
                            Some(m) => (m.node, m.offset),
                            None => return Err(SolverError::invalid(item, "tree parent not built")),
                        },
                    };
                    if j.kind.nv() == 0 || frozen || held_by_actuator(j) {
                        joints[*joint] = JointMap::Welded;
                        let x = relative_pose(j, &j.q0);
                        let x = if *reversed { x.inverse() } else { x };
                        (parent_node, parent_offset.compose(&Se3::from_pose(&x)))
                    } else {
                        let (near, far) = if *reversed {
                            (&j.child_frame, &j.parent_frame)
                        } else {
                            (&j.parent_frame, &j.child_frame)
                        };
                        let model = joint_model(&j.kind, *reversed)
                            .map_err(|m| SolverError::unsupported(&item, m))?;
                        let mut q = vec![0.0; model.nq()];
                        let mut v = vec![0.0; model.nv()];
                        initial_coordinates(&j.kind, *reversed, &j.q0, &j.v0, &mut q, &mut v)
                            .map_err(|m| SolverError::invalid(&item, m))?;
                        let index = nodes.len();
                        nodes.push(Node::new(
                            parent_node,
                            model,
                            parent_offset.compose(&Se3::from_pose(near)),
                            &q_init,
                            &v_init,
                            &j.name,
                        ));
                        q_init.extend(q);
                        v_init.extend(v);
                        joints[*joint] = JointMap::Tree {
                            node: index,
                            reversed: *reversed,
                        };
                        let moved_body = Se3::from_pose(far).inverse();
                        nodes[index].moved_body_origin = moved_body.p;
                        (Some(index), moved_body)
                    }
                }
            };
            let i = &body.inertial;
            check_inertial(body)?;
            let map = BodyMap {
                name: body.name.clone(),
                node,
                offset,
                mass: i.mass,
                com: i.com,
                gravity: body.gravity,
            };
            if let Some(n) = node {
                let node = &mut nodes[n];
                // The symmetric part: an asymmetric tensor (which validation reports) has no
                // other physical meaning; for a symmetric one it is the tensor, bit for bit.
                let tensor = i.inertia_in_body_axes();
                let symmetric = (tensor + tensor.transpose()) * 0.5;
                let rigid = Inertia6::rigid(i.mass, &i.com, &symmetric);
                node.inertia += rigid.to_parent(&offset);
                if body.gravity {
                    let c = offset.point(&i.com);
                    let m = node.gravity_mass + i.mass;
                    if m > 0.0 {
                        node.gravity_com = (node.gravity_com * node.gravity_mass + c * i.mass) / m;
                    }
                    node.gravity_mass = m;
                }
            }
            bodies[b] = Some(map);
        }
        let bodies: Vec<BodyMap> = bodies
            .into_iter()
            .enumerate()
            .map(|(b, m)| {
                m.ok_or_else(|| {
                    SolverError::invalid(
                        path::item("bodies", &ir.bodies[b].name),
                        "not reached by the spanning tree",
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        for (j, joint) in ir.joints.iter().enumerate() {
            if joints[j] == JointMap::Ignored && joint.enabled && joint.bushing.is_some() {
                joints[j] = JointMap::Compliant;
            }
        }
        let uniform_gravity = ir.bodies.iter().all(|b| b.gravity);
        let model_scale = mbconv_ir::validate::model_inertia_scale(ir);
        let indefinite = ir.bodies.iter().any(|b| {
            mbconv_ir::validate::principal_moments(&b.inertial.inertia.matrix())
                .is_some_and(|p| p[0] < -mbconv_ir::validate::inertial_tolerance(&b.inertial, model_scale))
        });
        let nv = v_init.len();
        let mut model = Model {
            joint_names: ir.joints.iter().map(|j| j.name.clone()).collect(),
            nq: q_init.len(),
            nv: v_init.len(),
            nodes,
            bodies,
            joints,
            gravity,
            uniform_gravity,
            indefinite,
            q_init,
            v_init,
            armature: vec![0.0; nv],
            limits: Vec::new(),
            initial_twists: Vec::new(),
            forces: ForceSet::default(),
            constraints: ConstraintSet::default(),
        };
        for (j, joint) in ir.joints.iter().enumerate() {
            for (k, dof) in joint.dofs.iter().enumerate() {
                if let Some(index) = model.dof_index(ir, j, k) {
                    model.armature[index.v] += dof.reflected_inertia();
                    let l = &dof.position_limits;
                    if let (Some(q), false) = (index.q, l.is_unlimited()) {
                        model.limits.push(CoordinateLimit {
                            joint: j,
                            q,
                            v: index.v,
                            lower: l.lower.unwrap_or(f64::NEG_INFINITY),
                            upper: l.upper.unwrap_or(f64::INFINITY),
                        });
                    }
                }
            }
        }
        model.initial_twists = initial_twists(ir, &tree, &model.bodies);
        model.forces = ForceSet::new(ir, &model)?;
        model.constraints = ConstraintSet::new(ir, &model)?;
        if !model.constraints.holds_initial_values() {
            return Ok(model);
        }
        let mut joint = vec![crate::joint::JointState::default(); model.nodes.len()];
        let mut world = vec![Se3::identity(); model.nodes.len()];
        let zeros = vec![0.0; model.nv];
        crate::dynamics::position_kinematics(&model, &model.q_init, &zeros, &mut joint, &mut world, None);
        let q_init = model.q_init.clone();
        model.constraints.hold_initial_values(&world, &q_init);
        Ok(model)
    }

    /// Number of position coordinates (quaternions count four).
    pub fn nq(&self) -> usize {
        self.nq
    }
    /// Number of velocity coordinates (degrees of freedom of the tree).
    pub fn nv(&self) -> usize {
        self.nv
    }
    /// Number of moving links.
    pub fn link_count(&self) -> usize {
        self.nodes.len()
    }
    /// Names of the IR bodies, in model order.
    pub fn body_names(&self) -> impl Iterator<Item = &str> {
        self.bodies.iter().map(|b| b.name.as_str())
    }
    /// The gravity vector in use.
    pub fn gravity(&self) -> Vector3<f64> {
        self.gravity
    }
    /// True when the model has constraint rows (loops, constraints, position/speed motors).
    pub fn has_constraints(&self) -> bool {
        !self.constraints.is_empty()
    }
    /// The tree coordinate `dof` of the joint named `joint`, for the IR item `item` (a motor or
    /// restraint); `None` when the joint is held still (welded into its parent link, or joining
    /// a body of a switched-off group), so that a force on its coordinate does nothing. An
    /// error names `item` when the joint is unknown or the coordinate is not a tree coordinate.
    pub(crate) fn joint_coordinate(
        &self,
        ir: &IrModel,
        item: &str,
        joint: &str,
        dof: usize,
    ) -> Result<Option<DofIndex>, SolverError> {
        let j = ir
            .joint_index(joint)
            .ok_or_else(|| SolverError::invalid(item, format!("unknown joint '{joint}'")))?;
        if self.joint_is_held(ir, j) {
            return Ok(None);
        }
        self.dof_index(ir, j, dof).map(Some).ok_or_else(|| {
            SolverError::unsupported(
                item,
                format!("joint '{joint}' coordinate {dof} is not a tree coordinate"),
            )
        })
    }

    /// The IR joint named `joint` when it closes a loop and `dof` is its only coordinate (a
    /// force on that coordinate then acts through the joint, between its bodies).
    pub(crate) fn loop_joint<'i>(
        &self,
        ir: &'i IrModel,
        joint: &str,
        dof: usize,
    ) -> Option<&'i mbconv_ir::Joint> {
        let j = ir.joint_index(joint)?;
        (dof == 0 && self.joints.get(j) == Some(&JointMap::Loop)).then(|| &ir.joints[j])
    }

    /// True when IR joint `joint` cannot move: welded into its parent link, or left out of the
    /// tree because it joins a body of a switched-off group (which stays where it is).
    fn joint_is_held(&self, ir: &IrModel, joint: usize) -> bool {
        match self.joints.get(joint) {
            Some(JointMap::Welded) => true,
            Some(JointMap::Ignored) => {
                let active = ir.active_bodies();
                let j = &ir.joints[joint];
                [&j.parent, &j.child].into_iter().any(|r| match r {
                    mbconv_ir::BodyRef::World => false,
                    mbconv_ir::BodyRef::Body(name) => ir.body_index(name).is_some_and(|b| !active[b]),
                })
            }
            _ => false,
        }
    }

    pub(crate) fn dof_index(&self, ir: &IrModel, joint: usize, dof: usize) -> Option<DofIndex> {
        let JointMap::Tree { node, reversed } = self.joints.get(joint)? else {
            return None;
        };
        let n = &self.nodes[*node];
        let kind = &ir.joints[joint].kind;
        if dof >= kind.nv() {
            return None;
        }
        let local = match (&n.joint, reversed) {
            (JointModel::RotationSequence { count, .. }, true) => count - 1 - dof,
            (JointModel::Free, _) => {
                if dof < 3 {
                    dof + 3
                } else {
                    dof - 3
                }
            }
            _ => dof,
        };
        let scalar = !matches!(n.joint, JointModel::Free)
            && !matches!(n.joint, JointModel::SlideRotate { rotation: RotationPart::Ball, slide_count, .. } if dof >= slide_count);
        Some(DofIndex {
            v: n.v_index + local,
            q: if scalar { Some(n.q_index + local) } else { None },
            reversed: *reversed,
        })
    }
}

/// Position limits of one scalar coordinate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CoordinateLimit {
    /// Index of the IR joint.
    pub joint: usize,
    pub q: usize,
    pub v: usize,
    pub lower: f64,
    pub upper: f64,
}

/// A joint coordinate's place in the state vectors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DofIndex {
    /// Velocity index.
    pub v: usize,
    /// Position index, for scalar coordinates.
    pub q: Option<usize>,
    /// The joint is reversed in the tree (only allowed for scalar coordinates here).
    pub reversed: bool,
}

impl Node {
    fn new(parent: Option<usize>, joint: JointModel, tree: Se3, q: &[f64], v: &[f64], name: &str) -> Self {
        Self {
            parent,
            joint,
            tree,
            q_index: q.len(),
            v_index: v.len(),
            inertia: Inertia6::zero(),
            gravity_mass: 0.0,
            gravity_com: Vector3::zeros(),
            moved_body_origin: Vector3::zeros(),
            name: name.to_string(),
        }
    }
}

/// A body's IR `initial_velocity` (world twist of its frame origin) that the assembly fits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InitialTwist {
    /// IR body index.
    pub body: usize,
    /// The twist.
    pub twist: mbconv_ir::Twist,
}

/// The twists the assembly fits: every moving body with an `initial_velocity` (jointed or
/// floating), when at least one jointed body has one. A floating body's own coordinates start
/// at its twist, but the fit moves every coordinate of the tree: without its twist as a target
/// the floating root of a chain would absorb the velocity its children ask of their joints.
fn initial_twists(ir: &IrModel, tree: &SpanningTree, bodies: &[BodyMap]) -> Vec<InitialTwist> {
    let moving = |b: usize| bodies[b].node.is_some();
    let jointed = |b: usize| matches!(tree.attachments[b], Attachment::Joint { .. });
    let with_twist = || {
        ir.bodies
            .iter()
            .enumerate()
            .filter_map(|(b, body)| body.initial_velocity.map(|twist| InitialTwist { body: b, twist }))
            .filter(|t| moving(t.body))
    };
    if !with_twist().any(|t| jointed(t.body)) {
        return Vec::new();
    }
    with_twist()
        .filter(|t| jointed(t.body) || matches!(tree.attachments[t.body], Attachment::Floating))
        .collect()
}

/// A joint whose actuator prescribes its motion with DART's default command of zero
/// (locked, velocity, acceleration from rest, or a velocity servo whose force is not limited)
/// is held at `q0`.
fn held_by_actuator(joint: &mbconv_ir::Joint) -> bool {
    use mbconv_ir::ActuatorKind;
    match joint.actuator {
        Some(ActuatorKind::Locked | ActuatorKind::Velocity) => true,
        Some(ActuatorKind::Acceleration) => joint.v0.iter().all(|v| *v == 0.0),
        // DART's servo drives the velocity to the command within the effort limits, which
        // default to unbounded: then it holds the joint exactly as `velocity` does.
        Some(ActuatorKind::Servo) => joint.dofs.iter().all(|d| d.effort_limits.is_unlimited()),
        _ => false,
    }
}

fn write_pose(q: &mut [f64], p: &Vector3<f64>, r: &UnitQuaternion<f64>) {
    let w = r.quaternion();
    q[..7].copy_from_slice(&[p.x, p.y, p.z, w.w, w.i, w.j, w.k]);
}

/// The unit vector along the joint axis `v` (named `what` in the error).
fn unit(v: &Vector3<f64>, what: &str) -> Result<Vector3<f64>, String> {
    unit_vector(v).ok_or_else(|| format!("{what} is zero or not finite"))
}

/// The solver joint for an IR joint kind traversed forwards or reversed. The reversed motion
/// `J(q)⁻¹` is expressed as a joint of the same family in the same coordinates (negated axes,
/// reversed rotation order) where that is exact.
fn joint_model(kind: &JointKind, reversed: bool) -> Result<JointModel, String> {
    let s = if reversed { -1.0 } else { 1.0 };
    let (ex, ey, ez) = (Vector3::x(), Vector3::y(), Vector3::z());
    let reversed_unsupported = || {
        Err(format!(
            "a {} joint used from its child side (reversed in the spanning tree)",
            kind.type_name()
        ))
    };
    Ok(match kind {
        JointKind::Revolute { axis } => JointModel::Revolute {
            axis: unit(axis, "axis")? * s,
        },
        JointKind::Prismatic { axis } => JointModel::Prismatic {
            axis: unit(axis, "axis")? * s,
        },
        JointKind::Screw { axis, pitch } => JointModel::Helical {
            axis: unit(axis, "axis")? * s,
            lead: pitch / (2.0 * std::f64::consts::PI),
        },
        JointKind::Universal { axis1, axis2 } => {
            let (a1, a2) = (unit(axis1, "axis1")?, unit(axis2, "axis2")?);
            let axes = if reversed { [-a2, -a1, ez] } else { [a1, a2, ez] };
            JointModel::RotationSequence { axes, count: 2 }
        }
        JointKind::Euler { order } => {
            let axes = match order {
                mbconv_ir::EulerOrder::Xyz => [ex, ey, ez],
                mbconv_ir::EulerOrder::Zyx => [ez, ey, ex],
            };
            let axes = if reversed {
                [-axes[2], -axes[1], -axes[0]]
            } else {
                axes
            };
            JointModel::RotationSequence { axes, count: 3 }
        }
        JointKind::Spherical => JointModel::SlideRotate {
            slides: [ex, ey, ez],
            slide_count: 0,
            rotation: RotationPart::Ball,
        },
        JointKind::Cylindrical { axis } => {
            let a = unit(axis, "axis")? * s;
            JointModel::SlideRotate {
                slides: [a, ey, ez],
                slide_count: 1,
                rotation: RotationPart::Axis(a),
            }
        }
        JointKind::Planar { axis1, axis2 } => {
            if reversed {
                return reversed_unsupported();
            }
            let (a1, a2) = (unit(axis1, "axis1")?, unit(axis2, "axis2")?);
            let n = unit(&a1.cross(&a2), "axis1 × axis2")?;
            JointModel::SlideRotate {
                slides: [a1, a2, ez],
                slide_count: 2,
                rotation: RotationPart::Axis(n),
            }
        }
        JointKind::Translational => JointModel::SlideRotate {
            slides: [ex * s, ey * s, ez * s],
            slide_count: 3,
            rotation: RotationPart::None,
        },
        JointKind::Free => JointModel::Free,
        JointKind::PointLine | JointKind::PointPlane => {
            if reversed {
                return reversed_unsupported();
            }
            let slide_count = if matches!(kind, JointKind::PointLine) {
                1
            } else {
                2
            };
            JointModel::SlideRotate {
                slides: [ex, ey, ez],
                slide_count,
                rotation: RotationPart::Ball,
            }
        }
        JointKind::Fixed | JointKind::PseudoContinuousTrack { .. } => {
            return Err("a zero-dof joint has no joint model".into());
        }
    })
}

/// Internal coordinates from the IR `q0`, `v0` (missing numbers count as zero).
fn initial_coordinates(
    kind: &JointKind,
    reversed: bool,
    q0: &[f64],
    v0: &[f64],
    q: &mut [f64],
    v: &mut [f64],
) -> Result<(), String> {
    if q0.iter().chain(v0).any(|x| !x.is_finite()) {
        return Err("q0 or v0 holds a non-finite number".into());
    }
    let at = |s: &[f64], i: usize| s.get(i).copied().unwrap_or(0.0);
    let vec3 = |s: &[f64], i: usize| Vector3::new(at(s, i), at(s, i + 1), at(s, i + 2));
    match kind {
        JointKind::Spherical | JointKind::PointLine | JointKind::PointPlane => {
            let n = kind.nq() - 3;
            for k in 0..n {
                q[k] = at(q0, k);
                v[k] = at(v0, k);
            }
            let r = UnitQuaternion::from_scaled_axis(vec3(q0, n));
            let w = vec3(v0, n);
            let (r, w) = if reversed { (r.inverse(), -(r * w)) } else { (r, w) };
            let c = r.quaternion();
            q[n..n + 4].copy_from_slice(&[c.w, c.i, c.j, c.k]);
            v[n..n + 3].copy_from_slice(&[w.x, w.y, w.z]);
        }
        JointKind::Free => {
            let p = vec3(q0, 0);
            let r = UnitQuaternion::from_scaled_axis(vec3(q0, 3));
            let (lin, ang) = (vec3(v0, 0), vec3(v0, 3));
            let (p, r, wb, vb) = if reversed {
                let ri = r.inverse();
                (-(ri * p), ri, -ang, -(lin + p.cross(&ang)))
            } else {
                (p, r, r.inverse() * ang, r.inverse() * lin)
            };
            write_pose(q, &p, &r);
            v.copy_from_slice(&[wb.x, wb.y, wb.z, vb.x, vb.y, vb.z]);
        }
        _ => {
            let n = q.len();
            for k in 0..n {
                let target = match kind {
                    JointKind::Universal { .. } | JointKind::Euler { .. } if reversed => n - 1 - k,
                    _ => k,
                };
                q[target] = at(q0, k);
                v[target] = at(v0, k);
            }
        }
    }
    Ok(())
}

/// Refuses mass properties no simulation can use: a non-finite or negative mass, or an inertia
/// with a non-finite entry.
///
/// An inertia with a negative principal moment is simulated as it is, as Pinocchio does (its
/// articulated-body algorithm takes the tensor as written): the equations of motion hold as
/// long as the articulated inertia along every joint's motion stays positive definite, which
/// the body's subtree usually makes it (romeo_laas_small's hip links). When it does not, the
/// articulated-body algorithm stops with an error naming the joint (`dynamics::singular`), so
/// that a check reports `failed` instead of a motion no body can have.
fn check_inertial(body: &mbconv_ir::Body) -> Result<(), SolverError> {
    let i = &body.inertial;
    let item = path::field(&path::item("bodies", &body.name), "inertial");
    if !(i.mass.is_finite() && i.mass >= 0.0) {
        return Err(SolverError::invalid(
            item,
            format!(
                "cannot simulate a body of mass {}",
                mbconv_ir::report::number(i.mass)
            ),
        ));
    }
    if i.com.iter().any(|x| !x.is_finite()) {
        return Err(SolverError::invalid(
            item,
            "cannot simulate a non-finite centre of mass",
        ));
    }
    if mbconv_ir::validate::principal_moments(&i.inertia.matrix()).is_none() {
        return Err(SolverError::invalid(
            item,
            "cannot simulate an inertia with a non-finite entry",
        ));
    }
    Ok(())
}
