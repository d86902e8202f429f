//! ROS packages found as ROS and Pinocchio find them, for the `package://NAME/rest` URIs of
//! URDF and SDFormat files: under each search root, a folder called `NAME` (or the root itself
//! so called), as Pinocchio finds packages, then each folder whose `package.xml` says
//! `<name>NAME</name>`, as rospack finds them. A package under no root may be found from the
//! model file's own folder ([`Packages::with_file_folder`]): the nearest folder above the file
//! (or the file's own) that is called `NAME` or whose `package.xml` names it, else the nearest
//! folder `NAME` inside one of those folders. A file missing
//! inside a package that was found is told apart from a package that was not found.
//!
//! ```
//! use mbconv_xml::packages::{PackageFile, Packages};
//! let mut packages = Packages::new(Vec::new());
//! assert_eq!(packages.resolve("robot/meshes/arm.stl"), PackageFile::PackageNotFound("robot".into()));
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How many directories the search for `package.xml` files visits at most under all roots
/// (a root such as `/` must not make reading a model crawl the disk).
const MAX_CRAWLED: usize = 20_000;

/// The ROS packages under a list of search roots. The `package.xml` files are looked for once,
/// at the first lookup.
#[derive(Debug)]
pub struct Packages {
    roots: Vec<PathBuf>,
    /// Each package's directories by the `<name>` of its `package.xml`, in root order.
    by_manifest: Option<BTreeMap<String, Vec<PathBuf>>>,
    /// The model file's folder and the folders above it, nearest first: where a package under
    /// no root is looked for last.
    file_folders: Vec<PathBuf>,
    /// The packages found in `file_folders`, by name.
    beside_file: BTreeMap<String, PathBuf>,
}

/// What a `package://` URI names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackageFile {
    /// The file, in the first directory of the package that holds it.
    Found(PathBuf),
    /// The package was found (first at `dir`) but none of its directories holds `file`.
    MissingInPackage {
        /// The package's name.
        package: String,
        /// The path inside the package.
        file: String,
        /// The package's first directory.
        dir: PathBuf,
    },
    /// No directory of that package is under any root.
    PackageNotFound(String),
}

impl Packages {
    /// The packages under `roots`, searched in that order.
    pub fn new(roots: Vec<PathBuf>) -> Self {
        Packages {
            roots,
            by_manifest: None,
            file_folders: Vec::new(),
            beside_file: BTreeMap::new(),
        }
    }

    /// The same packages, and those found from `folder` (the model file's), searched after
    /// every root: `folder` and each folder above it, nearest first, is package `NAME` when it
    /// is called `NAME` or its `package.xml` names it (a robot description read where it was
    /// unpacked, such as example-robot-data's `robots/pr2_description/urdf/pr2.urdf` naming
    /// `package://pr2_description/meshes/...`); failing that, the nearest folder `NAME` inside
    /// one of them (each taken as a root of its own, as a `ROS_PACKAGE_PATH` entry would be:
    /// Pinocchio's `models/simple_humanoid.urdf` naming `package://simple_humanoid_description/...`
    /// beside it). A relative `folder` gives relative paths as
    /// far up as it names folders, then absolute ones.
    ///
    /// ```
    /// use mbconv_xml::packages::{PackageFile, Packages};
    /// let dir = std::env::temp_dir().join(format!("mbconv-doc-beside-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("robot_description/urdf")).unwrap();
    /// std::fs::create_dir_all(dir.join("robot_description/meshes")).unwrap();
    /// std::fs::write(dir.join("robot_description/meshes/arm.stl"), "solid").unwrap();
    /// let mut packages = Packages::new(Vec::new()).with_file_folder(&dir.join("robot_description/urdf"));
    /// assert_eq!(
    ///     packages.resolve("robot_description/meshes/arm.stl"),
    ///     PackageFile::Found(dir.join("robot_description/meshes/arm.stl"))
    /// );
    /// assert_eq!(packages.found_beside_file("robot_description"), Some(dir.join("robot_description").as_path()));
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn with_file_folder(mut self, folder: &Path) -> Self {
        self.file_folders = folders_up_from(folder);
        self
    }

    /// The folder package `name` was found in from the model file's folder (see
    /// [`with_file_folder`](Self::with_file_folder)), once a lookup found it there and under
    /// no root.
    pub fn found_beside_file(&self, name: &str) -> Option<&Path> {
        self.beside_file.get(name).map(PathBuf::as_path)
    }

    /// The roots of a `:`-separated read setting (`None` or `"none"`: no roots), then those
    /// of `ROS_PACKAGE_PATH`, then the `share` folder of each prefix of `AMENT_PREFIX_PATH`
    /// (where ROS 2 installs packages).
    ///
    /// ```
    /// let packages = mbconv_xml::packages::Packages::from_setting(Some("/a:/b"));
    /// assert!(packages.roots().starts_with(&["/a".into(), "/b".into()]));
    /// ```
    pub fn from_setting(setting: Option<&str>) -> Self {
        let mut roots: Vec<PathBuf> = setting
            .filter(|t| *t != "none")
            .map(split_paths)
            .unwrap_or_default();
        if let Ok(ros) = std::env::var("ROS_PACKAGE_PATH") {
            roots.extend(split_paths(&ros));
        }
        if let Ok(ament) = std::env::var("AMENT_PREFIX_PATH") {
            roots.extend(split_paths(&ament).into_iter().map(|prefix| prefix.join("share")));
        }
        Self::new(roots)
    }

    /// The search roots, in order.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The directories of package `name`, in root order: under each root, a folder called
    /// `name` (or the root itself so called), then each folder whose `package.xml` names it;
    /// under no root, the nearest folder from the model file's up that is the package (see
    /// [`with_file_folder`](Self::with_file_folder)).
    pub fn directories(&mut self, name: &str) -> Vec<PathBuf> {
        let found = self.under_roots(name);
        if !found.is_empty() {
            return found;
        }
        let beside = self.file_folders.iter().find(|folder| {
            folder.file_name().is_some_and(|n| n == name)
                || manifest_name(&folder.join("package.xml")).as_deref() == Some(name)
        });
        // Then each of those folders as a root of its own: a package folder beside the model
        // file or beside a folder above it (Pinocchio's `models/simple_humanoid.urdf` naming
        // `package://simple_humanoid_description/...` of `models/simple_humanoid_description`).
        let beside = beside.cloned().or_else(|| {
            self.file_folders
                .iter()
                .map(|folder| folder.join(name))
                .find(|candidate| candidate.is_dir())
        });
        match beside {
            Some(folder) => {
                self.beside_file.insert(name.to_owned(), folder.clone());
                vec![folder]
            }
            None => Vec::new(),
        }
    }

    /// The directories of package `name` under the roots, in root order.
    fn under_roots(&mut self, name: &str) -> Vec<PathBuf> {
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

    /// What `rest`, a `package://` URI without its scheme (`NAME/path`; the leading `/` of
    /// `package:///NAME/path`, an empty host as Pinocchio reads it, is skipped), names: the
    /// file in the first directory of package `NAME` that holds it.
    pub fn resolve(&mut self, rest: &str) -> PackageFile {
        let rest = rest.trim_start_matches('/');
        let (package, inner) = rest.split_once('/').unwrap_or((rest, ""));
        let directories = self.directories(package);
        if let Some(file) = directories.iter().map(|d| d.join(inner)).find(|f| f.exists()) {
            return PackageFile::Found(file);
        }
        match directories.into_iter().next() {
            Some(dir) => PackageFile::MissingInPackage {
                package: package.to_owned(),
                file: inner.to_owned(),
                dir,
            },
            None => PackageFile::PackageNotFound(package.to_owned()),
        }
    }
}

/// `folder` and the folders above it, nearest first: as written while `folder` (relative,
/// made of plain names) names them, then absolute.
fn folders_up_from(folder: &Path) -> Vec<PathBuf> {
    // The folder of a file named without one (`model.urdf`) is the working directory.
    let absolute = if folder.as_os_str().is_empty() {
        std::env::current_dir().unwrap_or_default()
    } else {
        std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf())
    };
    let plain = folder.is_relative()
        && folder
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    let written: Vec<&Path> = if plain {
        folder.ancestors().filter(|a| a.file_name().is_some()).collect()
    } else {
        Vec::new()
    };
    absolute
        .ancestors()
        .enumerate()
        .map(|(k, a)| {
            written
                .get(k)
                .map_or_else(|| a.to_path_buf(), |w| w.to_path_buf())
        })
        .collect()
}

fn split_paths(text: &str) -> Vec<PathBuf> {
    text.split(':')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect()
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
    let document = roxmltree::Document::parse(&text).ok()?;
    let package = document.root_element();
    let name = package
        .children()
        .find(|n| n.has_tag_name("name"))?
        .text()?
        .trim();
    (package.has_tag_name("package") && !name.is_empty()).then(|| name.to_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn packages_resolve_under_their_roots_by_folder_or_manifest_name() {
        let dir = std::env::temp_dir().join(format!("mbconv-xml-packages-{}", std::process::id()));
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
        let mut roots = Packages::new(vec![PathBuf::from("/nonexistent"), dir.clone()]);
        assert_eq!(
            roots.resolve("pkg/meshes/a.stl"),
            PackageFile::Found(dir.join("pkg/meshes/a.stl"))
        );
        assert_eq!(
            Packages::new(vec![dir.join("pkg")]).resolve("pkg/meshes/a.stl"),
            PackageFile::Found(dir.join("pkg/meshes/a.stl"))
        );
        assert_eq!(
            roots.resolve("pkg/meshes/b.stl"),
            PackageFile::MissingInPackage {
                package: "pkg".into(),
                file: "meshes/b.stl".into(),
                dir: dir.join("pkg")
            }
        );
        assert_eq!(
            roots.resolve("robot_data/meshes/b.stl"),
            PackageFile::Found(dir.join("src/robot-data/meshes/b.stl"))
        );
        assert_eq!(
            roots.resolve("/robot_data/meshes/b.stl"),
            PackageFile::Found(dir.join("src/robot-data/meshes/b.stl"))
        );
        assert_eq!(
            roots.resolve("hidden/x.stl"),
            PackageFile::PackageNotFound("hidden".into())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_package_folder_beside_the_model_file_or_a_folder_above_it_is_found() {
        let dir = std::env::temp_dir().join(format!("mbconv-xml-siblings-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("models/humanoid_description")).unwrap();
        std::fs::create_dir_all(dir.join("models/urdf")).unwrap();
        std::fs::write(dir.join("models/humanoid_description/box.stl"), "solid").unwrap();
        // Beside the file's folder's parent, as Pinocchio's models/ folder holds them.
        let mut packages = Packages::new(Vec::new()).with_file_folder(&dir.join("models/urdf"));
        assert_eq!(
            packages.resolve("humanoid_description/box.stl"),
            PackageFile::Found(dir.join("models/humanoid_description/box.stl"))
        );
        assert_eq!(
            packages.found_beside_file("humanoid_description"),
            Some(dir.join("models/humanoid_description").as_path())
        );
        // Beside the file itself.
        let mut packages = Packages::new(Vec::new()).with_file_folder(&dir.join("models"));
        assert_eq!(
            packages.resolve("humanoid_description/box.stl"),
            PackageFile::Found(dir.join("models/humanoid_description/box.stl"))
        );
        // A folder that is not there is not found.
        assert_eq!(
            packages.resolve("other_description/box.stl"),
            PackageFile::PackageNotFound("other_description".into())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
