//! Lagrange-multiplier accelerations, projection onto the constraint manifold, and the
//! assembly step, on the rows of [`crate::constraints`].

// Numeric kernels index several arrays with the same coordinate index.
#![allow(clippy::needless_range_loop)]

use crate::constraints::{fill_jacobian, world_columns};
use crate::data::Data;
use crate::dynamics::{apply_minv, integrate_positions, position_kinematics};
use crate::error::SolverError;
use crate::model::Model;
use nalgebra::{DMatrix, DVector};

/// Tolerance of the position projection and the assembly step (m, rad).
pub const PROJECTION_TOLERANCE: f64 = 1e-12;
/// Newton iterations allowed in a projection.
pub const PROJECTION_ITERATIONS: usize = 50;

/// `out = J Jᵀ` without temporaries. The zero entries of row `r` are left out of its sums: a
/// sum that starts at `+0.0` is the same bits without its zero terms.
fn gram(jac: &DMatrix<f64>, out: &mut DMatrix<f64>) {
    let (m, n) = jac.shape();
    let entries = jac.as_slice();
    for r in 0..m {
        for s in 0..=r {
            let mut x = 0.0;
            for c in 0..n {
                let jr = entries[r + c * m];
                if jr != 0.0 {
                    x += jr * entries[s + c * m];
                }
            }
            out[(r, s)] = x;
            out[(s, r)] = x;
        }
    }
}

/// Solves the symmetric positive semi-definite system `a x = b` in place by Cholesky with
/// symmetric pivoting; pivots below `1e-12 ×` the largest diagonal are dropped (redundant
/// rows get a zero multiplier). The system is the leading `m × m` block of `a` (and the first
/// `m` entries of `b` and `x`), `m = perm.len()`, so one preallocated workspace serves systems
/// of every size up to its own. `a` is overwritten; its trailing block stays symmetric at
/// every step, which the row/column swaps of the pivoting need. Returns the rank used.
pub(crate) fn solve_psd(
    a: &mut DMatrix<f64>,
    b: &DVector<f64>,
    x: &mut DVector<f64>,
    perm: &mut [usize],
) -> usize {
    let m = perm.len();
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    // Column-major storage: entry (i, j) at i + j·ld. Only the leading m × m block is read
    // or written, however large the workspace.
    let ld = a.nrows();
    let a = a.as_mut_slice();
    let max_diag = (0..m).map(|i| a[i + i * ld].abs()).fold(0.0, f64::max);
    let tol = 1e-12 * max_diag.max(f64::MIN_POSITIVE);
    let mut rank = 0;
    for k in 0..m {
        // Pivot: largest remaining diagonal.
        let (mut best, mut value) = (k, a[k + k * ld]);
        for i in k + 1..m {
            if a[i + i * ld] > value {
                best = i;
                value = a[i + i * ld];
            }
        }
        if value <= tol {
            break;
        }
        if best != k {
            for j in 0..m {
                a.swap(k + j * ld, best + j * ld);
            }
            for i in 0..m {
                a.swap(i + k * ld, i + best * ld);
            }
            perm.swap(k, best);
        }
        let d = a[k + k * ld].sqrt();
        a[k + k * ld] = d;
        for i in k + 1..m {
            a[i + k * ld] /= d;
        }
        // Schur-complement update of the trailing block. Both triangles are kept: the
        // symmetric swap of a later pivot moves entries across the diagonal, so an
        // upper-triangle entry left stale here would become a wrong lower-triangle one.
        for j in k + 1..m {
            let ljk = a[j + k * ld];
            for i in j..m {
                let lik = a[i + k * ld];
                let updated = a[i + j * ld] - lik * ljk;
                a[i + j * ld] = updated;
                a[j + i * ld] = updated;
            }
        }
        rank = k + 1;
    }
    // Forward and back substitution on the leading rank×rank block, permuted.
    for i in 0..m {
        x[i] = 0.0;
    }
    for i in 0..rank {
        let mut s = b[perm[i]];
        for k in 0..i {
            s -= a[i + k * ld] * x[k];
        }
        x[i] = s / a[i + i * ld];
    }
    for i in (0..rank).rev() {
        let mut s = x[i];
        for k in i + 1..rank {
            s -= a[k + i * ld] * x[k];
        }
        x[i] = s / a[i + i * ld];
    }
    // Undo the permutation: x currently holds values for permuted indices.
    for i in 0..m {
        a[i] = x[i];
    }
    for i in 0..m {
        x[i] = 0.0;
    }
    for i in 0..rank {
        x[perm[i]] = a[i];
    }
    rank
}

/// Adds the constraint forces to `data.qdd` (the accelerations of the last
/// [`crate::dynamics::aba`] call at `(q, v)`), so that every row's acceleration matches: the
/// loop rows and the coordinates locked at their stops that the ABA does not hold itself
/// (zero acceleration). The holding forces of locked coordinates are kept in their locks.
pub(crate) fn constrained_accelerations(model: &Model, data: &mut Data, t: f64, q: &[f64], v: &[f64]) {
    let m = model.constraints.rows.len();
    let mut units = std::mem::take(&mut data.stops.unit_rows);
    data.stops.row_locks(&mut units);
    if m + units.len() > 0 {
        if m > 0 {
            world_columns(model, &data.world, &data.joint, &mut data.s_world);
            fill_jacobian(model, &data.world, &data.s_world, &mut data.col, &mut data.jac);
            loop_velocity_products(model, data, q, v);
            for (r, row) in model.constraints.rows.iter().enumerate() {
                let ja = row_times(&data.jac, r, &data.qdd);
                data.rhs[r] = row.acceleration_target(t) - ja - data.rowv[r];
            }
        }
        for (j, c) in units.iter().enumerate() {
            data.rhs[m + j] = -data.qdd[*c];
        }
        let mut qdd = std::mem::take(&mut data.qdd);
        solve_rows(model, data, &units, &mut qdd);
        for c in &units {
            qdd[*c] = 0.0;
        }
        data.qdd = qdd;
    }
    data.stops.unit_rows = units;
    let (m, lambda) = (m, &data.lambda);
    data.stops.read_forces(|j| lambda[m + j]);
}

/// Row `r` of `jac` times `x`, summed over the coordinates in order as `Iterator::sum` sums
/// (from `-0.0`), the row's zero entries left out: a zero term leaves a sum of finite numbers
/// as it is, but for the sign of a zero sum (a loop row is zero off the paths from its ends to
/// their roots).
pub(crate) fn row_times(jac: &DMatrix<f64>, r: usize, x: &[f64]) -> f64 {
    let rows = jac.nrows();
    let entries = jac.as_slice();
    let mut sum = -0.0;
    for (c, xc) in x.iter().enumerate() {
        let j = entries[r + c * rows];
        if j != 0.0 {
            sum += j * xc;
        }
    }
    sum
}

/// `J̇ v` of the loop rows into `data.rowv`, by a central difference of `J(q ⊕ εv)·v`.
fn loop_velocity_products(model: &Model, data: &mut Data, q: &[f64], v: &[f64]) {
    let m = model.constraints.rows.len();
    let vmax = v.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    if vmax > 0.0 {
        let eps = 1e-5 / vmax;
        for (sign, target) in [(1.0, 0), (-1.0, 1)] {
            data.q2.copy_from_slice(q);
            integrate_positions(model, &mut data.q2, v, sign * eps);
            position_kinematics(model, &data.q2, v, &mut data.joint2, &mut data.world2, None);
            world_columns(model, &data.world2, &data.joint2, &mut data.s_world);
            for (r, row) in model.constraints.rows.iter().enumerate() {
                row.jacobian(model, &data.world2, &data.s_world, &mut data.col);
                let jv: f64 = data.col.iter().zip(v).map(|(a, b)| a * b).sum();
                if target == 0 {
                    data.rowv[r] = jv;
                } else {
                    data.rowv2[r] = jv;
                }
            }
        }
        for r in 0..m {
            data.rowv[r] = (data.rowv[r] - data.rowv2[r]) / (2.0 * eps);
        }
    } else {
        data.rowv.fill(0.0);
    }
}

/// The multipliers `λ` of the rows `[J; E]` (the loop rows, whose Jacobian `data.jac` holds,
/// then one unit row `E` per velocity coordinate of `units`) for the right-hand sides
/// `data.rhs`: `([J; E] M⁻¹ [J; E]ᵀ) λ = rhs`, written to `data.lambda`; adds `M⁻¹ [J; E]ᵀ λ`
/// to `out`. Used for accelerations (`out` the accelerations) and for impulses (`out` the
/// velocities). `M⁻¹` is the factorisation of the last ABA call (same `q`).
pub(crate) fn solve_rows(model: &Model, data: &mut Data, units: &[usize], out: &mut [f64]) {
    solve_rows_with(model, data, units, out, false);
}

/// [`solve_rows`] for one of several solves with the same factorisation and loop Jacobian
/// (an impulse's active-set iterations): a column of `M⁻¹ [J; E]ᵀ` computed by an earlier
/// solve since [`forget_columns`] is copied, not computed again (the same bits).
pub(crate) fn solve_rows_reusing(model: &Model, data: &mut Data, units: &[usize], out: &mut [f64]) {
    solve_rows_with(model, data, units, out, true);
}

/// Forgets the columns [`solve_rows_reusing`] kept: the factorisation or the Jacobian changed.
pub(crate) fn forget_columns(data: &mut Data) {
    data.minv_cached.fill(false);
}

fn solve_rows_with(model: &Model, data: &mut Data, units: &[usize], out: &mut [f64], reuse: bool) {
    let m = model.constraints.rows.len();
    let rows = m + units.len();
    if rows == 0 {
        return;
    }
    let nv = model.nv;
    // Y = M⁻¹ [J; E]ᵀ, one ABA sweep per row (or a kept column).
    for r in 0..rows {
        let key = if r < m { r } else { m + units[r - m] };
        if reuse && data.minv_cached[key] {
            for c in 0..nv {
                data.minv_jt[(c, r)] = data.minv_cache[(c, key)];
            }
            continue;
        }
        if r < m {
            for c in 0..nv {
                data.col[c] = data.jac[(r, c)];
            }
        } else {
            data.col.fill(0.0);
            data.col[units[r - m]] = 1.0;
        }
        let col = std::mem::take(&mut data.col);
        let mut y = std::mem::take(&mut data.dv);
        apply_minv(model, data, &col, &mut y);
        for c in 0..nv {
            data.minv_jt[(c, r)] = y[c];
        }
        if reuse {
            for c in 0..nv {
                data.minv_cache[(c, key)] = y[c];
            }
            data.minv_cached[key] = true;
        }
        data.col = col;
        data.dv = y;
    }
    // [J; E] Y, each entry summed over the coordinates in order. A loop row's Jacobian is zero
    // off the paths from its two ends to their roots: only its other terms are summed (a zero
    // term leaves a sum of finite numbers as it is, but for the sign of a zero sum).
    let ld = data.minv_jt.nrows();
    let y = data.minv_jt.as_slice();
    for r in 0..rows {
        if r < m {
            data.nonzero.clear();
            for c in 0..nv {
                let x = data.jac[(r, c)];
                if x != 0.0 {
                    data.nonzero.push((c, x));
                }
            }
            for s in 0..rows {
                let column = &y[s * ld..s * ld + nv];
                data.schur[(r, s)] = data.nonzero.iter().fold(-0.0, |sum, (c, x)| sum + x * column[*c]);
            }
        } else {
            let c = units[r - m];
            for s in 0..rows {
                data.schur[(r, s)] = y[c + s * ld];
            }
        }
    }
    solve_psd(
        &mut data.schur,
        &data.rhs,
        &mut data.lambda,
        &mut data.perm[..rows],
    );
    // out += Y λ, each coordinate's sum taken over the rows in order.
    let y = data.minv_jt.as_slice();
    data.row_forces.fill(-0.0);
    for r in 0..rows {
        let lambda = data.lambda[r];
        for (acc, yc) in data.row_forces.iter_mut().zip(&y[r * ld..r * ld + nv]) {
            *acc += yc * lambda;
        }
    }
    for (o, sum) in out.iter_mut().zip(&data.row_forces) {
        *o += sum;
    }
}

/// The largest constraint residual and the row it belongs to.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WorstRow {
    /// `|φ|` (NaN when a residual is not finite).
    pub residual: f64,
    /// Row index.
    pub row: usize,
}

/// Projects `q` onto the holonomic rows by Newton steps `Δq = −Jᵀ(JJᵀ)⁺φ`; returns the largest
/// residual left and the row it belongs to.
pub(crate) fn project_positions(model: &Model, data: &mut Data, q: &mut [f64], t: f64) -> WorstRow {
    let m = model.constraints.rows.len();
    let mut worst = WorstRow::default();
    if m == 0 {
        return worst;
    }
    let zeros = std::mem::take(&mut data.dv);
    for _ in 0..=PROJECTION_ITERATIONS {
        position_kinematics(model, q, &zeros, &mut data.joint2, &mut data.world2, None);
        worst = WorstRow::default();
        for (r, row) in model.constraints.rows.iter().enumerate() {
            let phi = if row.holonomic() {
                row.residual(&data.world2, q, t)
            } else {
                0.0
            };
            data.phi[r] = phi;
            if phi.abs() > worst.residual || !phi.is_finite() {
                worst = WorstRow {
                    residual: phi.abs(),
                    row: r,
                };
            }
        }
        if worst.residual <= PROJECTION_TOLERANCE || !worst.residual.is_finite() {
            break;
        }
        world_columns(model, &data.world2, &data.joint2, &mut data.s_world);
        fill_jacobian(model, &data.world2, &data.s_world, &mut data.col, &mut data.jac);
        for (r, row) in model.constraints.rows.iter().enumerate() {
            if !row.holonomic() {
                for c in 0..model.nv {
                    data.jac[(r, c)] = 0.0;
                }
            }
        }
        hold_locked_coordinates(data);
        gram(&data.jac, &mut data.schur);
        solve_psd(&mut data.schur, &data.phi, &mut data.lambda, &mut data.perm[..m]);
        data.col.fill(0.0);
        for c in 0..model.nv {
            data.col[c] = -(0..m).map(|r| data.jac[(r, c)] * data.lambda[r]).sum::<f64>();
        }
        integrate_positions(model, q, &data.col, 1.0);
    }
    data.dv = zeros;
    data.dv.fill(0.0);
    worst
}

/// Zeroes the loop Jacobian's columns of the coordinates locked at their stops, so that a
/// projection leaves them on their stops.
fn hold_locked_coordinates(data: &mut Data) {
    for lock in &data.stops.locked {
        data.jac.column_mut(lock.v).fill(0.0);
    }
}

/// Projects `v` onto `J v = target(t)` (least-change in the Euclidean norm).
pub(crate) fn project_velocities(model: &Model, data: &mut Data, q: &[f64], v: &mut [f64], t: f64) {
    let m = model.constraints.rows.len();
    if m == 0 {
        return;
    }
    position_kinematics(model, q, v, &mut data.joint2, &mut data.world2, None);
    world_columns(model, &data.world2, &data.joint2, &mut data.s_world);
    fill_jacobian(model, &data.world2, &data.s_world, &mut data.col, &mut data.jac);
    for (r, row) in model.constraints.rows.iter().enumerate() {
        let jv = row_times(&data.jac, r, v);
        data.phi[r] = jv - row.velocity_target(t);
    }
    hold_locked_coordinates(data);
    gram(&data.jac, &mut data.schur);
    solve_psd(&mut data.schur, &data.phi, &mut data.lambda, &mut data.perm[..m]);
    for (c, vc) in v.iter_mut().enumerate() {
        *vc -= (0..m).map(|r| data.jac[(r, c)] * data.lambda[r]).sum::<f64>();
    }
}

/// The largest holonomic residual at `q` (0 without rows).
pub(crate) fn residual(model: &Model, data: &mut Data, q: &[f64], t: f64) -> f64 {
    if model.constraints.rows.is_empty() {
        return 0.0;
    }
    let zeros = std::mem::take(&mut data.dv);
    position_kinematics(model, q, &zeros, &mut data.joint2, &mut data.world2, None);
    data.dv = zeros;
    model
        .constraints
        .rows
        .iter()
        .filter(|r| r.holonomic())
        .map(|r| r.residual(&data.world2, q, t).abs())
        .fold(0.0, f64::max)
}

/// Closes the loops of the initial state by Newton's method and makes the velocities
/// consistent; returns the residual left. Fails when it stays above `1e-6`.
///
/// Body velocities given in the model are fitted to joint rates first, at the configuration as
/// written (where the twists were stated), so a model whose joint rates were baked into body
/// velocities assembles exactly as the model they came from, even when its loops do not close
/// as written.
pub(crate) fn assemble(model: &Model, data: &mut Data, state: &mut crate::State) -> Result<f64, SolverError> {
    fit_body_velocities(model, data, state);
    let WorstRow { residual: worst, row } = project_positions(model, data, &mut state.q, state.t);
    if worst.is_nan() || worst > 1e-6 {
        return Err(SolverError::Assembly {
            residual: worst,
            iterations: PROJECTION_ITERATIONS,
            item: model
                .constraints
                .rows
                .get(row)
                .map_or_else(String::new, |r| r.item.clone()),
        });
    }
    project_velocities(model, data, &state.q, &mut state.v, state.t);
    Ok(worst)
}

/// Joint velocities that best reproduce the IR `initial_velocity` of jointed bodies (Chrono
/// gives body velocities, not joint rates) and of the floating bodies they hang from: least
/// squares `|J v − V|² + ε|v − v₀|²`, with `J` the world twist (angular velocity and origin
/// velocity) of each such body and `ε = 1e-10` keeping `v₀` where the bodies say nothing. Runs
/// once, before the position and velocity projections.
fn fit_body_velocities(model: &Model, data: &mut Data, state: &mut crate::State) {
    if model.initial_twists.is_empty() {
        return;
    }
    let nv = model.nv;
    position_kinematics(
        model,
        &state.q,
        &state.v,
        &mut data.joint2,
        &mut data.world2,
        None,
    );
    world_columns(model, &data.world2, &data.joint2, &mut data.s_world);
    let mut normal = DMatrix::<f64>::zeros(nv, nv);
    let mut rhs = DVector::<f64>::zeros(nv);
    let mut row = vec![0.0; nv];
    for crate::model::InitialTwist { body, twist } in &model.initial_twists {
        let map = &model.bodies[*body];
        let Some(node) = map.node else { continue };
        let origin = data.world2[node].compose(&map.offset).p;
        for k in 0..6 {
            row.fill(0.0);
            let mut n = Some(node);
            while let Some(i) = n {
                let nd = &model.nodes[i];
                for c in nd.v_index..nd.v_index + nd.joint.nv() {
                    let s = &data.s_world[c];
                    row[c] = if k < 3 {
                        s.ang[k]
                    } else {
                        (s.lin + s.ang.cross(&origin))[k - 3]
                    };
                }
                n = nd.parent;
            }
            let target = if k < 3 {
                twist.angular[k]
            } else {
                twist.linear[k - 3]
            };
            for a in 0..nv {
                rhs[a] += row[a] * target;
                for b in 0..nv {
                    normal[(a, b)] += row[a] * row[b];
                }
            }
        }
    }
    let scale = (0..nv).map(|i| normal[(i, i)]).fold(0.0, f64::max).max(1.0) * 1e-10;
    for i in 0..nv {
        normal[(i, i)] += scale;
        rhs[i] += scale * state.v[i];
    }
    let mut x = DVector::<f64>::zeros(nv);
    let mut perm = vec![0; nv];
    solve_psd(&mut normal, &rhs, &mut x, &mut perm);
    state.v.copy_from_slice(x.as_slice());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic `rows × cols` matrix with entries in `[-1, 1)` and diagonal scales
    /// `scale[i]` per row, so that pivoting reorders the rows.
    fn factor(rows: usize, cols: usize, seed: u64, scale: &[f64]) -> DMatrix<f64> {
        let mut s = seed;
        DMatrix::from_fn(rows, cols, |r, _| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            (2.0 * u - 1.0) * scale[r]
        })
    }

    /// Solves `a x = b` with `solve_psd` and returns `|a x − b|∞` and the rank.
    fn residual_of(a: &DMatrix<f64>, b: &DVector<f64>) -> (f64, usize) {
        let m = a.nrows();
        let mut work = a.clone();
        let mut x = DVector::zeros(m);
        let mut perm = vec![0; m];
        let rank = solve_psd(&mut work, b, &mut x, &mut perm);
        ((a * &x - b).amax(), rank)
    }

    #[test]
    fn pivoted_cholesky_solves_a_small_system_that_needs_a_swap() {
        // Pivot order 0, 2, 1: the second pivot swaps rows/columns 1 and 2, so the factor
        // reads the (2, 1) entry of the Schur complement after the first elimination.
        let a = DMatrix::from_row_slice(3, 3, &[4.0, 2.0, 2.0, 2.0, 2.0, 0.0, 2.0, 0.0, 3.0]);
        let expected = DVector::from_column_slice(&[1.0, -2.0, 0.5]);
        let b = &a * &expected;
        let mut work = a.clone();
        let mut x = DVector::zeros(3);
        let mut perm = vec![0; 3];
        assert_eq!(solve_psd(&mut work, &b, &mut x, &mut perm), 3);
        assert_eq!(perm, vec![0, 2, 1]);
        assert!((x - expected).amax() < 1e-12);
    }

    #[test]
    fn pivoted_cholesky_solves_full_rank_systems() {
        for seed in 0..20 {
            let m = 7;
            let scale: Vec<f64> = (0..m)
                .map(|i| 1.0 + ((i * 5 + seed as usize) % 7) as f64)
                .collect();
            let f = factor(m, m + 2, seed, &scale);
            let a = &f * f.transpose();
            let b = factor(m, 1, seed + 100, &vec![1.0; m]).column(0).into_owned();
            let (res, rank) = residual_of(&a, &b);
            assert_eq!(rank, m, "seed {seed}");
            assert!(res < 1e-9 * a.amax(), "seed {seed}: residual {res}");
        }
    }

    #[test]
    fn pivoted_cholesky_solves_consistent_rank_deficient_systems() {
        // Redundant constraint rows: a = F Fᵀ with F of rank 4, b in the range of a.
        for seed in 0..20 {
            let m = 8;
            let scale: Vec<f64> = (0..m)
                .map(|i| 1.0 + ((i * 3 + seed as usize) % 5) as f64)
                .collect();
            let f = factor(m, 4, seed, &scale);
            let a = &f * f.transpose();
            let y = factor(m, 1, seed + 200, &vec![1.0; m]).column(0).into_owned();
            let b = &a * y;
            let (res, rank) = residual_of(&a, &b);
            assert_eq!(rank, 4, "seed {seed}");
            assert!(res < 1e-9 * a.amax(), "seed {seed}: residual {res}");
        }
    }
}
