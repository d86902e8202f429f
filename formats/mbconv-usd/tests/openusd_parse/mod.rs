//! OpenUSD's parse of a stage (`UsdPhysics.LoadUsdPhysicsFromRange`, as
//! `oracles/usd/usd_golden.py`'s `describe` writes it) beside mbconv's reading of the same stage,
//! shared by the reader's test (`tests/golden.rs`: the USD fixtures, the corpus, the peers'
//! stages) and the writer's (`tests/openusd.rs`: every stage mbconv writes from the other
//! formats).

#![allow(dead_code)] // each test crate uses its part

use mbconv_ir::{BodyRef, JointKind, Model, Pose};
use mbconv_usd::PrimPaths;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use serde_json::Value;

/// The relative difference allowed between a number mbconv reads and OpenUSD's where both read
/// the same 32-bit float of the stage.
pub const SAME_FLOAT: f64 = 1e-12;

/// The relative difference allowed where mbconv reads the `mbconv:` double the writer writes
/// beside a 32-bit float OpenUSD reads (docs/formats/usd.md, "32-bit floats and the `mbconv:`
/// doubles"): half a float's unit in the last place, 2^-24, and the rounding of a conversion
/// from degrees.
pub const FLOAT_BESIDE_DOUBLE: f64 = 1e-7;

pub fn vector(v: &Value) -> Vector3<f64> {
    Vector3::from_iterator(v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
}

pub fn rotation(v: &Value) -> UnitQuaternion<f64> {
    let q: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]))
}

/// Asserts that the pose `a` is `position` and `rot` within 1e-6 (relative to 1 + |position|,
/// and radians): OpenUSD composes and reports poses in 32-bit floats.
pub fn close(a: &Pose, position: Vector3<f64>, rot: UnitQuaternion<f64>, what: &str) {
    assert!(
        (a.translation - position).norm() <= 1e-6 * (1.0 + position.norm()),
        "{what}: {a:?} vs {position:?}"
    );
    assert!(a.rotation.angle_to(&rot) <= 1e-6, "{what}: {a:?} vs {rot:?}");
}

/// The first line of a caught panic's message (a failed comparison's).
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default();
    message.lines().next().unwrap_or_default().to_owned()
}

/// The index of the item read from the prim `path`.
pub fn at(paths: &[String], path: &str) -> Option<usize> {
    paths.iter().position(|p| p == path)
}

/// True for an item OpenUSD parsed that mbconv's writer marked `mbconv:world` (the anchors
/// standing for the world, and the fixed joints holding them; the golden data of mbconv's
/// written stages says so per body and joint).
pub fn world_mark(item: &Value) -> bool {
    item["mbconv_world"].as_bool() == Some(true)
}

/// The IR joint kind's name as OpenUSD's parse names its descriptor (`D6Joint` for the kinds
/// a generic `PhysicsJoint` holds).
pub fn descriptor(kind: &JointKind) -> &'static str {
    match kind {
        JointKind::Fixed => "FixedJoint",
        JointKind::Revolute { .. } => "RevoluteJoint",
        JointKind::Prismatic { .. } => "PrismaticJoint",
        JointKind::Spherical => "SphericalJoint",
        _ => "D6Joint",
    }
}

/// Compares the model read from a stage with OpenUSD's parse of it, item by item, matched by
/// prim path (OpenUSD's names; several prims may share a name). `same` is the relative
/// difference allowed between masses and limits ([`SAME_FLOAT`], [`FLOAT_BESIDE_DOUBLE`]).
///
/// A rigid body marked `mbconv:world` (an anchor of mbconv's writer) is the world, as the
/// reader takes it; the fixed joints marked so are not joints of the model, and a body they
/// weld to an anchor is a fixed body (`mbconv:fixed`), whose stand-in mass (1 kg where the
/// model's is zero, which the `mbconv:` double keeps) is not compared.
pub fn compare(model: &Model, paths: &PrimPaths, golden: &Value, stage: &str, same: f64) {
    let l = golden["meters_per_unit"].as_f64().unwrap();
    let m = golden["kilograms_per_unit"].as_f64().unwrap();
    let all_bodies = golden["bodies"].as_array().unwrap();
    let anchors: Vec<&Value> = all_bodies.iter().filter(|b| world_mark(b)).collect();
    let bodies: Vec<&Value> = all_bodies.iter().filter(|b| !world_mark(b)).collect();
    let all_joints = golden["joints"].as_array().unwrap();
    // The bodies welded to an anchor: fixed in the world.
    let welded: Vec<&str> = all_joints
        .iter()
        .filter(|j| world_mark(j) && !j["body0"].as_str().unwrap().is_empty())
        .filter_map(|j| j["body1"].as_str())
        .collect();
    assert_eq!(bodies.len(), model.bodies.len(), "{stage}: bodies");
    for g in bodies {
        let name = g["path"].as_str().unwrap();
        let body = at(&paths.bodies, name)
            .map(|i| &model.bodies[i])
            .unwrap_or_else(|| panic!("{stage}: no body {name}"));
        close(
            &body.pose,
            vector(&g["position"]) * l,
            rotation(&g["rotation"]),
            &format!("{stage}: body {name}"),
        );
        let fixed = welded.contains(&name);
        assert_eq!(
            body.fixed,
            g["kinematic"].as_bool().unwrap() || fixed,
            "{stage}: {name} kinematic or welded to an anchor"
        );
        let stand_in = fixed && (body.inertial.mass == 0.0 || body.inertial.inertia.0 == [[0.0; 3]; 3]);
        if let Some(mass) = g["mass"].as_f64().filter(|x| *x > 0.0 && !stand_in) {
            let expected = mass * m;
            assert!(
                (body.inertial.mass - expected).abs() <= same * expected,
                "{stage}: {name} mass {} vs {expected}",
                body.inertial.mass
            );
        }
    }
    // A PhysicsDistanceJoint is read as a constraint (or kept in extras), not a joint.
    let joints: Vec<&Value> = all_joints
        .iter()
        .filter(|g| g["type"] != "DistanceJoint" && !world_mark(g))
        .collect();
    assert_eq!(joints.len(), model.joints.len(), "{stage}: joints");
    // One side of a joint as OpenUSD gives it: its body and the joint frame in that body's frame.
    // A side OpenUSD names that is no rigid body is a static collider (`static0`/`static1`: its
    // world pose), which holds the joint to the world: the frame is then a world pose; so is a
    // side naming an anchor of mbconv's writer.
    let side = |g: &Value, k: usize| -> (BodyRef, Pose) {
        let path = g[format!("body{k}")].as_str().unwrap();
        let local = Pose::new(
            vector(&g[format!("local_pos{k}")]) * l,
            rotation(&g[format!("local_rot{k}")]),
        );
        let standing = g
            .get(format!("static{k}"))
            .or_else(|| anchors.iter().copied().find(|a| a["path"] == path));
        if let Some(collider) = standing {
            let at = Pose::new(vector(&collider["position"]) * l, rotation(&collider["rotation"]));
            return (BodyRef::World, at * local);
        }
        match at(&paths.bodies, path) {
            _ if path.is_empty() => (BodyRef::World, local),
            Some(i) => (BodyRef::body(model.bodies[i].name.clone()), local),
            None => panic!("{stage}: OpenUSD names {path} as a joint's body, which is no body"),
        }
    };
    for g in joints {
        let name = g["path"].as_str().unwrap();
        let joint = at(&paths.joints, name)
            .map(|i| &model.joints[i])
            .unwrap_or_else(|| panic!("{stage}: no joint {name}"));
        let what = format!("{stage}: joint {name}");
        let kind = descriptor(&joint.kind);
        let golden_kind = g["type"].as_str().unwrap();
        // OpenUSD reports a generic PhysicsJoint as a D6 joint; the reader names its kind.
        assert!(
            golden_kind == kind || golden_kind == "D6Joint",
            "{what}: {golden_kind} vs {kind}"
        );
        // The reader may turn a generic joint's two frames alike so that the IR kind's axes are
        // its free ones (a point on a line along Y, ...): by an axis permutation.
        let turn = if golden_kind == "D6Joint" {
            side(g, 0).1.rotation.inverse() * joint.parent_frame.rotation
        } else {
            UnitQuaternion::identity()
        };
        let m = turn.to_rotation_matrix().into_inner();
        assert!(
            m.iter().all(|x| x.abs() < 1e-6 || (x.abs() - 1.0).abs() < 1e-6),
            "{what}: frames turned by {turn:?}, not an axis permutation"
        );
        for (k, body, frame) in [
            (0, &joint.parent, &joint.parent_frame),
            (1, &joint.child, &joint.child_frame),
        ] {
            let (expected, pose) = side(g, k);
            assert_eq!(*body, expected, "{what}: body{k}");
            close(
                frame,
                pose.translation,
                pose.rotation * turn,
                &format!("{what}: frame {k}"),
            );
        }
        if let (Some(limit), "RevoluteJoint" | "PrismaticJoint") = (g["limit"].as_array(), golden_kind) {
            let unit = if golden_kind == "RevoluteJoint" {
                std::f64::consts::PI / 180.0
            } else {
                l
            };
            let limits = joint.dofs[0].position_limits;
            for (read, bound) in [(limits.lower, &limit[0]), (limits.upper, &limit[1])] {
                let bound = bound.as_f64().unwrap();
                if bound.is_finite() {
                    let expected = bound * unit;
                    assert!(
                        (read.unwrap() - expected).abs() <= same * expected.abs(),
                        "{what}: limit {read:?} vs {expected}"
                    );
                }
            }
        }
    }
}
