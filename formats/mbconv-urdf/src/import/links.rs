//! `<link>`: the links in file order (the world link apart), each link's `<inertial>`, and
//! the IR names of the bodies they become.

use super::{LinkEntry, Links, Reader};
use crate::raw::URDF;
use crate::spec;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, path};
use mbconv_ir::{Body, Extras, Inertia, Inertial, ShapeRole};
use mbconv_xml::{Node, child, children, elements, qualified_name, span_of_attribute};
use std::collections::BTreeMap;

impl Reader<'_> {
    /// The `<link>` elements: a body for each but `world`, each name once.
    pub(super) fn links<'a, 'input>(&mut self, robot: Node<'a, 'input>) -> SourceResult<Links<'a, 'input>> {
        let src = self.source;
        let mut links: Vec<LinkEntry> = Vec::new();
        let mut link_index: BTreeMap<String, usize> = BTreeMap::new();
        let mut world_node = None;
        for node in children(robot, "link") {
            let link_name = URDF.required_attribute(src, node, "name")?;
            if link_index.contains_key(link_name) || (link_name == spec::WORLD && world_node.is_some()) {
                return Err(URDF.error(
                    src,
                    "duplicate_link",
                    Some(span_of_attribute(src, node, "name")),
                    format!("link {link_name:?} is not unique"),
                ));
            }
            if link_name == spec::WORLD {
                world_node = Some(node);
                self.world_link(node);
                continue;
            }
            let body = self.link(node, link_name)?;
            link_index.insert(link_name.to_owned(), links.len());
            links.push(LinkEntry { node, body });
        }
        if links.is_empty() {
            return Err(URDF.error(
                src,
                "no_links",
                Some(self.span(robot)),
                "the robot has no links other than the world (urdfdom refuses it)",
            ));
        }
        Ok(Links {
            entries: links,
            index: link_index,
            world: world_node,
        })
    }

    /// The bodies, renamed where a name is taken (links and joints have separate namespaces
    /// in URDF, as in the IR).
    pub(super) fn bodies(&mut self, links: &[LinkEntry]) -> Vec<Body> {
        let mut bodies: Vec<Body> = Vec::with_capacity(links.len());
        for entry in links {
            let mut body = entry.body.clone();
            self.name_item("bodies", "link", &mut body.name, &mut body.extras, entry.node);
            bodies.push(body);
        }
        bodies
    }

    /// A link named `world` is the world: it has no body, so what it carries is dropped.
    fn world_link(&mut self, node: Node) {
        self.note(
            "world_declared",
            Category::Note,
            "model",
            node,
            "the link \"world\" is the world (Pinocchio keeps it as a frame of its universe, MuJoCo and Drake as the world body)",
        );
        for element in elements(node) {
            self.warn(
                "world_content",
                Category::Dropped,
                "model",
                element,
                format!(
                    "<{}> of the link \"world\" is dropped: that link is the world, which has no body",
                    element.tag_name().name()
                ),
            );
        }
    }

    fn link(&mut self, node: Node, name: &str) -> SourceResult<Body> {
        let at = path::item("bodies", name);
        let mut body = Body::new(name);
        match child(node, "inertial") {
            Some(inertial) => body.inertial = self.inertial(inertial, &at, &mut body.extras)?,
            None => {
                body.inertial = Inertial {
                    mass: 0.0,
                    inertia: Inertia([[0.0; 3]; 3]),
                    ..Inertial::default()
                };
                self.session.defaulted(
                    &path::field(&at, "inertial"),
                    Some(self.span(node)),
                    format!(
                        "link {name:?} has no <inertial>: massless, as urdfdom, Pinocchio and Drake read it"
                    ),
                );
            }
        }
        for element in elements(node) {
            let tag = element.tag_name().name();
            match tag {
                "inertial" => {}
                "visual" | "collision" => {
                    let role = if tag == "visual" {
                        ShapeRole::Visual
                    } else {
                        ShapeRole::Collision
                    };
                    let shape_at = path::index(&at, "shapes", body.shapes.len());
                    match self.shape(element, role, name, &shape_at) {
                        Ok(Some(shape)) => {
                            self.session.record(shape_at, self.span(element));
                            body.shapes.push(shape);
                        }
                        Ok(None) => {}
                        // urdfdom logs the error and reads the link without its shapes.
                        Err(error) => self.warn(
                            "shape_unreadable",
                            Category::Dropped,
                            &shape_at,
                            element,
                            format!(
                                "<{tag}> of link {name:?} cannot be read ({}: {}): skipped, as urdfdom skips it \
                                 (Pinocchio reads the link without any of its visuals and collisions)",
                                error.code, error.message
                            ),
                        ),
                    }
                }
                _ if crate::raw::is_xacro_element(element) => {}
                _ => self.keep_extension(
                    &mut body.extras,
                    element,
                    &at,
                    format!(
                        "<{}> of link {name:?} is not URDF proper: kept verbatim for URDF",
                        qualified_name(element)
                    ),
                ),
            }
        }
        if let Some(second) = children(node, "inertial").nth(1) {
            self.warn(
                "ignored",
                Category::Ignored,
                &at,
                second,
                "a second <inertial> is ignored: urdfdom reads the first",
            );
        }
        Ok(body)
    }

    fn inertial(&mut self, node: Node, at: &str, extras: &mut Extras) -> SourceResult<Inertial> {
        let src = self.source;
        let origin = self.origin(node, at, extras, "inertial.origin.")?;
        // urdfdom reads an <inertial> without <mass> or <inertia> (Pinocchio loads such
        // files; MuJoCo refuses them): zero mass, zero tensor.
        let mass = match child(node, "mass") {
            Some(mass_node) => URDF.attribute_scalar(src, mass_node, "value")?.ok_or_else(|| {
                URDF.error(
                    src,
                    "attribute",
                    Some(self.span(mass_node)),
                    "<mass> needs the attribute `value`",
                )
            })?,
            None => {
                self.session.defaulted(
                    &path::field(at, "inertial"),
                    Some(self.span(node)),
                    "<inertial> has no <mass>: 0, as urdfdom reads it",
                );
                0.0
            }
        };
        let mut v = [0.0; 6];
        match child(node, "inertia") {
            Some(inertia_node) => {
                for (k, key) in ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"].iter().enumerate() {
                    v[k] = URDF.attribute_scalar(src, inertia_node, key)?.ok_or_else(|| {
                        URDF.error(
                            src,
                            "attribute",
                            Some(self.span(inertia_node)),
                            format!("<inertia> needs the attribute `{key}`"),
                        )
                    })?;
                }
            }
            None => self.session.defaulted(
                &path::field(at, "inertial"),
                Some(self.span(node)),
                "<inertial> has no <inertia>: a zero tensor, as urdfdom reads it (MuJoCo refuses the file)",
            ),
        }
        let [ixx, ixy, ixz, iyy, iyz, izz] = v;
        Ok(Inertial {
            mass,
            com: origin.translation,
            inertia: Inertia([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]),
            inertia_rotation: origin.rotation,
        })
    }
}
