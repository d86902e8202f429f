//! Constraint rows: loop-closing joints, IR constraints and position/speed motors (the solve,
//! projection and assembly are in `crate::projection`).
//!
//! Every row is a scalar function `φ(q, t)` (or, for a speed motor, a velocity target) whose
//! Jacobian is built from world-frame quantities: a row is a sum of "ends", each a weight
//! `(α, β)` on the angular velocity of a link and the velocity of a world point moving with it.

// Numeric kernels index several arrays with the same coordinate index.
#![allow(clippy::needless_range_loop)]

use crate::error::SolverError;
use crate::forces::attach;
use crate::model::{JointMap, Model};
use crate::spatial::{Se3, Spatial};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::{
    ConstraintKind, ExtraJointType, JointKind, Model as IrModel, MotorActuation, MotorGuide, MotorTarget,
    MotorType, TimeFunction,
};
use nalgebra::{DMatrix, Vector3};

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

/// A direction or point on a link: link index and link-frame vector.
type OnLink = (Option<usize>, Vector3<f64>);

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
    Angle {
        f1: (Option<usize>, Se3),
        f2: (Option<usize>, Se3),
    },
    /// A joint coordinate.
    Coordinate { v: usize, q: Option<usize> },
}

#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub item: String,
    pub kind: RowKind,
    pub target: Target,
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

/// Rows that make frame C (on link `c`, pose `fc` in link) follow frame P: translations along
/// the P-frame `directions`, and the given rotational `dots` (pairs of directions in P and C
/// frames with their value at the joint's zero).
struct FramePair {
    p: (Option<usize>, Se3),
    c: (Option<usize>, Se3),
}

impl FramePair {
    fn translation(&self, d: Vector3<f64>) -> RowKind {
        RowKind::Offset {
            a: self.p.0,
            d: self.p.1.r * d,
            pa: self.p.1.p,
            pb: (self.c.0, self.c.1.p),
        }
    }
    fn dot(&self, b: Vector3<f64>, c: Vector3<f64>) -> RowKind {
        RowKind::Dot {
            b: (self.p.0, self.p.1.r * b),
            c: (self.c.0, self.c.1.r * c),
        }
    }
    fn all_translations(&self, rows: &mut Vec<(RowKind, f64)>) {
        for d in [Vector3::x(), Vector3::y(), Vector3::z()] {
            rows.push((self.translation(d), 0.0));
        }
    }
    fn all_rotations(&self, rows: &mut Vec<(RowKind, f64)>) {
        let (x, y, z) = (Vector3::x(), Vector3::y(), Vector3::z());
        rows.push((self.dot(x, y), 0.0));
        rows.push((self.dot(y, z), 0.0));
        rows.push((self.dot(z, x), 0.0));
    }
    fn align(&self, a: Vector3<f64>, rows: &mut Vec<(RowKind, f64)>) {
        let (b1, b2) = perpendiculars(&a);
        rows.push((self.dot(b1, a), 0.0));
        rows.push((self.dot(b2, a), 0.0));
    }
}

fn unit(v: &Vector3<f64>, item: &str) -> Result<Vector3<f64>, SolverError> {
    let n = v.norm();
    if n > 0.0 && n.is_finite() {
        Ok(v / n)
    } else {
        Err(SolverError::invalid(item, "zero or non-finite axis"))
    }
}

impl ConstraintSet {
    /// Compiles the rows of `ir` for the solver model `model`.
    pub(crate) fn new(ir: &IrModel, model: &Model) -> Result<Self, SolverError> {
        let mut rows = Vec::new();
        let push = |rows: &mut Vec<Row>, item: &str, list: Vec<(RowKind, f64)>| {
            for (kind, value) in list {
                rows.push(Row {
                    item: item.to_string(),
                    kind,
                    target: Target::Constant(value),
                });
            }
        };
        for (j, joint) in ir.joints.iter().enumerate() {
            if model.joints[j] != JointMap::Loop {
                continue;
            }
            let item = format!("joints[{}]", joint.name);
            let pair = FramePair {
                p: {
                    let a = attach(
                        ir,
                        model,
                        &joint.parent,
                        &Se3::from_pose(&joint.parent_frame),
                        &item,
                    )?;
                    (a.node, a.frame)
                },
                c: {
                    let a = attach(
                        ir,
                        model,
                        &joint.child,
                        &Se3::from_pose(&joint.child_frame),
                        &item,
                    )?;
                    (a.node, a.frame)
                },
            };
            let mut list = Vec::new();
            match &joint.kind {
                JointKind::Fixed | JointKind::PseudoContinuousTrack { .. } => {
                    pair.all_translations(&mut list);
                    pair.all_rotations(&mut list);
                }
                JointKind::Revolute { axis } => {
                    pair.all_translations(&mut list);
                    pair.align(unit(axis, &item)?, &mut list);
                }
                JointKind::Spherical | JointKind::Euler { .. } => pair.all_translations(&mut list),
                JointKind::Prismatic { axis } => {
                    let (b1, b2) = perpendiculars(&unit(axis, &item)?);
                    list.push((pair.translation(b1), 0.0));
                    list.push((pair.translation(b2), 0.0));
                    pair.all_rotations(&mut list);
                }
                JointKind::Cylindrical { axis } => {
                    let a = unit(axis, &item)?;
                    let (b1, b2) = perpendiculars(&a);
                    list.push((pair.translation(b1), 0.0));
                    list.push((pair.translation(b2), 0.0));
                    pair.align(a, &mut list);
                }
                JointKind::Universal { axis1, axis2 } => {
                    pair.all_translations(&mut list);
                    let (a1, a2) = (unit(axis1, &item)?, unit(axis2, &item)?);
                    list.push((pair.dot(a1, a2), a1.dot(&a2)));
                }
                JointKind::Planar { axis1, axis2 } => {
                    let n = unit(&axis1.cross(axis2), &item)?;
                    list.push((pair.translation(n), 0.0));
                    pair.align(n, &mut list);
                }
                JointKind::Translational => pair.all_rotations(&mut list),
                JointKind::Free => {}
                JointKind::PointLine => {
                    list.push((pair.translation(Vector3::y()), 0.0));
                    list.push((pair.translation(Vector3::z()), 0.0));
                }
                JointKind::PointPlane => list.push((pair.translation(Vector3::z()), 0.0)),
                JointKind::Screw { .. } => {
                    return Err(SolverError::unsupported(item, "a screw joint closing a loop"));
                }
            }
            push(&mut rows, &item, list);
        }
        let tree = SpanningTree::new(ir);
        let reference = world_poses(ir, &tree, Configuration::Reference);
        let reference_point =
            |body: &mbconv_ir::BodyRef, p: &Vector3<f64>| match body.name().and_then(|n| ir.body_index(n)) {
                Some(b) => reference[b].transform_point(p),
                None => *p,
            };
        for c in ir.constraints.iter().filter(|c| c.enabled) {
            let item = format!("constraints[{}]", c.name);
            let on = |body: &mbconv_ir::BodyRef, frame: Se3| -> Result<(Option<usize>, Se3), SolverError> {
                let a = attach(ir, model, body, &frame, &item)?;
                Ok((a.node, a.frame))
            };
            let point = |body: &mbconv_ir::BodyRef, p: &Vector3<f64>| -> Result<OnLink, SolverError> {
                let (n, f) = on(
                    body,
                    Se3 {
                        r: nalgebra::Matrix3::identity(),
                        p: *p,
                    },
                )?;
                Ok((n, f.p))
            };
            let mut list = Vec::new();
            match &c.kind {
                ConstraintKind::Distance {
                    body1,
                    point1,
                    body2,
                    point2,
                    distance,
                } => {
                    let length = distance.unwrap_or_else(|| {
                        (reference_point(body2, point2) - reference_point(body1, point1)).norm()
                    });
                    list.push((
                        RowKind::Distance {
                            pa: point(body1, point1)?,
                            pb: point(body2, point2)?,
                        },
                        length,
                    ));
                }
                ConstraintKind::RevoluteSpherical {
                    body1,
                    point1,
                    axis1,
                    body2,
                    point2,
                    distance,
                } => {
                    let length = distance.unwrap_or_else(|| {
                        (reference_point(body2, point2) - reference_point(body1, point1)).norm()
                    });
                    let pa = point(body1, point1)?;
                    let pb = point(body2, point2)?;
                    list.push((RowKind::Distance { pa, pb }, length));
                    if let Some(axis) = axis1 {
                        let (n, f) = on(body1, Se3::identity())?;
                        let d = f.r * unit(axis, &item)?;
                        list.push((
                            RowKind::Offset {
                                a: n,
                                d,
                                pa: pa.1,
                                pb,
                            },
                            0.0,
                        ));
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
                    // Chrono's four equations: with z1 the revolute axis (body 1), y2 the sliding
                    // direction and x2 = y2 × z1 (body 2, from the reference configuration):
                    // z1·x2 = 0, z1·y2 = 0, z1·(p2 − p1) = 0, x2·(p2 − p1) = distance.
                    let (Some(z1), Some(y2)) = (axis1, axis2) else {
                        return Err(SolverError::unsupported(
                            item,
                            "a revolute-translational constraint without both axes",
                        ));
                    };
                    let rotation =
                        |body: &mbconv_ir::BodyRef| match body.name().and_then(|n| ir.body_index(n)) {
                            Some(b) => reference[b].rotation,
                            None => nalgebra::UnitQuaternion::identity(),
                        };
                    let (r1, r2) = (rotation(body1), rotation(body2));
                    let z1 = unit(z1, &item)?;
                    let y2 = unit(y2, &item)?;
                    let x2 = r2.inverse() * unit(&(r2 * y2).cross(&(r1 * z1)), &item)?;
                    let length = distance.unwrap_or_else(|| {
                        (r2 * x2).dot(&(reference_point(body2, point2) - reference_point(body1, point1)))
                    });
                    let (n1, f1) = on(body1, Se3::identity())?;
                    let (n2, f2) = on(body2, Se3::identity())?;
                    let pa = point(body1, point1)?;
                    let pb = point(body2, point2)?;
                    list.push((
                        RowKind::Dot {
                            b: (n1, f1.r * z1),
                            c: (n2, f2.r * x2),
                        },
                        0.0,
                    ));
                    list.push((
                        RowKind::Dot {
                            b: (n1, f1.r * z1),
                            c: (n2, f2.r * y2),
                        },
                        0.0,
                    ));
                    list.push((
                        RowKind::Offset {
                            a: n1,
                            d: f1.r * z1,
                            pa: pa.1,
                            pb,
                        },
                        0.0,
                    ));
                    list.push((
                        RowKind::Offset {
                            a: n2,
                            d: f2.r * x2,
                            pa: pb.1,
                            pb: pa,
                        },
                        -length,
                    ));
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
                        p: on(body1, Se3::from_pose(frame1))?,
                        c: on(body2, Se3::from_pose(frame2))?,
                    };
                    match joint_type {
                        ExtraJointType::Ball => pair.all_translations(&mut list),
                        ExtraJointType::Fixed => {
                            pair.all_translations(&mut list);
                            pair.all_rotations(&mut list);
                        }
                        ExtraJointType::Hinge => {
                            pair.all_translations(&mut list);
                            pair.align(unit(axis, &item)?, &mut list);
                        }
                        ExtraJointType::Piston => {
                            let (b1, b2) = perpendiculars(&unit(axis, &item)?);
                            list.push((pair.translation(b1), 0.0));
                            list.push((pair.translation(b2), 0.0));
                        }
                    }
                }
            }
            push(&mut rows, &item, list);
        }
        for motor in &ir.motors {
            let drive = match motor.actuation {
                MotorActuation::Force => None,
                MotorActuation::Position => Some(Target::Position(motor.function.clone())),
                MotorActuation::Speed => Some(Target::Speed(motor.function.clone())),
            };
            let item = format!("motors[{}]", motor.name);
            match &motor.target {
                MotorTarget::Joint { joint, dof } => {
                    let Some(target) = drive else { continue };
                    let index = model.joint_coordinate(ir, &item, joint, *dof)?;
                    if index.q.is_none() && matches!(target, Target::Position(_)) {
                        return Err(SolverError::unsupported(
                            &item,
                            "a position motor on a ball-like rotation",
                        ));
                    }
                    rows.push(Row {
                        item,
                        kind: RowKind::Coordinate {
                            v: index.v,
                            q: index.q,
                        },
                        target,
                    });
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
                        p: on_body(ir, model, body2, frame2, &item)?,
                        c: on_body(ir, model, body1, frame1, &item)?,
                    };
                    let mut list = Vec::new();
                    let z = Vector3::z();
                    match guide {
                        MotorGuide::Free => {}
                        MotorGuide::Prismatic => {
                            list.push((pair.translation(Vector3::x()), 0.0));
                            list.push((pair.translation(Vector3::y()), 0.0));
                            pair.all_rotations(&mut list);
                        }
                        MotorGuide::Spherical => {
                            list.push((pair.translation(Vector3::x()), 0.0));
                            list.push((pair.translation(Vector3::y()), 0.0));
                        }
                        MotorGuide::Revolute => {
                            pair.all_translations(&mut list);
                            pair.align(z, &mut list);
                        }
                        MotorGuide::Cylindrical => {
                            list.push((pair.translation(Vector3::x()), 0.0));
                            list.push((pair.translation(Vector3::y()), 0.0));
                            pair.align(z, &mut list);
                        }
                    }
                    push(&mut rows, &item, list);
                    if let Some(target) = drive {
                        let kind = match motor.motor_type {
                            MotorType::Linear => pair.translation(z),
                            MotorType::Rotation => RowKind::Angle {
                                f1: pair.c,
                                f2: pair.p,
                            },
                        };
                        rows.push(Row { item, kind, target });
                    }
                }
            }
        }
        Ok(Self { rows })
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

fn on_body(
    ir: &IrModel,
    model: &Model,
    body: &mbconv_ir::BodyRef,
    frame: &mbconv_ir::Pose,
    item: &str,
) -> Result<(Option<usize>, Se3), SolverError> {
    let a = attach(ir, model, body, &Se3::from_pose(frame), item)?;
    Ok((a.node, a.frame))
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
    pub(crate) fn holonomic(&self) -> bool {
        !matches!(self.target, Target::Speed(_))
    }

    fn value(&self, world: &[Se3], q: &[f64]) -> f64 {
        match &self.kind {
            RowKind::Dot { b, c } => (world_of(world, b.0).r * b.1).dot(&(world_of(world, c.0).r * c.1)),
            RowKind::Offset { a, d, pa, pb } => {
                let x = world_of(world, *a);
                (x.r * d).dot(&(world_of(world, pb.0).point(&pb.1) - x.point(pa)))
            }
            RowKind::Distance { pa, pb } => {
                (world_of(world, pb.0).point(&pb.1) - world_of(world, pa.0).point(&pa.1)).norm()
            }
            RowKind::Angle { f1, f2 } => {
                let a = world_of(world, f1.0).compose(&f1.1);
                let b = world_of(world, f2.0).compose(&f2.1);
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
                let bw = world_of(world, b.0).r * b.1;
                let cw = world_of(world, c.0).r * c.1;
                end(b.0, bw.cross(&cw), zero, zero);
                end(c.0, cw.cross(&bw), zero, zero);
            }
            RowKind::Offset { a, d, pa, pb } => {
                let x = world_of(world, *a);
                let dw = x.r * d;
                let paw = x.point(pa);
                let pbw = world_of(world, pb.0).point(&pb.1);
                end(pb.0, zero, dw, pbw);
                end(*a, dw.cross(&(pbw - paw)), -dw, paw);
            }
            RowKind::Distance { pa, pb } => {
                let paw = world_of(world, pa.0).point(&pa.1);
                let pbw = world_of(world, pb.0).point(&pb.1);
                let d = pbw - paw;
                let n = d.norm();
                let u = if n > 0.0 { d / n } else { zero };
                end(pb.0, zero, u, pbw);
                end(pa.0, zero, -u, paw);
            }
            RowKind::Angle { f1, f2 } => {
                let z = (world_of(world, f2.0).r * f2.1.r).column(2).into_owned();
                end(f1.0, z, zero, zero);
                end(f2.0, -z, zero, zero);
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
