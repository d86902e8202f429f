//! `<asset>`: materials (their colour) and `<mesh>` assets: what each says (file or inline vertices and faces, `scale`, `refpos`,
//! `refquat`, `inertia`), and, when a geom needs it (its mass, or a primitive fitted to the
//! mesh), the mesh decoded and processed as MuJoCo's compiler does, once per asset.

use super::{Reader, verbatim};
use crate::import::compiler::defaults::ClassId;
use crate::import::compiler::mesh::decode::{self, MeshFormat, RawMesh};
use crate::import::compiler::mesh::mass::{MeshInertia, MeshMass, MeshTransform, process};
use crate::raw::Element;
use mbconv_ir::format::kit::SourceResult;
use std::path::{Path, PathBuf};

/// One `<mesh>` of `<asset>`.
pub(crate) struct MeshAsset<'d> {
    pub name: String,
    /// `file` as written (empty for inline meshes).
    pub file: String,
    pub transform: MeshTransform,
    pub inertia: MeshInertia,
    pub element: &'d Element,
    /// The processed mesh, once a geom needed it.
    pub mass: Option<MeshMass>,
}

impl<'d> Reader<'d> {
    /// `<asset>`: materials (name and colour) and meshes; the section is kept verbatim for the
    /// main model.
    pub(super) fn assets(&mut self, a: &'d Element) -> SourceResult<()> {
        for e in &a.children {
            match e.name.as_str() {
                "material" => {
                    let class = self.class_of(e, ClassId::MAIN)?;
                    let rgba = self
                        .values
                        .vector(e, "material", class, "rgba", &[1.0, 1.0, 1.0, 1.0], true)?
                        .0;
                    let name = e.value("name").unwrap_or_default().to_string();
                    self.materials.push((name, [rgba[0], rgba[1], rgba[2], rgba[3]]));
                }
                "mesh" => self.mesh_asset(e)?,
                _ => {}
            }
        }
        if self.current == 0 {
            let kept = verbatim(a);
            self.append_extra("mjcf.asset", kept);
        }
        Ok(())
    }

    /// Reads a `<mesh>` asset's attributes (the file is decoded only when needed).
    pub(super) fn mesh_asset(&mut self, e: &'d Element) -> SourceResult<()> {
        let class = self.class_of(e, ClassId::MAIN)?;
        let v = self.values;
        let scale = v.vector(e, "mesh", class, "scale", &[1.0, 1.0, 1.0], true)?.0;
        let refpos = v.vector(e, "mesh", class, "refpos", &[0.0; 3], true)?.0;
        let refquat = v
            .vector(e, "mesh", class, "refquat", &[1.0, 0.0, 0.0, 0.0], true)?
            .0;
        let inertia = match v.get(e, "mesh", class, "inertia") {
            None => MeshInertia::Legacy,
            Some((a, _)) => {
                let word = v.keyword(a, &["convex", "exact", "legacy", "shell"])?;
                MeshInertia::parse(word).unwrap_or_default()
            }
        };
        let file = e.value("file").unwrap_or_default().to_string();
        let name = match e.value("name") {
            Some(n) => n.to_string(),
            None => Path::new(&file)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        self.meshes.push(MeshAsset {
            name,
            file,
            transform: MeshTransform {
                scale: [scale[0], scale[1], scale[2]],
                refpos: [refpos[0], refpos[1], refpos[2]],
                refquat: [refquat[0], refquat[1], refquat[2], refquat[3]],
            },
            inertia,
            element: e,
            mass: None,
        });
        Ok(())
    }

    /// The mesh file reference as the IR keeps it (`meshdir` joined) and where it lies.
    pub(crate) fn mesh_uri(&self, file: &str) -> (String, Option<PathBuf>) {
        let uri = match &self.compiler.meshdir {
            Some(dir) if !Path::new(file).is_absolute() => {
                Path::new(dir).join(file).to_string_lossy().into_owned()
            }
            _ => file.to_string(),
        };
        let resolved = self.base_dir.as_ref().map(|base| base.join(&uri));
        (uri, resolved)
    }

    /// The processed mesh of asset `index`, decoding and processing it the first time.
    pub(crate) fn mesh_mass(&mut self, index: usize) -> SourceResult<MeshMass> {
        if let Some(m) = self.meshes[index].mass {
            return Ok(m);
        }
        let asset = &self.meshes[index];
        let e = asset.element;
        let name = asset.name.clone();
        let (transform, inertia) = (asset.transform, asset.inertia);
        let file = asset.file.clone();
        let at = e.attr("file").map_or(e.loc.clone(), |a| a.loc.clone());
        let raw = if file.is_empty() {
            self.inline_mesh(e)?
        } else {
            let (uri, resolved) = self.mesh_uri(&file);
            let path = resolved.unwrap_or_else(|| PathBuf::from(&uri));
            let Some(format) = MeshFormat::of(&file) else {
                return Err(self.error(
                    &at,
                    "mesh",
                    format!("mesh '{name}': no decoder found for mesh file '{uri}' (MuJoCo reads .stl, .obj and .msh)"),
                ));
            };
            let bytes = std::fs::read(&path).map_err(|err| {
                self.error(
                    &at,
                    "mesh",
                    format!(
                        "mesh '{name}': cannot read the mesh file '{}': {err}",
                        path.display()
                    ),
                )
            })?;
            let s = transform.scale;
            decode::decode(format, &bytes, s[0] * s[1] * s[2] <= 0.0)
                .map_err(|err| self.error(&at, "mesh", format!("mesh '{name}' ({uri}): {err}")))?
        };
        let processed = process(&raw.vertices, &raw.faces, transform, inertia)
            .map_err(|err| self.error(&e.loc, "mesh", format!("mesh '{name}': {err}")))?;
        self.meshes[index].mass = Some(processed);
        Ok(processed)
    }

    /// `vertex` and `face` written in the `<mesh>` element.
    fn inline_mesh(&self, e: &Element) -> SourceResult<RawMesh> {
        let v = self.values;
        let mut mesh = RawMesh::default();
        if let Some(a) = e.attr("vertex") {
            let n = v.numbers(a, usize::MAX, false)?;
            if n.len() % 3 != 0 {
                return Err(self.error(&a.loc, "mesh", "vertex data must be a multiple of 3"));
            }
            mesh.vertices = n
                .chunks(3)
                .map(|c| [c[0] as f32, c[1] as f32, c[2] as f32])
                .collect();
        }
        if let Some(a) = e.attr("face") {
            let n = v.numbers(a, usize::MAX, false)?;
            if n.len() % 3 != 0 || n.iter().any(|x| x.fract() != 0.0) {
                return Err(self.error(&a.loc, "mesh", "face data must be a multiple of 3 integers"));
            }
            mesh.faces = n
                .chunks(3)
                .map(|c| [c[0] as i64, c[1] as i64, c[2] as i64])
                .collect();
        }
        if mesh.vertices.is_empty() {
            return Err(self.error(&e.loc, "mesh", "no vertices (neither a file nor vertex data)"));
        }
        Ok(mesh)
    }

    /// The asset a geom names.
    pub(crate) fn mesh_index(&self, name: &str) -> Option<usize> {
        self.meshes.iter().position(|m| m.name == name)
    }
}
