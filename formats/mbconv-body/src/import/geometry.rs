//! Shape geometry and appearance. Choreonoid's Cylinder, Capsule and Cone stand along their
//! Y axis; the IR's along Z, so their pose gets the fixed turn `spec::y_axis_to_z_axis`. A
//! `scale` from the transform stack is baked into the sizes (exact for sizes along the axes it
//! scales, approximated and noted otherwise).

use super::elements::Note;
use super::fields::{self, Doc, get};
use crate::raw::Node;
use crate::spec::{self, FORMAT};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::{
    Appearance, ElevationGrid, Extras, Extrusion, Geometry, IndexedFaceSet, MeshRef, Pose, Shape, ShapeRole,
    Texture,
};

/// Geometry keys each type consumes (the others go to the shape's extras).
fn consumed(ty: &str) -> &'static [&'static str] {
    match ty {
        "Box" => &["type", "size"],
        "Sphere" => &["type", "radius"],
        "Cylinder" | "Capsule" | "Cone" => &["type", "radius", "height"],
        "Extrusion" => &[
            "type",
            "crossSection",
            "spine",
            "orientation",
            "scale",
            "creaseAngle",
            "beginCap",
            "endCap",
        ],
        "ElevationGrid" => &[
            "type",
            "xDimension",
            "zDimension",
            "xSpacing",
            "zSpacing",
            "height",
            "ccw",
            "creaseAngle",
        ],
        "IndexedFaceSet" | "TriangleMesh" => &[
            "type",
            "coordinate",
            "vertices",
            "coordIndex",
            "faces",
            "texCoord",
            "tex_coords",
            "texCoordIndex",
            "tex_coord_indices",
            "creaseAngle",
        ],
        "Resource" => &["type", "uri", "node"],
        _ => &["type"],
    }
}

/// The shape a `geometry` mapping describes at `pose` with axis `scale` (Choreonoid axes).
pub(crate) fn shape(
    doc: &Doc,
    node: &Node,
    role: ShapeRole,
    pose: Pose,
    scale: [f64; 3],
    notes: &mut Vec<Note>,
) -> SourceResult<Option<Shape>> {
    let Some(ty_node) = node.get("type") else {
        return Err(doc.error("geometry", node, "the geometry has no type"));
    };
    let ty = fields::text(doc, ty_node)?;
    let num = |key: &str, default: f64| -> SourceResult<f64> {
        get(node, key).map_or(Ok(default), |n| fields::number(doc, n))
    };
    let [sx, sy, sz] = scale;
    let uniform = sx == sy && sy == sz;
    let mut approximate = |what: &str| {
        notes.push(Note {
            code: "scale",
            message: format!(
                "a {what} cannot take the scale {scale:?} exactly; sizes were scaled approximately"
            ),
            approximated: true,
        });
    };
    let mut turned = false;
    let geometry = match ty.as_str() {
        "Box" => {
            let size = match node.get("size") {
                Some(n) => fields::array::<3>(doc, n)?,
                None => [1.0; 3],
            };
            Geometry::Box {
                size: [size[0] * sx, size[1] * sy, size[2] * sz],
            }
        }
        "Sphere" => {
            let r = num("radius", 1.0)?;
            if uniform {
                Geometry::Sphere { radius: r * sx }
            } else {
                Geometry::Ellipsoid {
                    radii: [r * sx, r * sy, r * sz],
                }
            }
        }
        "Cylinder" | "Capsule" | "Cone" => {
            let r = num("radius", 1.0)?;
            let h = num("height", 1.0)?;
            if sx != sz || (ty == "Capsule" && !uniform) {
                approximate(&ty);
            }
            let (radius, length) = (r * sx.max(sz), h * sy);
            turned = true;
            match ty.as_str() {
                "Cylinder" => Geometry::Cylinder { radius, length },
                "Capsule" => Geometry::Capsule { radius, length },
                _ => Geometry::Cone { radius, length },
            }
        }
        "Extrusion" => {
            if scale != [1.0; 3] {
                approximate("extrusion");
            }
            let mut orientation = Vec::new();
            if let Some(n) = get(node, "orientation") {
                let flat = fields::numbers(doc, n)?;
                for c in flat.chunks(4) {
                    if let [x, y, z, a] = *c {
                        let a = if doc.degree_mode { spec::radians(a) } else { a };
                        orientation.push([x, y, z, a]);
                    }
                }
            }
            Geometry::Extrusion(Extrusion {
                cross_section: pairs(doc, get(node, "crossSection"))?,
                spine: triples(doc, get(node, "spine"))?,
                orientation,
                scale: pairs(doc, get(node, "scale"))?,
                crease_angle: crease(doc, node)?,
                begin_cap: get(node, "beginCap").map_or(Ok(true), |n| fields::boolean(doc, n))?,
                end_cap: get(node, "endCap").map_or(Ok(true), |n| fields::boolean(doc, n))?,
            })
        }
        "ElevationGrid" => {
            if scale != [1.0; 3] {
                approximate("elevation grid");
            }
            let dim = |key: &str| -> SourceResult<u32> {
                get(node, key).map_or(Ok(0), |n| {
                    fields::integer(doc, n).map(|i| i.clamp(0, u32::MAX as i64) as u32)
                })
            };
            Geometry::ElevationGrid(ElevationGrid {
                x_dimension: dim("xDimension")?,
                z_dimension: dim("zDimension")?,
                x_spacing: num("xSpacing", 1.0)?,
                z_spacing: num("zSpacing", 1.0)?,
                height: get(node, "height").map_or(Ok(Vec::new()), |n| fields::numbers(doc, n))?,
                ccw: get(node, "ccw").map_or(Ok(true), |n| fields::boolean(doc, n))?,
                crease_angle: crease(doc, node)?,
            })
        }
        "IndexedFaceSet" => {
            // Choreonoid's mesh keys: `vertices` or `coordinate`, `faces` or `coordIndex`, ...
            let either = |a: &str, b: &str| node.get(a).or_else(|| node.get(b));
            let coordinate = triples(doc, either("vertices", "coordinate"))?
                .into_iter()
                .map(|[x, y, z]| [x * sx, y * sy, z * sz])
                .collect();
            Geometry::IndexedFaceSet(IndexedFaceSet {
                coordinate,
                coord_index: integers(doc, either("faces", "coordIndex"))?,
                tex_coord: pairs(doc, either("tex_coords", "texCoord"))?,
                tex_coord_index: integers(doc, either("tex_coord_indices", "texCoordIndex"))?,
                crease_angle: crease(doc, node)?,
            })
        }
        "TriangleMesh" => {
            let either = |a: &str, b: &str| node.get(a).or_else(|| node.get(b));
            let vertices = triples(doc, either("vertices", "coordinate"))?
                .into_iter()
                .map(|[x, y, z]| [x * sx, y * sy, z * sz])
                .collect();
            let triangles = integers(doc, either("faces", "coordIndex"))?
                .chunks(3)
                .filter_map(|c| match *c {
                    [a, b, d] => Some([a as u32, b as u32, d as u32]),
                    _ => None,
                })
                .collect();
            Geometry::TriangleMesh { vertices, triangles }
        }
        "Resource" => {
            let uri = match node.get("uri") {
                Some(n) => fields::text(doc, n)?,
                None => return Err(doc.error("uri", node, "a Resource geometry needs a uri")),
            };
            let mut mesh = MeshRef::new(uri.clone());
            if let Some(base) = doc.source.base_dir()
                && !uri.contains("${")
            {
                mesh.resolved_path = Some(base.join(&uri).display().to_string());
            }
            mesh.scale = scale;
            mesh.node = node.get("node").and_then(Node::scalar).map(str::to_owned);
            Geometry::Mesh(mesh)
        }
        other => {
            return Err(doc
                .error("geometry_type", ty_node, format!("unknown geometry type {other:?}"))
                .with_help("known: Box, Sphere, Cylinder, Capsule, Cone, Extrusion, ElevationGrid, IndexedFaceSet, TriangleMesh, Resource")
                .into());
        }
    };
    let mut shape = Shape::new(role, geometry);
    shape.pose = if turned {
        pose * spec::y_axis_to_z_axis()
    } else {
        pose
    };
    let keys = consumed(&ty);
    for (key, value) in node.entries() {
        if !keys.iter().any(|k| fields::is_key(&key.name, k)) {
            shape
                .extras
                .insert(format!("{FORMAT}.geometry.{}", key.name), value.to_value());
        }
    }
    Ok(Some(shape))
}

fn crease(doc: &Doc, node: &Node) -> SourceResult<Option<f64>> {
    get(node, "creaseAngle")
        .map(|n| {
            let x = fields::number(doc, n)?;
            Ok(if doc.degree_mode { spec::radians(x) } else { x })
        })
        .transpose()
}

fn flat(doc: &Doc, node: Option<&Node>) -> SourceResult<Vec<f64>> {
    match node {
        None => Ok(Vec::new()),
        Some(n) if n.items().first().is_some_and(|i| !i.items().is_empty()) => {
            let mut out = Vec::new();
            for item in n.items() {
                out.extend(fields::numbers(doc, item)?);
            }
            Ok(out)
        }
        Some(n) => fields::numbers(doc, n),
    }
}

fn pairs(doc: &Doc, node: Option<&Node>) -> SourceResult<Vec<[f64; 2]>> {
    Ok(flat(doc, node)?.chunks_exact(2).map(|c| [c[0], c[1]]).collect())
}

fn triples(doc: &Doc, node: Option<&Node>) -> SourceResult<Vec<[f64; 3]>> {
    Ok(flat(doc, node)?
        .chunks_exact(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect())
}

fn integers(doc: &Doc, node: Option<&Node>) -> SourceResult<Vec<i64>> {
    Ok(flat(doc, node)?.into_iter().map(|x| x as i64).collect())
}

/// `appearance`: `material` (1.0 and 2.0 key sets) and `texture`.
pub(crate) fn appearance(doc: &Doc, node: &Node, extras: &mut Extras) -> SourceResult<Appearance> {
    let mut out = Appearance::default();
    if let Some(m) = node.get("material") {
        // Format 2.0 names (`diffuse`, ...) and 1.0 names (`diffuseColor`, ...).
        let either = |a: &str, b: &str| m.get(a).or_else(|| m.get(b));
        let color = |a: &str, b: &str| -> SourceResult<Option<[f64; 3]>> {
            either(a, b).map(|n| fields::array::<3>(doc, n)).transpose()
        };
        let scalar = |a: &str, b: &str| -> SourceResult<Option<f64>> {
            either(a, b).map(|n| fields::number(doc, n)).transpose()
        };
        out.diffuse = color("diffuse", "diffuseColor")?;
        out.specular = color("specular", "specularColor")?;
        out.emissive = color("emissive", "emissiveColor")?;
        out.ambient_intensity = scalar("ambient", "ambientIntensity")?;
        out.shininess = scalar("shininess", "shininess")?;
        out.transparency = scalar("transparency", "transparency")?;
        if let Some(x) = scalar("specular_exponent", "specular_exponent")? {
            extras.insert(format!("{FORMAT}.specular_exponent"), mbconv_ir::Value::Float(x));
        }
    }
    if let Some(t) = node.get("texture") {
        let uri = t
            .get("url")
            .or_else(|| t.get("uri"))
            .map(|n| fields::text(doc, n))
            .transpose()?;
        if let Some(uri) = uri {
            out.texture = Some(Texture {
                uri,
                repeat_s: get(t, "repeatS").map_or(Ok(true), |n| fields::boolean(doc, n))?,
                repeat_t: get(t, "repeatT").map_or(Ok(true), |n| fields::boolean(doc, n))?,
            });
        }
    }
    Ok(out)
}
