//! `<pose>`: the translation and rotation as written (`rotation_format`, `degrees`) and the
//! frame it is `relative_to`.

use super::Reader;
use crate::raw::SDF;
use crate::spec;
use mbconv_ir::Pose;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::Category;
use mbconv_xml::{Node, child, span_of_attribute};
use nalgebra::Vector3;

impl Reader<'_> {
    /// The `<pose>` child of `node` (identity when absent) and its `relative_to`, read in
    /// every version (`frame`, of 1.5 and 1.6, is reported and ignored).
    pub(super) fn pose_of(&mut self, file: usize, node: Node) -> SourceResult<(Pose, Option<String>)> {
        let Some(pose) = child(node, "pose") else {
            return Ok((Pose::identity(), None));
        };
        let source = self.files[file].clone();
        let at = self.loc(file, pose);
        let mut relative_to = None;
        // Read in every version: libsdformat converts each file to its newest version first.
        if let Some(r) = pose.attribute("relative_to") {
            relative_to = Some(r.to_owned()).filter(|r| !r.is_empty());
        }
        if pose.attribute("frame").is_some_and(|f| !f.is_empty()) {
            self.warn(
                "ignored",
                Category::Ignored,
                "model",
                at,
                "`frame` of <pose> is ignored, as libsdformat ignores it".to_owned(),
            );
        }
        let values = SDF.numbers(&source, pose)?;
        let format = pose.attribute("rotation_format").unwrap_or("euler_rpy");
        let degrees = match pose.attribute("degrees") {
            Some(d) => match d.to_ascii_lowercase().as_str() {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => {
                    return Err(SDF.error(
                        &source,
                        "bool",
                        Some(span_of_attribute(&source, pose, "degrees")),
                        format!("`degrees` expects true or false, found {d:?}"),
                    ));
                }
            },
            None => false,
        };
        if values.is_empty() {
            return Ok((Pose::identity(), relative_to));
        }
        let rotation = match (format, values.len()) {
            ("euler_rpy", 6) => {
                let scale = if degrees {
                    std::f64::consts::PI / 180.0
                } else {
                    1.0
                };
                spec::rpy([values[3] * scale, values[4] * scale, values[5] * scale])
            }
            ("quat_xyzw", 7) => {
                if degrees {
                    return Err(SDF.error(&source, "pose", Some(at.span()), "`degrees` is meaningless with rotation_format=\"quat_xyzw\" (libsdformat refuses it)"));
                }
                match mbconv_ir::rotation::normalize_wxyz([values[6], values[3], values[4], values[5]]) {
                    Some((q, _)) => q,
                    None => {
                        return Err(SDF.error(
                            &source,
                            "pose",
                            Some(at.span()),
                            "the quaternion of <pose> is zero or not finite",
                        ));
                    }
                }
            }
            ("euler_rpy" | "quat_xyzw", n) => {
                let want = if format == "euler_rpy" { 6 } else { 7 };
                return Err(SDF.error(
                    &source,
                    "count",
                    Some(at.span()),
                    format!("<pose> with rotation_format={format:?} needs {want} numbers, found {n}"),
                ));
            }
            (other, _) => {
                return Err(SDF.error(
                    &source,
                    "pose",
                    Some(span_of_attribute(&source, pose, "rotation_format")),
                    format!("unknown rotation_format {other:?} (euler_rpy or quat_xyzw)"),
                ));
            }
        };
        Ok((
            Pose::new(Vector3::new(values[0], values[1], values[2]), rotation),
            relative_to,
        ))
    }
}
