//! Force elements: everything that adds external wrenches or generalised forces.
//!
//! Each IR item is compiled once into a [`ForceElement`] with solver indices; evaluation adds
//! world-frame wrenches (about the world origin) to the links and generalised forces to the
//! joint coordinates. A new kind of force (a bushing law, a contact model) is one more variant.

use crate::data::Data;
use crate::error::SolverError;
use crate::model::Model;
use crate::spatial::{Se3, Spatial};
use mbconv_ir::model::function::interpolate_held;
use mbconv_ir::report::path;
use mbconv_ir::{
    BodyRef, Bushing, BushingLaw, DistanceType, ForceKind, LoadType, Model as IrModel, MotorActuation,
    MotorTarget, MotorType, ORIGIN_FRAME, PiecewisePolynomial, RestraintTarget, RestraintType,
    SpringDamperLaw, TimeFunction,
};
use nalgebra::Vector3;

/// Speed below which Coulomb friction is scaled down: `τ = −F·tanh(v / FRICTION_SPEED)`.
pub const FRICTION_SPEED: f64 = 1e-2;

/// Penetration (m) → force (N) table of Chrono's TSDA bump and rebound stops.
const STOP_TABLE: [[f64; 2]; 11] = [
    [0.0, 0.0],
    [0.002, 200.0],
    [0.004, 400.0],
    [0.006, 600.0],
    [0.008, 800.0],
    [0.010, 1000.0],
    [0.020, 2500.0],
    [0.030, 4500.0],
    [0.040, 7500.0],
    [0.050, 12500.0],
    [0.060, 125000.0],
];

/// A frame fixed on a link (or the world): link index and pose in the link frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attach {
    /// Link, `None` for the world.
    pub node: Option<usize>,
    /// Pose in the link frame (world frame when `node` is `None`).
    pub frame: Se3,
}

/// World state of an attached frame: pose, angular velocity and origin velocity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameMotion {
    pub pose: Se3,
    pub omega: Vector3<f64>,
    pub velocity: Vector3<f64>,
}

impl Attach {
    pub(crate) fn motion(&self, data: &Data) -> FrameMotion {
        match self.node {
            None => FrameMotion {
                pose: self.frame,
                omega: Vector3::zeros(),
                velocity: Vector3::zeros(),
            },
            Some(n) => {
                let link = &data.world[n];
                let pose = link.compose(&self.frame);
                let v = &data.vel[n];
                let omega = link.r * v.ang;
                let velocity = link.r * (v.lin + v.ang.cross(&self.frame.p));
                FrameMotion {
                    pose,
                    omega,
                    velocity,
                }
            }
        }
    }
    /// The world velocity of a world point moving with the link.
    pub(crate) fn point_velocity(&self, data: &Data, p: &Vector3<f64>) -> Vector3<f64> {
        match self.node {
            None => Vector3::zeros(),
            Some(n) => {
                let link = &data.world[n];
                let v = &data.vel[n];
                link.r * v.lin + (link.r * v.ang).cross(&(p - link.p))
            }
        }
    }
}

fn add_force(data: &mut Data, node: Option<usize>, point: &Vector3<f64>, force: &Vector3<f64>) {
    if let Some(n) = node {
        data.f_world[n] += Spatial::new(point.cross(force), *force);
    }
}

fn add_torque(data: &mut Data, node: Option<usize>, torque: &Vector3<f64>) {
    if let Some(n) = node {
        data.f_world[n].ang += torque;
    }
}

/// A compiled force element.
#[derive(Clone, Debug)]
pub enum ForceElement {
    /// Spring, damper and Coulomb friction on one joint coordinate.
    JointDof {
        /// Velocity index.
        v: usize,
        /// Position index (scalar coordinates only).
        q: Option<usize>,
        /// Stiffness.
        stiffness: f64,
        /// Rest position.
        rest: f64,
        /// Viscous damping.
        damping: f64,
        /// Coulomb friction.
        friction: f64,
    },
    /// Translational spring-damper-actuator.
    Tsda {
        /// First attachment (frame origin = point).
        a: Attach,
        /// Second attachment.
        b: Attach,
        /// IR element.
        tsda: mbconv_ir::Tsda,
    },
    /// Rotational spring-damper.
    Rsda {
        /// Frame 1.
        a: Attach,
        /// Frame 2.
        b: Attach,
        /// IR element.
        rsda: mbconv_ir::Rsda,
    },
    /// A bushing evaluated by `mbconv-bushing`.
    Bushing {
        /// IR path for messages.
        item: String,
        /// Frame A.
        a: Attach,
        /// Frame C.
        c: Attach,
        /// IR bushing.
        bushing: Bushing,
    },
    /// A restraint on a joint coordinate.
    JointRestraint {
        /// Velocity index.
        v: usize,
        /// Position index.
        q: Option<usize>,
        /// Kind.
        kind: RestraintType,
        /// Characteristic.
        function: PiecewisePolynomial,
    },
    /// A restraint or a force motor on the coordinate of a loop-closing revolute or prismatic
    /// joint: it acts through that joint, between its two bodies (the joint frames turned so
    /// that their z is the joint axis, so that the coordinate is frame 2's angle about, or
    /// offset along, frame 1's z).
    LoopCoordinate {
        /// The parent's joint frame.
        a: Attach,
        /// The child's joint frame.
        b: Attach,
        /// A revolute joint (else prismatic).
        rotational: bool,
        /// What acts on the coordinate.
        law: LoopLaw,
    },
    /// A restraint on a frame-pair distance.
    FrameRestraint {
        /// Frame 1.
        a: Attach,
        /// Frame 2.
        b: Attach,
        /// Kind.
        kind: RestraintType,
        /// How the distance is measured.
        distance: DistanceType,
        /// Characteristic.
        function: PiecewisePolynomial,
    },
    /// A body load.
    Load {
        /// The loaded body's attachment (its body frame).
        body: Attach,
        /// IR load.
        load: mbconv_ir::BodyLoad,
    },
    /// A force motor on a joint coordinate.
    JointMotor {
        /// Velocity index.
        v: usize,
        /// Input.
        function: TimeFunction,
    },
    /// A force or torque motor between two bodies, along/about frame 2's Z.
    PairMotor {
        /// Frame 1.
        a: Attach,
        /// Frame 2.
        b: Attach,
        /// Linear or rotational.
        linear: bool,
        /// Input.
        function: TimeFunction,
    },
}

/// All force elements of a model.
#[derive(Clone, Debug, Default)]
pub struct ForceSet {
    pub(crate) elements: Vec<ForceElement>,
}

/// A bushing force element between its two frames.
fn bushing_element(
    ir: &IrModel,
    model: &Model,
    item: String,
    bushing: Bushing,
) -> Result<ForceElement, SolverError> {
    let a = attach(
        ir,
        model,
        &bushing.body_a,
        &Se3::from_pose(&bushing.frame_a),
        &item,
    )?;
    let c = attach(
        ir,
        model,
        &bushing.body_c,
        &Se3::from_pose(&bushing.frame_c),
        &item,
    )?;
    Ok(ForceElement::Bushing { item, a, c, bushing })
}

/// The attachment of an IR body reference with a frame given in body coordinates.
pub(crate) fn attach(
    ir: &IrModel,
    model: &Model,
    body: &BodyRef,
    frame: &Se3,
    item: &str,
) -> Result<Attach, SolverError> {
    match body {
        BodyRef::World => Ok(Attach {
            node: None,
            frame: *frame,
        }),
        BodyRef::Body(name) => {
            let b = ir
                .body_index(name)
                .ok_or_else(|| SolverError::invalid(item, format!("unknown body '{name}'")))?;
            let map = &model.bodies[b];
            Ok(Attach {
                node: map.node,
                frame: map.offset.compose(frame),
            })
        }
    }
}

fn point_frame(p: &Vector3<f64>) -> Se3 {
    Se3 {
        r: nalgebra::Matrix3::identity(),
        p: *p,
    }
}

impl ForceSet {
    /// Compiles the force elements, joint properties, loads and force motors of `ir`.
    pub(crate) fn new(ir: &IrModel, model: &Model) -> Result<Self, SolverError> {
        let mut elements = Vec::new();
        for (j, joint) in ir.joints.iter().enumerate() {
            for (k, dof) in joint.dofs.iter().enumerate() {
                let active = dof.spring_stiffness != 0.0 || dof.damping != 0.0 || dof.friction != 0.0;
                if !active {
                    continue;
                }
                let Some(index) = model.dof_index(ir, j, k) else {
                    continue;
                };
                if index.reversed && index.q.is_none() {
                    return Err(SolverError::unsupported(
                        path::index(&path::item("joints", &joint.name), "dofs", k),
                        "spring, damping or friction on a rotation of a reversed ball-like joint",
                    ));
                }
                elements.push(ForceElement::JointDof {
                    v: index.v,
                    q: index.q,
                    stiffness: dof.spring_stiffness,
                    rest: dof.spring_rest_position,
                    damping: dof.damping,
                    friction: dof.friction,
                });
            }
        }
        for (j, joint) in ir.joints.iter().enumerate() {
            if model.joints[j] != crate::model::JointMap::Compliant {
                continue;
            }
            let item = path::item("joints", &joint.name);
            let Some(jb) = &joint.bushing else { continue };
            let (k, d) = jb.diagonal(&joint.kind).ok_or_else(|| {
                SolverError::unsupported(&item, format!("a compliant {} joint", joint.kind.type_name()))
            })?;
            let bushing = Bushing {
                law: BushingLaw::ChronoGeneric,
                body_a: joint.parent.clone(),
                frame_a: joint.parent_frame,
                body_c: joint.child.clone(),
                frame_c: joint.child_frame,
                torque_stiffness: [k[3], k[4], k[5]],
                torque_damping: [d[3], d[4], d[5]],
                force_stiffness: [k[0], k[1], k[2]],
                force_damping: [d[0], d[1], d[2]],
            };
            elements.push(bushing_element(ir, model, item, bushing)?);
        }
        for fe in &ir.force_elements {
            let item = path::item("force_elements", &fe.name);
            match &fe.kind {
                ForceKind::Tsda(t) => {
                    let a = attach(ir, model, &t.body1, &point_frame(&t.point1), &item)?;
                    let b = attach(ir, model, &t.body2, &point_frame(&t.point2), &item)?;
                    elements.push(ForceElement::Tsda {
                        a,
                        b,
                        tsda: t.clone(),
                    });
                }
                ForceKind::Rsda(r) => {
                    let a = attach(ir, model, &r.body1, &Se3::from_pose(&r.frame1), &item)?;
                    let b = attach(ir, model, &r.body2, &Se3::from_pose(&r.frame2), &item)?;
                    elements.push(ForceElement::Rsda {
                        a,
                        b,
                        rsda: r.clone(),
                    });
                }
                ForceKind::Bushing(bushing) => {
                    elements.push(bushing_element(ir, model, item, bushing.clone())?);
                }
                ForceKind::Restraint(r) => match &r.target {
                    RestraintTarget::Joint { joint, dof } => {
                        let law = || LoopLaw::Restraint {
                            kind: r.restraint_type,
                            function: r.function.clone(),
                        };
                        if let Some(element) = loop_coordinate(ir, model, joint, *dof, &item, law)? {
                            elements.push(element);
                            continue;
                        }
                        let Some(index) = model.joint_coordinate(ir, &item, joint, *dof)? else {
                            continue;
                        };
                        if r.restraint_type == RestraintType::Spring && index.q.is_none() {
                            return Err(SolverError::unsupported(
                                &item,
                                "a spring restraint on a ball-like rotation",
                            ));
                        }
                        elements.push(ForceElement::JointRestraint {
                            v: index.v,
                            q: index.q,
                            kind: r.restraint_type,
                            function: r.function.clone(),
                        });
                    }
                    RestraintTarget::FramePair {
                        body1,
                        frame1,
                        body2,
                        frame2,
                        distance,
                    } => {
                        let frame_of = |body: &BodyRef, name: &str| -> Result<Se3, SolverError> {
                            let frames = match body {
                                BodyRef::World => &ir.world_frames,
                                BodyRef::Body(b) => {
                                    &ir.body(b)
                                        .ok_or_else(|| {
                                            SolverError::invalid(&item, format!("unknown body '{b}'"))
                                        })?
                                        .frames
                                }
                            };
                            // "origin" is the body frame itself unless a frame has that name.
                            let named = frames
                                .iter()
                                .find(|f| f.name == name)
                                .map(|f| Se3::from_pose(&f.pose));
                            named
                                .or_else(|| (name == ORIGIN_FRAME).then(Se3::identity))
                                .ok_or_else(|| {
                                    SolverError::invalid(&item, format!("unknown frame '{name}' on {body}"))
                                })
                        };
                        let a = attach(ir, model, body1, &frame_of(body1, frame1)?, &item)?;
                        let b = attach(ir, model, body2, &frame_of(body2, frame2)?, &item)?;
                        elements.push(ForceElement::FrameRestraint {
                            a,
                            b,
                            kind: r.restraint_type,
                            distance: *distance,
                            function: r.function.clone(),
                        });
                    }
                },
            }
        }
        for load in &ir.loads {
            if load.external {
                continue;
            }
            let item = path::item("loads", &load.name);
            let body = attach(
                ir,
                model,
                &BodyRef::body(load.body.clone()),
                &Se3::identity(),
                &item,
            )?;
            elements.push(ForceElement::Load {
                body,
                load: load.clone(),
            });
        }
        for motor in &ir.motors {
            if motor.actuation != MotorActuation::Force {
                continue;
            }
            let item = path::item("motors", &motor.name);
            match &motor.target {
                MotorTarget::Joint { joint, dof } => {
                    let law = || LoopLaw::Motor {
                        function: motor.function.clone(),
                    };
                    if let Some(element) = loop_coordinate(ir, model, joint, *dof, &item, law)? {
                        elements.push(element);
                        continue;
                    }
                    let Some(index) = model.joint_coordinate(ir, &item, joint, *dof)? else {
                        continue;
                    };
                    elements.push(ForceElement::JointMotor {
                        v: index.v,
                        function: motor.function.clone(),
                    });
                }
                MotorTarget::BodyPair {
                    body1,
                    frame1,
                    body2,
                    frame2,
                    ..
                } => {
                    let a = attach(ir, model, body1, &Se3::from_pose(frame1), &item)?;
                    let b = attach(ir, model, body2, &Se3::from_pose(frame2), &item)?;
                    elements.push(ForceElement::PairMotor {
                        a,
                        b,
                        linear: motor.motor_type == MotorType::Linear,
                        function: motor.function.clone(),
                    });
                }
            }
        }
        Ok(Self { elements })
    }

    /// Adds every element's wrenches and generalised forces at time `t`.
    pub(crate) fn apply(&self, data: &mut Data, t: f64, q: &[f64], v: &[f64]) -> Result<(), SolverError> {
        for e in &self.elements {
            e.apply(data, t, q, v)?;
        }
        Ok(())
    }

    /// Potential energy stored in linear springs (joint springs, linear TSDA/RSDA springs).
    pub(crate) fn potential(&self, data: &Data, q: &[f64]) -> f64 {
        self.elements.iter().map(|e| e.potential(data, q)).sum()
    }
}

/// The current length of a TSDA with bump and rebound stops, and the lengths where they act.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stops {
    /// Current length.
    pub length: f64,
    /// The bump stop acts below this length.
    pub min: f64,
    /// The rebound stop acts above this length.
    pub max: f64,
}

/// Spring-damper law value with Chrono's TSDA conventions (positive pushes apart).
pub(crate) fn law_force(
    law: &SpringDamperLaw,
    preload: f64,
    deformation: f64,
    rate: f64,
    stops: Option<Stops>,
) -> f64 {
    let stop = |f: f64| match stops {
        Some(Stops { length, min, .. }) if length < min => f + interpolate_held(&STOP_TABLE, min - length),
        Some(Stops { length, max, .. }) if length > max => f - interpolate_held(&STOP_TABLE, length - max),
        _ => f,
    };
    match law {
        SpringDamperLaw::Linear {
            stiffness: Some(k),
            damping,
        } => stop(preload - k * deformation - damping.unwrap_or(0.0) * rate),
        SpringDamperLaw::Linear {
            stiffness: None,
            damping: Some(c),
        } => -c * rate,
        SpringDamperLaw::Linear {
            stiffness: None,
            damping: None,
        }
        | SpringDamperLaw::None => preload,
        SpringDamperLaw::DegressiveDamper {
            damping,
            degressivity_compression,
            degressivity_expansion,
        } => {
            if rate >= 0.0 {
                -damping * rate / (1.0 + degressivity_expansion * rate)
            } else {
                -damping * rate / (1.0 - degressivity_compression * rate)
            }
        }
        SpringDamperLaw::Curves {
            spring: Some(k),
            damping,
        } => {
            let c = damping.as_ref().map_or(0.0, |c| interpolate_held(c, rate));
            stop(preload - interpolate_held(k, deformation) - c)
        }
        SpringDamperLaw::Curves {
            spring: None,
            damping,
        } => -damping.as_ref().map_or(0.0, |c| interpolate_held(c, rate)),
        SpringDamperLaw::Map {
            deformations,
            velocities,
            forces,
        } => preload - bilinear(deformations, velocities, forces, deformation, rate),
    }
}

/// Bilinear interpolation on a grid with linear extrapolation from the edge cells.
fn bilinear(xs: &[f64], ys: &[f64], f: &[Vec<f64>], x: f64, y: f64) -> f64 {
    if xs.len() < 2 || ys.len() < 2 {
        return 0.0;
    }
    let cell = |grid: &[f64], value: f64| grid.partition_point(|g| *g <= value).clamp(1, grid.len() - 1) - 1;
    let (i, j) = (cell(xs, x), cell(ys, y));
    let tx = (x - xs[i]) / (xs[i + 1] - xs[i]);
    let ty = (y - ys[j]) / (ys[j + 1] - ys[j]);
    let at = |row: usize, col: usize| f.get(row).and_then(|r| r.get(col)).copied().unwrap_or(0.0);
    let f0 = at(j, i) * (1.0 - tx) + at(j, i + 1) * tx;
    let f1 = at(j + 1, i) * (1.0 - tx) + at(j + 1, i + 1) * tx;
    f0 * (1.0 - ty) + f1 * ty
}

fn linear_spring(law: &SpringDamperLaw) -> Option<f64> {
    match law {
        SpringDamperLaw::Linear {
            stiffness: Some(k), ..
        } => Some(*k),
        _ => None,
    }
}

fn to_bushing_state(m: &FrameMotion) -> mbconv_bushing::FrameState {
    let pose = mbconv_ir::Pose::new(m.pose.p, m.pose.quaternion());
    mbconv_bushing::FrameState {
        pose,
        angular_velocity: m.omega,
        linear_velocity: m.velocity,
    }
}

/// Angle of frame `b` about frame `a`'s Z, from `a`'s X to `b`'s X, in (−π, π].
fn relative_angle(a: &Se3, b: &Se3) -> f64 {
    let xb = a.r.transpose() * b.r.column(0);
    xb.y.atan2(xb.x)
}

/// What acts on a loop-closing joint's coordinate ([`ForceElement::LoopCoordinate`]).
#[derive(Clone, Debug)]
pub enum LoopLaw {
    /// A restraint: `−function(q)` (spring) or `−function(q̇)` (damper).
    Restraint {
        /// Kind.
        kind: RestraintType,
        /// Characteristic.
        function: PiecewisePolynomial,
    },
    /// A force motor: `function(t)`.
    Motor {
        /// The force or torque over time.
        function: TimeFunction,
    },
}

/// `law` acting on coordinate `dof` of the joint named `joint` when that joint closes a loop
/// and is revolute or prismatic ([`ForceElement::LoopCoordinate`]); `None` otherwise (a tree
/// joint's coordinate, or one the caller refuses).
fn loop_coordinate(
    ir: &IrModel,
    model: &Model,
    joint: &str,
    dof: usize,
    item: &str,
    law: impl FnOnce() -> LoopLaw,
) -> Result<Option<ForceElement>, SolverError> {
    let Some(joint) = model.loop_joint(ir, joint, dof) else {
        return Ok(None);
    };
    Ok(
        loop_coordinate_frames(ir, model, joint, item)?.map(|(a, b, rotational)| {
            ForceElement::LoopCoordinate {
                a,
                b,
                rotational,
                law: law(),
            }
        }),
    )
}

/// The attachments of a loop-closing revolute or prismatic joint's two frames, turned so that
/// their z is the joint axis; `None` for other joint kinds.
fn loop_coordinate_frames(
    ir: &IrModel,
    model: &Model,
    joint: &mbconv_ir::Joint,
    item: &str,
) -> Result<Option<(Attach, Attach, bool)>, SolverError> {
    let (axis, rotational) = match &joint.kind {
        mbconv_ir::JointKind::Revolute { axis } => (axis, true),
        mbconv_ir::JointKind::Prismatic { axis } => (axis, false),
        _ => return Ok(None),
    };
    let Some(axis) = mbconv_ir::rotation::unit_vector(axis) else {
        return Err(SolverError::invalid(item, "zero or non-finite joint axis"));
    };
    let turn = nalgebra::UnitQuaternion::rotation_between(&Vector3::z(), &axis).unwrap_or_else(|| {
        nalgebra::UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
    });
    let turn = mbconv_ir::Pose::from_rotation(turn);
    let a = attach(
        ir,
        model,
        &joint.parent,
        &Se3::from_pose(&(joint.parent_frame * turn)),
        item,
    )?;
    let b = attach(
        ir,
        model,
        &joint.child,
        &Se3::from_pose(&(joint.child_frame * turn)),
        item,
    )?;
    Ok(Some((a, b, rotational)))
}

impl ForceElement {
    /// The two links this element acts between (`None` for the world, and for an element that
    /// acts on one coordinate or one body only): the element couples their motion.
    pub(crate) fn coupled_links(&self) -> [Option<usize>; 2] {
        match self {
            ForceElement::Tsda { a, b, .. }
            | ForceElement::Rsda { a, b, .. }
            | ForceElement::LoopCoordinate { a, b, .. }
            | ForceElement::FrameRestraint { a, b, .. }
            | ForceElement::PairMotor { a, b, .. }
            | ForceElement::Bushing { a, c: b, .. } => [a.node, b.node],
            ForceElement::JointDof { .. }
            | ForceElement::JointRestraint { .. }
            | ForceElement::Load { .. }
            | ForceElement::JointMotor { .. } => [None, None],
        }
    }

    fn apply(&self, data: &mut Data, t: f64, q: &[f64], v: &[f64]) -> Result<(), SolverError> {
        match self {
            ForceElement::JointDof {
                v: vi,
                q: qi,
                stiffness,
                rest,
                damping,
                friction,
            } => {
                let h = data.implicit_step;
                let mut f = -damping * v[*vi] - friction * (v[*vi] / FRICTION_SPEED).tanh();
                if let Some(qi) = qi {
                    // DART's implicit spring: evaluated at the predicted position q + h·v.
                    f -= stiffness * (q[*qi] + h * v[*vi] - rest);
                    data.extra_diagonal[*vi] += h * h * stiffness;
                }
                data.extra_diagonal[*vi] += h * damping;
                data.tau[*vi] += f;
            }
            ForceElement::Tsda { a, b, tsda } => {
                let (ma, mb) = (a.motion(data), b.motion(data));
                let d = ma.pose.p - mb.pose.p;
                let length = d.norm();
                let u = if length > 0.0 { d / length } else { Vector3::x() };
                let rate = u.dot(&(ma.velocity - mb.velocity));
                let stops = match (tsda.min_length, tsda.max_length) {
                    (Some(min), Some(max)) => Some(Stops { length, min, max }),
                    _ => None,
                };
                let f = law_force(&tsda.law, tsda.preload, length - tsda.free_length, rate, stops);
                add_force(data, a.node, &ma.pose.p, &(u * f));
                add_force(data, b.node, &mb.pose.p, &(-u * f));
            }
            ForceElement::Rsda { a, b, rsda } => {
                let (ma, mb) = (a.motion(data), b.motion(data));
                let z = ma.pose.r.column(2).into_owned();
                let theta = relative_angle(&ma.pose, &mb.pose);
                let rate = z.dot(&(mb.omega - ma.omega));
                let torque = law_force(&rsda.law, rsda.preload, theta - rsda.free_angle, rate, None);
                add_torque(data, b.node, &(z * torque));
                add_torque(data, a.node, &(-z * torque));
            }
            ForceElement::Bushing { item, a, c, bushing } => {
                let (ma, mc) = (a.motion(data), c.motion(data));
                let (wa, wc) =
                    mbconv_bushing::evaluate(bushing, &to_bushing_state(&ma), &to_bushing_state(&mc))
                        .map_err(|e| SolverError::Force {
                            item: item.clone(),
                            message: e.to_string(),
                        })?;
                add_force(data, a.node, &ma.pose.p, &wa.force);
                add_torque(data, a.node, &wa.torque);
                add_force(data, c.node, &mc.pose.p, &wc.force);
                add_torque(data, c.node, &wc.torque);
            }
            ForceElement::JointRestraint {
                v: vi,
                q: qi,
                kind,
                function,
            } => {
                let x = match (kind, qi) {
                    (RestraintType::Spring, Some(qi)) => q[*qi],
                    _ => v[*vi],
                };
                data.tau[*vi] -= function.value(x);
            }
            ForceElement::LoopCoordinate {
                a,
                b,
                rotational,
                law,
            } => {
                let (ma, mb) = (a.motion(data), b.motion(data));
                let z = ma.pose.r.column(2).into_owned();
                let (value, rate) = if *rotational {
                    (relative_angle(&ma.pose, &mb.pose), z.dot(&(mb.omega - ma.omega)))
                } else {
                    let rate = b.point_velocity(data, &mb.pose.p) - a.point_velocity(data, &mb.pose.p);
                    (z.dot(&(mb.pose.p - ma.pose.p)), z.dot(&rate))
                };
                let f = match law {
                    LoopLaw::Restraint { kind, function } => {
                        -function.value(if *kind == RestraintType::Spring {
                            value
                        } else {
                            rate
                        })
                    }
                    LoopLaw::Motor { function } => function.value(t),
                };
                if *rotational {
                    add_torque(data, b.node, &(z * f));
                    add_torque(data, a.node, &(-z * f));
                } else {
                    add_force(data, b.node, &mb.pose.p, &(z * f));
                    add_force(data, a.node, &mb.pose.p, &(-z * f));
                }
            }
            ForceElement::FrameRestraint {
                a,
                b,
                kind,
                distance,
                function,
            } => {
                let (ma, mb) = (a.motion(data), b.motion(data));
                let d = mb.pose.p - ma.pose.p;
                // Direction of the gradient of the measured distance w.r.t. point 2.
                let (dir, value) = match distance {
                    DistanceType::Euclidean => {
                        let n = d.norm();
                        (if n > 0.0 { d / n } else { Vector3::zeros() }, n)
                    }
                    DistanceType::X | DistanceType::Y | DistanceType::Z => {
                        let k = match distance {
                            DistanceType::X => 0,
                            DistanceType::Y => 1,
                            _ => 2,
                        };
                        let e = ma.pose.r.column(k).into_owned();
                        (e, e.dot(&d))
                    }
                };
                let rate =
                    dir.dot(&(b.point_velocity(data, &mb.pose.p) - a.point_velocity(data, &mb.pose.p)));
                let x = if *kind == RestraintType::Spring {
                    value
                } else {
                    rate
                };
                let f = -function.value(x);
                add_force(data, b.node, &mb.pose.p, &(dir * f));
                add_force(data, a.node, &mb.pose.p, &(-dir * f));
            }
            ForceElement::Load { body, load } => {
                let scale = load.modulation.as_ref().map_or(1.0, |m| m.value(t));
                let m = body.motion(data);
                let vector = if load.vector_in_body_frame {
                    m.pose.r * load.vector
                } else {
                    load.vector
                } * scale;
                match load.load_type {
                    LoadType::Torque => add_torque(data, body.node, &vector),
                    LoadType::Force => {
                        let p = if load.point_in_body_frame {
                            m.pose.point(&load.point)
                        } else {
                            load.point
                        };
                        add_force(data, body.node, &p, &vector);
                    }
                }
            }
            ForceElement::JointMotor { v: vi, function } => data.tau[*vi] += function.value(t),
            ForceElement::PairMotor {
                a,
                b,
                linear,
                function,
            } => {
                let (ma, mb) = (a.motion(data), b.motion(data));
                let z = mb.pose.r.column(2).into_owned() * function.value(t);
                if *linear {
                    add_force(data, a.node, &ma.pose.p, &z);
                    add_force(data, b.node, &ma.pose.p, &(-z));
                } else {
                    add_torque(data, a.node, &z);
                    add_torque(data, b.node, &(-z));
                }
            }
        }
        Ok(())
    }

    fn potential(&self, data: &Data, q: &[f64]) -> f64 {
        match self {
            ForceElement::JointDof {
                q: Some(qi),
                stiffness,
                rest,
                ..
            } => 0.5 * stiffness * (q[*qi] - rest).powi(2),
            ForceElement::Tsda { a, b, tsda } => linear_spring(&tsda.law).map_or(0.0, |k| {
                let length = (a.motion(data).pose.p - b.motion(data).pose.p).norm();
                let d = length - tsda.free_length;
                0.5 * k * d * d - tsda.preload * d
            }),
            ForceElement::Rsda { a, b, rsda } => linear_spring(&rsda.law).map_or(0.0, |k| {
                let d = relative_angle(&a.motion(data).pose, &b.motion(data).pose) - rsda.free_angle;
                0.5 * k * d * d - rsda.preload * d
            }),
            // Energy stored in the bushing's springs; NaN where the law cannot be evaluated
            // (gimbal lock), so an energy column never hides a failure as zero.
            ForceElement::Bushing { a, c, bushing, .. } => mbconv_bushing::potential_energy(
                bushing,
                &to_bushing_state(&a.motion(data)),
                &to_bushing_state(&c.motion(data)),
            )
            .unwrap_or(f64::NAN),
            _ => 0.0,
        }
    }
}
