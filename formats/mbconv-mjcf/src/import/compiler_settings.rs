//! `<compiler>`: the settings the reader applies (angle unit, Euler sequence, limits, how
//! inertia comes from geoms, mass bounds, mesh directory, ...), each also kept as a
//! `mjcf.compiler.*` extra of the main model.

use super::Reader;
use crate::import::compiler::orientation::{AngleUnit, EulerSeq};
use crate::raw::Element;
use mbconv_ir::Value;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity};

/// `<compiler inertiafromgeom>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FromGeom {
    False,
    True,
    Auto,
}

/// The `<compiler>` settings the reader applies.
#[derive(Debug, Clone)]
pub(crate) struct Compiler {
    pub angle: AngleUnit,
    pub eulerseq: EulerSeq,
    pub autolimits: bool,
    pub inertiafromgeom: FromGeom,
    pub inertiagrouprange: [i64; 2],
    pub boundmass: f64,
    pub boundinertia: f64,
    pub balanceinertia: bool,
    pub settotalmass: f64,
    pub discardvisual: bool,
    pub alignfree: bool,
    pub meshdir: Option<String>,
    pub fitaabb: bool,
}

impl Default for Compiler {
    fn default() -> Self {
        Compiler {
            angle: AngleUnit::Degree,
            eulerseq: EulerSeq::default(),
            autolimits: true,
            inertiafromgeom: FromGeom::Auto,
            inertiagrouprange: [0, 5],
            boundmass: 0.0,
            boundinertia: 0.0,
            balanceinertia: false,
            settotalmass: -1.0,
            discardvisual: false,
            alignfree: false,
            meshdir: None,
            fitaabb: false,
        }
    }
}

impl<'d> Reader<'d> {
    /// One `<compiler>` element: its settings, in force for what is read after it.
    pub(super) fn compiler_section(&mut self, c: &'d Element) -> SourceResult<()> {
        let v = self.values;
        for a in &c.attrs {
            match a.name.as_str() {
                "angle" => {
                    self.compiler.angle = AngleUnit::parse(a.value.trim()).ok_or_else(|| {
                        v.files.error(
                            &a.loc,
                            "keyword",
                            format!("invalid angle {:?}: degree or radian", a.value),
                        )
                    })?
                }
                "eulerseq" => {
                    self.compiler.eulerseq = EulerSeq::parse(a.value.trim()).ok_or_else(|| {
                        v.files.error(
                            &a.loc,
                            "keyword",
                            "euler sequence can only contain x, y, z, X, Y, Z (three of them)",
                        )
                    })?
                }
                "autolimits" => self.compiler.autolimits = v.boolean(a)?,
                "inertiafromgeom" => {
                    self.compiler.inertiafromgeom = match v.keyword(a, &["false", "true", "auto"])? {
                        "false" => FromGeom::False,
                        "true" => FromGeom::True,
                        _ => FromGeom::Auto,
                    }
                }
                "inertiagrouprange" => {
                    let n = v.numbers(a, 2, true)?;
                    self.compiler.inertiagrouprange = [n[0] as i64, n[1] as i64];
                }
                "boundmass" => self.compiler.boundmass = v.numbers(a, 1, true)?[0],
                "boundinertia" => self.compiler.boundinertia = v.numbers(a, 1, true)?[0],
                "balanceinertia" => self.compiler.balanceinertia = v.boolean(a)?,
                "settotalmass" => self.compiler.settotalmass = v.numbers(a, 1, true)?[0],
                "discardvisual" => self.compiler.discardvisual = v.boolean(a)?,
                "alignfree" => self.compiler.alignfree = v.boolean(a)?,
                "fitaabb" => self.compiler.fitaabb = v.boolean(a)?,
                "meshdir" => self.compiler.meshdir = Some(a.value.clone()),
                "assetdir" if self.compiler.meshdir.is_none() => {
                    self.compiler.meshdir = Some(a.value.clone())
                }
                "coordinate" if a.value == "global" => {
                    return Err(v.files.error(
                        &a.loc,
                        "compiler",
                        "global coordinates no longer supported. To convert existing models, load and save them in MuJoCo 2.3.3 or older",
                    ));
                }
                "fusestatic" if v.boolean(a)? => {
                    let loc = a.loc.clone();
                    self.finding(
                            "fusestatic",
                            Severity::Info,
                            Category::Note,
                            "",
                            Some(&loc),
                            "fusestatic: MuJoCo fuses bodies without joints into their parents; mbconv keeps them as bodies welded by fixed joints (the same motion)",
                        );
                }
                _ => {}
            }
            if self.current == 0 {
                self.model.extras.insert(
                    format!("mjcf.compiler.{}", a.name),
                    Value::String(a.value.clone()),
                );
            }
        }
        Ok(())
    }
}
