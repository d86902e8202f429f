//! Joints: each joint prim (`PhysicsFixedJoint`, `PhysicsRevoluteJoint`,
//! `PhysicsPrismaticJoint`, `PhysicsSphericalJoint`, and the generic `PhysicsJoint` whose
//! `PhysicsLimitAPI` instances lock or free each degree of freedom) between `body0` (the
//! parent; none: the world) and `body1`, its frames `localPos`/`localRot` in each body's
//! space. Angular limits are in degrees; a drive whose law is a spring and damper towards a
//! fixed target becomes the joint's spring and damping.

use super::mass::unit;
use super::xform::Xf;
use super::{Importer, exact, exact_quat, exact3, flag, string};
use crate::raw::{RawPrim, number};
use crate::spec::{
    DEGREES_PER_RADIAN, GENERIC_DOFS, api, attr, axis_vector, drive_attr, drive_instance, limit_attr, prim,
};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::path;
use mbconv_ir::{
    BodyRef, Category, Constraint, ConstraintKind, DofProperties, Joint, JointKind, Limits, Pose,
    Value as IrValue,
};
use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3};

/// The joint prim types.
const JOINT_TYPES: [&str; 6] = [
    prim::FIXED,
    prim::REVOLUTE,
    prim::PRISMATIC,
    prim::SPHERICAL,
    prim::DISTANCE,
    prim::JOINT,
];

impl Importer<'_> {
    /// Every joint prim, in traversal order.
    pub(super) fn joints(&mut self) -> SourceResult<()> {
        let stage = self.stage;
        for p in stage
            .prims
            .iter()
            .filter(|p| JOINT_TYPES.contains(&p.type_name.as_str()))
        {
            // The welds of this writer's world anchors (the anchors are the world).
            if flag(p, attr::MBCONV_WORLD) == Some(true) {
                continue;
            }
            if p.type_name == prim::DISTANCE {
                self.distance(p)?;
                continue;
            }
            self.joint(p)?;
        }
        Ok(())
    }

    fn joint(&mut self, p: &RawPrim) -> SourceResult<()> {
        let wanted = string(p, attr::MBCONV_NAME).unwrap_or_else(|| p.name.clone());
        let qualifier = p
            .parent
            .map_or_else(String::new, |q| self.stage.prims[q].name.clone());
        let name = self.session.unique_name("joints", &wanted, &qualifier);
        let at = path::item("joints", &name);
        if let Some(span) = crate::raw::prim_span(self.source, &p.path) {
            self.session.record(at.clone(), span);
        }
        let (parent, parent_frame) = self.side(p, &at, attr::BODY0, attr::LOCAL_POS0, attr::LOCAL_ROT0)?;
        let (child, child_frame) = self.side(p, &at, attr::BODY1, attr::LOCAL_POS1, attr::LOCAL_ROT1)?;
        if parent == child {
            return Err(self.error("joint_bodies", &p.path, "body0 and body1 are the same body"));
        }
        let angular_dof = |kind: &JointKind, i: usize| kind.is_angular(i);
        let (kind, limits, turn) = match p.type_name.as_str() {
            prim::FIXED => (JointKind::Fixed, vec![], None),
            prim::REVOLUTE | prim::PRISMATIC => {
                let axis = self.axis(p)?;
                let angular = p.type_name == prim::REVOLUTE;
                let kind = if angular {
                    JointKind::Revolute { axis }
                } else {
                    JointKind::Prismatic { axis }
                };
                let limits = self.limits(p, attr::LOWER_LIMIT, attr::UPPER_LIMIT, angular);
                (kind, vec![limits], None)
            }
            prim::SPHERICAL => {
                self.cone(p, &at);
                (JointKind::Spherical, vec![], None)
            }
            _ => self.generic(p)?,
        };
        let mut joint = Joint::new(name, kind, parent, child);
        // Both frames turned alike, so that the IR kind's axes are the joint's free ones.
        let turn = Pose::new(
            Vector3::zeros(),
            turn.unwrap_or_else(nalgebra::UnitQuaternion::identity),
        );
        joint.parent_frame = parent_frame * turn;
        joint.child_frame = child_frame * turn;
        if flag(p, attr::JOINT_ENABLED) == Some(false) {
            joint.enabled = false;
        }
        if limits.iter().any(|l: &Limits| !l.is_unlimited()) {
            joint.dofs = limits
                .into_iter()
                .map(|position_limits| DofProperties {
                    position_limits,
                    ..DofProperties::default()
                })
                .collect();
        }
        if matches!(
            joint.kind,
            JointKind::Revolute { .. } | JointKind::Prismatic { .. }
        ) {
            let angular = angular_dof(&joint.kind, 0);
            self.drive(p, &at, &mut joint, angular);
            self.dynamics(p, &at, &mut joint, angular);
        }
        self.model.joints.push(joint);
        self.paths.joints.push(p.path.clone());
        Ok(())
    }

    /// One side of a joint: its body (the nearest rigid body at or above the target; none, or
    /// a target not on the stage: the world) and the joint frame in that body's frame. Where no
    /// rigid body holds the target, OpenUSD names the topmost static collider above it (a prim
    /// with `PhysicsCollisionAPI`) with the pose in that collider's frame, and Newton builds such
    /// a joint to the world; here it is the world, at the same place.
    fn side(
        &mut self,
        p: &RawPrim,
        at: &str,
        rel: &str,
        pos: &str,
        rot: &str,
    ) -> SourceResult<(BodyRef, Pose)> {
        let l = self.length;
        let position = exact3(p, pos).map_or_else(Vector3::zeros, |(v, si)| {
            Vector3::from(v) * if si { 1.0 } else { l }
        });
        let rotation = match exact_quat(p, rot) {
            None => nalgebra::UnitQuaternion::identity(),
            Some((q, _)) => unit(q).ok_or_else(|| {
                self.error(
                    "joint_frame",
                    &p.path,
                    format!("{rot} is {q:?}, a zero quaternion, which is no rotation"),
                )
            })?,
        };
        let local = Pose::new(position, rotation);
        let Some(target) = p.target(rel) else {
            return Ok((BodyRef::World, local));
        };
        let Some(t) = self.stage.index_of(target) else {
            // OpenUSD's parse (LoadUsdPhysicsFromRange) and Newton take such a side as the world,
            // the local pose as a world pose.
            self.note(
                "joint_target",
                Category::Ignored,
                at,
                &p.path,
                format!(
                    "{rel} names {target}, which is not on the stage (or not active): read as the world, as OpenUSD's UsdPhysics parse and Newton read it, {pos}/{rot} as a pose in the world"
                ),
            );
            return Ok((BodyRef::World, local));
        };
        // Positions are in the target's space, scale included; rotations are its axes.
        let target_xf = self.world[t];
        let local_in_target = Pose::new(
            position.component_mul(&if rel_is_exact(p, pos) {
                Vector3::repeat(1.0)
            } else {
                target_xf.scale
            }),
            rotation,
        );
        let Some(owner) = self.owner(t) else {
            let world = Pose::new(target_xf.pose.translation * l, target_xf.pose.rotation) * local_in_target;
            return Ok((BodyRef::World, world));
        };
        let body = self.bodies[&owner];
        let frame = if owner == t {
            local_in_target
        } else {
            let rel_xf = Xf::relative(&self.world[owner].pose, &target_xf);
            Pose::new(rel_xf.pose.translation * l, rel_xf.pose.rotation) * local_in_target
        };
        Ok((BodyRef::body(self.model.bodies[body].name.clone()), frame))
    }

    /// A `PhysicsDistanceJoint`: the distance between `localPos0` on `body0` and `localPos1` on
    /// `body1` kept between `minDistance` and `maxDistance` (negative: no bound). Equal bounds
    /// are the IR's distance constraint; a range (a rope, a stop) is no constraint the IR
    /// holds: kept in the model's extras and reported.
    fn distance(&mut self, p: &RawPrim) -> SourceResult<()> {
        let bound = |name: &str| exact(p, name).map(|(v, si)| (if si { v } else { v * self.length }, v));
        let min = bound(attr::MIN_DISTANCE).filter(|(_, v)| *v >= 0.0);
        let max = bound(attr::MAX_DISTANCE).filter(|(_, v)| *v >= 0.0);
        for (name, b) in [(attr::MIN_DISTANCE, min), (attr::MAX_DISTANCE, max)] {
            if let Some((_, v)) = b
                && !v.is_finite()
            {
                return Err(self.error(
                    "distance_joint",
                    &p.path,
                    format!("{name} is {v}; a distance is finite"),
                ));
            }
        }
        if let (Some((lo, _)), Some((hi, _))) = (min, max)
            && lo > hi
        {
            return Err(self.error(
                "distance_joint",
                &p.path,
                format!("physics:minDistance {lo} m is more than physics:maxDistance {hi} m"),
            ));
        }
        let wanted = string(p, attr::MBCONV_NAME).unwrap_or_else(|| p.name.clone());
        let name = self.session.unique_name("constraints", &wanted, "");
        let at = path::item("constraints", &name);
        let (body1, frame1) = self.side(p, &at, attr::BODY0, attr::LOCAL_POS0, attr::LOCAL_ROT0)?;
        let (body2, frame2) = self.side(p, &at, attr::BODY1, attr::LOCAL_POS1, attr::LOCAL_ROT1)?;
        match (min, max) {
            (Some((lo, _)), Some((hi, _))) if lo == hi => {
                if let Some(span) = crate::raw::prim_span(self.source, &p.path) {
                    self.session.record(at, span);
                }
                let constraint = Constraint {
                    name,
                    kind: ConstraintKind::Distance {
                        body1,
                        point1: frame1.translation,
                        body2,
                        point2: frame2.translation,
                        distance: Some(lo),
                    },
                    enabled: flag(p, attr::JOINT_ENABLED) != Some(false),
                    extras: Default::default(),
                };
                self.model.constraints.push(constraint);
            }
            (None, None) => self.note(
                "distance_joint",
                Category::Note,
                "",
                &p.path,
                "a PhysicsDistanceJoint with no bounds constrains nothing: not read",
            ),
            _ => {
                let range = format!(
                    "{} {} {}",
                    name,
                    min.map_or(-1.0, |b| b.0),
                    max.map_or(-1.0, |b| b.0)
                );
                let kept = match self.model.extras.get("usd.distance_joints") {
                    Some(IrValue::String(s)) => format!("{s}; {range}"),
                    _ => range,
                };
                self.model
                    .extras
                    .insert("usd.distance_joints", IrValue::String(kept));
                self.note(
                    "distance_joint",
                    Category::Ignored,
                    "",
                    &p.path,
                    format!(
                        "a distance kept between {:?} m and {:?} m (a rope or a stop) is no constraint the IR holds: kept in extras[\"usd.distance_joints\"], not simulated",
                        min.map(|b| b.0),
                        max.map(|b| b.0)
                    ),
                );
            }
        }
        Ok(())
    }

    /// `physics:axis` (X when unauthored).
    fn axis(&self, p: &RawPrim) -> SourceResult<Vector3<f64>> {
        let token = string(p, attr::AXIS).unwrap_or_else(|| "X".to_owned());
        axis_vector(&token).ok_or_else(|| {
            self.error(
                "axis",
                &p.path,
                format!("physics:axis is {token:?}; UsdPhysics allows \"X\", \"Y\" or \"Z\""),
            )
        })
    }

    /// Lower and upper limits (degrees for an angular one, stage units for a linear one;
    /// infinite or unauthored: no bound).
    fn limits(&self, p: &RawPrim, lower: &str, upper: &str, angular: bool) -> Limits {
        let read = |name: &str| {
            exact(p, name)
                .filter(|(v, _)| v.is_finite())
                .map(|(v, si)| match (si, angular) {
                    (true, _) => v,
                    (false, true) => v / DEGREES_PER_RADIAN,
                    (false, false) => v * self.length,
                })
        };
        Limits {
            lower: read(lower),
            upper: read(upper),
        }
    }

    /// A spherical joint's cone limits, which the IR cannot hold: kept and reported.
    fn cone(&mut self, p: &RawPrim, at: &str) {
        let cone: Vec<f64> = [attr::CONE0, attr::CONE1]
            .iter()
            .filter_map(|n| p.attribute(n).and_then(number))
            .collect();
        if cone.iter().any(|a| *a >= 0.0) {
            self.note(
                "cone_limit",
                Category::Ignored,
                at,
                &p.path,
                format!("the cone limit {cone:?}° is not carried (the IR has no cone limits)"),
            );
        }
    }

    /// A generic `PhysicsJoint`: each degree of freedom is locked (`PhysicsLimitAPI` with
    /// low > high), limited (low ≤ high) or free (no limit), and the free and limited ones
    /// decide the joint type. Point-on-line and point-on-plane joints have their line along the
    /// frame's X and their plane's normal along its Z in the IR: for another free axis the
    /// rotation both joint frames turn by is returned with the kind (axes permuted cyclically).
    fn generic(
        &mut self,
        p: &RawPrim,
    ) -> SourceResult<(JointKind, Vec<Limits>, Option<UnitQuaternion<f64>>)> {
        let mut free = Vec::new();
        for (k, dof) in GENERIC_DOFS.iter().enumerate() {
            if !p
                .api_schemas
                .iter()
                .any(|a| *a == format!("{}:{dof}", api::LIMIT))
            {
                free.push((k, Limits::default()));
                continue;
            }
            let limits = self.limits(p, &limit_attr(dof, "low"), &limit_attr(dof, "high"), k >= 3);
            match (limits.lower, limits.upper) {
                (Some(lo), Some(hi)) if lo > hi => {}
                _ => free.push((k, limits)),
            }
        }
        let unit = |k: usize| [Vector3::x(), Vector3::y(), Vector3::z()][k % 3];
        let trans: Vec<usize> = free.iter().map(|f| f.0).filter(|k| *k < 3).collect();
        let rots: Vec<usize> = free.iter().map(|f| f.0).filter(|k| *k >= 3).collect();
        let limits: Vec<Limits> = free.iter().map(|f| f.1).collect();
        let kind = match (trans.as_slice(), rots.as_slice()) {
            ([], []) => JointKind::Fixed,
            ([], [r]) => JointKind::Revolute { axis: unit(*r) },
            ([t], []) => JointKind::Prismatic { axis: unit(*t) },
            ([t], [r]) if t + 3 == *r => JointKind::Cylindrical { axis: unit(*t) },
            ([], [a, b]) => JointKind::Universal {
                axis1: unit(*a),
                axis2: unit(*b),
            },
            ([], [_, _, _]) => JointKind::Spherical,
            ([_, _, _], []) => JointKind::Translational,
            ([a, b], [r]) if *r - 3 != *a && *r - 3 != *b => JointKind::Planar {
                axis1: unit(*a),
                axis2: unit(*b),
            },
            ([_, _, _], [_, _, _]) => JointKind::Free,
            ([_], [_, _, _]) => JointKind::PointLine,
            ([_, _], [_, _, _]) => JointKind::PointPlane,
            _ => {
                return Err(self.error(
                    "generic_joint",
                    &p.path,
                    format!("a PhysicsJoint with free translations {trans:?} and rotations {:?} is no joint type mbconv knows", rots.iter().map(|r| r - 3).collect::<Vec<_>>()),
                ));
            }
        };
        // The frame's X along the free line, or its Z along the locked translation.
        let first = match (&kind, trans.as_slice()) {
            (JointKind::PointLine, [t]) => *t,
            (JointKind::PointPlane, [a, b]) => (3 - a - b + 1) % 3,
            _ => 0,
        };
        let turn =
            (first != 0).then(|| {
                let e = |k: usize| unit((first + k) % 3);
                UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(
                    Matrix3::from_columns(&[e(0), e(1), e(2)]),
                ))
            });
        // Limits of multi-dof spherical or free joints do not map to the IR's coordinates.
        let limits = if matches!(
            kind,
            JointKind::Spherical | JointKind::Free | JointKind::PointLine | JointKind::PointPlane
        ) {
            vec![]
        } else {
            limits
        };
        Ok((kind, limits, turn))
    }

    /// `PhysicsDriveAPI` on a single-axis joint: a spring towards `targetPosition` with the
    /// drive's stiffness and a damper with its damping, when the drive is a force drive with
    /// no target velocity; anything else is kept and reported.
    fn drive(&mut self, p: &RawPrim, at: &str, joint: &mut Joint, angular: bool) {
        let instance = drive_instance(angular);
        if !p
            .api_schemas
            .iter()
            .any(|a| *a == format!("{}:{instance}", api::DRIVE))
        {
            return;
        }
        let read = |name: &str| exact(p, &drive_attr(instance, name));
        let (l, m) = (self.length, self.mass);
        // Stiffness per degree (angular) or per stage unit (linear), to SI.
        let gain = |x: Option<(f64, bool)>| match x {
            Some((v, true)) => v,
            Some((v, false)) if angular => v * m * l * l * DEGREES_PER_RADIAN,
            Some((v, false)) => v * m,
            None => 0.0,
        };
        let stiffness = gain(read("stiffness"));
        let damping = gain(read("damping"));
        let target = match read("targetPosition") {
            Some((v, true)) => v,
            Some((v, false)) if angular => v / DEGREES_PER_RADIAN,
            Some((v, false)) => v * l,
            None => 0.0,
        };
        let target_velocity = read("targetVelocity").map_or(0.0, |x| x.0);
        let kind = string(p, &drive_attr(instance, "type")).unwrap_or_else(|| "force".to_owned());
        let max_force = read("maxForce").map_or(f64::INFINITY, |x| x.0);
        if kind != "force" || target_velocity != 0.0 {
            joint.extras.insert("usd.drive", IrValue::String(format!("type={kind} stiffness={stiffness} damping={damping} target={target} targetVelocity={target_velocity}")));
            self.note("drive", Category::Ignored, at, &p.path, format!("a {kind} drive with target velocity {target_velocity} is not a spring and damper: kept in extras, not simulated"));
            return;
        }
        if max_force.is_finite() && max_force >= 0.0 {
            self.note(
                "drive_max_force",
                Category::Ignored,
                at,
                &p.path,
                format!(
                    "the drive's maxForce {max_force} is not carried: the spring and damper are unbounded"
                ),
            );
        }
        if joint.dofs.is_empty() {
            joint.dofs.push(DofProperties::default());
        }
        let dof = &mut joint.dofs[0];
        dof.spring_stiffness = stiffness;
        dof.spring_rest_position = if stiffness != 0.0 { target } else { 0.0 };
        dof.damping = damping;
    }
}

impl Importer<'_> {
    /// Joint friction, armature, passive damping and velocity limit of a single-axis joint, in
    /// the schemas that carry them (none of them is UsdPhysics'): Newton's `newton:`, MuJoCo's
    /// `mjc:` and PhysX's `physxJoint:` attributes, read in that order, in SI units (Newton's
    /// and MuJoCo's converters write them so). PhysX's `jointFriction` is a coefficient on the
    /// constraint force, not a Coulomb torque: kept in extras and reported.
    fn dynamics(&mut self, p: &RawPrim, at: &str, joint: &mut Joint, angular: bool) {
        let first = |names: &[&str]| names.iter().find_map(|n| exact(p, n).map(|(v, _)| v));
        let armature = first(&attr::ARMATURE);
        let friction = first(&attr::FRICTION);
        let damping = first(&attr::PASSIVE_DAMPING);
        let max_velocity = exact(p, attr::MAX_JOINT_VELOCITY);
        let coefficient = p.attribute(attr::PHYSX_JOINT_FRICTION).and_then(number);
        if armature.is_none()
            && friction.is_none()
            && damping.is_none()
            && max_velocity.is_none()
            && coefficient.is_none()
        {
            return;
        }
        if joint.dofs.is_empty() {
            joint.dofs.push(DofProperties::default());
        }
        let dof = &mut joint.dofs[0];
        let usable = |v: Option<f64>| v.filter(|x| x.is_finite() && *x >= 0.0);
        if let Some(a) = usable(armature) {
            dof.rotor_inertia = a;
        }
        if let Some(f) = usable(friction) {
            dof.friction = f;
        }
        if let Some(d) = usable(damping)
            && dof.damping == 0.0
        {
            dof.damping = d;
        }
        // PhysX's maximum joint velocity is per degree for an angular joint.
        if let Some((v, si)) = max_velocity.filter(|(v, _)| v.is_finite() && *v > 0.0 && *v < 1.0e30) {
            let v = match (si, angular) {
                (true, _) => v,
                (false, true) => v / DEGREES_PER_RADIAN,
                (false, false) => v * self.length,
            };
            dof.velocity_limits = Limits {
                lower: Some(-v),
                upper: Some(v),
            };
        }
        // An armature of 0 (the writer states it for Newton) is the IR's default.
        if joint.dofs.iter().all(|d| *d == DofProperties::default()) {
            joint.dofs.clear();
        }
        if let Some(c) = coefficient.filter(|c| *c != 0.0) {
            joint.extras.insert("usd.physx_joint_friction", IrValue::Float(c));
            self.note(
                "joint_friction_coefficient",
                Category::Ignored,
                at,
                &p.path,
                format!("physxJoint:jointFriction {c} is a coefficient on the joint's constraint force, not a Coulomb friction torque: kept in extras, not simulated"),
            );
        }
    }
}

/// True when the writer kept the joint position `pos` in double precision (SI units, scale
/// already applied).
fn rel_is_exact(p: &RawPrim, pos: &str) -> bool {
    p.attribute(&crate::spec::exact_attr(pos)).is_some()
}
