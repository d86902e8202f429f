//! `<keyframe>`: every `<key>` checked against the model's sizes as MuJoCo checks them, and the
//! one the `keyframe` setting picks applied as the joints' initial positions and velocities.

use super::Reader;
use super::bodies::pose;
use super::joints::MjJoint;
use crate::raw::Element;
use mbconv_ir::Value;
use mbconv_ir::format::Options;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};

impl<'d> Reader<'d> {
    /// Checks every `<key>` and applies the one the `keyframe` setting picks, if any.
    pub(super) fn keyframe(&mut self, options: &Options) -> SourceResult<()> {
        let keys: Vec<&'d Element> = self
            .root
            .children_named("keyframe")
            .flat_map(|k| k.children_named("key"))
            .collect();
        // MuJoCo checks the sizes of every keyframe, used or not.
        for key in &keys {
            check_keyframe(self, key)?;
        }
        let Some(wanted) = options
            .text("keyframe")
            .filter(|k| !k.is_empty() && *k != "qpos0")
        else {
            return Ok(());
        };
        let picked = match wanted.parse::<usize>() {
            Ok(i) => keys.get(i).copied(),
            Err(_) => keys.iter().copied().find(|k| k.value("name") == Some(wanted)),
        };
        let Some(key) = picked else {
            let names: Vec<String> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| k.value("name").map_or(i.to_string(), |n| format!("{i} ({n})")))
                .collect();
            return Err(Box::new(self.session.source.error(
                "mjcf.keyframe",
                None,
                format!(
                    "no keyframe {wanted:?} in this model; keyframes: {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            )));
        };
        apply_keyframe(self, key)
    }
}

/// Numbers of position and velocity coordinates, as MuJoCo counts them.
fn sizes(r: &Reader) -> (usize, usize) {
    r.qpos_layout.iter().fold((0, 0), |(q, v), s| match s.kind {
        MjJoint::Free => (q + 7, v + 6),
        MjJoint::Ball => (q + 4, v + 3),
        _ => (q + 1, v + 1),
    })
}

/// A keyframe's `qpos` and `qvel`, checked against the model's sizes (MuJoCo's messages).
#[allow(clippy::type_complexity)]
pub(super) fn check_keyframe(
    r: &Reader,
    key: &Element,
) -> SourceResult<(Option<Vec<f64>>, Option<Vec<f64>>)> {
    let (nq, nv) = sizes(r);
    let name = key.value("name").unwrap_or("");
    let read = |attr: &str, n: usize| -> SourceResult<Option<Vec<f64>>> {
        let Some(a) = key.attr(attr) else { return Ok(None) };
        let q = r.values.numbers(a, usize::MAX, false)?;
        if !q.is_empty() && q.len() != n {
            return Err(r.error(
                &a.loc,
                "keyframe",
                format!(
                    "Keyframe '{name}' has invalid {attr} size, got {}, should be {n}",
                    q.len()
                ),
            ));
        }
        Ok((!q.is_empty()).then_some(q))
    };
    Ok((read("qpos", nq)?, read("qvel", nv)?))
}

/// Sets joint initial positions and velocities from a `<key>`.
pub(super) fn apply_keyframe<'d>(r: &mut Reader<'d>, key: &'d Element) -> SourceResult<()> {
    let (qpos, qvel) = check_keyframe(r, key)?;
    let (mut iq, mut iv) = (0usize, 0usize);
    for slot in r.qpos_layout.clone() {
        let Some(joint) = r.model.joints.iter_mut().find(|j| j.name == slot.name) else {
            continue;
        };
        match slot.kind {
            MjJoint::Hinge | MjJoint::Slide => {
                if let Some(q) = &qpos {
                    joint.q0 = vec![q[iq] - slot.reference];
                }
                if let Some(v) = &qvel {
                    joint.v0 = vec![v[iv]];
                }
                iq += 1;
                iv += 1;
            }
            MjJoint::Ball => {
                if let Some(q) = &qpos {
                    let rv = rotation_vector([q[iq], q[iq + 1], q[iq + 2], q[iq + 3]]);
                    joint.q0 = rv.to_vec();
                }
                if let Some(v) = &qvel {
                    joint.v0 = v[iv..iv + 3].to_vec();
                }
                iq += 4;
                iv += 3;
            }
            MjJoint::Free => {
                // MuJoCo: world position and orientation; linear velocity in world axes,
                // angular velocity in body axes. The IR: relative to the parent joint frame.
                let f = pose(&slot.frame);
                if let Some(q) = &qpos {
                    let p = f.inverse_transform_point(&Vector3::new(q[iq], q[iq + 1], q[iq + 2]));
                    let world = UnitQuaternion::from_quaternion(Quaternion::new(
                        q[iq + 3],
                        q[iq + 4],
                        q[iq + 5],
                        q[iq + 6],
                    ));
                    let rel = f.rotation.inverse() * world;
                    let rv = rel.scaled_axis();
                    joint.q0 = vec![p.x, p.y, p.z, rv.x, rv.y, rv.z];
                }
                if let Some(v) = &qvel {
                    let lin = f.rotation.inverse() * Vector3::new(v[iv], v[iv + 1], v[iv + 2]);
                    let q_now = match &qpos {
                        Some(q) => UnitQuaternion::from_quaternion(Quaternion::new(
                            q[iq + 3],
                            q[iq + 4],
                            q[iq + 5],
                            q[iq + 6],
                        )),
                        None => f.rotation,
                    };
                    let ang = f.rotation.inverse() * (q_now * Vector3::new(v[iv + 3], v[iv + 4], v[iv + 5]));
                    joint.v0 = vec![lin.x, lin.y, lin.z, ang.x, ang.y, ang.z];
                }
                iq += 7;
                iv += 6;
            }
        }
    }
    let name = key.value("name").unwrap_or("").to_string();
    r.model
        .extras
        .insert("mjcf.keyframe_applied", Value::String(name));
    let loc = key.loc.clone();
    r.finding(
        "keyframe",
        Severity::Info,
        Category::Note,
        "",
        Some(&loc),
        "initial joint positions and velocities from this keyframe (MuJoCo itself starts at qpos0 unless the keyframe is reset to)",
    );
    Ok(())
}

/// The rotation vector of a quaternion (normalised first, as MuJoCo normalises ball joints).
fn rotation_vector(q: [f64; 4]) -> [f64; 3] {
    let u = UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]));
    let v = u.scaled_axis();
    [v.x, v.y, v.z]
}
