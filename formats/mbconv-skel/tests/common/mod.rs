//! Helpers shared by the integration tests: locating the corpus and comparing an import
//! against DART's golden data (`tests/golden/*.json`, written by `oracles/dart/dart_golden.py`).
#![allow(clippy::unwrap_used, dead_code)]

use mbconv_ir::kinematics::{Attachment, Configuration, SpanningTree, world_poses};
use mbconv_ir::{JointKind, Model, Value};
use nalgebra::{Matrix3, Vector3};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

/// The shared corpus's `skel` directory (through `mbconv-test-support`: a missing corpus skips
/// the test, or fails it under `MBCONV_REQUIRE_CORPUS=1`).
pub fn skel_corpus() -> Option<PathBuf> {
    mbconv_test_support::corpus("skel")
}

/// This crate's directory.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fixtures directory of the project.
pub fn fixtures() -> PathBuf {
    crate_dir().join("../../fixtures/skel")
}

/// Every `*.skel` file under `dir`, sorted.
pub fn skel_files(dir: &Path) -> Vec<PathBuf> {
    mbconv_test_support::files_with_extension(dir, "skel")
}

/// The golden file name for `path` relative to `root`, as the script names it.
pub fn golden_path(prefix: &str, root: &Path, path: &Path) -> PathBuf {
    let relative = path
        .strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('/', "__");
    crate_dir()
        .join("tests/golden")
        .join(format!("{prefix}__{relative}.json"))
}

/// The SKEL name of an item (the original when the importer renamed it).
pub fn skel_name<'a>(name: &'a str, extras: &'a mbconv_ir::Extras) -> &'a str {
    match extras.get("skel.name") {
        Some(Value::String(s)) => s,
        _ => name,
    }
}

fn dart_type(kind: &JointKind) -> &'static str {
    match kind {
        JointKind::Fixed => "WeldJoint",
        JointKind::Revolute { .. } => "RevoluteJoint",
        JointKind::Prismatic { .. } => "PrismaticJoint",
        JointKind::Screw { .. } => "ScrewJoint",
        JointKind::Universal { .. } => "UniversalJoint",
        JointKind::Spherical => "BallJoint",
        JointKind::Euler { .. } => "EulerJoint",
        JointKind::Translational => "TranslationalJoint",
        JointKind::Planar { .. } => "PlanarJoint",
        JointKind::Free => "FreeJoint",
        _ => "?",
    }
}

fn f(v: &Json) -> f64 {
    match v {
        Json::String(s) if s == "inf" => f64::INFINITY,
        Json::String(s) if s == "-inf" => f64::NEG_INFINITY,
        other => other.as_f64().unwrap(),
    }
}

/// Largest differences found by [`compare`].
#[derive(Debug, Default, Clone, Copy)]
pub struct Deviation {
    /// Body world pose (rotation matrix and translation entries).
    pub pose: f64,
    /// Mass.
    pub mass: f64,
    /// Local centre of mass and moment of inertia entries.
    pub inertia: f64,
    /// Body world velocities.
    pub velocity: f64,
    /// Number of bodies compared.
    pub bodies: usize,
    /// Number of free-joint body velocities compared.
    pub free_velocities: usize,
}

/// Compares `model` with DART's golden record; panics with the file name on a structural
/// mismatch and returns the largest numeric deviations.
pub fn compare(model: &Model, golden: &Json, file: &str) -> Deviation {
    let tree = SpanningTree::new(model);
    let poses = world_poses(model, &tree, Configuration::Initial);
    let skeletons = golden["skeletons"].as_array().unwrap();
    assert_eq!(model.groups.len(), skeletons.len(), "{file}: skeleton count");
    let mut dev = Deviation::default();
    for (group, skel) in model.groups.iter().zip(skeletons) {
        let bodies = skel["bodies"].as_array().unwrap();
        assert_eq!(
            group.bodies.len(),
            bodies.len(),
            "{file}: bodies of skeleton {}",
            group.name
        );
        for gb in bodies {
            let name = gb["name"].as_str().unwrap();
            let b = group
                .bodies
                .iter()
                .filter_map(|n| model.body_index(n))
                .find(|&i| skel_name(&model.bodies[i].name, &model.bodies[i].extras) == name)
                .unwrap_or_else(|| panic!("{file}: body {name} not imported"));
            let body = &model.bodies[b];
            let t = gb["world_transform"].as_array().unwrap();
            let rot = poses[b].rotation.to_rotation_matrix().into_inner();
            for i in 0..3 {
                let row = t[i].as_array().unwrap();
                for j in 0..3 {
                    dev.pose = dev.pose.max((f(&row[j]) - rot[(i, j)]).abs());
                }
                dev.pose = dev.pose.max((f(&row[3]) - poses[b].translation[i]).abs());
            }
            dev.mass = dev.mass.max((f(&gb["mass"]) - body.inertial.mass).abs());
            let com = gb["local_com"].as_array().unwrap();
            let moment = gb["moment_of_inertia"].as_array().unwrap();
            let tensor: Matrix3<f64> = body.inertial.inertia_in_body_axes();
            for i in 0..3 {
                dev.inertia = dev.inertia.max((f(&com[i]) - body.inertial.com[i]).abs());
                let row = moment[i].as_array().unwrap();
                for j in 0..3 {
                    dev.inertia = dev.inertia.max((f(&row[j]) - tensor[(i, j)]).abs());
                }
            }
            assert_eq!(
                gb["gravity_mode"].as_bool().unwrap(),
                body.gravity,
                "{file}: gravity of {name}"
            );
            dev.bodies += 1;
            // Free joints whose parent is at rest: the body velocity the IR's v0 stands for.
            if let Attachment::Joint {
                joint,
                parent,
                reversed: false,
            } = tree.attachments[b]
                && model.joints[joint].kind == JointKind::Free
            {
                let parent_at_rest = match parent {
                    None => true,
                    Some(p) => {
                        let pname = skel_name(&model.bodies[p].name, &model.bodies[p].extras);
                        bodies.iter().find(|g| g["name"] == pname).is_some_and(|g| {
                            ["linear_velocity_world", "angular_velocity_world"]
                                .iter()
                                .all(|k| g[*k].as_array().unwrap().iter().all(|x| f(x) == 0.0))
                        })
                    }
                };
                if parent_at_rest {
                    let j = &model.joints[joint];
                    let parent_pose = parent.map_or_else(mbconv_ir::Pose::identity, |p| poses[p]);
                    let frame = parent_pose * j.parent_frame;
                    let v = frame.rotation * Vector3::new(j.v0[0], j.v0[1], j.v0[2]);
                    let w = frame.rotation * Vector3::new(j.v0[3], j.v0[4], j.v0[5]);
                    let joint_origin = poses[b].transform_point(&j.child_frame.translation);
                    let v_body = v + w.cross(&(poses[b].translation - joint_origin));
                    let lin = gb["linear_velocity_world"].as_array().unwrap();
                    let ang = gb["angular_velocity_world"].as_array().unwrap();
                    for i in 0..3 {
                        dev.velocity = dev.velocity.max((f(&lin[i]) - v_body[i]).abs());
                        dev.velocity = dev.velocity.max((f(&ang[i]) - w[i]).abs());
                    }
                    dev.free_velocities += 1;
                }
            }
        }
        let joints = skel["joints"].as_array().unwrap();
        let group_joints: Vec<&mbconv_ir::Joint> =
            group.joints.iter().filter_map(|n| model.joint(n)).collect();
        assert_eq!(
            group_joints.len(),
            joints.len(),
            "{file}: joints of skeleton {}",
            group.name
        );
        for gj in joints {
            let name = gj["name"].as_str().unwrap();
            let child = gj["child"].as_str().unwrap();
            let j = group_joints
                .iter()
                .find(|j| {
                    skel_name(&j.name, &j.extras) == name
                        && j.child
                            .name()
                            .and_then(|c| model.body(c))
                            .is_some_and(|c| skel_name(&c.name, &c.extras) == child)
                })
                .unwrap_or_else(|| panic!("{file}: joint {name} not imported"));
            assert_eq!(
                dart_type(&j.kind),
                gj["type"].as_str().unwrap(),
                "{file}: type of joint {name}"
            );
            assert_eq!(
                j.kind.nv() as u64,
                gj["dofs"].as_u64().unwrap(),
                "{file}: dofs of joint {name}"
            );
            let positions: Vec<f64> = gj["positions"].as_array().unwrap().iter().map(f).collect();
            let velocities: Vec<f64> = gj["velocities"].as_array().unwrap().iter().map(f).collect();
            if j.kind == JointKind::Free {
                let q = &j.q0;
                assert_eq!(
                    positions,
                    vec![q[3], q[4], q[5], q[0], q[1], q[2]],
                    "{file}: positions of {name}"
                );
            } else {
                assert_eq!(positions, j.q0, "{file}: positions of {name}");
                assert_eq!(velocities, j.v0, "{file}: velocities of {name}");
            }
            let props = gj["dof_properties"].as_array().unwrap();
            let order: Vec<usize> = if j.kind == JointKind::Free {
                vec![3, 4, 5, 0, 1, 2]
            } else {
                (0..j.kind.nv()).collect()
            };
            for (d, p) in props.iter().enumerate() {
                let dof = j.dof(order[d]);
                let lim = p["position_limits"].as_array().unwrap();
                assert_eq!(
                    dof.position_limits.lower.unwrap_or(f64::NEG_INFINITY),
                    f(&lim[0]),
                    "{file}: {name} lower"
                );
                assert_eq!(
                    dof.position_limits.upper.unwrap_or(f64::INFINITY),
                    f(&lim[1]),
                    "{file}: {name} upper"
                );
                assert_eq!(dof.damping, f(&p["damping"]), "{file}: {name} damping");
                assert_eq!(dof.friction, f(&p["friction"]), "{file}: {name} friction");
                assert_eq!(
                    dof.spring_stiffness,
                    f(&p["spring_stiffness"]),
                    "{file}: {name} stiffness"
                );
                assert_eq!(
                    dof.spring_rest_position,
                    f(&p["rest_position"]),
                    "{file}: {name} rest"
                );
            }
        }
    }
    if let Some(g) = golden.get("gravity").and_then(|g| g.as_array()) {
        let ir = model.simulation.gravity.unwrap();
        for i in 0..3 {
            assert_eq!(ir[i], f(&g[i]), "{file}: gravity");
        }
        assert_eq!(
            model.simulation.time_step.unwrap(),
            f(&golden["time_step"]),
            "{file}: time step"
        );
    }
    dev
}
