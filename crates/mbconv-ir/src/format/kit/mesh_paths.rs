//! Mesh file names rewritten for where the output goes: a relative name read from a file
//! means "relative to that file", so a model written into another folder names its meshes
//! relative to the written file, or the references point nowhere.

use super::LowerSession;
use crate::format::support::Feature;
use crate::model::geometry::Geometry;
use crate::report::path;
use std::path::{Component, Path, PathBuf};

impl LowerSession {
    /// Rewrites every relative mesh file name whose file the reader found
    /// ([`MeshRef::resolved_path`](crate::model::geometry::MeshRef)) relative to the directory
    /// of `output`, the file to be written (`mesh_path_rebased`, a note naming the old and the
    /// new name and ending with `where`: who looks for the file there). URIs (`package://`, `model://`, `file://`) and absolute names are kept: they
    /// resolve wherever the output goes; but a resolved `package:///NAME/path`, whose empty
    /// package name Pinocchio skips and Drake and ROS refuse, is written
    /// `package://NAME/path` (a `mesh_path_rebased` note too). Without an output file (standard output) nothing
    /// changes. Returns true when the model has a relative mesh name (rebased or not), which a
    /// format may need to say how its simulator resolves such names.
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::model::geometry::MeshRef;
    /// use mbconv_ir::{Body, Geometry, Model, Shape, ShapeRole};
    /// let mut model = Model::new("m");
    /// let mut mesh = MeshRef::new("meshes/arm.stl");
    /// mesh.resolved_path = Some("/work/robot/meshes/arm.stl".into());
    /// let mut body = Body::new("arm");
    /// body.shapes.push(Shape::new(ShapeRole::Visual, Geometry::Mesh(mesh)));
    /// model.bodies.push(body);
    /// let mut s = LowerSession::new("urdf", &model, Tracing::Off);
    /// assert!(s.rebase_mesh_paths(Some(std::path::Path::new("/work/out/arm.urdf")), "a URDF loader"));
    /// let Geometry::Mesh(mesh) = &s.model.bodies[0].shapes[0].geometry else { panic!() };
    /// assert_eq!(mesh.uri, "../robot/meshes/arm.stl");
    /// assert_eq!(s.report.findings[0].code, "urdf.mesh_path_rebased");
    /// ```
    pub fn rebase_mesh_paths(&mut self, output: Option<&Path>, looked_for_by: &str) -> bool {
        let output_dir = output
            .and_then(|o| std::path::absolute(o).ok())
            .and_then(|o| o.parent().map(Path::to_path_buf));
        let mut relative_names = false;
        let mut notes = Vec::new();
        for body in &mut self.model.bodies {
            for shape in &mut body.shapes {
                let (Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh)) = &mut shape.geometry else {
                    continue;
                };
                let renamed = if mesh.resolved_path.is_some()
                    && let Some(named) = package_uri_with_its_name(&mesh.uri)
                {
                    let why = "the source's package URI has an empty package name, which Pinocchio and mbconv skip and Drake and ROS refuse (Drake 1.51: \"unknown package ''\")";
                    Some((named, why.to_owned()))
                } else if is_relative_file_name(&mesh.uri) {
                    relative_names = true;
                    output_dir
                        .as_deref()
                        .zip(mesh.resolved_path.as_deref())
                        .and_then(|(dir, file)| relative_path(dir, Path::new(file)))
                        .filter(|name| *name != mesh.uri)
                        .map(|name| {
                            (
                                name,
                                format!("relative to the output file, where {looked_for_by} looks for it"),
                            )
                        })
                } else {
                    None
                };
                if let Some((name, why)) = renamed {
                    notes.push((
                        path::item("bodies", &body.name),
                        format!("mesh {:?} is written as {name:?}, {why}", mesh.uri),
                    ));
                    mesh.uri = name;
                }
            }
        }
        for (at, message) in notes {
            self.note("mesh_path_rebased", Feature::Meshes, &at, message);
        }
        relative_names
    }
}

/// `package://NAME/path` for a `package:///NAME/path` (a package URI with an empty package
/// name, as example-robot-data's talos_full_v2.urdf writes them), `None` for any other URI.
///
/// ```
/// use mbconv_ir::format::kit::package_uri_with_its_name;
/// assert_eq!(
///     package_uri_with_its_name("package:///robot/meshes/a.stl").as_deref(),
///     Some("package://robot/meshes/a.stl")
/// );
/// assert_eq!(package_uri_with_its_name("package://robot/meshes/a.stl"), None);
/// assert_eq!(package_uri_with_its_name("package:///"), None);
/// ```
pub fn package_uri_with_its_name(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("package:///")?.trim_start_matches('/');
    (!rest.is_empty()).then(|| format!("package://{rest}"))
}

/// True for a plain relative file name (not absolute, not a URI such as `package://`).
///
/// ```
/// use mbconv_ir::format::kit::is_relative_file_name;
/// assert!(is_relative_file_name("meshes/a.stl"));
/// assert!(!is_relative_file_name("package://robot/meshes/a.stl"));
/// assert!(!is_relative_file_name("/abs/a.stl"));
/// ```
pub fn is_relative_file_name(uri: &str) -> bool {
    !uri.contains("://") && Path::new(uri).is_relative()
}

/// `file` as a relative path from directory `dir` (both made absolute), with `/` separators;
/// `None` when they share no leading component (different drives).
///
/// ```
/// use mbconv_ir::format::kit::relative_path;
/// use std::path::Path;
/// let name = relative_path(Path::new("/w/out/sub"), Path::new("/w/models/meshes/a.obj"));
/// assert_eq!(name.as_deref(), Some("../../models/meshes/a.obj"));
/// let beside = relative_path(Path::new("/w/models"), Path::new("/w/models/./meshes/a.obj"));
/// assert_eq!(beside.as_deref(), Some("meshes/a.obj"));
/// ```
pub fn relative_path(dir: &Path, file: &Path) -> Option<String> {
    let file = std::path::absolute(file).ok()?;
    let dir = std::path::absolute(dir).ok()?;
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
    let (dir, file) = (normal(&dir), normal(&file));
    let common = dir.iter().zip(&file).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut parts: Vec<String> = vec!["..".to_owned(); dir.len() - common];
    parts.extend(file[common..].iter().map(|p| p.to_string_lossy().into_owned()));
    Some(parts.join("/"))
}
