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
    let mut turned = false;
    let geometry = match ty.as_str() {
        "Box" => box_geometry(doc, node, scale)?,
        "Sphere" => sphere(doc, node, scale)?,
        "Cylinder" | "Capsule" | "Cone" => {
            turned = true;
            along_y(doc, node, &ty, scale, notes)?
        }
        "Extrusion" => extrusion(doc, node, scale, notes)?,
        "ElevationGrid" => elevation_grid(doc, node, scale, notes)?,
        "IndexedFaceSet" => indexed_face_set(doc, node, scale)?,
        "TriangleMesh" => triangle_mesh(doc, node, scale)?,
        "Resource" => resource(doc, node, scale)?,
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

/// The number under `key`, or `default` when the key is absent.
fn number_or(doc: &Doc, node: &Node, key: &str, default: f64) -> SourceResult<f64> {
    get(node, key).map_or(Ok(default), |n| fields::number(doc, n))
}

/// Notes that a `what` took the non-uniform `scale` only approximately.
fn approximate(notes: &mut Vec<Note>, what: &str, scale: [f64; 3]) {
    notes.push(Note {
        code: "scale",
        message: format!("a {what} cannot take the scale {scale:?} exactly; sizes were scaled approximately"),
        approximated: true,
    });
}

/// `Box`: `size` (default 1 m each), scaled along each axis.
fn box_geometry(doc: &Doc, node: &Node, [sx, sy, sz]: [f64; 3]) -> SourceResult<Geometry> {
    let size = match node.get("size") {
        Some(n) => fields::array::<3>(doc, n)?,
        None => [1.0; 3],
    };
    Ok(Geometry::Box {
        size: [size[0] * sx, size[1] * sy, size[2] * sz],
    })
}

/// `Sphere`: `radius`; a non-uniform scale makes it an ellipsoid.
fn sphere(doc: &Doc, node: &Node, [sx, sy, sz]: [f64; 3]) -> SourceResult<Geometry> {
    let r = number_or(doc, node, "radius", 1.0)?;
    Ok(if sx == sy && sy == sz {
        Geometry::Sphere { radius: r * sx }
    } else {
        Geometry::Ellipsoid {
            radii: [r * sx, r * sy, r * sz],
        }
    })
}

/// `Cylinder`, `Capsule` or `Cone` (`ty`): `radius` and `height` along Choreonoid's Y axis.
fn along_y(
    doc: &Doc,
    node: &Node,
    ty: &str,
    scale: [f64; 3],
    notes: &mut Vec<Note>,
) -> SourceResult<Geometry> {
    let [sx, sy, sz] = scale;
    let r = number_or(doc, node, "radius", 1.0)?;
    let h = number_or(doc, node, "height", 1.0)?;
    let uniform = sx == sy && sy == sz;
    if sx != sz || (ty == "Capsule" && !uniform) {
        approximate(notes, ty, scale);
    }
    let (radius, length) = (r * sx.max(sz), h * sy);
    Ok(match ty {
        "Cylinder" => Geometry::Cylinder { radius, length },
        "Capsule" => Geometry::Capsule { radius, length },
        _ => Geometry::Cone { radius, length },
    })
}

/// `Extrusion`: cross section, spine, orientations (angles in the document's unit), scales, caps.
fn extrusion(doc: &Doc, node: &Node, scale: [f64; 3], notes: &mut Vec<Note>) -> SourceResult<Geometry> {
    if scale != [1.0; 3] {
        approximate(notes, "extrusion", scale);
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
    Ok(Geometry::Extrusion(Extrusion {
        cross_section: pairs(doc, get(node, "crossSection"))?,
        spine: triples(doc, get(node, "spine"))?,
        orientation,
        scale: pairs(doc, get(node, "scale"))?,
        crease_angle: crease(doc, node)?,
        begin_cap: get(node, "beginCap").map_or(Ok(true), |n| fields::boolean(doc, n))?,
        end_cap: get(node, "endCap").map_or(Ok(true), |n| fields::boolean(doc, n))?,
    }))
}

/// `ElevationGrid`: dimensions, spacings, heights, winding and crease angle.
fn elevation_grid(doc: &Doc, node: &Node, scale: [f64; 3], notes: &mut Vec<Note>) -> SourceResult<Geometry> {
    if scale != [1.0; 3] {
        approximate(notes, "elevation grid", scale);
    }
    let dim = |key: &str| -> SourceResult<u32> {
        get(node, key).map_or(Ok(0), |n| {
            fields::integer(doc, n).map(|i| i.clamp(0, u32::MAX as i64) as u32)
        })
    };
    Ok(Geometry::ElevationGrid(ElevationGrid {
        x_dimension: dim("xDimension")?,
        z_dimension: dim("zDimension")?,
        x_spacing: number_or(doc, node, "xSpacing", 1.0)?,
        z_spacing: number_or(doc, node, "zSpacing", 1.0)?,
        height: get(node, "height").map_or(Ok(Vec::new()), |n| fields::numbers(doc, n))?,
        ccw: get(node, "ccw").map_or(Ok(true), |n| fields::boolean(doc, n))?,
        crease_angle: crease(doc, node)?,
    }))
}

/// The node under Choreonoid's mesh key `a` or, failing that, its VRML name `b`.
fn either<'n>(node: &'n Node, a: &str, b: &str) -> Option<&'n Node> {
    node.get(a).or_else(|| node.get(b))
}

/// A mesh's `vertices` (or `coordinate`), scaled along each axis.
fn scaled_vertices(doc: &Doc, node: &Node, [sx, sy, sz]: [f64; 3]) -> SourceResult<Vec<[f64; 3]>> {
    Ok(triples(doc, either(node, "vertices", "coordinate"))?
        .into_iter()
        .map(|[x, y, z]| [x * sx, y * sy, z * sz])
        .collect())
}

/// `IndexedFaceSet`: Choreonoid's mesh keys (`vertices` or `coordinate`, `faces` or
/// `coordIndex`, ...).
fn indexed_face_set(doc: &Doc, node: &Node, scale: [f64; 3]) -> SourceResult<Geometry> {
    let coordinate = scaled_vertices(doc, node, scale)?;
    Ok(Geometry::IndexedFaceSet(IndexedFaceSet {
        coordinate,
        coord_index: integers(doc, either(node, "faces", "coordIndex"))?,
        tex_coord: pairs(doc, either(node, "tex_coords", "texCoord"))?,
        tex_coord_index: integers(doc, either(node, "tex_coord_indices", "texCoordIndex"))?,
        crease_angle: crease(doc, node)?,
    }))
}

/// `TriangleMesh`: vertices and faces taken three indices at a time.
fn triangle_mesh(doc: &Doc, node: &Node, scale: [f64; 3]) -> SourceResult<Geometry> {
    let vertices = scaled_vertices(doc, node, scale)?;
    let triangles = integers(doc, either(node, "faces", "coordIndex"))?
        .chunks(3)
        .filter_map(|c| match *c {
            [a, b, d] => Some([a as u32, b as u32, d as u32]),
            _ => None,
        })
        .collect();
    Ok(Geometry::TriangleMesh { vertices, triangles })
}

/// `Resource`: a mesh file at `uri` (resolved against the document's folder unless it holds a
/// `${...}` variable), optionally one `node` of it.
fn resource(doc: &Doc, node: &Node, scale: [f64; 3]) -> SourceResult<Geometry> {
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
    Ok(Geometry::Mesh(mesh))
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
