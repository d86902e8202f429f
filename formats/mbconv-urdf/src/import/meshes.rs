//! Mesh references: where `<mesh filename>` points, resolved as the ROS resource retriever
//! resolves it (`package://` under the `package_path` setting and `ROS_PACKAGE_PATH`,
//! `file://`, paths relative to the model file), and the `<mesh>` element itself.

use super::Reader;
use crate::raw::URDF;
use crate::spec;
use mbconv_ir::format::Options;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::Category;
use mbconv_ir::{Geometry, MeshRef};
use mbconv_xml::{Node, elements, qualified_name};
use std::path::{Path, PathBuf};

/// The directories searched for `package://` URIs: the `package_path` setting's, then
/// `ROS_PACKAGE_PATH`'s.
pub(super) fn package_roots(options: &Options) -> Vec<PathBuf> {
    let mut package_roots: Vec<PathBuf> = options
        .text(spec::PACKAGE_PATH)
        .filter(|t| *t != "none")
        .map(|t| {
            t.split(':')
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
    if let Ok(ros) = std::env::var("ROS_PACKAGE_PATH") {
        package_roots.extend(ros.split(':').filter(|p| !p.is_empty()).map(PathBuf::from));
    }
    package_roots
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
        match resolve_mesh(uri, src.base_dir(), &self.package_roots) {
            MeshLocation::File(path) => mesh.resolved_path = Some(path.display().to_string()),
            MeshLocation::UnresolvedPackage(package) => self.warn(
                "package_unresolved",
                Category::Note,
                at,
                kind,
                format!(
                    "package {package:?} of {uri:?} is not found under the package_path setting or ROS_PACKAGE_PATH: the URI is kept as written"
                ),
            ),
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

/// Where a mesh URI points.
#[derive(Clone, Debug, PartialEq, Eq)]
enum MeshLocation {
    /// A file path (resolved; it may not exist).
    File(PathBuf),
    /// A `package://` URI whose package was not found under any root.
    UnresolvedPackage(String),
    /// A scheme the reader does not resolve (`http://`, `model://`, ...), kept as written.
    Other,
}

/// Resolves a mesh URI as the ROS resource retriever does: `package://NAME/rest` under the
/// first of `package_roots` holding a directory `NAME` (or named `NAME`) that contains
/// `rest`, `file://PATH` to `PATH`, and a plain path relative to `base` (the model file's
/// directory).
fn resolve_mesh(uri: &str, base: Option<&Path>, package_roots: &[PathBuf]) -> MeshLocation {
    if let Some(rest) = uri.strip_prefix("package://") {
        let (package, inner) = rest.split_once('/').unwrap_or((rest, ""));
        for root in package_roots {
            let candidates = [
                root.join(package),
                if root.file_name().is_some_and(|n| n == package) {
                    root.clone()
                } else {
                    PathBuf::new()
                },
            ];
            for dir in candidates.iter().filter(|d| !d.as_os_str().is_empty()) {
                let file = dir.join(inner);
                if file.exists() {
                    return MeshLocation::File(file);
                }
            }
        }
        return MeshLocation::UnresolvedPackage(package.to_owned());
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
        assert_eq!(
            resolve_mesh("m/a.stl", Some(Path::new("/r")), &[]),
            MeshLocation::File(PathBuf::from("/r/m/a.stl"))
        );
        assert_eq!(
            resolve_mesh("file:///x/a.stl", None, &[]),
            MeshLocation::File(PathBuf::from("/x/a.stl"))
        );
        assert_eq!(
            resolve_mesh("package://p/a.stl", None, &[]),
            MeshLocation::UnresolvedPackage("p".into())
        );
    }

    #[test]
    fn packages_resolve_under_their_roots() {
        let dir = std::env::temp_dir().join(format!("mbconv-urdf-meshes-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg/meshes")).unwrap();
        std::fs::write(dir.join("pkg/meshes/a.stl"), "solid").unwrap();
        let roots = [PathBuf::from("/nonexistent"), dir.clone()];
        assert_eq!(
            resolve_mesh("package://pkg/meshes/a.stl", None, &roots),
            MeshLocation::File(dir.join("pkg/meshes/a.stl"))
        );
        assert_eq!(
            resolve_mesh("package://pkg/meshes/a.stl", None, &[dir.join("pkg")]),
            MeshLocation::File(dir.join("pkg/meshes/a.stl"))
        );
        assert_eq!(
            resolve_mesh("package://pkg/meshes/b.stl", None, &roots),
            MeshLocation::UnresolvedPackage("pkg".into())
        );
        assert_eq!(resolve_mesh("https://x/a.stl", None, &roots), MeshLocation::Other);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
