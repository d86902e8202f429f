//! `<equality>`: `connect` and `weld` between bodies close loops as ball and fixed joints; the
//! other forms are kept as extras and reported.

use super::bodies::pose;
use super::{Reader, verbatim};
use crate::raw::Element;
use crate::spec::arith::{Frame, normalize};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity, path};
use mbconv_ir::{BodyRef, Joint, JointKind, Pose};
use nalgebra::Vector3;

impl<'d> Reader<'d> {
    /// One `<equality>` section.
    pub(super) fn equality(&mut self, section: &'d Element) -> SourceResult<()> {
        for e in &section.children {
            equality(self, e)?;
        }
        Ok(())
    }
}

/// One `<equality>` element: `connect` and `weld` close loops as ball and fixed joints; the
/// rest is kept as extras and reported.
pub(super) fn equality<'d>(r: &mut Reader<'d>, e: &'d Element) -> SourceResult<()> {
    let active = match e.attr("active") {
        Some(a) => r.values.boolean(a)?,
        None => true,
    };
    let kind = e.name.as_str();
    let wanted = e
        .value("name")
        .map(str::to_string)
        .unwrap_or_else(|| format!("{kind}{}", r.model.joints.len()));
    match kind {
        "connect" if e.attr("body1").is_some() && e.attr("anchor").is_none() => {
            return Err(r.error(
                &e.loc,
                "equality",
                "connect with body1 needs an anchor (without one MuJoCo reads site1 and site2)",
            ));
        }
        "connect" | "weld" if e.attr("body1").is_some() => loop_joint(r, e, active, &wanted)?,
        "connect" | "weld" | "joint" | "tendon" | "flex" | "flexvert" | "flexstrain" => kept(r, e, &wanted),
        other => {
            return Err(r.error(
                &e.loc,
                "element",
                format!("unrecognized element <{other}> in <equality>"),
            ));
        }
    }
    Ok(())
}

/// A body an equality names (`body1`, `body2`: a missing `body2` is the world) and its pose.
fn end_body(r: &Reader, e: &Element, attr: &str, required: bool) -> SourceResult<(BodyRef, Pose)> {
    let body_pose = |r: &Reader, name: &str| -> Option<Pose> {
        r.model.bodies.iter().find(|b| b.name == name).map(|b| b.pose)
    };
    match e.attr(attr) {
        None if required => Err(r.error(
            &e.loc,
            "equality",
            format!("required attribute missing: '{attr}'"),
        )),
        None => Ok((BodyRef::World, Pose::identity())),
        Some(a) if a.value == "world" => Ok((BodyRef::World, Pose::identity())),
        Some(a) => match body_pose(r, &a.value) {
            Some(p) => Ok((BodyRef::body(a.value.clone()), p)),
            None => Err(r.error(
                &a.loc,
                "equality",
                format!("unknown body '{}' in equality constraint", a.value),
            )),
        },
    }
}

/// A `connect` (a ball joint at `anchor`) or `weld` (a fixed joint at `relpose`, else where
/// the bodies are at the reference configuration) between two bodies: a loop joint.
fn loop_joint<'d>(r: &mut Reader<'d>, e: &'d Element, active: bool, wanted: &str) -> SourceResult<()> {
    let kind = e.name.as_str();
    let (b1, p1) = end_body(r, e, "body1", true)?;
    let (b2, p2) = end_body(r, e, "body2", false)?;
    let name = r.session.unique_name("joints", wanted, "equality");
    let jpath = path::item("joints", &name);
    r.record(&jpath, &e.loc);
    let rel = p1.inverse() * p2; // body2 in body1 at the reference configuration
    let mut joint = if kind == "connect" {
        let anchor = r.values.own_fixed::<3>(e, "anchor")?.unwrap_or([0.0; 3]);
        let a = Vector3::from(anchor);
        let mut j = Joint::new(name.clone(), JointKind::Spherical, b1, b2);
        j.parent_frame = Pose::from_translation(a);
        // The same point in body2, with axes aligned at the reference configuration.
        let inv = rel.inverse();
        j.child_frame = Pose::new(inv.transform_point(&a), inv.rotation);
        j
    } else {
        let mut j = Joint::new(name.clone(), JointKind::Fixed, b1, b2);
        let relpose = r.values.own_fixed::<7>(e, "relpose")?;
        let target = match relpose {
            Some(rp) if rp[3..].iter().any(|&x| x != 0.0) => {
                let mut q = [rp[3], rp[4], rp[5], rp[6]];
                normalize(&mut q);
                pose(&Frame {
                    pos: [rp[0], rp[1], rp[2]],
                    quat: q,
                })
            }
            _ => rel,
        };
        j.parent_frame = target;
        j
    };
    joint.q0 = vec![0.0; joint.kind.nq()];
    joint.v0 = vec![0.0; joint.kind.nv()];
    joint.enabled = active;
    joint.extras.insert("mjcf.equality", verbatim(e));
    r.model.joints.push(joint);
    Ok(())
}

/// An equality the IR has no home for (or that is not read yet): kept as an extra, reported.
fn kept(r: &mut Reader, e: &Element, wanted: &str) {
    let kind = e.name.as_str();
    let code = if kind == "joint" {
        "equality_joint"
    } else {
        "equality_kept"
    };
    let what = match kind {
        "joint" => "a joint coupling (polynomial between two joint coordinates) has no IR home",
        "tendon" => "a tendon equality has no IR home",
        _ => "this equality form (sites or flexes) is not read into the IR yet",
    };
    r.append_extra("mjcf.equality", verbatim(e));
    let loc = e.loc.clone();
    r.finding(
        code,
        Severity::Warning,
        Category::Dropped,
        "",
        Some(&loc),
        format!("<{kind}> equality '{wanted}': {what}; kept as an mjcf.equality extra"),
    );
}
