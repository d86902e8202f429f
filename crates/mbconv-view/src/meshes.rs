//! Mesh files: STL, OBJ and COLLADA are embedded once each for the page's three.js loaders;
//! glTF and PLY files are read by the shared mesh layer (`mbconv-mesh`) and drawn as the box
//! around their vertices, VRML files as the box around their coordinates; other formats,
//! unreadable and missing files are named in a note.

use crate::data::{GeometryData, MeshData};
use crate::encode::bytes_base64;
use mbconv_ir::model::geometry::MeshRef;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The meshes embedded so far, and what could not be drawn.
#[derive(Debug, Default)]
pub(crate) struct MeshStore {
    base_dir: Option<PathBuf>,
    pub(crate) meshes: BTreeMap<String, MeshData>,
    /// What each resolved file draws as, unscaled.
    drawn: BTreeMap<PathBuf, GeometryData>,
    /// Files given by their contents (a conversion's written meshes, whose folder is gone).
    provided: BTreeMap<PathBuf, Vec<u8>>,
    as_boxes: Vec<String>,
    not_drawn: Vec<String>,
}

impl MeshStore {
    /// A store resolving relative references against `base_dir` (the model file's folder).
    pub(crate) fn new(base_dir: Option<&Path>) -> Self {
        Self {
            base_dir: base_dir.map(Path::to_path_buf),
            ..Self::default()
        }
    }

    /// Gives the contents of the files at `files`' paths, read instead of the disk.
    pub(crate) fn provide(&mut self, files: &BTreeMap<String, Vec<u8>>) {
        for (path, bytes) in files {
            self.provided.insert(PathBuf::from(path), bytes.clone());
        }
    }

    /// What the page draws for `mesh` (scale applied by the page; bounds are scaled here).
    pub(crate) fn geometry(&mut self, mesh: &MeshRef) -> GeometryData {
        let path = self.resolve(mesh);
        let unscaled = match self.drawn.get(&path) {
            Some(known) => known.clone(),
            None => {
                let drawn = self.load(mesh, &path);
                self.drawn.insert(path, drawn.clone());
                drawn
            }
        };
        match unscaled {
            GeometryData::Mesh { mesh: key, .. } => GeometryData::Mesh {
                mesh: key,
                scale: mesh.scale,
            },
            GeometryData::Bounds { min, max, note } => {
                let scaled = |p: [f64; 3]| [p[0] * mesh.scale[0], p[1] * mesh.scale[1], p[2] * mesh.scale[2]];
                let (a, b) = (scaled(min), scaled(max));
                GeometryData::Bounds {
                    min: [a[0].min(b[0]), a[1].min(b[1]), a[2].min(b[2])],
                    max: [a[0].max(b[0]), a[1].max(b[1]), a[2].max(b[2])],
                    note,
                }
            }
            other => other,
        }
    }

    fn resolve(&self, mesh: &MeshRef) -> PathBuf {
        if let Some(resolved) = &mesh.resolved_path {
            return PathBuf::from(resolved);
        }
        if let Some(package) = mesh.uri.strip_prefix("package://")
            && let Some(found) = self.package_file(package)
        {
            return found;
        }
        let uri = mesh.uri.strip_prefix("file://").unwrap_or(&mesh.uri);
        match &self.base_dir {
            Some(dir) if Path::new(uri).is_relative() => dir.join(uri),
            _ => PathBuf::from(uri),
        }
    }

    /// `package://NAME/REST` as ROS finds it: the folder `NAME` among the model folder's
    /// ancestors (or beside one of them), then `REST` in it.
    fn package_file(&self, package: &str) -> Option<PathBuf> {
        let (name, rest) = package.split_once('/')?;
        let dir = self.base_dir.as_ref()?;
        let absolute = std::path::absolute(dir).ok()?;
        absolute.ancestors().find_map(|ancestor| {
            let candidates = [
                (ancestor.file_name().is_some_and(|n| n == name)).then(|| ancestor.join(rest)),
                Some(ancestor.join(name).join(rest)),
            ];
            candidates.into_iter().flatten().find(|p| p.is_file())
        })
    }

    fn load(&mut self, mesh: &MeshRef, path: &Path) -> GeometryData {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let read = match self.provided.get(path) {
            Some(bytes) => Ok(bytes.clone()),
            None => std::fs::read(path),
        };
        let bytes = match read {
            Ok(bytes) => bytes,
            Err(e) => {
                self.not_drawn.push(format!("{} ({e})", mesh.uri));
                return GeometryData::Bounds {
                    min: [0.0; 3],
                    max: [0.0; 3],
                    note: format!("mesh file {} could not be read: {e}", mesh.uri),
                };
            }
        };
        let format = match extension.as_str() {
            "stl" => "stl",
            "obj" => "obj",
            "dae" => "dae",
            "wrl" | "vrml" => {
                self.as_boxes.push(mesh.uri.clone());
                let (min, max) =
                    vrml_bounds(&String::from_utf8_lossy(&bytes)).unwrap_or(([0.0; 3], [0.0; 3]));
                return GeometryData::Bounds {
                    min,
                    max,
                    note: format!(
                        "VRML mesh {}: drawn as the box around its coordinates (its own transforms not applied)",
                        mesh.uri
                    ),
                };
            }
            other => {
                if let Some(format) = mbconv_mesh::MeshFormat::of_path(path) {
                    return self.bounds(mesh, path, &bytes, format);
                }
                self.not_drawn.push(format!("{} (format {other:?})", mesh.uri));
                return GeometryData::Bounds {
                    min: [0.0; 3],
                    max: [0.0; 3],
                    note: format!("mesh file {}: the page draws STL, OBJ and COLLADA only", mesh.uri),
                };
            }
        };
        let key = format!("m{}", self.meshes.len());
        self.meshes.insert(
            key.clone(),
            MeshData {
                format,
                data: bytes_base64(&bytes),
                uri: mesh.uri.clone(),
            },
        );
        GeometryData::Mesh {
            mesh: key,
            scale: [1.0; 3],
        }
    }

    /// A file the page has no loader for, drawn as the box around its vertices as the shared
    /// mesh layer reads them (a file it cannot read is named in a note).
    fn bounds(
        &mut self,
        mesh: &MeshRef,
        path: &Path,
        bytes: &[u8],
        format: mbconv_mesh::MeshFormat,
    ) -> GeometryData {
        match mbconv_mesh::decode(bytes, format, path).map(|m| m.aabb()) {
            Ok(Some(aabb)) => {
                self.as_boxes.push(mesh.uri.clone());
                GeometryData::Bounds {
                    min: aabb.min,
                    max: aabb.max,
                    note: format!(
                        "{format} mesh {}: drawn as the box around its vertices (the page draws STL, OBJ and COLLADA)",
                        mesh.uri
                    ),
                }
            }
            Ok(None) => {
                self.not_drawn.push(format!("{} (no vertices)", mesh.uri));
                GeometryData::Bounds {
                    min: [0.0; 3],
                    max: [0.0; 3],
                    note: format!("mesh file {} has no vertices", mesh.uri),
                }
            }
            Err(e) => {
                self.not_drawn.push(format!("{} ({e})", mesh.uri));
                GeometryData::Bounds {
                    min: [0.0; 3],
                    max: [0.0; 3],
                    note: format!("mesh file {} could not be read: {e}", mesh.uri),
                }
            }
        }
    }

    /// The page-wide notes about meshes drawn as boxes or not drawn.
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.as_boxes.is_empty() {
            notes.push(format!(
                "{} mesh file(s) drawn as the boxes around their coordinates (VRML, glTF, PLY): {}",
                self.as_boxes.len(),
                self.as_boxes.join(", ")
            ));
        }
        if !self.not_drawn.is_empty() {
            notes.push(format!(
                "{} mesh file(s) not drawn: {}",
                self.not_drawn.len(),
                self.not_drawn.join(", ")
            ));
        }
        notes
    }
}

/// The box around every number triple in a VRML file's `point [ ... ]` lists, or `None` when
/// it has none.
fn vrml_bounds(text: &str) -> Option<([f64; 3], [f64; 3])> {
    let mut min = [f64::INFINITY; 3];
    let mut max = [f64::NEG_INFINITY; 3];
    let mut rest = text;
    let mut found = false;
    while let Some(at) = rest.find("point") {
        rest = &rest[at + "point".len()..];
        let trimmed = rest.trim_start();
        let Some(list) = trimmed.strip_prefix('[') else {
            continue;
        };
        let end = list.find(']').unwrap_or(list.len());
        let numbers: Vec<f64> = list[..end]
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .map_while(|t| t.parse().ok())
            .collect();
        for point in numbers.chunks_exact(3) {
            found = true;
            for axis in 0..3 {
                min[axis] = min[axis].min(point[axis]);
                max[axis] = max[axis].max(point[axis]);
            }
        }
        rest = &list[end..];
    }
    found.then_some((min, max))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn vrml_bounds_cover_every_point_list() {
        let text = "Shape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0, 1 2 3 ] } } }\n\
                    Shape { geometry IndexedFaceSet { coord Coordinate { point [ -1 0.5 0 ] } } }";
        assert_eq!(vrml_bounds(text), Some(([-1.0, 0.0, 0.0], [1.0, 2.0, 3.0])));
        assert_eq!(vrml_bounds("Shape { }"), None);
    }

    #[test]
    fn a_file_is_embedded_once_and_scaled_per_use() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("part.stl"), b"solid part\nendsolid part\n").unwrap();
        let mut store = MeshStore::new(Some(dir.path()));
        let mut mesh = MeshRef::new("part.stl");
        let first = store.geometry(&mesh);
        mesh.scale = [2.0; 3];
        let second = store.geometry(&mesh);
        assert_eq!(store.meshes.len(), 1);
        assert_eq!(
            first,
            GeometryData::Mesh {
                mesh: "m0".into(),
                scale: [1.0; 3]
            }
        );
        assert_eq!(
            second,
            GeometryData::Mesh {
                mesh: "m0".into(),
                scale: [2.0; 3]
            }
        );
    }

    #[test]
    fn a_ros_package_is_found_among_the_ancestors() {
        let dir = tempfile::tempdir().unwrap();
        let package = dir.path().join("robot_description");
        std::fs::create_dir_all(package.join("urdf")).unwrap();
        std::fs::create_dir_all(package.join("meshes")).unwrap();
        std::fs::write(package.join("meshes/arm.stl"), b"solid arm\nendsolid arm\n").unwrap();
        let mut store = MeshStore::new(Some(&package.join("urdf")));
        let drawn = store.geometry(&MeshRef::new("package://robot_description/meshes/arm.stl"));
        assert!(matches!(drawn, GeometryData::Mesh { .. }), "{drawn:?}");
    }

    #[test]
    fn gltf_and_ply_files_are_drawn_as_their_real_boxes() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/meshes");
        let mut store = MeshStore::new(Some(&fixtures));
        for file in ["cube.glb", "cube.gltf", "cube.ply"] {
            let mut mesh = MeshRef::new(file);
            mesh.scale = [2.0, 1.0, -1.0];
            let GeometryData::Bounds { min, max, note } = store.geometry(&mesh) else {
                panic!("{file}: a box");
            };
            assert_eq!((min, max), ([0.0, 0.0, -1.0], [2.0, 1.0, 0.0]), "{file}");
            assert!(note.contains("drawn as the box around its vertices"), "{note}");
        }
        assert!(store.meshes.is_empty());
        assert_eq!(store.notes().len(), 1, "{:?}", store.notes());
        // A file that is not a valid glTF: a note naming it.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bad.glb"), b"not gltf").unwrap();
        let mut store = MeshStore::new(Some(dir.path()));
        let drawn = store.geometry(&MeshRef::new("bad.glb"));
        assert!(
            matches!(
                drawn,
                GeometryData::Bounds {
                    min: [0.0, 0.0, 0.0],
                    ..
                }
            ),
            "{drawn:?}"
        );
        assert!(store.notes()[0].contains("bad.glb"), "{:?}", store.notes());
    }

    #[test]
    fn a_missing_file_is_a_note_not_an_error() {
        let mut store = MeshStore::new(None);
        let drawn = store.geometry(&MeshRef::new("/nonexistent/part.stl"));
        assert!(matches!(drawn, GeometryData::Bounds { .. }));
        assert_eq!(store.notes().len(), 1);
    }
}
