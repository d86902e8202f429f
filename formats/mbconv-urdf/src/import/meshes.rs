//! Mesh references: where `<mesh filename>` points, resolved as ROS resolves it
//! (`package://` under the `package_path` setting, `ROS_PACKAGE_PATH` and `AMENT_PREFIX_PATH`,
//! a package found by the `<name>` of its `package.xml` or by its folder's name, then a folder
//! above the model file that is the package, or a folder of its name beside one; `file://`, paths relative to the model file), and
//! the `<mesh>` element itself.

use super::Reader;
use crate::raw::URDF;
use crate::spec;
use mbconv_ir::format::Options;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::Category;
use mbconv_ir::{Geometry, MeshRef};
use mbconv_xml::packages::{PackageFile, Packages};
use mbconv_xml::{Node, elements, qualified_name};
use std::path::{Path, PathBuf};

/// The ROS packages under the search roots: the `package_path` setting's, then
/// `ROS_PACKAGE_PATH`'s and `AMENT_PREFIX_PATH`'s, then the folders from `folder` (the model
/// file's) up (`mbconv_xml::packages`).
pub(super) fn packages(options: &Options, folder: Option<&Path>) -> Packages {
    let packages = Packages::from_setting(options.text(spec::PACKAGE_PATH));
    match folder {
        Some(folder) => packages.with_file_folder(folder),
        None => packages,
    }
}

impl Reader<'_> {
    /// `<mesh filename scale>`, with `<drake:declare_convex/>` a convex hull.
    pub(super) fn mesh(&mut self, kind: Node, at: &str) -> SourceResult<Geometry> {
        let src = self.source;
        let uri = URDF.required_attribute(src, kind, "filename")?;
        let mut mesh = MeshRef::new(uri);
        if let Some(scale) = URDF.attribute_fixed::<3>(src, kind, "scale")? {
            mesh.scale = scale;
        }
        match resolve_mesh(uri, src.base_dir(), &mut self.packages) {
            MeshLocation::File(path) => {
                mesh.resolved_path = Some(path.display().to_string());
                self.note_package_beside_file(uri, at, kind);
            }
            MeshLocation::UnresolvedPackage(package) => self.warn(
                "package_unresolved",
                Category::Note,
                at,
                kind,
                format!(
                    "package {package:?} of {uri:?} is not found under the package_path setting, ROS_PACKAGE_PATH or AMENT_PREFIX_PATH, nor from the model file's folder (a folder above it, or one beside such a folder): the URI is kept as written"
                ),
            ),
            MeshLocation::MissingInPackage { package, file, dir } => {
                self.note_package_beside_file(uri, at, kind);
                self.warn(
                    "package_file_missing",
                    Category::Note,
                    at,
                    kind,
                    format!(
                        "file {file:?} of {uri:?} is not found in package {package:?} (at {}): the URI is kept as written",
                        dir.display()
                    ),
                );
            }
            MeshLocation::Other => {}
        }
        if elements(kind).any(|e| qualified_name(e) == "drake:declare_convex") {
            self.note(
                "convex",
                Category::Note,
                at,
                kind,
                "<drake:declare_convex/>: the mesh is its convex hull, as Drake reads it",
            );
            Ok(Geometry::ConvexHull(mesh))
        } else {
            Ok(Geometry::Mesh(mesh))
        }
    }
}

impl Reader<'_> {
    /// The first time a `package://` URI's package is found from the model file's folder
    /// rather than under a search root: a note saying where.
    fn note_package_beside_file(&mut self, uri: &str, at: &str, kind: Node) {
        let Some(rest) = uri.strip_prefix("package://") else {
            return;
        };
        let package = rest.trim_start_matches('/').split('/').next().unwrap_or_default();
        let Some(dir) = self.packages.found_beside_file(package) else {
            return;
        };
        if !self.packages_beside_file.insert(package.to_owned()) {
            return;
        }
        let message = format!(
            "package {package:?} is under no root (the package_path setting, ROS_PACKAGE_PATH, AMENT_PREFIX_PATH): it is the folder {}, found from the model file's folder (a folder above it named so or whose package.xml names it, or a folder of that name beside one)",
            dir.display()
        );
        self.note("package_beside_file", Category::Note, at, kind, message);
    }
}

/// Where a mesh URI points.
#[derive(Clone, Debug, PartialEq, Eq)]
enum MeshLocation {
    /// A file path (resolved; it may not exist).
    File(PathBuf),
    /// A `package://` URI whose package was not found under any root.
    UnresolvedPackage(String),
    /// A `package://` URI whose package was found (first at `dir`) but none of whose
    /// directories holds `file`.
    MissingInPackage {
        package: String,
        file: String,
        dir: PathBuf,
    },
    /// A scheme the reader does not resolve (`http://`, `model://`, ...), kept as written.
    Other,
}

/// Resolves a mesh URI as ROS does: `package://NAME/rest` in the first directory of package
/// `NAME` (see [`Packages::directories`]) that holds `rest` (`package:///NAME/rest`, with an
/// empty package name, as Pinocchio reads it), `file://PATH` to `PATH`, and a plain path
/// relative to `base` (the model file's directory).
fn resolve_mesh(uri: &str, base: Option<&Path>, packages: &mut Packages) -> MeshLocation {
    if let Some(rest) = uri.strip_prefix("package://") {
        return match packages.resolve(rest) {
            PackageFile::Found(file) => MeshLocation::File(file),
            PackageFile::MissingInPackage { package, file, dir } => {
                MeshLocation::MissingInPackage { package, file, dir }
            }
            PackageFile::PackageNotFound(package) => MeshLocation::UnresolvedPackage(package),
        };
    }
    if let Some(path) = uri.strip_prefix("file://") {
        let path = Path::new(path);
        return MeshLocation::File(match base {
            Some(base) if path.is_relative() => base.join(path),
            _ => path.to_path_buf(),
        });
    }
    if uri.contains("://") {
        return MeshLocation::Other;
    }
    let path = Path::new(uri);
    MeshLocation::File(match base {
        Some(base) if path.is_relative() => base.join(path),
        _ => path.to_path_buf(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_file_uris_resolve_against_the_model() {
        let none = &mut Packages::new(Vec::new());
        assert_eq!(
            resolve_mesh("m/a.stl", Some(Path::new("/r")), none),
            MeshLocation::File(PathBuf::from("/r/m/a.stl"))
        );
        assert_eq!(
            resolve_mesh("file:///x/a.stl", None, none),
            MeshLocation::File(PathBuf::from("/x/a.stl"))
        );
        assert_eq!(
            resolve_mesh("package://p/a.stl", None, none),
            MeshLocation::UnresolvedPackage("p".into())
        );
    }

    #[test]
    fn package_uris_resolve_through_the_packages() {
        let dir = std::env::temp_dir().join(format!("mbconv-urdf-meshes-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg/meshes")).unwrap();
        std::fs::write(dir.join("pkg/meshes/a.stl"), "solid").unwrap();
        let mut roots = Packages::new(vec![dir.clone()]);
        assert_eq!(
            resolve_mesh("package://pkg/meshes/a.stl", None, &mut roots),
            MeshLocation::File(dir.join("pkg/meshes/a.stl"))
        );
        assert_eq!(
            resolve_mesh("package://pkg/meshes/b.stl", None, &mut roots),
            MeshLocation::MissingInPackage {
                package: "pkg".into(),
                file: "meshes/b.stl".into(),
                dir: dir.join("pkg")
            }
        );
        assert_eq!(
            resolve_mesh("https://x/a.stl", None, &mut roots),
            MeshLocation::Other
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
