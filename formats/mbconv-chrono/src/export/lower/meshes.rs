//! Mesh file names as Chrono resolves them.
//!
//! Without a `data_path`, Chrono opens a mesh file name as given, that is relative to the
//! directory the program runs in; with `data_path: {type: RELATIVE, root: R}` it opens
//! `DIR/R/NAME`, where DIR is the directory of the simulation file. A relative mesh name read
//! from another format means "beside the model file", so a model that has one is written with
//! `data_path: RELATIVE, root: .`, and the name is made relative to where the output goes when
//! the importer resolved the file.

use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{Geometry, Model, Value, ValueMap};
use std::path::{Component, Path, PathBuf};

/// The model extras key the emitter writes as `data_path`.
const DATA_PATH: &str = "chrono.data_path";

/// Rewrites relative mesh names of a model read from another format (one with no Chrono
/// `data_path`) so that Chrono finds the files; `output` is the model file to be written.
pub(super) fn mesh_paths(l: &mut LowerSession, model: &mut Model, output: Option<&Path>) {
    if model.extras.get(DATA_PATH).is_some() {
        return;
    }
    let output_dir = output
        .and_then(|o| std::path::absolute(o).ok())
        .and_then(|o| o.parent().map(Path::to_path_buf));
    let mut relative_names = false;
    for body in &mut model.bodies {
        for shape in &mut body.shapes {
            let (Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh)) = &mut shape.geometry else {
                continue;
            };
            if !is_relative(&mesh.uri) {
                continue;
            }
            relative_names = true;
            let rebased = output_dir
                .as_deref()
                .zip(mesh.resolved_path.as_deref())
                .and_then(|(dir, file)| relative_to(dir, Path::new(file)));
            if let Some(name) = rebased.filter(|name| *name != mesh.uri) {
                l.note(
                    "mesh_path_rebased",
                    Feature::Meshes,
                    &path::item("bodies", &body.name),
                    format!(
                        "mesh {:?} is written as {name:?}, relative to the output file, where Chrono looks for it",
                        mesh.uri
                    ),
                );
                mesh.uri = name;
            }
        }
    }
    if relative_names {
        let mut data_path = ValueMap::new();
        data_path.insert("type", Value::String("RELATIVE".into()));
        data_path.insert("root", Value::String(".".into()));
        model.extras.insert(DATA_PATH, Value::Map(data_path));
        l.note(
            "mesh_data_path",
            Feature::Meshes,
            "",
            "relative mesh file names are written with `data_path: RELATIVE` so that Chrono opens them beside the simulation file",
        );
    }
}

/// True for a plain relative file name (not absolute, not a URI such as `package://`).
fn is_relative(uri: &str) -> bool {
    !uri.contains("://") && Path::new(uri).is_relative()
}

/// `file` as a relative path from directory `dir` (both absolute), with `/` separators.
fn relative_to(dir: &Path, file: &Path) -> Option<String> {
    let file = std::path::absolute(file).ok()?;
    let normal = |p: &Path| -> Vec<PathBuf> {
        let mut parts: Vec<PathBuf> = Vec::new();
        for c in p.components() {
            match c {
                Component::ParentDir => {
                    parts.pop();
                }
                Component::CurDir => {}
                other => parts.push(PathBuf::from(other.as_os_str())),
            }
        }
        parts
    };
    let (dir, file) = (normal(dir), normal(&file));
    let common = dir.iter().zip(&file).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut parts: Vec<String> = vec!["..".to_owned(); dir.len() - common];
    parts.extend(file[common..].iter().map(|p| p.to_string_lossy().into_owned()));
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_directory() {
        let name = relative_to(Path::new("/w/out/sub"), Path::new("/w/models/meshes/a.obj"));
        assert_eq!(name.as_deref(), Some("../../models/meshes/a.obj"));
        let beside = relative_to(Path::new("/w/models"), Path::new("/w/models/./meshes/a.obj"));
        assert_eq!(beside.as_deref(), Some("meshes/a.obj"));
        assert!(is_relative("meshes/a.obj"));
        assert!(!is_relative("/abs/a.obj"));
        assert!(!is_relative("package://robot/a.dae"));
    }
}
