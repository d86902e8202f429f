//! Constraint rows: loop-closing joints, IR constraints and position/speed motors (the solve,
//! projection and assembly are in `crate::projection`).
//!
//! Every row is a scalar function `φ(q, t)` (or, for a speed motor, a velocity target) whose
//! Jacobian is built from world-frame quantities: a row is a sum of "ends", each a weight
//! `(α, β)` on the angular velocity of a link and the velocity of a world point moving with it.

// Numeric kernels index several arrays with the same coordinate index.
#![allow(clippy::needless_range_loop)]

use crate::error::SolverError;
use crate::forces::{Attach, attach};
use crate::model::{JointMap, Model};
use crate::spatial::{Se3, Spatial};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::report::path;
use mbconv_ir::rotation::unit_vector;
use mbconv_ir::{
    BodyRef, ConstraintKind, ExtraJointType, Joint, JointKind, Model as IrModel, Motor, MotorActuation,
    MotorGuide, MotorTarget, MotorType, TimeFunction,
};
use nalgebra::{DMatrix, Matrix3, UnitQuaternion, Vector3};

/// What a row's value is driven to.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    /// A constant.
    Constant(f64),
    /// `φ = value − f(t)`.
    Position(TimeFunction),
    /// A velocity row: `d(value)/dt = f(t)`.
    Speed(TimeFunction),
}

/// A direction or point fixed on a link: the link (`None` for the world) and the vector in
/// link coordinates.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OnLink {
    pub link: Option<usize>,
    pub vector: Vector3<f64>,
}

impl OnLink {
    /// The vector in world coordinates, rotated only (a direction).
    fn direction_in_world(&self, world: &[Se3]) -> Vector3<f64> {
        world_of(world, self.link).r * self.vector
    }
    /// The vector in world coordinates as a point.
    fn point_in_world(&self, world: &[Se3]) -> Vector3<f64> {
        world_of(world, self.link).point(&self.vector)
    }
}

/// What a row measures.
#[derive(Clone, Debug)]
pub(crate) enum RowKind {
    /// `b_w · c_w` for two body-fixed directions.
    Dot { b: OnLink, c: OnLink },
    /// `d_w · (pb_w − pa_w)`, `d` and `pa` on link `a`.
    Offset {
        a: Option<usize>,
        d: Vector3<f64>,
        pa: Vector3<f64>,
        pb: OnLink,
    },
    /// `|pb_w − pa_w|`.
    Distance { pa: OnLink, pb: OnLink },
    /// Angle of frame 1 about frame 2's Z (from frame 2's X to frame 1's X).
    Angle { f1: Attach, f2: Attach },
    /// A joint coordinate: velocity index `v`, position index `q` (`None` on a ball-like
    /// rotation, whose coordinates are a quaternion).
    Coordinate { v: usize, q: Option<usize> },
}

#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub item: String,
    pub kind: RowKind,
    pub target: Target,
    /// The row holds the value it has at the initial configuration, not its nominal constant:
    /// a Choreonoid extra joint, which Choreonoid's constraint solver holds at the velocity
    /// level, so that a gap between its anchors at the start is kept, never closed.
    pub holds_initial_value: bool,
}

/// All constraint rows of a model.
#[derive(Clone, Debug, Default)]
pub struct ConstraintSet {
    pub(crate) rows: Vec<Row>,
}

fn world_of(world: &[Se3], node: Option<usize>) -> Se3 {
    node.map_or_else(Se3::identity, |n| world[n])
}

fn perpendiculars(a: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let helper = if a.x.abs() < 0.9 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    let b1 = a.cross(&helper).normalize();
    (b1, a.cross(&b1))
}

/// The unit vector along the axis `v` of `item`, or an error naming `item`.
fn unit(v: &Vector3<f64>, item: &str) -> Result<Vector3<f64>, SolverError> {
    unit_vector(v).ok_or_else(|| SolverError::invalid(item, "zero or non-finite axis"))
}

/// The rows of one IR item being compiled.
struct ItemRows<'a> {
    item: &'a str,
    rows: &'a mut Vec<Row>,
}

/// Whether the rows of a constraint hold their initial values (see [`Row::holds_initial_value`]).
fn holds_initial_value(kind: &ConstraintKind) -> bool {
    matches!(kind, ConstraintKind::ExtraJoint { .. })
}

impl ItemRows<'_> {
    /// A row driven to the constant `value`.
    fn constant(&mut self, kind: RowKind, value: f64) {
        self.driven(kind, Target::Constant(value));
    }
    fn driven(&mut self, kind: RowKind, target: Target) {
        self.rows.push(Row {
            item: self.item.to_owned(),
            kind,
            target,
            holds_initial_value: false,
        });
    }
}

/// Two frames whose relative motion rows restrict: frame C follows frame P.
struct FramePair {
    p: Attach,
    c: Attach,
}

impl FramePair {
    /// Frame C's origin relative to frame P's, along the P-frame direction `d`.
    fn translation(&self, d: Vector3<f64>) -> RowKind {
        RowKind::Offset {
            a: self.p.node,
            d: self.p.frame.r * d,
            pa: self.p.frame.p,
            pb: OnLink {
                link: self.c.node,
                vector: self.c.frame.p,
            },
        }
    }
    /// The P-frame direction `b` dotted with the C-frame direction `c`.
    fn dot(&self, b: Vector3<f64>, c: Vector3<f64>) -> RowKind {
        RowKind::Dot {
            b: OnLink {
                link: self.p.node,
                vector: self.p.frame.r * b,
            },
            c: OnLink {
                link: self.c.node,
                vector: self.c.frame.r * c,
            },
        }
    }
    /// The translations along `directions` (P frame) held at zero.
    fn translations(&self, directions: &[Vector3<f64>], rows: &mut ItemRows) {
        for d in directions {
            rows.constant(self.translation(*d), 0.0);
        }
    }
    fn all_translations(&self, rows: &mut ItemRows) {
        self.translations(&[Vector3::x(), Vector3::y(), Vector3::z()], rows);
    }
    fn all_rotations(&self, rows: &mut ItemRows) {
        let (x, y, z) = (Vector3::x(), Vector3::y(), Vector3::z());
        rows.constant(self.dot(x, y), 0.0);
        rows.constant(self.dot(y, z), 0.0);
        rows.constant(self.dot(z, x), 0.0);
    }
    /// Rotations that keep the unit direction `a` of both frames aligned.
    fn align(&self, a: Vector3<f64>, rows: &mut ItemRows) {
        let (b1, b2) = perpendiculars(&a);
        rows.constant(self.dot(b1, a), 0.0);
        rows.constant(self.dot(b2, a), 0.0);
    }
    /// Translations perpendicular to the unit direction `a`.
    fn along_only(&self, a: &Vector3<f64>, rows: &mut ItemRows) {
        let (b1, b2) = perpendiculars(a);
        self.translations(&[b1, b2], rows);
    }
}

/// Points and rotations of bodies in the model's reference configuration (for lengths and
/// directions the IR leaves to be measured there).
struct Reference<'a> {
    ir: &'a IrModel,
    poses: Vec<mbconv_ir::Pose>,
}

impl<'a> Reference<'a> {
    fn new(ir: &'a IrModel) -> Self {
        let tree = SpanningTree::for_dynamics(ir);
        Self {
            ir,
            poses: world_poses(ir, &tree, Configuration::Reference),
        }
    }
    fn pose(&self, body: &BodyRef) -> Option<&mbconv_ir::Pose> {
        body.name()
            .and_then(|n| self.ir.body_index(n))
            .map(|b| &self.poses[b])
    }
    fn point(&self, body: &BodyRef, p: &Vector3<f64>) -> Vector3<f64> {
        self.pose(body).map_or(*p, |pose| pose.transform_point(p))
    }
    fn rotation(&self, body: &BodyRef) -> UnitQuaternion<f64> {
        self.pose(body)
            .map_or_else(UnitQuaternion::identity, |pose| pose.rotation)
    }
    /// The distance between two body points, unless `given`.
    fn length(
        &self,
        given: Option<f64>,
        body1: &BodyRef,
        point1: &Vector3<f64>,
        body2: &BodyRef,
        point2: &Vector3<f64>,
    ) -> f64 {
        given.unwrap_or_else(|| (self.point(body2, point2) - self.point(body1, point1)).norm())
    }
}

/// Everything the compile steps share: the IR, the solver model and the reference poses.
struct Compiler<'a> {
    ir: &'a IrModel,
    model: &'a Model,
    reference: Reference<'a>,
}

impl Compiler<'_> {
    /// The frame `frame` of `body` on its link.
    fn frame(&self, body: &BodyRef, frame: &Se3, item: &str) -> Result<Attach, SolverError> {
        attach(self.ir, self.model, body, frame, item)
    }
    /// The point `p` of `body` on its link.
    fn point(&self, body: &BodyRef, p: &Vector3<f64>, item: &str) -> Result<OnLink, SolverError> {
        let frame = Se3 {
            r: Matrix3::identity(),
            p: *p,
        };
        let a = self.frame(body, &frame, item)?;
        Ok(OnLink {
            link: a.node,
            vector: a.frame.p,
        })
    }

    /// Rows of a joint left out of the spanning tree: the joint's constraint between its two
    /// frames.
    fn loop_joint(&self, joint: &Joint, rows: &mut ItemRows) -> Result<(), SolverError> {
        let item = rows.item;
        let pair = FramePair {
            p: self.frame(&joint.parent, &Se3::from_pose(&joint.parent_frame), item)?,
            c: self.frame(&joint.child, &Se3::from_pose(&joint.child_frame), item)?,
        };
        match &joint.kind {
            JointKind::Fixed | JointKind::PseudoContinuousTrack { .. } => {
                pair.all_translations(rows);
                pair.all_rotations(rows);
            }
            JointKind::Revolute { axis } => {
                pair.all_translations(rows);
                pair.align(unit(axis, item)?, rows);
            }
            JointKind::Spherical | JointKind::Euler { .. } => pair.all_translations(rows),
            JointKind::Prismatic { axis } => {
                pair.along_only(&unit(axis, item)?, rows);
                pair.all_rotations(rows);
            }
            JointKind::Cylindrical { axis } => {
                let a = unit(axis, item)?;
                pair.along_only(&a, rows);
                pair.align(a, rows);
            }
            JointKind::Universal { axis1, axis2 } => {
                pair.all_translations(rows);
                let (a1, a2) = (unit(axis1, item)?, unit(axis2, item)?);
                rows.constant(pair.dot(a1, a2), a1.dot(&a2));
            }
            JointKind::Planar { axis1, axis2 } => {
                let n = unit(&axis1.cross(axis2), item)?;
                rows.constant(pair.translation(n), 0.0);
                pair.align(n, rows);
            }
            JointKind::Translational => pair.all_rotations(rows),
            JointKind::Free => {}
            JointKind::PointLine => pair.translations(&[Vector3::y(), Vector3::z()], rows),
            JointKind::PointPlane => pair.translations(&[Vector3::z()], rows),
            JointKind::Screw { .. } => {
                return Err(SolverError::unsupported(item, "a screw joint closing a loop"));
            }
        }
        Ok(())
    }

    /// Rows of an enabled IR constraint.
    fn constraint(&self, kind: &ConstraintKind, rows: &mut ItemRows) -> Result<(), SolverError> {
        let item = rows.item;
        match kind {
            ConstraintKind::Distance {
                body1,
                point1,
                body2,
                point2,
                distance,
            } => {
                let length = self.reference.length(*distance, body1, point1, body2, point2);
                let pa = self.point(body1, point1, item)?;
                let pb = self.point(body2, point2, item)?;
                rows.constant(RowKind::Distance { pa, pb }, length);
            }
            ConstraintKind::RevoluteSpherical {
                body1,
                point1,
                axis1,
                body2,
                point2,
                distance,
            } => {
                let length = self.reference.length(*distance, body1, point1, body2, point2);
                let pa = self.point(body1, point1, item)?;
                let pb = self.point(body2, point2, item)?;
                rows.constant(RowKind::Distance { pa, pb }, length);
                if let Some(axis) = axis1 {
                    let on_body1 = self.frame(body1, &Se3::identity(), item)?;
                    let offset = RowKind::Offset {
                        a: on_body1.node,
                        d: on_body1.frame.r * unit(axis, item)?,
                        pa: pa.vector,
                        pb,
                    };
                    rows.constant(offset, 0.0);
                }
            }
            ConstraintKind::RevoluteTranslational {
                body1,
                point1,
                axis1,
                body2,
                point2,
                axis2,
                distance,
            } => {
                let (Some(z1), Some(y2)) = (axis1, axis2) else {
                    return Err(SolverError::unsupported(
                        item,
                        "a revolute-translational constraint without both axes",
                    ));
                };
                let ends = RevoluteTranslational {
                    body1,
                    point1,
                    z1,
                    body2,
                    point2,
                    y2,
                    distance: *distance,
                };
                self.revolute_translational(&ends, rows)?;
            }
            ConstraintKind::ExtraJoint {
                joint_type,
                body1,
                frame1,
                body2,
                frame2,
                axis,
            } => {
                let pair = FramePair {
                    p: self.frame(body1, &Se3::from_pose(frame1), item)?,
                    c: self.frame(body2, &Se3::from_pose(frame2), item)?,
                };
                match joint_type {
                    ExtraJointType::Ball => pair.all_translations(rows),
                    ExtraJointType::Fixed => {
                        pair.all_translations(rows);
                        pair.all_rotations(rows);
                    }
                    ExtraJointType::Hinge => {
                        pair.all_translations(rows);
                        pair.align(unit(axis, item)?, rows);
                    }
                    ExtraJointType::Piston => pair.along_only(&unit(axis, item)?, rows),
                }
            }
        }
        Ok(())
    }

    /// Chrono's four equations of a revolute-translational link: with z1 the revolute axis
    /// (body 1), y2 the sliding direction and x2 = y2 × z1 (body 2, from the reference
    /// configuration): z1·x2 = 0, z1·y2 = 0, z1·(p2 − p1) = 0, x2·(p2 − p1) = distance.
    fn revolute_translational(
        &self,
        ends: &RevoluteTranslational,
        rows: &mut ItemRows,
    ) -> Result<(), SolverError> {
        let item = rows.item;
        let (r1, r2) = (
            self.reference.rotation(ends.body1),
            self.reference.rotation(ends.body2),
        );
        let z1 = unit(ends.z1, item)?;
        let y2 = unit(ends.y2, item)?;
        let x2 = r2.inverse() * unit(&(r2 * y2).cross(&(r1 * z1)), item)?;
        let length = ends.distance.unwrap_or_else(|| {
            let p1 = self.reference.point(ends.body1, ends.point1);
            (r2 * x2).dot(&(self.reference.point(ends.body2, ends.point2) - p1))
        });
        let f1 = self.frame(ends.body1, &Se3::identity(), item)?;
        let f2 = self.frame(ends.body2, &Se3::identity(), item)?;
        let pa = self.point(ends.body1, ends.point1, item)?;
        let pb = self.point(ends.body2, ends.point2, item)?;
        let on = |f: &Attach, d: Vector3<f64>| OnLink {
            link: f.node,
            vector: f.frame.r * d,
        };
        rows.constant(
            RowKind::Dot {
                b: on(&f1, z1),
                c: on(&f2, x2),
            },
            0.0,
        );
        rows.constant(
            RowKind::Dot {
                b: on(&f1, z1),
                c: on(&f2, y2),
            },
            0.0,
        );
        rows.constant(
            RowKind::Offset {
                a: f1.node,
                d: f1.frame.r * z1,
                pa: pa.vector,
                pb,
            },
            0.0,
        );
        rows.constant(
            RowKind::Offset {
                a: f2.node,
                d: f2.frame.r * x2,
                pa: pb.vector,
                pb: pa,
            },
            -length,
        );
        Ok(())
    }

    /// Rows of a position or speed motor (force motors are force elements): the guide's
    /// constraint for a body pair, then the driven row.
    fn motor(&self, motor: &Motor, rows: &mut ItemRows) -> Result<(), SolverError> {
        let item = rows.item;
        let drive = match motor.actuation {
            MotorActuation::Force => None,
            MotorActuation::Position => Some(Target::Position(motor.function.clone())),
            MotorActuation::Speed => Some(Target::Speed(motor.function.clone())),
        };
        match &motor.target {
            MotorTarget::Joint { joint, dof } => {
                let Some(target) = drive else { return Ok(()) };
                let Some(index) = self.model.joint_coordinate(self.ir, item, joint, *dof)? else {
                    return Ok(());
                };
                if index.q.is_none() && matches!(target, Target::Position(_)) {
                    return Err(SolverError::unsupported(
                        item,
                        "a position motor on a ball-like rotation",
                    ));
                }
                let kind = RowKind::Coordinate {
                    v: index.v,
                    q: index.q,
                };
                rows.driven(kind, target);
            }
            MotorTarget::BodyPair {
                body1,
                frame1,
                body2,
                frame2,
                guide,
            } => {
                // Frame 2 plays the role of P, frame 1 of C.
                let pair = FramePair {
                    p: self.frame(body2, &Se3::from_pose(frame2), item)?,
                    c: self.frame(body1, &Se3::from_pose(frame1), item)?,
                };
                let (x, y, z) = (Vector3::x(), Vector3::y(), Vector3::z());
                match guide {
                    MotorGuide::Free => {}
                    MotorGuide::Prismatic => {
                        pair.translations(&[x, y], rows);
                        pair.all_rotations(rows);
                    }
                    MotorGuide::Spherical => pair.translations(&[x, y], rows),
                    MotorGuide::Revolute => {
                        pair.all_translations(rows);
                        pair.align(z, rows);
                    }
                    MotorGuide::Cylindrical => {
                        pair.translations(&[x, y], rows);
                        pair.align(z, rows);
                    }
                }
                if let Some(target) = drive {
                    let kind = match motor.motor_type {
                        MotorType::Linear => pair.translation(z),
                        MotorType::Rotation => RowKind::Angle {
                            f1: pair.c,
                            f2: pair.p,
                        },
                    };
                    rows.driven(kind, target);
                }
            }
        }
        Ok(())
    }
}

/// The two ends of a revolute-translational constraint that has both axes.
struct RevoluteTranslational<'a> {
    body1: &'a BodyRef,
    point1: &'a Vector3<f64>,
    /// The revolute axis on body 1.
    z1: &'a Vector3<f64>,
    body2: &'a BodyRef,
    point2: &'a Vector3<f64>,
    /// The sliding direction on body 2.
    y2: &'a Vector3<f64>,
    distance: Option<f64>,
}

impl ConstraintSet {
    /// Compiles the rows of `ir` for the solver model `model`: loop-closing joints, enabled
    /// constraints, then position and speed motors, each in IR order.
    pub(crate) fn new(ir: &IrModel, model: &Model) -> Result<Self, SolverError> {
        let compiler = Compiler {
            ir,
            model,
            reference: Reference::new(ir),
        };
        let mut rows = Vec::new();
        for (j, joint) in ir.joints.iter().enumerate() {
            if model.joints[j] == JointMap::Loop {
                let item = path::item("joints", &joint.name);
                compiler.loop_joint(
                    joint,
                    &mut ItemRows {
                        item: &item,
                        rows: &mut rows,
                    },
                )?;
            }
        }
        for c in ir.constraints.iter().filter(|c| c.enabled) {
            let item = path::item("constraints", &c.name);
            let first = rows.len();
            compiler.constraint(
                &c.kind,
                &mut ItemRows {
                    item: &item,
                    rows: &mut rows,
                },
            )?;
            if holds_initial_value(&c.kind) {
                for row in &mut rows[first..] {
                    row.holds_initial_value = true;
                }
            }
        }
        for motor in &ir.motors {
            let item = path::item("motors", &motor.name);
            compiler.motor(
                motor,
                &mut ItemRows {
                    item: &item,
                    rows: &mut rows,
                },
            )?;
        }
        Ok(Self { rows })
    }

    /// True when some row holds its initial value ([`Row::holds_initial_value`]).
    pub(crate) fn holds_initial_values(&self) -> bool {
        self.rows.iter().any(|r| r.holds_initial_value)
    }

    /// Sets the rows that hold their initial values ([`Row::holds_initial_value`]) to their
    /// values at the poses `world` and coordinates `q` of the initial configuration.
    pub(crate) fn hold_initial_values(&mut self, world: &[Se3], q: &[f64]) {
        for row in self.rows.iter_mut().filter(|r| r.holds_initial_value) {
            if matches!(row.target, Target::Constant(_)) {
                row.target = Target::Constant(row.value(world, q));
            }
        }
    }

    /// Number of rows.
    pub(crate) fn row_count(&self) -> usize {
        self.rows.len()
    }
    /// True without rows.
    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

fn wrap(angle: f64) -> f64 {
    let two_pi = 2.0 * std::f64::consts::PI;
    angle - two_pi * (angle / two_pi).round()
}

fn second_derivative(f: &TimeFunction, t: f64) -> f64 {
    let h = 1e-5;
    (f.derivative(t + h) - f.derivative(t - h)) / (2.0 * h)
}

impl Row {
    /// The two links this row relates (`None` for the world, and for a row on one joint
    /// coordinate): the row couples their motion.
    pub(crate) fn coupled_links(&self) -> [Option<usize>; 2] {
        match &self.kind {
            RowKind::Dot { b, c } => [b.link, c.link],
            RowKind::Offset { a, pb, .. } => [*a, pb.link],
            RowKind::Distance { pa, pb } => [pa.link, pb.link],
            RowKind::Angle { f1, f2 } => [f1.node, f2.node],
            RowKind::Coordinate { .. } => [None, None],
        }
    }

    pub(crate) fn holonomic(&self) -> bool {
        !matches!(self.target, Target::Speed(_))
    }

    fn value(&self, world: &[Se3], q: &[f64]) -> f64 {
        match &self.kind {
            RowKind::Dot { b, c } => b.direction_in_world(world).dot(&c.direction_in_world(world)),
            RowKind::Offset { a, d, pa, pb } => {
                let x = world_of(world, *a);
                (x.r * d).dot(&(pb.point_in_world(world) - x.point(pa)))
            }
            RowKind::Distance { pa, pb } => (pb.point_in_world(world) - pa.point_in_world(world)).norm(),
            RowKind::Angle { f1, f2 } => {
                let a = world_of(world, f1.node).compose(&f1.frame);
                let b = world_of(world, f2.node).compose(&f2.frame);
                let x1 = b.r.transpose() * a.r.column(0);
                x1.y.atan2(x1.x)
            }
            RowKind::Coordinate { q: Some(qi), .. } => q[*qi],
            RowKind::Coordinate { q: None, .. } => 0.0,
        }
    }

    /// `φ(q, t)` for holonomic rows.
    pub(crate) fn residual(&self, world: &[Se3], q: &[f64], t: f64) -> f64 {
        let value = self.value(world, q);
        match &self.target {
            Target::Constant(c) => value - c,
            Target::Position(f) => match self.kind {
                RowKind::Angle { .. } => wrap(value - f.value(t)),
                _ => value - f.value(t),
            },
            Target::Speed(_) => 0.0,
        }
    }

    /// Velocity the row's `J v` must equal.
    pub(crate) fn velocity_target(&self, t: f64) -> f64 {
        match &self.target {
            Target::Constant(_) => 0.0,
            Target::Position(f) => f.derivative(t),
            Target::Speed(f) => f.value(t),
        }
    }

    pub(crate) fn acceleration_target(&self, t: f64) -> f64 {
        match &self.target {
            Target::Constant(_) => 0.0,
            Target::Position(f) => second_derivative(f, t),
            Target::Speed(f) => f.derivative(t),
        }
    }

    /// Writes the Jacobian row into `out` (length nv), using world columns `s_world`.
    pub(crate) fn jacobian(&self, model: &Model, world: &[Se3], s_world: &[Spatial], out: &mut [f64]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        let mut end = |node: Option<usize>, alpha: Vector3<f64>, beta: Vector3<f64>, point: Vector3<f64>| {
            let alpha = alpha + point.cross(&beta);
            let mut k = node;
            while let Some(i) = k {
                let n = &model.nodes[i];
                for c in n.v_index..n.v_index + n.joint.nv() {
                    out[c] += alpha.dot(&s_world[c].ang) + beta.dot(&s_world[c].lin);
                }
                k = n.parent;
            }
        };
        let zero = Vector3::zeros();
        match &self.kind {
            RowKind::Dot { b, c } => {
                let bw = b.direction_in_world(world);
                let cw = c.direction_in_world(world);
                end(b.link, bw.cross(&cw), zero, zero);
                end(c.link, cw.cross(&bw), zero, zero);
            }
            RowKind::Offset { a, d, pa, pb } => {
                let x = world_of(world, *a);
                let dw = x.r * d;
                let paw = x.point(pa);
                let pbw = pb.point_in_world(world);
                end(pb.link, zero, dw, pbw);
                end(*a, dw.cross(&(pbw - paw)), -dw, paw);
            }
            RowKind::Distance { pa, pb } => {
                let paw = pa.point_in_world(world);
                let pbw = pb.point_in_world(world);
                let d = pbw - paw;
                let n = d.norm();
                let u = if n > 0.0 { d / n } else { zero };
                end(pb.link, zero, u, pbw);
                end(pa.link, zero, -u, paw);
            }
            RowKind::Angle { f1, f2 } => {
                let z = (world_of(world, f2.node).r * f2.frame.r).column(2).into_owned();
                end(f1.node, z, zero, zero);
                end(f2.node, -z, zero, zero);
            }
            RowKind::Coordinate { v, .. } => out[*v] = 1.0,
        }
    }
}

pub(crate) fn world_columns(
    model: &Model,
    world: &[Se3],
    joint: &[crate::joint::JointState],
    s_world: &mut [Spatial],
) {
    for (i, n) in model.nodes.iter().enumerate() {
        for k in 0..n.joint.nv() {
            s_world[n.v_index + k] = world[i].act_motion(&joint[i].s[k]);
        }
    }
}

pub(crate) fn fill_jacobian(
    model: &Model,
    world: &[Se3],
    s_world: &[Spatial],
    col: &mut [f64],
    jac: &mut DMatrix<f64>,
) {
    for (r, row) in model.constraints.rows.iter().enumerate() {
        row.jacobian(model, world, s_world, col);
        for (c, x) in col.iter().enumerate() {
            jac[(r, c)] = *x;
        }
    }
}
