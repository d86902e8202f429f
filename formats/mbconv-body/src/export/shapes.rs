//! Shapes as elements: the pose in Choreonoid axes (Y-axis primitives turned back), the
//! geometry node, the appearance; meshes as `Resource` nodes, ellipsoids as scaled spheres.

use super::emit::{pose_entries, same_rotation};
use crate::spec::{self, FORMAT};
use mbconv_ir::format::kit::aids;
use mbconv_ir::{Extrusion, Geometry, IndexedFaceSet, Pose, Shape, ShapeRole, Value};
use mbconv_yaml::emit::{self as yaml, Writer};
use nalgebra::UnitQuaternion;

/// One shape as an element at indentation `i`.
pub(super) fn shape_element(w: &mut Writer, i: usize, shape: &Shape, output: Option<&std::path::Path>) {
    let (i, wrapped) = match shape.role {
        ShapeRole::Both => (i, false),
        ShapeRole::Visual | ShapeRole::Collision => {
            let ty = if shape.role == ShapeRole::Visual {
                "Visual"
            } else {
                "Collision"
            };
            w.item(i, "type", ty);
            w.open(i + 1, "elements");
            (i + 2, true)
        }
    };
    let _ = wrapped;
    let turned = matches!(
        shape.geometry,
        Geometry::Cylinder { .. } | Geometry::Capsule { .. } | Geometry::Cone { .. }
    );
    let pose = if turned {
        shape.pose * spec::y_axis_to_z_axis().inverse()
    } else {
        shape.pose
    };
    if let Geometry::Mesh(mesh) = &shape.geometry
        && shape.appearance.is_none()
        && shape.name.is_none()
    {
        w.item(i, "type", "Resource");
        w.entry(i + 1, "uri", &yaml::string(&mesh.uri_for_output(output)));
        if let Some(node) = &mesh.node {
            w.entry(i + 1, "node", &yaml::string(node));
        }
        shape_pose_entries(w, i + 1, shape, &pose, false);
        if mesh.scale != [1.0; 3] {
            w.entry(i + 1, "scale", &yaml::numbers(&mesh.scale));
        }
        return;
    }
    if let Geometry::Ellipsoid { radii } = &shape.geometry {
        // A unit sphere scaled along the axes.
        w.item(i, "type", "Transform");
        pose_entries(w, i + 1, &pose, &shape.extras, "rotation");
        w.entry(i + 1, "scale", &yaml::numbers(radii));
        w.open(i + 1, "elements");
        w.item(i + 2, "type", "Shape");
        w.entry(i + 3, "geometry", "{type: Sphere, radius: 1}");
        appearance(w, i + 3, shape);
        return;
    }
    w.item(i, "type", "Shape");
    if let Some(name) = &shape.name {
        w.entry(i + 1, "name", &yaml::string(name));
    }
    shape_pose_entries(w, i + 1, shape, &pose, turned);
    if let Geometry::Mesh(mesh) = &shape.geometry
        && mesh.scale != [1.0; 3]
    {
        w.entry(i + 1, "scale", &yaml::numbers(&mesh.scale));
    }
    w.entry(i + 1, "geometry", &geometry(shape, output));
    appearance(w, i + 1, shape);
}

/// A shape's translation and rotation in Choreonoid axes (`pose`); the written rotation is
/// used when it reads back to the shape's IR rotation exactly as the reader computes it.
fn shape_pose_entries(w: &mut Writer, i: usize, shape: &Shape, pose: &Pose, turned: bool) {
    if pose.translation != nalgebra::Vector3::zeros() {
        let t = pose.translation;
        w.entry(i, "translation", &yaml::numbers(&[t.x, t.y, t.z]));
    }
    if let Some(list) = aids::kept(&shape.extras, FORMAT, "rotation")
        && !list.is_empty()
        && list.len() % 4 == 0
    {
        let groups: Vec<[f64; 4]> = list.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
        let reads_back = spec::rotation_from_written(&groups, true).is_some_and(|r| {
            let ir = if turned {
                (Pose::from_rotation(r) * spec::y_axis_to_z_axis()).rotation
            } else {
                r
            };
            same_rotation(&ir, &shape.pose.rotation)
        });
        if reads_back {
            let text = if groups.len() == 1 {
                yaml::numbers(&groups[0])
            } else {
                format!(
                    "[{}]",
                    groups
                        .iter()
                        .map(|g| yaml::numbers(g))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            w.entry(i, "rotation", &text);
            return;
        }
    }
    if pose.rotation != UnitQuaternion::identity() {
        w.entry(
            i,
            "rotation",
            &yaml::numbers(&spec::written_rotation(&pose.rotation)),
        );
    }
}

fn geometry(shape: &Shape, output: Option<&std::path::Path>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let n = yaml::number;
    let list = yaml::numbers;
    match &shape.geometry {
        Geometry::Box { size } => parts.extend(["type: Box".into(), format!("size: {}", list(size))]),
        Geometry::Sphere { radius } => {
            parts.extend(["type: Sphere".into(), format!("radius: {}", n(*radius))])
        }
        Geometry::Cylinder { radius, length }
        | Geometry::Capsule { radius, length }
        | Geometry::Cone { radius, length } => {
            let ty = match shape.geometry {
                Geometry::Cylinder { .. } => "Cylinder",
                Geometry::Capsule { .. } => "Capsule",
                _ => "Cone",
            };
            parts.extend([
                format!("type: {ty}"),
                format!("radius: {}", n(*radius)),
                format!("height: {}", n(*length)),
            ]);
        }
        Geometry::Extrusion(e) => extrusion(e, &mut parts),
        Geometry::ElevationGrid(g) => {
            parts.push("type: ElevationGrid".into());
            parts.push(format!("x_dimension: {}", g.x_dimension));
            parts.push(format!("z_dimension: {}", g.z_dimension));
            parts.push(format!("x_spacing: {}", n(g.x_spacing)));
            parts.push(format!("z_spacing: {}", n(g.z_spacing)));
            parts.push(format!("height: {}", list(&g.height)));
            parts.push(format!("ccw: {}", g.ccw));
            if let Some(c) = g.crease_angle {
                parts.push(format!("crease_angle: {}", n(spec::degrees_exact(c))));
            }
        }
        Geometry::IndexedFaceSet(f) => indexed_face_set(f, &mut parts),
        Geometry::TriangleMesh { vertices, triangles } => {
            parts.push("type: TriangleMesh".into());
            parts.push(format!("vertices: {}", flat3(vertices)));
            let t: Vec<i64> = triangles.iter().flatten().map(|x| i64::from(*x)).collect();
            parts.push(format!("faces: {}", ints(&t)));
        }
        Geometry::Mesh(mesh) => {
            parts.push("type: Resource".into());
            parts.push(format!("uri: {}", yaml::quote(&mesh.uri_for_output(output))));
            if let Some(node) = &mesh.node {
                parts.push(format!("node: {}", yaml::quote(node)));
            }
        }
        // `lower` leaves no other geometry; ellipsoids are written by the caller.
        _ => parts.push("type: Box".into()),
    }
    for (key, value) in shape.extras.for_format(FORMAT) {
        if let Some(k) = key.strip_prefix("geometry.") {
            parts.push(format!("{}: {}", yaml::string(k), yaml::value(value)));
        }
    }
    format!("{{{}}}", parts.join(", "))
}

/// A list of pairs, flattened.
fn flat2(v: &[[f64; 2]]) -> String {
    yaml::numbers(&v.iter().flatten().copied().collect::<Vec<_>>())
}

/// A list of triples, flattened.
fn flat3(v: &[[f64; 3]]) -> String {
    yaml::numbers(&v.iter().flatten().copied().collect::<Vec<_>>())
}

/// A list of integers.
fn ints(v: &[i64]) -> String {
    format!(
        "[{}]",
        v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
    )
}

/// An `Extrusion`'s keys (angles in degrees).
fn extrusion(e: &Extrusion, parts: &mut Vec<String>) {
    let n = yaml::number;
    let list = yaml::numbers;
    parts.push("type: Extrusion".into());
    parts.push(format!("cross_section: {}", flat2(&e.cross_section)));
    parts.push(format!("spine: {}", flat3(&e.spine)));
    if !e.orientation.is_empty() {
        let o: Vec<f64> = e
            .orientation
            .iter()
            .flat_map(|[x, y, z, a]| [*x, *y, *z, spec::degrees_exact(*a)])
            .collect();
        parts.push(format!("orientation: {}", list(&o)));
    }
    if !e.scale.is_empty() {
        parts.push(format!("scale: {}", flat2(&e.scale)));
    }
    if let Some(c) = e.crease_angle {
        parts.push(format!("crease_angle: {}", n(spec::degrees_exact(c))));
    }
    parts.push(format!("beginCap: {}", e.begin_cap)); // Choreonoid reads only this spelling of it
    parts.push(format!("end_cap: {}", e.end_cap));
}

/// An `IndexedFaceSet`'s keys.
fn indexed_face_set(f: &IndexedFaceSet, parts: &mut Vec<String>) {
    let n = yaml::number;
    parts.push("type: IndexedFaceSet".into());
    parts.push(format!("coordinate: {}", flat3(&f.coordinate)));
    parts.push(format!("coordIndex: {}", ints(&f.coord_index)));
    if !f.tex_coord.is_empty() {
        parts.push(format!("texCoord: {}", flat2(&f.tex_coord)));
    }
    if !f.tex_coord_index.is_empty() {
        parts.push(format!("texCoordIndex: {}", ints(&f.tex_coord_index)));
    }
    if let Some(c) = f.crease_angle {
        parts.push(format!("crease_angle: {}", n(spec::degrees_exact(c))));
    }
}

fn appearance(w: &mut Writer, i: usize, shape: &Shape) {
    let Some(a) = &shape.appearance else { return };
    let mut material = Vec::new();
    let color = |key: &str, c: &Option<[f64; 3]>| c.map(|c| format!("{key}: {}", yaml::numbers(&c)));
    material.extend(color("diffuse", &a.diffuse));
    material.extend(color("specular", &a.specular));
    material.extend(color("emissive", &a.emissive));
    let scalar = |key: &str, x: Option<f64>| x.map(|x| format!("{key}: {}", yaml::number(x)));
    material.extend(scalar("ambient", a.ambient_intensity));
    material.extend(scalar("shininess", a.shininess));
    material.extend(scalar("transparency", a.transparency));
    if let Some(Value::Float(x)) = shape.extras.get(&format!("{FORMAT}.specular_exponent")) {
        material.push(format!("specular_exponent: {}", yaml::number(*x)));
    }
    w.open(i, "appearance");
    if !material.is_empty() {
        w.entry(i + 1, "material", &format!("{{{}}}", material.join(", ")));
    }
    if let Some(t) = &a.texture {
        w.entry(
            i + 1,
            "texture",
            &format!(
                "{{url: {}, repeat_s: {}, repeat_t: {}}}",
                yaml::quote(&t.uri),
                t.repeat_s,
                t.repeat_t
            ),
        );
    }
}
