//! Mesh references: where `<mesh filename>` points, resolved as ROS resolves it
//! (`package://` under the `package_path` setting and `ROS_PACKAGE_PATH`, a package found by
//! the `<name>` of its `package.xml` or by its folder's name, `file://`, paths relative to the
//! model file), and the `<mesh>` element itself.

use super::Reader;
use crate::raw::URDF;
use crate::spec;
use mbconv_ir::format::Options;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::Category;
use mbconv_ir::{Geometry, MeshRef};
use mbconv_xml::{Node, elements, qualified_name};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How many directories the search for `package.xml` files visits at most under all roots
/// (a root such as `/` must not make reading a model crawl the disk).
const MAX_CRAWLED: usize = 20_000;

/// The ROS packages under the search roots: the `package_path` setting's, then
/// `ROS_PACKAGE_PATH`'s. The `package.xml` files are looked for once, at the first
/// `package://` URI.
pub(super) struct Packages {
    roots: Vec<PathBuf>,
    /// Each package's directories by the `<name>` of its `package.xml`, in root order.
    by_manifest: Option<BTreeMap<String, Vec<PathBuf>>>,
}

impl Packages {
    /// The roots `options` and the environment name.
    pub(super) fn new(options: &Options) -> Self {
        let mut roots: Vec<PathBuf> = options
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
            roots.extend(ros.split(':').filter(|p| !p.is_empty()).map(PathBuf::from));
        }
        Self::under(roots)
    }

    fn under(roots: Vec<PathBuf>) -> Self {
        Packages {
            roots,
            by_manifest: None,
        }
    }

    /// The directories of package `name`, in root order: under each root, a folder called
    /// `name` (or the root itself so called), as Pinocchio finds packages, then each folder
    /// whose `package.xml` says `<name>name</name>`, as ROS finds them.
    fn directories(&mut self, name: &str) -> Vec<PathBuf> {
        let roots = &self.roots;
        let by_manifest = self.by_manifest.get_or_insert_with(|| crawl(roots));
        let mut found: Vec<PathBuf> = Vec::new();
        for root in roots {
            let named = [
                Some(root.join(name)),
                root.file_name().is_some_and(|n| n == name).then(|| root.clone()),
            ];
            let manifests = by_manifest
                .get(name)
                .into_iter()
                .flatten()
                .filter(|d| d.starts_with(root));
            for dir in named
                .into_iter()
                .flatten()
                .filter(|d| d.is_dir())
                .chain(manifests.cloned())
            {
                if !found.contains(&dir) {
                    found.push(dir);
                }
            }
        }
        found
    }
}

/// The packages under `roots` by the `<name>` of their `package.xml`, as rospack finds them: a
/// folder with a `package.xml` is a package and is not searched further; hidden folders and
/// folders with a `CATKIN_IGNORE`, `COLCON_IGNORE` or `AMENT_IGNORE` file are skipped.
fn crawl(roots: &[PathBuf]) -> BTreeMap<String, Vec<PathBuf>> {
    let mut packages: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    let mut visited = 0;
    for root in roots {
        let mut pending = vec![root.clone()];
        while let Some(dir) = pending.pop() {
            visited += 1;
            if visited > MAX_CRAWLED {
                return packages;
            }
            if ["CATKIN_IGNORE", "COLCON_IGNORE", "AMENT_IGNORE"]
                .iter()
                .any(|f| dir.join(f).exists())
            {
                continue;
            }
            if let Some(name) = manifest_name(&dir.join("package.xml")) {
                packages.entry(name).or_default().push(dir);
                continue;
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut children: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| e.path())
                .collect();
            // Depth first, in name order.
            children.sort_unstable_by(|a, b| b.cmp(a));
            pending.extend(children);
        }
    }
    packages
}

/// The `<name>` of the `package.xml` at `path`, if it is one.
fn manifest_name(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let document = mbconv_xml::roxmltree::Document::parse(&text).ok()?;
    let package = document.root_element();
    let name = package
        .children()
        .find(|n| n.has_tag_name("name"))?
        .text()?
        .trim();
    (package.has_tag_name("package") && !name.is_empty()).then(|| name.to_owned())
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
            MeshLocation::MissingInPackage { package, file, dir } => self.warn(
                "package_file_missing",
                Category::Note,
                at,
                kind,
                format!(
                    "file {file:?} of {uri:?} is not found in package {package:?} (at {}): the URI is kept as written",
                    dir.display()
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
        let rest = rest.trim_start_matches('/');
        let (package, inner) = rest.split_once('/').unwrap_or((rest, ""));
        let directories = packages.directories(package);
        if let Some(file) = directories.iter().map(|d| d.join(inner)).find(|f| f.exists()) {
            return MeshLocation::File(file);
        }
        return match directories.into_iter().next() {
            Some(dir) => MeshLocation::MissingInPackage {
                package: package.to_owned(),
                file: inner.to_owned(),
                dir,
            },
            None => MeshLocation::UnresolvedPackage(package.to_owned()),
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
        let none = &mut Packages::under(Vec::new());
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
    fn packages_resolve_under_their_roots_by_folder_or_manifest_name() {
        let dir = std::env::temp_dir().join(format!("mbconv-urdf-meshes-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg/meshes")).unwrap();
        std::fs::write(dir.join("pkg/meshes/a.stl"), "solid").unwrap();
        // A package whose folder is not named after it, two levels down.
        std::fs::create_dir_all(dir.join("src/robot-data/meshes")).unwrap();
        std::fs::write(dir.join("src/robot-data/meshes/b.stl"), "solid").unwrap();
        std::fs::write(
            dir.join("src/robot-data/package.xml"),
            "<?xml version=\"1.0\"?>\n<package format=\"3\">\n  <name> robot_data </name>\n</package>",
        )
        .unwrap();
        // Ignored, hidden: not found.
        std::fs::create_dir_all(dir.join("src/.hidden")).unwrap();
        std::fs::write(
            dir.join("src/.hidden/package.xml"),
            "<package><name>hidden</name></package>",
        )
        .unwrap();
        let mut roots = Packages::under(vec![PathBuf::from("/nonexistent"), dir.clone()]);
        assert_eq!(
            resolve_mesh("package://pkg/meshes/a.stl", None, &mut roots),
            MeshLocation::File(dir.join("pkg/meshes/a.stl"))
        );
        assert_eq!(
            resolve_mesh(
                "package://pkg/meshes/a.stl",
                None,
                &mut Packages::under(vec![dir.join("pkg")])
            ),
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
            resolve_mesh("package://robot_data/meshes/b.stl", None, &mut roots),
            MeshLocation::File(dir.join("src/robot-data/meshes/b.stl"))
        );
        assert_eq!(
            resolve_mesh("package:///robot_data/meshes/b.stl", None, &mut roots),
            MeshLocation::File(dir.join("src/robot-data/meshes/b.stl"))
        );
        assert_eq!(
            resolve_mesh("package://hidden/x.stl", None, &mut roots),
            MeshLocation::UnresolvedPackage("hidden".into())
        );
        assert_eq!(
            resolve_mesh("https://x/a.stl", None, &mut roots),
            MeshLocation::Other
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
