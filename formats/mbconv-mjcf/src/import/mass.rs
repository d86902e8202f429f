//! Mass properties: `<inertial>` as written, the IR inertial of a body's mass as the compiler
//! leaves it, and the compiler's `settotalmass`.

use super::Reader;
use crate::import::compiler::inertia::{self, BodyInertia, BodyMass};
use crate::import::compiler::orientation::orientation;
use crate::raw::Element;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity};
use mbconv_ir::{Inertia, Inertial};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};

impl<'d> Reader<'d> {
    /// `<inertial>` as written: mass, centre and principal moments with their axes, or a full
    /// tensor, with MuJoCo's checks.
    pub(super) fn inertial(&self, i: &'d Element) -> SourceResult<BodyMass> {
        let v = self.values;
        let Some(pos) = v.own_fixed::<3>(i, "pos")? else {
            return Err(self.error(&i.loc, "inertial", "required attribute missing: 'pos'"));
        };
        let Some(mass) = v.own_scalar(i, "mass")? else {
            return Err(self.error(&i.loc, "inertial", "required attribute missing: 'mass'"));
        };
        let full = v.own_fixed::<6>(i, "fullinertia")?;
        let diag = v.own_fixed::<3>(i, "diaginertia")?;
        let alt = self.alternative_of(i)?;
        if let Some(full) = full {
            if alt.is_some() || i.attr("quat").is_some() {
                return Err(self.error(
                    &i.loc,
                    "inertial",
                    "fullinertia and inertial orientation cannot both be specified",
                ));
            }
            if diag.is_some_and(|d| d.iter().any(|&x| x != 0.0)) {
                return Err(self.error(
                    &i.loc,
                    "inertial",
                    "fullinertia and diagonal inertia cannot both be specified",
                ));
            }
            inertia::check_full_inertia(&full)
                .map_err(|err| self.error(&i.loc, "inertial", format!("error '{err}' in fullinertia")))?;
            return Ok(BodyMass {
                mass,
                com: pos,
                inertia: BodyInertia::Full(full),
            });
        }
        let quat = self.quat_attr(i)?.unwrap_or([1.0, 0.0, 0.0, 0.0]);
        let c = &self.compiler;
        let q = orientation(quat, alt.as_ref().map(|(a, _)| a), c.angle, c.eulerseq).map_err(|err| {
            self.error(
                &i.loc,
                "inertial",
                format!("error '{err}' in inertia alternative"),
            )
        })?;
        Ok(BodyMass {
            mass,
            com: pos,
            inertia: BodyInertia::Principal {
                moments: diag.unwrap_or([0.0; 3]),
                quat: q,
            },
        })
    }

    /// The compiler's `settotalmass`: every mass and inertia scaled to the total, reported.
    pub(super) fn settotalmass(&mut self) {
        let target = self.compiler.settotalmass;
        if target <= 0.0 {
            return;
        }
        let total: f64 = self.model.bodies.iter().map(|b| b.inertial.mass).sum();
        if total <= 0.0 {
            return;
        }
        let scale = target / total;
        for b in &mut self.model.bodies {
            b.inertial.mass *= scale;
            for row in b.inertial.inertia.0.iter_mut() {
                for x in row.iter_mut() {
                    *x *= scale;
                }
            }
        }
        self.finding(
            "settotalmass",
            Severity::Info,
            Category::Note,
            "",
            None,
            format!("settotalmass: every mass and inertia scaled by {scale} to a total of {target} kg"),
        );
    }
}

/// The IR inertial of a body's mass as the compiler leaves it.
pub(super) fn ir_inertial(m: &BodyMass) -> Inertial {
    let com = Vector3::new(m.com[0], m.com[1], m.com[2]);
    match m.inertia {
        BodyInertia::Principal { moments, quat } => Inertial {
            mass: m.mass,
            com,
            inertia: Inertia::from_moments_products(moments, [0.0; 3]),
            inertia_rotation: UnitQuaternion::new_unchecked(Quaternion::new(
                quat[0], quat[1], quat[2], quat[3],
            )),
        },
        BodyInertia::Full(t) => Inertial {
            mass: m.mass,
            com,
            inertia: Inertia::from_moments_products([t[0], t[1], t[2]], [t[3], t[4], t[5]]),
            inertia_rotation: UnitQuaternion::identity(),
        },
    }
}
