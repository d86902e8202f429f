//! Files written beside a model ([`Asset`]): where they go (`<output stem>_meshes/`, one name
//! per file, [`place_asset`]) and the registry's copying of every mesh file a lowered model
//! names when the write setting `assets=copy` asks for it ([`copy_meshes`]).

use crate::format::Asset;
use crate::format::support::Feature;
use crate::model::Model;
use crate::model::geometry::Geometry;
use crate::report::{Category, Finding, Severity, path};
use std::path::{Path, PathBuf};

/// The folder, beside `output`, that copied and converted files go into: the output's file
/// name up to its first dot, then `_meshes`.
///
/// ```
/// use mbconv_ir::format::kit::asset_folder;
/// assert_eq!(asset_folder("out/talos.xml".as_ref()), "talos_meshes");
/// assert_eq!(asset_folder("robot.mbir.json".as_ref()), "robot_meshes");
/// ```
pub fn asset_folder(output: &Path) -> String {
    let name = output.file_name().and_then(|n| n.to_str()).unwrap_or("model");
    let stem = name
        .split('.')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or("model");
    format!("{stem}_meshes")
}

/// Adds to `assets` a file named `file_name` in the [`asset_folder`] of `output`, made from
/// `source` (its `bytes`, or a copy of it for `None`), and returns its name relative to the
/// output's directory. The same source made the same way gets the name it already has; a
/// name another file took gets a number (`base_2.stl`), so names stay unique and follow
/// the order the files are placed in.
///
/// ```
/// use mbconv_ir::format::kit::place_asset;
/// let out = std::path::Path::new("/o/robot.xml");
/// let mut assets = Vec::new();
/// let a = place_asset(&mut assets, out, "/m/visual/base.dae".as_ref(), "base.stl", Some(vec![1]));
/// let b = place_asset(&mut assets, out, "/m/collision/base.stl".as_ref(), "base.stl", None);
/// let again = place_asset(&mut assets, out, "/m/visual/base.dae".as_ref(), "base.stl", Some(vec![1]));
/// assert_eq!((a.as_str(), b.as_str()), ("robot_meshes/base.stl", "robot_meshes/base_2.stl"));
/// assert_eq!((again, assets.len()), (a, 2));
/// ```
pub fn place_asset(
    assets: &mut Vec<Asset>,
    output: &Path,
    source: &Path,
    file_name: &str,
    bytes: Option<Vec<u8>>,
) -> String {
    if let Some(same) = assets
        .iter()
        .find(|a| a.source == source && a.bytes.is_some() == bytes.is_some())
    {
        return same.file_name.clone();
    }
    let folder = asset_folder(output);
    let (stem, extension) = match file_name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (file_name, String::new()),
    };
    let mut name = format!("{folder}/{file_name}");
    let mut n = 1;
    while assets.iter().any(|a| a.file_name.eq_ignore_ascii_case(&name)) {
        n += 1;
        name = format!("{folder}/{stem}_{n}{extension}");
    }
    assets.push(Asset {
        file_name: name.clone(),
        source: source.to_path_buf(),
        bytes,
    });
    name
}

/// Copies every mesh file `model` names and the reader found
/// ([`MeshRef::resolved_path`](crate::model::geometry::MeshRef)) into the [`asset_folder`]
/// beside `output` ([`place_asset`]) and names it there (relative to the output, its
/// resolved path the copy's), one note `<format>.mesh_copied` per file. A file already among
/// `assets` (converted by the format) or already where the copy would go is left as it is.
/// Without an output file (standard output) nothing is copied: one note says so. Returns the
/// findings.
///
/// ```
/// use mbconv_ir::format::kit::copy_meshes;
/// use mbconv_ir::model::geometry::MeshRef;
/// use mbconv_ir::{Body, Geometry, Model, Shape, ShapeRole};
/// let mut model = Model::new("m");
/// let mut mesh = MeshRef::new("package://robot/meshes/arm.stl");
/// mesh.resolved_path = Some("/work/robot/meshes/arm.stl".into());
/// let mut body = Body::new("arm");
/// body.shapes.push(Shape::new(ShapeRole::Visual, Geometry::Mesh(mesh)));
/// model.bodies.push(body);
/// let mut assets = Vec::new();
/// let found = copy_meshes(&mut model, &mut assets, Some("/out/arm.urdf".as_ref()), "urdf");
/// let Geometry::Mesh(mesh) = &model.bodies[0].shapes[0].geometry else { panic!() };
/// assert_eq!(mesh.uri, "arm_meshes/arm.stl");
/// assert_eq!(assets[0].source, std::path::Path::new("/work/robot/meshes/arm.stl"));
/// assert_eq!(found[0].code, "urdf.mesh_copied");
/// ```
pub fn copy_meshes(
    model: &mut Model,
    assets: &mut Vec<Asset>,
    output: Option<&Path>,
    format: &str,
) -> Vec<Finding> {
    let note = |code: &str, at: String, message: String| {
        Finding::new(
            format!("{format}.{code}"),
            Severity::Info,
            Category::Note,
            message,
        )
        .for_feature(Feature::Meshes)
        .at(at)
    };
    let Some(output) = output.and_then(|o| std::path::absolute(o).ok()) else {
        let has_meshes = model.bodies.iter().flat_map(|b| &b.shapes).any(|s| {
            matches!(&s.geometry, Geometry::Mesh(m) | Geometry::ConvexHull(m) if m.resolved_path.is_some())
        });
        return if has_meshes {
            vec![note(
                "assets_not_copied",
                "bodies".to_owned(),
                "assets=copy: the model is written to standard output, so its mesh files are \
                 named as read, not copied"
                    .to_owned(),
            )]
        } else {
            Vec::new()
        };
    };
    let dir = output.parent().map(Path::to_path_buf).unwrap_or_default();
    let placed: Vec<PathBuf> = assets.iter().map(|a| dir.join(&a.file_name)).collect();
    let mut findings = Vec::new();
    for body in &mut model.bodies {
        for shape in &mut body.shapes {
            let (Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh)) = &mut shape.geometry else {
                continue;
            };
            let Some(source) = mesh.resolved_path.as_deref().map(PathBuf::from) else {
                continue;
            };
            let source = std::path::absolute(&source).unwrap_or(source);
            if placed.contains(&source) {
                continue;
            }
            let file_name = source
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("mesh")
                .to_owned();
            let known = assets.iter().any(|a| a.source == source && a.bytes.is_none());
            let name = place_asset(assets, &output, &source, &file_name, None);
            let target = dir.join(&name);
            if same_file(&source, &target) {
                // Written where the file already is: named there, nothing to copy.
                assets.retain(|a| a.file_name != name || a.source != source || known);
            } else if !known {
                findings.push(note(
                    "mesh_copied",
                    path::item("bodies", &body.name),
                    format!(
                        "mesh file {} is copied to {name:?} beside the output",
                        source.display()
                    ),
                ));
            }
            mesh.uri = name;
            mesh.resolved_path = Some(target.display().to_string());
        }
    }
    findings
}

/// True when both paths name one existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
