//! Forward dynamics (ABA) and one semi-implicit Euler step on the serial revolute chains of
//! `oracles/chain_models.py` (7, 30 and 100 links). Compare with
//! `oracles/solver/bench_oracles.py` (Pinocchio `aba`, MuJoCo `mj_step`); see
//! `docs/performance.md`.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{BatchSize, Criterion, black_box, criterion_group, criterion_main};
use mbconv_ir::{Body, BodyRef, Inertia, Joint, JointKind, Model as Ir, Pose};
use mbconv_solver::{Data, Model, State, step_semi_implicit_euler, tree_forward_dynamics};
use nalgebra::Vector3;

fn chain(n: usize) -> Ir {
    let (l, m, r) = (0.2, 1.0, 0.02);
    let mut ir = Ir::new(format!("chain{n}"));
    for i in 0..n {
        let mut b = Body::new(format!("link{i}"));
        b.inertial.mass = m;
        b.inertial.com = Vector3::new(l / 2.0, 0.0, 0.0);
        b.inertial.inertia =
            Inertia::from_moments_products([0.5 * m * r * r, m * l * l / 12.0, m * l * l / 12.0], [0.0; 3]);
        b.pose = Pose::from_translation(Vector3::new(i as f64 * l, 0.0, 0.0));
        ir.bodies.push(b);
        let axis = if i % 2 == 0 { Vector3::y() } else { Vector3::z() };
        let parent = if i == 0 {
            BodyRef::World
        } else {
            BodyRef::body(format!("link{}", i - 1))
        };
        let mut j = Joint::new(
            format!("joint{i}"),
            JointKind::Revolute { axis },
            parent,
            BodyRef::body(format!("link{i}")),
        );
        if i > 0 {
            j.parent_frame = Pose::from_translation(Vector3::new(l, 0.0, 0.0));
        }
        ir.joints.push(j);
    }
    ir
}

/// Deterministic pseudo-random numbers in [-1, 1).
fn noise(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

fn benches(c: &mut Criterion) {
    for n in [7usize, 30, 100] {
        let model = Model::new(&chain(n)).unwrap();
        let mut data = Data::new(&model);
        let mut seed = 7u64;
        let q: Vec<f64> = (0..n).map(|_| noise(&mut seed)).collect();
        let v: Vec<f64> = (0..n).map(|_| noise(&mut seed)).collect();
        let tau = vec![0.0; n];
        c.bench_function(&format!("aba/{n}"), |b| {
            b.iter(|| {
                let qdd =
                    tree_forward_dynamics(&model, &mut data, black_box(&q), black_box(&v), &tau).unwrap();
                black_box(qdd[0]);
            })
        });
        let state = State {
            t: 0.0,
            q: q.clone(),
            v: v.clone(),
        };
        c.bench_function(&format!("euler_step/{n}"), |b| {
            b.iter_batched_ref(
                || state.clone(),
                |s| step_semi_implicit_euler(&model, &mut data, s, 1e-3).unwrap(),
                BatchSize::SmallInput,
            )
        });
    }
}

criterion_group! {
    name = chains;
    config = Criterion::default().sample_size(50).warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(chains);
