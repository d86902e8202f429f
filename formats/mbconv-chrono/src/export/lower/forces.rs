//! Force elements: TSDAs and RSDAs with the laws Chrono YAML has, and RSDA frames as Chrono
//! builds them from a location and an axis.

use super::pose_of;
use crate::export::geometry::{axis_geometry, builds_axis_frames};
use crate::spec::FORMAT;
use crate::spec::frames as convert;
use crate::spec::rotation as conv;
use mbconv_ir::format::kit::{LowerSession, aids};
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{Extras, ForceKind, Model, Pose, SpringDamperLaw};
use nalgebra::Vector3;

/// Tolerance for "the same place / the same direction" in the reference configuration.
const GEOMETRY_TOLERANCE: f64 = 1e-9;

/// Removes force elements Chrono YAML has no place for and RSDA laws it cannot say.
pub(super) fn force_elements(s: &mut LowerSession, model: &mut Model) {
    let mut kept = Vec::new();
    for mut f in std::mem::take(&mut model.force_elements) {
        let ip = path::item("force_elements", &f.name);
        match &mut f.kind {
            ForceKind::Tsda(_) => {}
            ForceKind::Rsda(r) => {
                if matches!(
                    r.law,
                    SpringDamperLaw::DegressiveDamper { .. } | SpringDamperLaw::Map { .. }
                ) {
                    s.lost(
                        "rsda_law_lost",
                        Feature::Rsda,
                        &ip,
                        format!(
                            "an RSDA cannot have a {} law in Chrono YAML: written without a law",
                            law_name(&r.law)
                        ),
                    );
                    r.law = SpringDamperLaw::None;
                }
            }
            other => {
                let (what, feature) = match other {
                    ForceKind::Bushing(_) => ("bushing_element_lost", Feature::Bushings),
                    _ => ("restraint_lost", Feature::Restraints),
                };
                s.lost(
                    what,
                    feature,
                    &ip,
                    format!(
                        "Chrono YAML has no {} force element (only TSDA, RSDA and joint bushings)",
                        other.type_name()
                    ),
                );
                continue;
            }
        }
        s.strip_foreign_extras(&mut f.extras, &ip);
        kept.push(f);
    }
    model.force_elements = kept;
}

fn law_name(law: &SpringDamperLaw) -> &'static str {
    match law {
        SpringDamperLaw::Linear { .. } => "linear",
        SpringDamperLaw::DegressiveDamper { .. } => "degressive damper",
        SpringDamperLaw::Curves { .. } => "curve",
        SpringDamperLaw::Map { .. } => "map",
        SpringDamperLaw::None => "no",
    }
}

/// Puts every RSDA's frames where Chrono builds them from the written location and axis.
pub(super) fn rsda_frames(s: &mut LowerSession, model: &mut Model) {
    let mut elements = std::mem::take(&mut model.force_elements);
    for f in &mut elements {
        let ForceKind::Rsda(r) = &mut f.kind else { continue };
        let ip = path::item("force_elements", &f.name);
        let (p1, p2) = (pose_of(model, &r.body1), pose_of(model, &r.body2));
        axis_frames(
            s,
            (&ip, "rsda", Feature::Rsda),
            &mut f.extras,
            (&p1, &mut r.frame1),
            (&p2, &mut r.frame2),
        );
    }
    model.force_elements = elements;
}

/// Makes a frame pair the one Chrono builds from the location and axis written for it; the
/// item is at `ip`, its findings are `<item>_frames_apart` / `<item>_frame_turned` on `feature`.
pub(super) fn axis_frames(
    s: &mut LowerSession,
    (ip, item, feature): (&str, &str, Feature),
    extras: &mut Extras,
    (p1, f1): (&Pose, &mut Pose),
    (p2, f2): (&Pose, &mut Pose),
) {
    let written = axis_geometry(extras, p1, f1, p2, f2);
    if builds_axis_frames(&written, p1, f1, p2, f2) {
        return;
    }
    let x = *p1 * *f1;
    let Some(built) = convert::axis_frame(&written.0, &written.1) else {
        return;
    };
    if x.distance(&(*p2 * *f2)) > GEOMETRY_TOLERANCE {
        s.approximated(
            &format!("{item}_frames_apart"),
            feature,
            ip,
            "the two frames do not coincide in the reference configuration; Chrono places both at body 1's frame",
        );
    }
    if conv::motor_frame_from_axis(&written.1).is_some_and(|q| q.angle_to(&x.rotation) > GEOMETRY_TOLERANCE) {
        s.note(
            &format!("{item}_frame_turned"),
            feature,
            ip,
            "frame turned about its axis: Chrono rebuilds it from the axis alone",
        );
    }
    *f1 = convert::to_local_frame(p1, &built);
    *f2 = convert::to_local_frame(p2, &built);
    for key in ["location", "axis"] {
        extras.remove(&aids::key(FORMAT, key));
    }
    let again = *p1 * *f1;
    let v3 = convert::v3;
    aids::keep(
        extras,
        FORMAT,
        "location",
        &v3(&written.0),
        &v3(&again.translation),
    );
    aids::keep(
        extras,
        FORMAT,
        "axis",
        &v3(&written.1),
        &v3(&(again.rotation * Vector3::z())),
    );
}
