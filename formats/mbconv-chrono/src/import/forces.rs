//! Spring-dampers: TSDAs and RSDAs, with Chrono's precedence of characteristic keys.

use super::fields::{Ctx, Fields};
use super::links::{axis_frames, body_pose, local_point, named};
use crate::raw::Node;
use crate::spec::FORMAT;
use crate::spec::frames as convert;
use mbconv_ir::format::SourceError;
use mbconv_ir::format::kit::aids;
use mbconv_ir::{
    BodyRef, Category, Extras, ForceElement, ForceKind, Model, Rsda, Severity, SpringDamperLaw, SpringStyle,
    SpringVisual, Tsda,
};
use nalgebra::Vector3;
use std::collections::HashSet;

const LAW_KEYS: &[&str] = &[
    "spring_coefficient",
    "damping_coefficient",
    "degressivity_compression",
    "degressivity_expansion",
    "spring_curve_data",
    "damping_curve_data",
    "deformation",
    "map_data",
];

fn curve(ctx: &Ctx, node: &Node, what: &str) -> Result<Vec<[f64; 2]>, Box<SourceError>> {
    ctx.expect_list(node, what)?;
    node.items().iter().map(|r| ctx.fixed::<2>(r, what)).collect()
}

/// The spring-damper law by Chrono's key precedence; returns the law and the keys it used.
fn law(
    ctx: &Ctx,
    f: &mut Fields,
    tsda: bool,
) -> Result<(SpringDamperLaw, Vec<&'static str>), Box<SourceError>> {
    let mut get = |k: &str| f.get(k);
    let k = get("spring_coefficient");
    let c = get("damping_coefficient");
    let (dc, de) = if tsda {
        (get("degressivity_compression"), get("degressivity_expansion"))
    } else {
        (None, None)
    };
    let sc = get("spring_curve_data");
    let dcd = get("damping_curve_data");
    let (def, map) = if tsda {
        (get("deformation"), get("map_data"))
    } else {
        (None, None)
    };
    let num = |n: Option<&Node>, w: &str| n.map(|n| ctx.number(n, w)).transpose();
    let mut law = SpringDamperLaw::None;
    let mut used = Vec::new();
    if k.is_some() {
        law = SpringDamperLaw::Linear {
            stiffness: num(k, "spring_coefficient")?,
            damping: num(c, "damping_coefficient")?,
        };
        used = vec!["spring_coefficient", "damping_coefficient"];
    } else if let Some(c) = c {
        let damping = ctx.number(c, "damping_coefficient")?;
        if let (Some(dc), Some(de)) = (dc, de) {
            law = SpringDamperLaw::DegressiveDamper {
                damping,
                degressivity_compression: ctx.number(dc, "degressivity_compression")?,
                degressivity_expansion: ctx.number(de, "degressivity_expansion")?,
            };
            used = vec![
                "damping_coefficient",
                "degressivity_compression",
                "degressivity_expansion",
            ];
        } else {
            law = SpringDamperLaw::Linear {
                stiffness: None,
                damping: Some(damping),
            };
            used = vec!["damping_coefficient"];
        }
    }
    if sc.is_some() || dcd.is_some() {
        law = SpringDamperLaw::Curves {
            spring: sc
                .map(|n| curve(ctx, n, "a spring curve point [deformation, force]"))
                .transpose()?,
            damping: dcd
                .map(|n| curve(ctx, n, "a damping curve point [velocity, force]"))
                .transpose()?,
        };
        used = vec!["spring_curve_data", "damping_curve_data"];
    }
    if let Some(map) = map {
        let def_node = def.ok_or_else(|| ctx.error(map, "map_data needs `deformation`"))?;
        let deformations = ctx.numbers(def_node, "deformation")?;
        ctx.expect_list(map, "map_data")?;
        let (mut velocities, mut forces) = (Vec::new(), Vec::new());
        for row in map.items() {
            let r = ctx.numbers(row, "a map_data row [velocity, forces…]")?;
            if r.len() != deformations.len() + 1 {
                return Err(ctx.error(
                    row,
                    format!(
                        "expected a list of {} numbers (velocity and one force per deformation), found {} numbers",
                        deformations.len() + 1,
                        r.len()
                    ),
                ));
            }
            velocities.push(r[0]);
            forces.push(r[1..].to_vec());
        }
        law = SpringDamperLaw::Map {
            deformations,
            velocities,
            forces,
        };
        used = vec!["deformation", "map_data"];
    }
    Ok((law, used))
}

fn has_spring(law: &SpringDamperLaw) -> bool {
    match law {
        SpringDamperLaw::Linear { stiffness, .. } => stiffness.is_some(),
        SpringDamperLaw::Curves { spring, .. } => spring.is_some(),
        SpringDamperLaw::Map { .. } => true,
        _ => false,
    }
}

/// Law keys present but overridden by a later rule: kept as extras and reported.
fn overridden(ctx: &mut Ctx, node: &Node, used: &[&str], extras: &mut Extras, ip: &str) {
    for key in LAW_KEYS {
        if let Some(n) = node.get(key)
            && !n.is_null()
            && !used.contains(key)
        {
            extras.insert(format!("chrono.{key}"), n.to_value());
            ctx.finding(
                "chrono.key_ignored",
                Severity::Warning,
                Category::Ignored,
                ip,
                Some(n),
                format!("`{key}` is overridden by the other characteristic keys (Chrono's precedence); kept verbatim"),
            );
        }
    }
}

/// A value Chrono ignores for this element: zero in the IR, the written value kept.
fn ignored_value(ctx: &mut Ctx, node: &Node, key: &str, why: &str, extras: &mut Extras, ip: &str) {
    extras.insert(format!("chrono.{key}"), node.to_value());
    ctx.finding(
        "chrono.key_ignored",
        Severity::Warning,
        Category::Ignored,
        ip,
        Some(node),
        format!("Chrono ignores `{key}` {why}; kept verbatim"),
    );
}

pub(super) fn tsdas(ctx: &mut Ctx, model: &mut Model, list: &Node) -> Result<(), Box<SourceError>> {
    let mut seen = HashSet::new();
    for node in list.items() {
        let (mut f, name, ip) = named(ctx, node, "a TSDA", "force_elements", &mut seen)?;
        let mut extras = Extras::default();
        let (b1, p1) = body_pose(ctx, model, &mut f, "body1")?;
        let (b2, p2) = body_pose(ctx, model, &mut f, "body2")?;
        let point1 = local_point(ctx, &mut f, "point1", &p1, &mut extras)?;
        let point2 = local_point(ctx, &mut f, "point2", &p2, &mut extras)?;
        let free_length = match f.get("free_length") {
            Some(n) => ctx.number(n, "free_length")?,
            None => {
                ctx.defaulted(&ip, Some(node), "free_length defaults to 0 (Chrono's parser)");
                0.0
            }
        };
        let (law, used) = law(ctx, &mut f, true)?;
        overridden(ctx, node, &used, &mut extras, &ip);
        let spring = has_spring(&law);
        let mut preload = 0.0;
        if let Some(n) = f.get("preload") {
            if spring {
                preload = ctx.number(n, "preload")?;
            } else {
                ignored_value(
                    ctx,
                    n,
                    "preload",
                    "without a spring characteristic",
                    &mut extras,
                    &ip,
                );
            }
        }
        let stops = spring && !matches!(law, SpringDamperLaw::Map { .. });
        let mut lengths = [None, None];
        for (i, key) in ["minimum_length", "maximum_length"].iter().enumerate() {
            if let Some(n) = f.get(key) {
                if stops {
                    lengths[i] = Some(ctx.number(n, key)?);
                } else {
                    ignored_value(ctx, n, key, "for a damper-only or map element", &mut extras, &ip);
                }
            }
        }
        if matches!(law, SpringDamperLaw::None) {
            ctx.finding(
                "chrono.tsda_no_law",
                Severity::Warning,
                Category::Note,
                &ip,
                Some(node),
                "no spring or damper characteristic: Chrono reports an unsupported TSDA and applies no force"
                    .into(),
            );
        }
        let visualization = match f.get("visualization") {
            Some(v) => Some(spring_visual(ctx, v, &mut extras, &ip)?),
            None => None,
        };
        f.finish_into(ctx, &mut extras, "", &ip);
        model.force_elements.push(ForceElement {
            name,
            kind: ForceKind::Tsda(Tsda {
                body1: BodyRef::body(b1),
                point1,
                body2: BodyRef::body(b2),
                point2,
                free_length,
                preload,
                law,
                min_length: lengths[0],
                max_length: lengths[1],
                visualization,
            }),
            extras,
        });
    }
    Ok(())
}

fn spring_visual(
    ctx: &mut Ctx,
    node: &Node,
    extras: &mut Extras,
    ip: &str,
) -> Result<SpringVisual, Box<SourceError>> {
    let mut f = Fields::new(ctx, node, "TSDA visualization")?;
    let ty_node = f.req(ctx, "type")?;
    let style = match ctx.upper(ty_node, "visualization type")?.as_str() {
        "SEGMENT" => SpringStyle::Segment,
        "SPRING" => SpringStyle::Spring,
        other => {
            return Err(ctx.error(
                ty_node,
                format!("unknown TSDA visualization type {other:?}; expected SEGMENT or SPRING"),
            ));
        }
    };
    let count = |ctx: &Ctx, n: &Node, what: &str| -> Result<u32, Box<SourceError>> {
        let x = ctx.number(n, what)?;
        if x.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&x) {
            return Err(ctx.error(n, format!("expected a whole number for {what}")));
        }
        Ok(x as u32)
    };
    let radius = f.get("radius").map(|n| ctx.number(n, "radius")).transpose()?;
    let resolution = f
        .get("resolution")
        .map(|n| count(ctx, n, "resolution"))
        .transpose()?;
    let turns = f.get("turns").map(|n| count(ctx, n, "turns")).transpose()?;
    let color = f
        .get("color")
        .map(|n| ctx.fixed::<3>(n, "color [r, g, b]"))
        .transpose()?;
    if let Some(c) = f.node().get("color") {
        ctx.finding(
            "chrono.tsda_color",
            Severity::Info,
            Category::Note,
            ip,
            Some(c),
            "Chrono's parser does not read a TSDA visualization colour; mbconv keeps it".into(),
        );
    }
    f.finish_into(ctx, extras, "visualization.", ip);
    Ok(SpringVisual {
        style,
        radius,
        resolution,
        turns,
        color,
    })
}

pub(super) fn rsdas(ctx: &mut Ctx, model: &mut Model, list: &Node) -> Result<(), Box<SourceError>> {
    let mut seen: HashSet<String> = HashSet::new();
    for node in list.items() {
        let (mut f, name, ip) = named(ctx, node, "an RSDA", "force_elements", &mut seen)?;
        let mut extras = Extras::default();
        let (b1, p1) = body_pose(ctx, model, &mut f, "body1")?;
        let (b2, p2) = body_pose(ctx, model, &mut f, "body2")?;
        let location = match f.get("location") {
            Some(n) => Some(ctx.vec3(n, "RSDA location")?),
            None => None,
        };
        let axis_node = f.req(ctx, "axis")?;
        let axis = ctx.vec3(axis_node, "RSDA axis")?;
        let loc = location.unwrap_or_else(Vector3::zeros);
        // The location is kept even when absent (written [0, 0, 0]): the writer must give back
        // the same frames.
        let (frame1, frame2) = axis_frames(ctx, axis_node, "RSDA", &loc, &axis, &p1, &p2, &mut extras)?;
        let free_angle = match f.get("free_angle") {
            Some(n) => {
                let written = ctx.number(n, "free_angle")?;
                let a = convert::angle_in(written, ctx.degrees);
                aids::keep(
                    &mut extras,
                    FORMAT,
                    "free_angle",
                    &[written],
                    &[convert::angle_out(a, ctx.degrees)],
                );
                a
            }
            None => {
                ctx.defaulted(&ip, Some(node), "free_angle defaults to 0");
                0.0
            }
        };
        let (law, used) = law(ctx, &mut f, false)?;
        overridden(ctx, node, &used, &mut extras, &ip);
        let mut preload = 0.0;
        if let Some(n) = f.get("preload") {
            if has_spring(&law) {
                preload = ctx.number(n, "preload")?;
            } else {
                ignored_value(
                    ctx,
                    n,
                    "preload",
                    "without a spring characteristic",
                    &mut extras,
                    &ip,
                );
            }
        }
        f.finish_into(ctx, &mut extras, "", &ip);
        model.force_elements.push(ForceElement {
            name,
            kind: ForceKind::Rsda(Rsda {
                body1: BodyRef::body(b1),
                frame1,
                body2: BodyRef::body(b2),
                frame2,
                free_angle,
                preload,
                law,
            }),
            extras,
        });
    }
    Ok(())
}
