//! Why a mesh file could not be read.

use crate::MeshFormat;
use std::path::PathBuf;

/// A mesh file that could not be read, naming the file.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum MeshError {
    /// The file could not be opened or read (missing, unreadable).
    #[error("cannot read the mesh file {}: {source}", path.display())]
    #[diagnostic(code(mesh::io))]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The extension names no format this crate reads.
    #[error(
        "no mesh reader for {} (mbconv reads .stl, .obj, .dae, .gltf, .glb and .ply)",
        path.display()
    )]
    #[diagnostic(code(mesh::format))]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// The file is not a valid mesh of its format.
    #[error("{} is not a valid {format} mesh: {reason}", path.display())]
    #[diagnostic(code(mesh::decode))]
    Decode {
        /// The file.
        path: PathBuf,
        /// The format its extension names.
        format: MeshFormat,
        /// What is wrong, as the decoder says it.
        reason: String,
    },
}
