//! Where elements sit: `pos` and orientations as written (`quat` and its alternatives, with the
//! defaults geoms and sites may take them from), `<replicate>` copies, and `<site>`s as named
//! frames.

use super::Reader;
use super::bodies::{Items, Place, pose};
use crate::import::compiler::defaults::ClassId;
use crate::import::compiler::orientation::{Alternative, orientation, resolve};
use crate::raw::{Element, Loc};
use crate::spec::arith::{Frame, normalize, z_to_quat};
use mbconv_ir::Value;
use mbconv_ir::format::kit::SourceResult;

impl<'d> Reader<'d> {
    /// `pos` and the orientation of an element without defaults (body, frame, inertial).
    /// Frames resolve their alternative without normalising `quat` first, as MuJoCo does.
    pub(super) fn own_orientation(&self, e: &Element, is_frame: bool) -> SourceResult<Frame> {
        let pos = self.values.own_fixed::<3>(e, "pos")?.unwrap_or([0.0; 3]);
        let quat = self.quat_attr(e)?.unwrap_or([1.0, 0.0, 0.0, 0.0]);
        let alt = self.alternative_of(e)?;
        let c = &self.compiler;
        let q = match (&alt, is_frame) {
            (Some((a, loc)), _) => resolve(a, c.angle, c.eulerseq).map_err(|err| {
                self.error(loc, "orientation", format!("error '{err}' in frame alternative"))
            })?,
            (None, true) => quat,
            (None, false) => orientation(quat, None, c.angle, c.eulerseq).unwrap_or(quat),
        };
        Ok(Frame { pos, quat: q })
    }

    /// An element's own `quat` (a zero quaternion refused).
    pub(super) fn quat_attr(&self, e: &Element) -> SourceResult<Option<[f64; 4]>> {
        let q = self.values.own_fixed::<4>(e, "quat")?;
        if q == Some([0.0; 4])
            && let Some(a) = e.attr("quat")
        {
            return Err(self.error(&a.loc, "orientation", "zero quaternion is not allowed"));
        }
        Ok(q)
    }

    /// The element's own orientation alternative, refusing two specifiers.
    pub(super) fn alternative_of(&self, e: &Element) -> SourceResult<Option<(Alternative, Loc)>> {
        let mut found: Vec<(Alternative, Loc)> = Vec::new();
        let v = self.values;
        for name in ["axisangle", "xyaxes", "zaxis", "euler"] {
            let Some(a) = e.attr(name) else { continue };
            let len = match name {
                "axisangle" => 4,
                "xyaxes" => 6,
                _ => 3,
            };
            let n = v.numbers(a, len, false)?;
            let mut buf = [0.0; 6];
            buf[..n.len()].copy_from_slice(&n);
            let alt = match name {
                "axisangle" => Alternative::AxisAngle([buf[0], buf[1], buf[2], buf[3]]),
                "xyaxes" => Alternative::XyAxes(buf),
                "zaxis" => Alternative::ZAxis([buf[0], buf[1], buf[2]]),
                _ => Alternative::Euler([buf[0], buf[1], buf[2]]),
            };
            found.push((alt, a.loc.clone()));
        }
        let count = found.len() + usize::from(e.attr("quat").is_some());
        if count > 1 {
            return Err(self.error(
                &e.loc,
                "orientation",
                "multiple orientation specifiers are not allowed",
            ));
        }
        Ok(found.pop())
    }

    /// Orientation of a geom or site, whose defaults may carry `quat` or an alternative: the
    /// last alternative set along the class chain and the element wins over any `quat`.
    pub(super) fn class_orientation(
        &self,
        e: &'d Element,
        kind: &str,
        class: ClassId,
    ) -> SourceResult<[f64; 4]> {
        let v = self.values;
        let mut alt: Option<(&str, Vec<f64>)> = None;
        let mut quat = [1.0, 0.0, 0.0, 0.0];
        let mut loc = e.loc.clone();
        for id in v.classes.chain(class) {
            let own: Vec<(&str, &&crate::raw::Attr)> = v.classes.own(id, kind).collect();
            for name in ["quat", "axisangle", "xyaxes", "zaxis", "euler"] {
                let Some((_, a)) = own.iter().find(|(n, _)| *n == name) else {
                    continue;
                };
                let len = match name {
                    "quat" | "axisangle" => 4,
                    "xyaxes" => 6,
                    _ => 3,
                };
                let n = v.numbers(a, len, name == "quat")?;
                if name == "quat" {
                    quat.copy_from_slice(&n);
                } else {
                    let mut merged = match &alt {
                        Some((k, prev)) if *k == name => prev.clone(),
                        _ => vec![0.0; len],
                    };
                    merged[..n.len()].copy_from_slice(&n);
                    alt = Some((name, merged));
                    loc = a.loc.clone();
                }
            }
        }
        if let Some(q) = self.quat_attr(e)? {
            quat = q;
        }
        if let Some((a, l)) = self.alternative_of(e)? {
            let (name, n): (&str, Vec<f64>) = match a {
                Alternative::AxisAngle(x) => ("axisangle", x.to_vec()),
                Alternative::XyAxes(x) => ("xyaxes", x.to_vec()),
                Alternative::ZAxis(x) => ("zaxis", x.to_vec()),
                Alternative::Euler(x) => ("euler", x.to_vec()),
            };
            let written = e
                .attr(name)
                .map(|a| a.value.split_ascii_whitespace().count())
                .unwrap_or(n.len());
            let mut merged = match &alt {
                Some((k, prev)) if *k == name => prev.clone(),
                _ => vec![0.0; n.len()],
            };
            merged[..written].copy_from_slice(&n[..written]);
            alt = Some((name, merged));
            loc = l;
        }
        let alt = alt.map(|(name, n)| match name {
            "axisangle" => Alternative::AxisAngle([n[0], n[1], n[2], n[3]]),
            "xyaxes" => Alternative::XyAxes([n[0], n[1], n[2], n[3], n[4], n[5]]),
            "zaxis" => Alternative::ZAxis([n[0], n[1], n[2]]),
            _ => Alternative::Euler([n[0], n[1], n[2]]),
        });
        let c = &self.compiler;
        orientation(quat, alt.as_ref(), c.angle, c.eulerseq).map_err(|err| {
            self.error(
                &loc,
                "orientation",
                format!("orientation specification error '{err}' in {kind}"),
            )
        })
    }

    /// `<replicate count offset euler sep>`: `count` copies of the children, copy `i` turned by
    /// `i·euler` and moved by the offsets of the copies before it (each turned like its copy),
    /// every name in copy `i` suffixed by `sep` and `i` padded to the digits of `count`.
    pub(super) fn replicate(
        &mut self,
        c: &'d Element,
        place: Place,
        items: &mut Items<'d>,
        world: bool,
    ) -> SourceResult<()> {
        let v = self.values;
        let Some(count_attr) = c.attr("count") else {
            return Err(self.error(&c.loc, "replicate", "required attribute missing: 'count'"));
        };
        let count = v.integer(count_attr)?;
        if count <= 0 {
            return Err(self.error(
                &count_attr.loc,
                "replicate",
                "count must be positive in replicate",
            ));
        }
        let offset = v.own_fixed::<3>(c, "offset")?.unwrap_or([0.0; 3]);
        let euler = v.own_fixed::<3>(c, "euler")?.unwrap_or([0.0; 3]);
        let sep = c.value("sep").unwrap_or("").to_string();
        let class = self.class_of(c, place.class)?;
        let class = self.childclass(c, class)?;
        let (unit, seq) = (self.compiler.angle, self.compiler.eulerseq);
        let step = resolve(&Alternative::Euler(euler), unit, seq).unwrap_or([1.0, 0.0, 0.0, 0.0]);
        let digits = count.to_string().len();
        let mut pos = [0.0; 3];
        for i in 0..count {
            let turned = i as f64;
            let quat = resolve(&Alternative::Euler(euler.map(|a| turned * a)), unit, seq)
                .unwrap_or([1.0, 0.0, 0.0, 0.0]);
            let copy = Frame { pos, quat };
            let mut accumulated = Frame { pos, quat };
            accumulated = accumulated.compose(&Frame {
                pos: offset,
                quat: step,
            });
            pos = accumulated.pos;
            let suffix = format!("{sep}{i:0digits$}{}", self.suffixes[place.suffix]);
            self.suffixes.push(suffix);
            let frame = place.frame.compose(&copy);
            let inner = Place {
                frame,
                class,
                suffix: self.suffixes.len() - 1,
                ..place
            };
            self.collect(c, inner, items, world)?;
        }
        Ok(())
    }

    /// A site: a named frame.
    pub(super) fn site(
        &mut self,
        s: &'d Element,
        place: Place,
        owner: &str,
    ) -> SourceResult<mbconv_ir::Frame> {
        let v = self.values;
        let class = self.class_of(s, place.class)?;
        let pos = v.vector(s, "site", class, "pos", &[0.0; 3], true)?.0;
        let mut local = Frame {
            pos: [pos[0], pos[1], pos[2]],
            quat: [1.0, 0.0, 0.0, 0.0],
        };
        if v.get(s, "site", class, "fromto").is_some() {
            let ft = v.vector(s, "site", class, "fromto", &[0.0; 6], true)?.0;
            let mut d = [ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5]];
            normalize(&mut d);
            local.pos = fromto_midpoint(&ft);
            local.quat = z_to_quat(&d);
        } else {
            local.quat = self.class_orientation(s, "site", class)?;
        }
        let mut placed = place.frame.compose(&local);
        normalize(&mut placed.quat);
        let wanted = self.name_of(s, place).unwrap_or_else(|| "site".to_string());
        let name = self
            .session
            .unique_name(&format!("{owner}.frames"), &wanted, owner);
        let mut frame = mbconv_ir::Frame {
            name,
            pose: pose(&placed),
            kind: mbconv_ir::FrameKind::Frame,
            extras: mbconv_ir::Extras::default(),
        };
        for a in &s.attrs {
            match a.name.as_str() {
                "name" | "pos" | "quat" | "axisangle" | "xyaxes" | "zaxis" | "euler" | "fromto" => {}
                _ => frame
                    .extras
                    .insert(format!("mjcf.{}", a.name), Value::String(a.value.clone())),
            }
        }
        if s.value("name").is_none() {
            frame.extras.insert("mjcf.unnamed", Value::Bool(true));
        }
        if let Some(origins) = self.class_origins(s, "site", class) {
            frame.extras.insert("mjcf.from_class", origins);
        }
        Ok(frame)
    }
}

/// The midpoint of a `fromto` segment `[x1, y1, z1, x2, y2, z2]`: where a site or geom given by
/// `fromto` is centred.
pub(super) fn fromto_midpoint(ft: &[f64]) -> [f64; 3] {
    [
        (ft[0] + ft[3]) / 2.0,
        (ft[1] + ft[4]) / 2.0,
        (ft[2] + ft[5]) / 2.0,
    ]
}
