//! TSDAs and RSDAs.

use super::body::kept_or;
use super::links::{curve, world_point};
use super::{Out, write_extras};
use crate::export::geometry::axis_geometry;
use crate::spec::frames as convert;
use mbconv_ir::{Extras, ForceKind, Pose, SpringDamperLaw, SpringStyle};
use mbconv_yaml::emit::Yaml as Y;

/// The law keys of a TSDA (`tsda`) or an RSDA (lowering left RSDAs only laws they can have).
fn law_entries(law: &SpringDamperLaw, tsda: bool, m: &mut Vec<(String, Y)>) {
    match law {
        SpringDamperLaw::Linear { stiffness, damping } => {
            if let Some(k) = stiffness {
                m.push(("spring_coefficient".into(), Y::Num(*k)));
            }
            if let Some(c) = damping {
                m.push(("damping_coefficient".into(), Y::Num(*c)));
            }
        }
        SpringDamperLaw::DegressiveDamper {
            damping,
            degressivity_compression,
            degressivity_expansion,
        } if tsda => {
            m.push(("damping_coefficient".into(), Y::Num(*damping)));
            m.push((
                "degressivity_compression".into(),
                Y::Num(*degressivity_compression),
            ));
            m.push(("degressivity_expansion".into(), Y::Num(*degressivity_expansion)));
        }
        SpringDamperLaw::Curves { spring, damping } => {
            if let Some(s) = spring {
                m.push(("spring_curve_data".into(), curve(s)));
            }
            if let Some(d) = damping {
                m.push(("damping_curve_data".into(), curve(d)));
            }
        }
        SpringDamperLaw::Map {
            deformations,
            velocities,
            forces,
        } if tsda => {
            m.push(("deformation".into(), Y::nums(deformations)));
            let rows = velocities
                .iter()
                .zip(forces)
                .map(|(v, f)| {
                    let mut r = vec![*v];
                    r.extend_from_slice(f);
                    Y::nums(&r)
                })
                .collect();
            m.push(("map_data".into(), Y::Seq(rows)));
        }
        _ => {}
    }
}

pub(super) fn tsdas(out: &Out) -> Vec<Y> {
    let mut items = Vec::new();
    for f in &out.model.force_elements {
        let ForceKind::Tsda(t) = &f.kind else { continue };
        let (p1, p2) = (out.pose(&t.body1), out.pose(&t.body2));
        let mut m: Vec<(String, Y)> = vec![
            ("name".into(), Y::Str(f.name.clone())),
            ("body1".into(), Y::Str(out.body_name(&t.body1))),
            ("body2".into(), Y::Str(out.body_name(&t.body2))),
            ("point1".into(), world_point(&f.extras, "point1", &p1, &t.point1)),
            ("point2".into(), world_point(&f.extras, "point2", &p2, &t.point2)),
            ("free_length".into(), Y::Num(t.free_length)),
        ];
        if t.preload != 0.0 {
            m.push(("preload".into(), Y::Num(t.preload)));
        }
        if let Some(l) = t.min_length {
            m.push(("minimum_length".into(), Y::Num(l)));
        }
        if let Some(l) = t.max_length {
            m.push(("maximum_length".into(), Y::Num(l)));
        }
        law_entries(&t.law, true, &mut m);
        if let Some(v) = &t.visualization {
            let style = match v.style {
                SpringStyle::Segment => "SEGMENT",
                SpringStyle::Spring => "SPRING",
            };
            let mut vm: Vec<(String, Y)> = vec![("type".into(), Y::Plain(style.into()))];
            if let Some(r) = v.radius {
                vm.push(("radius".into(), Y::Num(r)));
            }
            if let Some(r) = v.resolution {
                vm.push(("resolution".into(), Y::Plain(r.to_string())));
            }
            if let Some(r) = v.turns {
                vm.push(("turns".into(), Y::Plain(r.to_string())));
            }
            if let Some(c) = v.color {
                vm.push(("color".into(), Y::nums(&c)));
            }
            m.push(("visualization".into(), Y::Map(vm)));
        }
        write_extras(&mut m, &f.extras);
        items.push(Y::Map(m));
    }
    items
}

/// Location and axis for a frame pair Chrono builds from them (RSDAs, motors).
pub(super) fn axis_entries(extras: &Extras, p1: &Pose, f1: &Pose, p2: &Pose, f2: &Pose) -> (Y, Y) {
    let (location, axis) = axis_geometry(extras, p1, f1, p2, f2);
    (Y::nums(&convert::v3(&location)), Y::nums(&convert::v3(&axis)))
}

pub(super) fn rsdas(out: &Out) -> Vec<Y> {
    let mut items = Vec::new();
    for f in &out.model.force_elements {
        let ForceKind::Rsda(r) = &f.kind else { continue };
        let (p1, p2) = (out.pose(&r.body1), out.pose(&r.body2));
        let (location, axis) = axis_entries(&f.extras, &p1, &r.frame1, &p2, &r.frame2);
        let d = out.degrees;
        let free = kept_or(
            &f.extras,
            "free_angle",
            &[convert::angle_out(r.free_angle, d)],
            |k| k.len() == 1 && convert::angle_in(k[0], d).to_bits() == r.free_angle.to_bits(),
        );
        let free = match free {
            Y::Flow(mut v) if v.len() == 1 => v.remove(0),
            other => other,
        };
        let mut m: Vec<(String, Y)> = vec![
            ("name".into(), Y::Str(f.name.clone())),
            ("body1".into(), Y::Str(out.body_name(&r.body1))),
            ("body2".into(), Y::Str(out.body_name(&r.body2))),
            ("location".into(), location),
            ("axis".into(), axis),
            ("free_angle".into(), free),
        ];
        if r.preload != 0.0 {
            m.push(("preload".into(), Y::Num(r.preload)));
        }
        law_entries(&r.law, false, &mut m);
        write_extras(&mut m, &f.extras);
        items.push(Y::Map(m));
    }
    items
}
