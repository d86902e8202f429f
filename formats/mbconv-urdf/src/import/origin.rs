//! `<origin xyz rpy | quat_xyzw>`: the pose of an inertial, a shape or a joint, with the
//! angles as written kept when the writer would not give them back bit for bit.

use super::Reader;
use crate::raw::URDF;
use crate::spec;
use mbconv_ir::format::kit::{SourceResult, aids};
use mbconv_ir::report::Category;
use mbconv_ir::{Extras, Pose};
use mbconv_xml::{Node, child, span_of_attribute};
use nalgebra::Vector3;

impl Reader<'_> {
    /// `<origin xyz rpy | quat_xyzw>`, identity when absent. The angles or quaternion as
    /// written are kept in `extras` under `urdf.source.<aid>rpy` (or `quat_xyzw`) when the
    /// writer would not give them back bit for bit from the rotation.
    pub(super) fn origin(
        &mut self,
        parent: Node,
        at: &str,
        extras: &mut Extras,
        aid: &str,
    ) -> SourceResult<Pose> {
        let Some(origin) = child(parent, "origin") else {
            return Ok(Pose::identity());
        };
        self.pose_of(origin, at, extras, aid)
    }

    fn pose_of(&mut self, origin: Node, at: &str, extras: &mut Extras, aid: &str) -> SourceResult<Pose> {
        let src = self.source;
        let xyz = URDF.attribute_fixed::<3>(src, origin, "xyz")?.unwrap_or([0.0; 3]);
        let rpy = URDF.attribute_fixed::<3>(src, origin, "rpy")?;
        let quat = URDF.attribute_fixed::<4>(src, origin, "quat_xyzw")?;
        let rotation = match (rpy, quat) {
            (Some(_), Some(_)) if self.version_1_1 => {
                return Err(URDF.error(
                    src,
                    "origin",
                    Some(span_of_attribute(src, origin, "quat_xyzw")),
                    "<origin> has both `rpy` and `quat_xyzw`: give one",
                ));
            }
            (_, Some(_)) if !self.version_1_1 => {
                self.warn(
                    "quat_ignored",
                    Category::Ignored,
                    at,
                    origin,
                    "`quat_xyzw` is URDF 1.1 and this file is 1.0 (no `version=\"1.1\"` on <robot>): ignored, as urdfdom ignores it",
                );
                spec::rpy(rpy.unwrap_or([0.0; 3]))
            }
            (None, Some([x, y, z, w])) => match mbconv_ir::rotation::normalize_wxyz([w, x, y, z]) {
                Some((q, norm)) => {
                    if (norm - 1.0).abs() > 1e-6 {
                        self.warn(
                            "quat_normalized",
                            Category::Approximated,
                            at,
                            origin,
                            format!("`quat_xyzw` has norm {norm}: normalised"),
                        );
                    }
                    q
                }
                None => {
                    return Err(URDF.error(
                        src,
                        "origin",
                        Some(span_of_attribute(src, origin, "quat_xyzw")),
                        "`quat_xyzw` is zero or not finite: it is no rotation",
                    ));
                }
            },
            (rpy, _) => spec::rpy(rpy.unwrap_or([0.0; 3])),
        };
        match (rpy, quat) {
            (_, Some(written)) if self.version_1_1 => {
                let fresh = spec::quat_xyzw(&rotation);
                aids::keep(extras, "urdf", &format!("{aid}quat_xyzw"), &written, &fresh);
            }
            (Some(written), _) => {
                let fresh = spec::rpy_angles(&rotation);
                aids::keep(extras, "urdf", &format!("{aid}rpy"), &written, &fresh);
            }
            _ => {}
        }
        Ok(Pose::new(Vector3::from(xyz), rotation))
    }
}
