//! The lowering pass `mesh_files`: every mesh file the model names made one MuJoCo opens.
//!
//! MuJoCo opens mesh files by path and decodes binary STL (1 to 200 000 triangles), OBJ and
//! its own MSH. A mesh the reader found (`MeshRef::resolved_path`) is therefore:
//!
//! * referenced where it is when MuJoCo decodes it (a `package://` or `file://` URI becomes
//!   the file's path, which `emit` writes relative to the output), note `mjcf.mesh_referenced`
//!   for a URI;
//! * converted when MuJoCo does not decode it but `mbconv-mesh` reads it (COLLADA, glTF, PLY,
//!   ASCII STL, an STL over MuJoCo's triangle count): read, written as binary STL (OBJ past
//!   200 000 triangles, named after the source: `arm.dae.stl`) into the folder beside the output
//!   ([`asset_folder`](mbconv_ir::format::kit::asset_folder)) as an asset the pipeline writes
//!   with the model, and named there, note `mjcf.mesh_converted`. The file's own units
//!   (COLLADA `<unit meter>`) are applied by the reader; the reference's scale stays the
//!   geom's `scale`;
//! * lost otherwise (`mjcf.mesh_lost`, saying why): a file that does not exist on this machine
//!   (MuJoCo refuses a model naming a missing file), a file neither reads, a conversion or a
//!   URI for standard output (no folder to write into, no file to name a path from), a URI the
//!   reader could not resolve. Written to standard output, the MJCF is as before: files
//!   named by path kept, others lost.
//!
//! MuJoCo computes every mesh's volume at load, whether or not a mass comes from it, and
//! refuses one below `mjMINVAL` (a flat or open surface: "mesh volume is too small. Try setting
//! inertia to shell"). A kept mesh whose volume, as MuJoCo's default `legacy` rule sums it, is
//! that small is written with `inertia="shell"` ([`MESH_INERTIA`]); the writer takes no mass
//! from meshes (`inertiafromgeom="false"`), so nothing else changes.

use crate::spec::arith::MINVAL;
use mbconv_ir::format::kit::{LowerSession, place_asset};
use mbconv_ir::format::support::Feature;
use mbconv_ir::model::geometry::{Geometry, MeshRef};
use mbconv_ir::report::path;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The shape extra that makes `emit` write the mesh's `inertia` (`shell`, for a mesh whose
/// volume MuJoCo finds too small: it refuses such a mesh otherwise, even when no mass is
/// taken from it).
pub(crate) const MESH_INERTIA: &str = "mjcf.mesh_inertia";

/// The mesh formats MuJoCo 4.0 decodes (by file extension).
const MUJOCO_MESH_EXTENSIONS: [&str; 3] = ["stl", "obj", "msh"];

/// What becomes of one mesh file.
#[derive(Clone, Debug)]
enum Fate {
    /// Written as it is named (emit makes a path relative to the output).
    AsNamed,
    /// Named by the file's path (it was named by URI).
    Referenced(String),
    /// Converted into this asset (name relative to the output's folder, its absolute path).
    Converted { name: String, path: String, why: String },
    /// Left out, for this reason.
    Lost(String),
}

/// Makes every mesh MuJoCo must open one it opens (see the module's documentation); `output`
/// is the file to be written, `None` for standard output.
pub(crate) fn mesh_files(s: &mut LowerSession, output: Option<&Path>) {
    let output = output.and_then(|o| std::path::absolute(o).ok());
    let mut fates: BTreeMap<(String, Option<String>), Fate> = BTreeMap::new();
    let mut said: Vec<(String, String)> = Vec::new();
    let mut flat: BTreeMap<(String, [u64; 3]), bool> = BTreeMap::new();
    let mut findings: Vec<(&'static str, String, String)> = Vec::new();
    for b in 0..s.model.bodies.len() {
        let at = path::item("bodies", &s.model.bodies[b].name);
        let mut shapes = std::mem::take(&mut s.model.bodies[b].shapes);
        shapes.retain_mut(|shape| {
            let (Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh)) = &mut shape.geometry else {
                return true;
            };
            if mesh.node.is_some() {
                return true; // not writable at all: `body_data` says so
            }
            let key = (mesh.uri.clone(), mesh.resolved_path.clone());
            let fate = fates
                .entry(key)
                .or_insert_with(|| {
                    let fate = fate(mesh, output.as_deref(), &mut s.assets);
                    match &fate {
                        Fate::Referenced(file) => findings.push((
                            "mesh_referenced",
                            at.clone(),
                            format!("mesh {:?} is written as the file it resolves to, {file} (MuJoCo opens mesh files by path)", mesh.uri),
                        )),
                        Fate::Converted { name, why, .. } => findings.push((
                            "mesh_converted",
                            at.clone(),
                            format!("mesh {:?} ({why}) is converted into {name:?} beside the output", mesh.uri),
                        )),
                        Fate::AsNamed | Fate::Lost(_) => {}
                    }
                    fate
                })
                .clone();
            let kept = match fate {
                Fate::AsNamed => true,
                Fate::Referenced(file) => {
                    mesh.uri = file;
                    true
                }
                Fate::Converted { name, path, .. } => {
                    mesh.uri = name;
                    mesh.resolved_path = Some(path);
                    true
                }
                Fate::Lost(why) => {
                    if !said.contains(&(at.clone(), why.clone())) {
                        said.push((at.clone(), why.clone()));
                        findings.push(("mesh_lost", at.clone(), format!("MJCF cannot say {why}")));
                    }
                    false
                }
            };
            if kept
                && let Some(file) = mesh.resolved_path.clone()
                && *flat
                    .entry((file.clone(), mesh.scale.map(f64::to_bits)))
                    .or_insert_with(|| is_flat(Path::new(&file), mesh.scale))
            {
                shape
                    .extras
                    .insert(MESH_INERTIA, mbconv_ir::Value::String("shell".to_owned()));
            }
            kept
        });
        s.model.bodies[b].shapes = shapes;
    }
    for (what, at, message) in findings {
        if what == "mesh_lost" {
            s.lost(what, Feature::Meshes, &at, message);
        } else {
            s.note(what, Feature::Meshes, &at, message);
        }
    }
}

/// What becomes of `mesh` for an output at `output` (absolute), converted files placed among
/// `assets`.
fn fate(mesh: &MeshRef, output: Option<&Path>, assets: &mut Vec<mbconv_ir::format::Asset>) -> Fate {
    let named = mesh.uri.strip_prefix("file://").unwrap_or(&mesh.uri);
    // No file: a mesh the reader took from MJCF's own data (inline vertices), written back so.
    if named.is_empty() {
        return Fate::AsNamed;
    }
    let by_uri = named.contains("://");
    let Some(file) = mesh.resolved_path.as_deref().map(PathBuf::from) else {
        if by_uri {
            return Fate::Lost(
                "a mesh referenced by a URI the reader did not resolve (package://: name the \
                 package's folder with --read-option package_path=DIR); MuJoCo opens mesh files by path"
                    .to_owned(),
            );
        }
        return match extension(Path::new(named)) {
            Some(e) if MUJOCO_MESH_EXTENSIONS.contains(&e.as_str()) => Fate::AsNamed,
            _ => Fate::Lost("a mesh file MuJoCo does not decode (it reads STL, OBJ and MSH)".to_owned()),
        };
    };
    if !file.is_file() {
        return Fate::Lost(format!(
            "a mesh file that does not exist on this machine ({}): MuJoCo refuses a model that names a missing file",
            file.display()
        ));
    }
    if by_uri && output.is_none() {
        return Fate::Lost(
            "a mesh referenced by URI (package://, file://) for standard output: MuJoCo opens mesh \
             files by a path, which is written relative to the output file"
                .to_owned(),
        );
    }
    match opening(&file) {
        Opening::Opens if by_uri => {
            Fate::Referenced(std::path::absolute(&file).unwrap_or(file).display().to_string())
        }
        Opening::Opens => Fate::AsNamed,
        Opening::Never => Fate::Lost(format!(
            "a mesh file MuJoCo does not decode and mbconv cannot convert ({}; MuJoCo reads STL, OBJ and MSH, mbconv converts COLLADA, glTF and PLY)",
            file.display()
        )),
        Opening::Convert(why) => {
            let Some(output) = output else {
                // Nowhere to convert into: a file MuJoCo takes by its name (an ASCII STL) is
                // named as it is, for MuJoCo to say what it makes of it; others are lost.
                if extension(&file).is_some_and(|e| MUJOCO_MESH_EXTENSIONS.contains(&e.as_str())) {
                    return Fate::AsNamed;
                }
                return Fate::Lost(format!(
                    "{} ({why}) without converting it, which needs an output folder (the model is written to standard output)",
                    file.display()
                ));
            };
            match convert(&file) {
                Ok((bytes, extension)) => {
                    // `arm.dae` becomes `arm.dae.stl`: never the name of a source file copied
                    // beside it (`arm.stl`).
                    let source_name = file.file_name().and_then(|n| n.to_str()).unwrap_or("mesh");
                    let name = place_asset(
                        assets,
                        output,
                        &file,
                        &format!("{source_name}.{extension}"),
                        Some(bytes),
                    );
                    let path = output
                        .parent()
                        .unwrap_or(Path::new(""))
                        .join(&name)
                        .display()
                        .to_string();
                    Fate::Converted { name, path, why }
                }
                Err(e) => Fate::Lost(format!(
                    "a mesh file that could not be converted for MuJoCo ({e})"
                )),
            }
        }
    }
}

/// Whether MuJoCo opens a file as it is.
enum Opening {
    Opens,
    /// mbconv converts it; why MuJoCo would not open it.
    Convert(String),
    Never,
}

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// Whether MuJoCo opens `file`: OBJ and MSH by name; STL only binary, with 1 to 200 000
/// triangles (the header and size are looked at); COLLADA, glTF and PLY after conversion.
fn opening(file: &Path) -> Opening {
    match extension(file).as_deref() {
        Some("obj" | "msh") => Opening::Opens,
        Some("stl") => {
            let Ok(bytes) = std::fs::read(file) else {
                return Opening::Opens; // unreadable here: MuJoCo says why itself
            };
            if !mbconv_mesh::stl::is_binary(&bytes) {
                return Opening::Convert("an ASCII STL file: MuJoCo reads binary STL only".to_owned());
            }
            let count = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
            if (1..=mbconv_mesh::MUJOCO_STL_MAX_TRIANGLES).contains(&count) {
                Opening::Opens
            } else {
                Opening::Convert(format!(
                    "an STL file of {count} triangles: MuJoCo reads 1 to {}",
                    mbconv_mesh::MUJOCO_STL_MAX_TRIANGLES
                ))
            }
        }
        Some(e @ ("dae" | "gltf" | "glb" | "ply")) => {
            let format = match e {
                "dae" => "COLLADA",
                "ply" => "PLY",
                _ => "glTF",
            };
            Opening::Convert(format!("{format}, which MuJoCo does not decode"))
        }
        _ => Opening::Never,
    }
}

/// `file` read and written as binary STL (OBJ past MuJoCo's STL triangle count), with the
/// written file's extension.
fn convert(file: &Path) -> Result<(Vec<u8>, &'static str), String> {
    let mesh = mbconv_mesh::read(file).map_err(|e| e.to_string())?;
    if mesh.faces.is_empty() {
        return Err(format!("{} has no triangles", file.display()));
    }
    Ok(if mesh.faces.len() <= mbconv_mesh::MUJOCO_STL_MAX_TRIANGLES {
        (mesh.to_binary_stl(), "stl")
    } else {
        (mesh.to_obj().into_bytes(), "obj")
    })
}

/// True when MuJoCo's `legacy` volume of the mesh in `file` (as MuJoCo decodes it: the first
/// object of an OBJ file), scaled by `scale`, is below `mjMINVAL`: the tetrahedra from the
/// area-weighted centre of the faces, each counted positive, vertices in single precision. A
/// file that does not read is not flat (MuJoCo names it itself).
fn is_flat(file: &Path, scale: [f64; 3]) -> bool {
    let mesh = match extension(file).as_deref() {
        Some("obj") => std::fs::read(file)
            .ok()
            .and_then(|bytes| mbconv_mesh::obj::objects(&bytes).ok())
            .and_then(|objects| objects.into_iter().next()),
        Some("stl") => mbconv_mesh::read(file).ok(),
        _ => None,
    };
    let Some(mesh) = mesh else {
        return false;
    };
    let vertices: Vec<[f64; 3]> = mesh
        .vertices
        .iter()
        .map(|v| std::array::from_fn(|k| f64::from(v[k] as f32) * scale[k]))
        .collect();
    // (area, unit normal, centre) of each face, tiny ones of area 0 as MuJoCo has them.
    let faces: Vec<(f64, [f64; 3], [f64; 3])> = mesh
        .faces
        .iter()
        .map(|f| {
            let [a, b, c] = f.map(|i| vertices[i]);
            let (u, v): ([f64; 3], [f64; 3]) = (
                std::array::from_fn(|k| b[k] - a[k]),
                std::array::from_fn(|k| c[k] - a[k]),
            );
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let centre = std::array::from_fn(|k| (a[k] + b[k] + c[k]) / 3.0);
            if len < MINVAL {
                (0.0, [0.0; 3], centre)
            } else {
                (0.5 * len, n.map(|x| x / len), centre)
            }
        })
        .collect();
    let area: f64 = faces.iter().map(|f| f.0).sum();
    if area < MINVAL {
        return false; // MuJoCo refuses it as a surface too small either way
    }
    let apex: [f64; 3] = std::array::from_fn(|k| faces.iter().map(|f| f.0 * f.2[k]).sum::<f64>() / area);
    let volume: f64 = faces
        .iter()
        .map(|(area, n, c)| ((0..3).map(|k| (c[k] - apex[k]) * n[k]).sum::<f64>() * area / 3.0).abs())
        .sum();
    volume < MINVAL
}
