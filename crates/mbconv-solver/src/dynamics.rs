//! Kinematics and the articulated-body algorithm (Featherstone, *Rigid Body Dynamics
//! Algorithms*, §7.3), in link coordinates, plus `M⁻¹ τ` products that reuse its
//! factorisation.

// Numeric kernels index several arrays with the same coordinate index.
#![allow(clippy::needless_range_loop)]

use crate::data::{Data, State};
use crate::error::SolverError;
use crate::model::Model;
use crate::spatial::{Se3, Spatial};
use nalgebra::{Matrix6, Vector3};

/// Poses of every link (local and world) and the joint subspaces at `q`.
pub(crate) fn position_kinematics(
    model: &Model,
    q: &[f64],
    v: &[f64],
    joint: &mut [crate::joint::JointState],
    world: &mut [Se3],
    mut local: Option<&mut [Se3]>,
) {
    for (i, node) in model.nodes.iter().enumerate() {
        let nq = node.joint.nq();
        let nv = node.joint.nv();
        node.joint.calc(
            &q[node.q_index..node.q_index + nq],
            &v[node.v_index..node.v_index + nv],
            &mut joint[i],
        );
        let x = node.tree.compose(&joint[i].motion);
        world[i] = match node.parent {
            Some(p) => world[p].compose(&x),
            None => x,
        };
        if let Some(l) = local.as_deref_mut() {
            l[i] = x;
        }
    }
}

/// Positions, velocities and velocity-product accelerations of every link.
pub(crate) fn kinematics(model: &Model, data: &mut Data, q: &[f64], v: &[f64]) {
    position_kinematics(
        model,
        q,
        v,
        &mut data.joint,
        &mut data.world,
        Some(&mut data.local),
    );
    for (i, node) in model.nodes.iter().enumerate() {
        let js = &data.joint[i];
        let vp = match node.parent {
            Some(p) => data.local[i].inv_act_motion(&data.vel[p]),
            None => data.local[i].inv_act_motion(&Spatial::zero()),
        };
        let vel = vp + js.vj;
        data.bias[i] = js.cj + vel.cross_motion(&js.vj);
        data.vel[i] = vel;
    }
}

/// Adds the weight of every gravity-flagged body as an external force (used when gravity is
/// not uniform; otherwise the base is accelerated by `−g`).
pub(crate) fn add_gravity_forces(model: &Model, data: &mut Data) {
    for (i, node) in model.nodes.iter().enumerate() {
        if node.gravity_mass != 0.0 {
            let c = data.world[i].point(&node.gravity_com);
            let f = model.gravity * node.gravity_mass;
            data.f_world[i] += Spatial::new(c.cross(&f), f);
        }
    }
}

/// The articulated-body algorithm on the current kinematics, generalised forces `data.tau`
/// and external forces `data.f_world` (world coordinates, about the world origin).
/// Writes `data.qdd` and the link accelerations `data.acc`.
pub(crate) fn aba(model: &Model, data: &mut Data) -> Result<(), SolverError> {
    let n = model.nodes.len();
    for i in 0..n {
        let inertia = &model.nodes[i].inertia;
        let vel = data.vel[i];
        let mut p = vel.cross_force(&inertia.mul(&vel));
        let f = data.f_world[i];
        if f.ang != Vector3::zeros() || f.lin != Vector3::zeros() {
            p -= data.world[i].inv_act_force(&f);
        }
        data.ia[i] = *inertia;
        data.pa[i] = p;
    }
    for i in (0..n).rev() {
        let node = &model.nodes[i];
        let nv = node.joint.nv();
        let js = &data.joint[i];
        let tau = &data.tau[node.v_index..node.v_index + nv];
        let mut ia = data.ia[i];
        let pa = data.pa[i];
        let mut pa_out;
        if nv == 1 {
            let s = js.s[0];
            let u = ia.mul(&s);
            let d = s.dot(&u) + data.extra_diagonal[node.v_index];
            // A coordinate locked on its joint stop makes the joint rigid: its articulated
            // inertia and bias pass to the parent whole, and its acceleration is zero.
            // A massless subtree with nothing attached: zero acceleration (pseudo-inverse), as DART.
            let inv_d = if data.stops.locked_in_aba(i) {
                0.0
            } else if d > 0.0 && d.is_finite() {
                1.0 / d
            } else if d == 0.0 {
                0.0
            } else {
                return Err(singular(node, d));
            };
            let uu = tau[0] - s.dot(&pa);
            data.u[i][0] = u;
            data.dinv[i][(0, 0)] = inv_d;
            data.uvec[i][0] = uu;
            if node.parent.is_none() {
                continue;
            }
            ia.sub_rank1(&u, inv_d);
            pa_out = pa + ia.mul(&data.bias[i]) + u.scale(uu * inv_d);
        } else {
            let mut d = Matrix6::<f64>::identity();
            for k in 0..nv {
                data.u[i][k] = ia.mul(&js.s[k]);
            }
            for k in 0..nv {
                for l in 0..nv {
                    d[(k, l)] = js.s[k].dot(&data.u[i][l]);
                }
                d[(k, k)] += data.extra_diagonal[node.v_index + k];
                data.uvec[i][k] = tau[k] - js.s[k].dot(&pa);
            }
            if model.indefinite && !positive_semidefinite(&d, nv) {
                return Err(singular(node, d.determinant()));
            }
            let dinv = match d.try_inverse() {
                Some(x) => x,
                None => d
                    .pseudo_inverse(1e-12)
                    .map_err(|_| singular(node, d.determinant()))?,
            };
            data.dinv[i] = dinv;
            if node.parent.is_none() {
                continue;
            }
            pa_out = pa;
            for k in 0..nv {
                let mut w = 0.0;
                for l in 0..nv {
                    w += dinv[(k, l)] * data.uvec[i][l];
                    // Ia -= U_k Dinv_kl U_lᵀ (symmetric in total).
                    let uk = data.u[i][k].scale(dinv[(k, l)]);
                    let ul = data.u[i][l];
                    ia.a -= uk.ang * ul.ang.transpose();
                    ia.b -= uk.ang * ul.lin.transpose();
                    ia.c -= uk.lin * ul.lin.transpose();
                }
                pa_out += data.u[i][k].scale(w);
            }
            pa_out += ia.mul(&data.bias[i]);
        }
        if let Some(parent) = node.parent {
            let x = &data.local[i];
            let up = ia.to_parent(x);
            data.ia[parent] += up;
            let f = x.act_force(&pa_out);
            data.pa[parent] += f;
        }
    }
    let a_world = if model.uniform_gravity {
        Spatial::new(Vector3::zeros(), -model.gravity)
    } else {
        Spatial::zero()
    };
    for i in 0..n {
        let node = &model.nodes[i];
        let nv = node.joint.nv();
        let ap = match node.parent {
            Some(p) => data.acc[p],
            None => a_world,
        };
        let mut a = data.local[i].inv_act_motion(&ap) + data.bias[i];
        let js = &data.joint[i];
        if nv == 1 {
            let free = data.uvec[i][0] - data.u[i][0].dot(&a);
            if data.stops.locked_in_aba(i) {
                // The torque (force) the stop exerts to hold the coordinate.
                data.stops.node_force[i] = -free;
            }
            let qdd = free * data.dinv[i][(0, 0)];
            data.qdd[node.v_index] = qdd;
            a += js.s[0].scale(qdd);
        } else {
            let mut r = [0.0; 6];
            for k in 0..nv {
                r[k] = data.uvec[i][k] - data.u[i][k].dot(&a);
            }
            for k in 0..nv {
                let mut x = 0.0;
                for l in 0..nv {
                    x += data.dinv[i][(k, l)] * r[l];
                }
                data.qdd[node.v_index + k] = x;
                a += js.s[k].scale(x);
            }
        }
        data.acc[i] = a;
    }
    Ok(())
}

/// True when the leading `nv` × `nv` block of `d` (a joint's articulated inertia along its
/// motion) has no eigenvalue below minus round-off of its largest entry: a body with an
/// indefinite inertia can make it indefinite, and the motion then means nothing.
fn positive_semidefinite(d: &Matrix6<f64>, nv: usize) -> bool {
    let block = d.view((0, 0), (nv, nv)).into_owned();
    let scale = block.abs().max();
    let smallest = nalgebra::SymmetricEigen::new((&block + block.transpose()) * 0.5)
        .eigenvalues
        .min();
    smallest >= -1e-12 * scale
}

fn singular(node: &crate::model::Node, d: f64) -> SolverError {
    SolverError::Diverged {
        time: f64::NAN,
        message: format!(
            "joint '{}': articulated inertia along its motion is not positive ({d}); a massless link, or an inertia with a negative principal moment at or below it?",
            node.name
        ),
    }
}

/// True when every entry is zero (of either sign).
#[inline]
fn all_zero(values: &[f64]) -> bool {
    for v in values {
        if *v != 0.0 {
            return false;
        }
    }
    true
}

/// `out = M⁻¹ tau` with the factorisation of the last [`aba`] call (same `q`).
///
/// A constraint row's `tau` is zero on most coordinates, so the sweeps skip what is exactly
/// zero: a node that no force reaches (zero `tau` on its coordinates, nothing from its
/// subtree) passes no force to its parent, and a node whose parent does not accelerate and
/// that no force reaches does not accelerate. Skipping them changes no bit of `out`: the
/// skipped terms are zeros, and a zero added to a sum leaves it as it is (the ABA refuses a
/// singular articulated inertia, so no infinity meets them).
pub(crate) fn apply_minv(model: &Model, data: &mut Data, tau: &[f64], out: &mut [f64]) {
    let n = model.nodes.len();
    for p in data.pa2.iter_mut() {
        *p = Spatial::zero();
    }
    for i in (0..n).rev() {
        let node = &model.nodes[i];
        let nv = node.joint.nv();
        let js = &data.joint[i];
        let pa = data.pa2[i];
        let mut w = [0.0; 6];
        for k in 0..nv {
            data.uvec2[i][k] = tau[node.v_index + k] - js.s[k].dot(&pa);
        }
        let unforced = || pa.is_zero() && all_zero(&tau[node.v_index..node.v_index + nv]);
        if let Some(parent) = node.parent
            && !unforced()
        {
            let mut f = pa;
            for k in 0..nv {
                for l in 0..nv {
                    w[k] += data.dinv[i][(k, l)] * data.uvec2[i][l];
                }
                f += data.u[i][k].scale(w[k]);
            }
            let f = data.local[i].act_force(&f);
            data.pa2[parent] += f;
        }
    }
    for i in 0..n {
        let node = &model.nodes[i];
        let nv = node.joint.nv();
        let still = node.parent.is_none_or(|p| data.acc2[p].is_zero());
        if still && all_zero(&data.uvec2[i][..nv]) {
            out[node.v_index..node.v_index + nv].fill(0.0);
            data.acc2[i] = Spatial::zero();
            continue;
        }
        let mut a = match node.parent {
            Some(p) => data.local[i].inv_act_motion(&data.acc2[p]),
            None => Spatial::zero(),
        };
        let mut r = [0.0; 6];
        for k in 0..nv {
            r[k] = data.uvec2[i][k] - data.u[i][k].dot(&a);
        }
        for k in 0..nv {
            let mut x = 0.0;
            for l in 0..nv {
                x += data.dinv[i][(k, l)] * r[l];
            }
            out[node.v_index + k] = x;
            a += data.joint[i].s[k].scale(x);
        }
        data.acc2[i] = a;
    }
}

/// Forward dynamics of the unconstrained tree (ABA only, no force elements besides gravity
/// and `tau`): the fast path the benchmark measures. Returns the accelerations.
///
/// ```
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model as Ir};
/// let mut ir = Ir::new("pendulum");
/// let mut bob = Body::new("bob");
/// bob.inertial.com = nalgebra::Vector3::new(1.0, 0.0, 0.0);
/// ir.bodies.push(bob);
/// ir.joints.push(Joint::new("pivot", JointKind::Revolute { axis: nalgebra::Vector3::y() }, BodyRef::World, BodyRef::body("bob")));
/// let model = mbconv_solver::Model::new(&ir).unwrap();
/// let mut data = mbconv_solver::Data::new(&model);
/// let state = mbconv_solver::State::initial(&model);
/// let qdd = mbconv_solver::tree_forward_dynamics(&model, &mut data, &state.q, &state.v, &[0.0]).unwrap();
/// // A unit point mass at 1 m with unit inertia: 9.81 / 2 rad/s², positive about +y.
/// assert!((qdd[0] - 9.81 / 2.0).abs() < 1e-12);
/// ```
pub fn tree_forward_dynamics<'a>(
    model: &Model,
    data: &'a mut Data,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
) -> Result<&'a [f64], SolverError> {
    kinematics(model, data, q, v);
    data.tau.copy_from_slice(tau);
    data.extra_diagonal.copy_from_slice(&model.armature);
    data.f_world.iter_mut().for_each(|f| *f = Spatial::zero());
    if !model.uniform_gravity {
        add_gravity_forces(model, data);
    }
    aba(model, data)?;
    Ok(&data.qdd)
}

/// The coordinate whose motion `model` determines least at `state`: for each velocity
/// coordinate, the inertia it feels with every other coordinate free, `1 / (M⁻¹)ᵢᵢ` (kg m² for
/// a rotation, kg for a translation), measured as the acceleration a unit generalised force
/// gives it through the articulated-body algorithm. Returns the smallest with the name of its
/// joint, `None` for a model without a moving coordinate. A coordinate whose subtree has no
/// mass at all is skipped: it does not accelerate (see [`tree_forward_dynamics`]).
///
/// A joint that carries mass but (next to) no inertia about its axis, a point mass on the axis,
/// feels an inertia at the rounding floor: any force gives it an acceleration no integrator can
/// follow, so its motion is not determined by the model.
///
/// ```
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model as Ir};
/// let mut ir = Ir::new("pendulum");
/// let mut bob = Body::new("bob");
/// bob.inertial.com = nalgebra::Vector3::new(1.0, 0.0, 0.0);
/// ir.bodies.push(bob);
/// ir.joints.push(Joint::new("pivot", JointKind::Revolute { axis: nalgebra::Vector3::y() }, BodyRef::World, BodyRef::body("bob")));
/// let model = mbconv_solver::Model::new(&ir).unwrap();
/// let state = mbconv_solver::State::initial(&model);
/// let (joint, inertia) = mbconv_solver::least_coordinate_inertia(&model, &state).unwrap().unwrap();
/// // Unit mass at 1 m with unit rotational inertia: 2 kg m² about the pivot.
/// assert_eq!(joint, "pivot");
/// assert!((inertia - 2.0).abs() < 1e-12);
/// ```
pub fn least_coordinate_inertia(model: &Model, state: &State) -> Result<Option<(String, f64)>, SolverError> {
    let mut data = Data::new(model);
    let nv = model.nv();
    let mut tau = vec![0.0; nv];
    let free = tree_forward_dynamics(model, &mut data, &state.q, &state.v, &tau)?.to_vec();
    let mut least: Option<(String, f64)> = None;
    for node in &model.nodes {
        for i in node.v_index..node.v_index + node.joint.nv() {
            tau[i] = 1.0;
            let pushed = tree_forward_dynamics(model, &mut data, &state.q, &state.v, &tau)?[i];
            tau[i] = 0.0;
            let compliance = pushed - free[i];
            if compliance > 0.0 && least.as_ref().is_none_or(|(_, m)| 1.0 / compliance < *m) {
                least = Some((node.name.clone(), 1.0 / compliance));
            }
        }
    }
    Ok(least)
}

/// Kinetic energy of the links at the current kinematics.
pub(crate) fn kinetic_energy(model: &Model, data: &Data) -> f64 {
    model
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| 0.5 * data.vel[i].dot(&n.inertia.mul(&data.vel[i])))
        .sum()
}

/// Gravitational potential energy `−Σ m g·c` of the gravity-flagged bodies.
pub(crate) fn gravity_potential(model: &Model, data: &Data) -> f64 {
    model
        .bodies
        .iter()
        .filter(|b| b.gravity)
        .map(|b| {
            let c = match b.node {
                Some(n) => data.world[n].compose(&b.offset).point(&b.com),
                None => b.offset.point(&b.com),
            };
            -b.mass * model.gravity.dot(&c)
        })
        .sum()
}

/// Integrates `q ⊕ dt·v` joint by joint.
pub(crate) fn integrate_positions(model: &Model, q: &mut [f64], v: &[f64], dt: f64) {
    for node in &model.nodes {
        let (nq, nv) = (node.joint.nq(), node.joint.nv());
        node.joint.integrate(
            &mut q[node.q_index..node.q_index + nq],
            &v[node.v_index..node.v_index + nv],
            dt,
        );
    }
}

/// Renormalises every quaternion of `q`.
pub(crate) fn normalize(model: &Model, q: &mut [f64]) {
    for node in &model.nodes {
        node.joint
            .normalize(&mut q[node.q_index..node.q_index + node.joint.nq()]);
    }
}

/// Checks a state for non-finite numbers.
pub(crate) fn check_finite(state: &State) -> Result<(), SolverError> {
    if state.q.iter().chain(&state.v).all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(SolverError::Diverged {
            time: state.t,
            message: "the state is no longer finite".into(),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model as Ir};
    use nalgebra::{UnitQuaternion, Vector3};

    /// A trunk with two branches of two links each, floating or welded to the world: a force on
    /// one branch reaches the other only through the trunk.
    fn branched(floating: bool) -> Model {
        let mut ir = Ir::new("branched");
        let mut add = |name: &str, parent: BodyRef, kind: JointKind, at: Vector3<f64>| {
            let mut body = Body::new(name);
            body.inertial.mass = 1.0 + at.norm();
            body.inertial.com = Vector3::new(0.1, -0.2, 0.3) + at * 0.5;
            body.inertial.inertia =
                mbconv_ir::Inertia::from_moments_products([0.2, 0.3, 0.4], [0.01, -0.02, 0.03]);
            body.pose = mbconv_ir::Pose::from_translation(at);
            ir.bodies.push(body);
            let mut joint = Joint::new(format!("{name} joint"), kind, parent, BodyRef::body(name));
            joint.parent_frame = mbconv_ir::Pose::new(at, UnitQuaternion::from_euler_angles(0.3, -0.2, 0.1));
            ir.joints.push(joint);
        };
        let hinge = |x: f64, y: f64, z: f64| JointKind::Revolute {
            axis: Vector3::new(x, y, z).normalize(),
        };
        let root = if floating {
            JointKind::Free
        } else {
            JointKind::Fixed
        };
        add("trunk", BodyRef::World, root, Vector3::zeros());
        add(
            "left",
            BodyRef::body("trunk"),
            hinge(1.0, 0.2, 0.0),
            Vector3::new(0.0, 0.5, 0.0),
        );
        add(
            "left hand",
            BodyRef::body("left"),
            hinge(0.0, 1.0, 0.3),
            Vector3::new(0.0, 0.4, 0.1),
        );
        add(
            "right",
            BodyRef::body("trunk"),
            hinge(1.0, -0.2, 0.0),
            Vector3::new(0.0, -0.5, 0.0),
        );
        add(
            "right hand",
            BodyRef::body("right"),
            JointKind::Prismatic { axis: Vector3::x() },
            Vector3::new(0.1, -0.4, 0.0),
        );
        Model::new(&ir).unwrap()
    }

    /// `apply_minv` skips the nodes no force reaches and those that do not accelerate: each
    /// unit force still gives the accelerations the ABA gives it (`qdd(τ) − qdd(0)` at rest),
    /// on a floating trunk (everything accelerates) and on a welded one (the other branch does
    /// not).
    #[test]
    fn minv_of_a_unit_force_is_what_the_aba_gives_it_on_every_branch() {
        for floating in [true, false] {
            let model = branched(floating);
            let mut data = Data::new(&model);
            let mut state = crate::State::initial(&model);
            for (k, q) in state.q.iter_mut().enumerate().skip(model.nq - 4) {
                *q = 0.2 * k as f64 - 0.3;
            }
            let rest = vec![0.0; model.nv];
            let free = tree_forward_dynamics(&model, &mut data, &state.q, &rest, &rest)
                .unwrap()
                .to_vec();
            for c in 0..model.nv {
                let mut tau = vec![0.0; model.nv];
                tau[c] = 1.0;
                let pushed = tree_forward_dynamics(&model, &mut data, &state.q, &rest, &tau)
                    .unwrap()
                    .to_vec();
                let mut response = vec![f64::NAN; model.nv];
                apply_minv(&model, &mut data, &tau, &mut response);
                for r in 0..model.nv {
                    let expected = pushed[r] - free[r];
                    assert!(
                        (response[r] - expected).abs() <= 1e-9 * (1.0 + expected.abs()),
                        "floating {floating}, force on {c}, acceleration of {r}: {} vs {expected}",
                        response[r]
                    );
                }
                let side = |v: usize| {
                    let node = model
                        .nodes
                        .iter()
                        .find(|n| (n.v_index..n.v_index + n.joint.nv()).contains(&v));
                    node.map_or("", |n| {
                        if n.name.starts_with("left") {
                            "left"
                        } else {
                            "right"
                        }
                    })
                };
                if !floating {
                    // A force on one branch does not move the other.
                    for r in (0..model.nv).filter(|r| side(*r) != side(c)) {
                        assert_eq!(response[r].to_bits(), 0.0f64.to_bits(), "force on {c}, {r} moves");
                    }
                }
            }
        }
    }
}
