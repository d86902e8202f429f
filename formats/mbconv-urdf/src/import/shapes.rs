//! `<visual>` and `<collision>`: their origin, `<geometry>` (URDF's shapes, Drake's
//! ellipsoid and convex meshes) and a visual's `<material>` (its own colour or texture, or a
//! global material it names).

use super::Reader;
use crate::raw::URDF;
use crate::spec;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::Category;
use mbconv_ir::{Appearance, Extras, Geometry, Shape, ShapeRole, Texture, Value};
use mbconv_xml::{Node, child, elements, qualified_name, span_of_attribute, span_of_node};

impl Reader<'_> {
    /// The colour and texture a `<material>` states, if it states any.
    fn material_content(&mut self, node: Node) -> SourceResult<Option<Appearance>> {
        let src = self.source;
        let mut appearance = Appearance::default();
        let mut any = false;
        if let Some(color) = child(node, "color") {
            let rgba = URDF.attribute_fixed::<4>(src, color, "rgba")?.ok_or_else(|| {
                URDF.error(
                    src,
                    "attribute",
                    Some(self.span(color)),
                    "<color> needs the attribute `rgba`",
                )
            })?;
            appearance.diffuse = Some([rgba[0], rgba[1], rgba[2]]);
            appearance.alpha = Some(rgba[3]);
            any = true;
        }
        if let Some(texture) = child(node, "texture") {
            match texture.attribute("filename") {
                Some(file) => {
                    appearance.texture = Some(Texture {
                        uri: file.to_owned(),
                        repeat_s: true,
                        repeat_t: true,
                    });
                    any = true;
                }
                None => self.note(
                    "texture_empty",
                    Category::Ignored,
                    "model",
                    texture,
                    "a <texture> without `filename` is ignored, as urdfdom (Pinocchio, DART), libsdformat and Drake ignore it",
                ),
            }
        }
        Ok(any.then_some(appearance))
    }

    /// A `<material name>` of `<robot>`: a name the visuals may use.
    pub(super) fn global_material(&mut self, node: Node) -> SourceResult<()> {
        let src = self.source;
        let name = URDF.required_attribute(src, node, "name")?;
        if self.materials.iter().any(|(n, _)| n == name) {
            return Err(URDF.error(
                src,
                "duplicate_material",
                Some(span_of_attribute(src, node, "name")),
                format!("material {name:?} is not unique"),
            ));
        }
        let appearance = self.material_content(node)?.unwrap_or_default();
        self.materials.push((name.to_owned(), appearance));
        Ok(())
    }

    /// A visual's `<material>`: its own colour or texture, else the global material it names.
    /// A named material with content defines that name for the visuals after it, as in
    /// urdfdom. A name defined nowhere before leaves the visual without a material, with a
    /// warning, as urdfdom (since 1.0.4; Pinocchio, DART) reads it.
    fn visual_material(
        &mut self,
        node: Node,
        link: &str,
    ) -> SourceResult<Option<(Appearance, Option<String>)>> {
        let src = self.source;
        let name = node.attribute("name");
        if let Some(appearance) = self.material_content(node)? {
            if name.is_none() {
                self.warn(
                    "material_unnamed",
                    Category::Note,
                    &format!("bodies[{link:?}]"),
                    node,
                    "a <material> without a name: read, as Drake reads it; urdfdom (Pinocchio, DART) refuses it",
                );
            }
            if let Some(name) = name
                && !self.materials.iter().any(|(n, _)| n == name)
            {
                self.materials.push((name.to_owned(), appearance.clone()));
            }
            return Ok(Some((appearance, name.map(str::to_owned))));
        }
        let name = URDF.required_attribute(src, node, "name")?;
        match self.materials.iter().find(|(n, _)| n == name) {
            Some((_, appearance)) => Ok(Some((appearance.clone(), Some(name.to_owned())))),
            None => {
                self.warn(
                    "material_undefined",
                    Category::Dropped,
                    &format!("bodies[{link:?}]"),
                    node,
                    format!("link {link:?}: material {name:?} is not defined (no global <material name={name:?}> and no colour or texture here or before): the visual has no material, as urdfdom (Pinocchio, DART) reads it"),
                );
                Ok(None)
            }
        }
    }
    pub(super) fn shape(
        &mut self,
        node: Node,
        role: ShapeRole,
        link: &str,
        at: &str,
    ) -> SourceResult<Option<Shape>> {
        let mut spelling = Extras::default();
        let pose = self.origin(node, at, &mut spelling, "origin.")?;
        let Some(geometry_node) = child(node, "geometry") else {
            self.warn(
                "geometry_missing",
                Category::Dropped,
                at,
                node,
                format!(
                    "<{}> of link {link:?} has no <geometry>: skipped, as Drake and DART skip it (urdfdom, hence Pinocchio, also drops the link's visuals and collisions after it)",
                    node.tag_name().name()
                ),
            );
            return Ok(None);
        };
        let Some(geometry) = self.geometry(geometry_node, at)? else {
            return Ok(None);
        };
        let mut shape = Shape::new(role, geometry);
        shape.pose = pose;
        shape.extras = spelling;
        shape.name = node.attribute("name").map(str::to_owned);
        for element in elements(node) {
            match element.tag_name().name() {
                "origin" | "geometry" => {}
                "material" if role == ShapeRole::Visual => {
                    if let Some((appearance, name)) = self.visual_material(element, link)? {
                        shape.appearance = Some(appearance);
                        if let Some(name) = name {
                            shape.extras.insert(spec::MATERIAL, Value::String(name));
                        }
                    }
                }
                // A xacro macro call left in the file is skipped with its own warning.
                _ if crate::raw::is_xacro_element(element) => {}
                _ => self.keep_extension(
                    &mut shape.extras,
                    element,
                    at,
                    format!(
                        "<{}> is not URDF proper here: kept verbatim for URDF",
                        qualified_name(element)
                    ),
                ),
            }
        }
        Ok(Some(shape))
    }

    /// The shape of a `<geometry>`; `None` (with a finding) for a geometry urdfdom does not
    /// know, which it skips.
    fn geometry(&mut self, node: Node, at: &str) -> SourceResult<Option<Geometry>> {
        let src = self.source;
        let Some(kind) = elements(node).next() else {
            return Err(URDF.error(
                src,
                "geometry",
                Some(self.span(node)),
                "<geometry> has no shape element",
            ));
        };
        let number = |name: &str| -> SourceResult<f64> {
            URDF.attribute_scalar(src, kind, name)?.ok_or_else(|| {
                URDF.error(
                    src,
                    "attribute",
                    Some(span_of_node(src, kind)),
                    format!("<{}> needs the attribute `{name}`", kind.tag_name().name()),
                )
            })
        };
        Ok(Some(match qualified_name(kind).as_str() {
            "box" => Geometry::Box {
                size: URDF.attribute_fixed::<3>(src, kind, "size")?.ok_or_else(|| {
                    URDF.error(
                        src,
                        "attribute",
                        Some(span_of_node(src, kind)),
                        "<box> needs the attribute `size`",
                    )
                })?,
            },
            "sphere" => Geometry::Sphere {
                radius: number("radius")?,
            },
            "cylinder" => Geometry::Cylinder {
                radius: number("radius")?,
                length: number("length")?,
            },
            "capsule" => {
                let geometry = Geometry::Capsule {
                    radius: number("radius")?,
                    length: number("length")?,
                };
                if !self.version_1_1 {
                    self.note(
                        "capsule",
                        Category::Note,
                        at,
                        kind,
                        "<capsule> is URDF 1.1 (this file says 1.0): read as a capsule, as Drake and newer urdfdom read it; older urdfdom refuses it",
                    );
                }
                geometry
            }
            "mesh" => self.mesh(kind, at)?,
            "drake:ellipsoid" => {
                self.note(
                    "ellipsoid",
                    Category::Note,
                    at,
                    kind,
                    "<drake:ellipsoid> is Drake's extension: read as an ellipsoid, as Drake reads it; urdfdom skips it",
                );
                Geometry::Ellipsoid {
                    radii: [number("a")?, number("b")?, number("c")?],
                }
            }
            other => {
                self.warn(
                    "geometry_dropped",
                    Category::Dropped,
                    at,
                    kind,
                    format!("unknown geometry <{other}>: left out, as urdfdom leaves it out (URDF has box, cylinder, sphere, capsule and mesh)"),
                );
                return Ok(None);
            }
        }))
    }
}
