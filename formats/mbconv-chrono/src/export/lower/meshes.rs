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
use mbconv_ir::{Model, Value, ValueMap};
use std::path::Path;

/// The model extras key the emitter writes as `data_path`.
const DATA_PATH: &str = "chrono.data_path";

/// Rewrites relative mesh names of a model read from another format (one with no Chrono
/// `data_path`) so that Chrono finds the files ([`LowerSession::rebase_mesh_paths`]), and states
/// `data_path: RELATIVE` when there are such names; `output` is the model file to be written.
pub(super) fn mesh_paths(l: &mut LowerSession, model: &mut Model, output: Option<&Path>) {
    if model.extras.get(DATA_PATH).is_some() {
        return;
    }
    std::mem::swap(&mut l.model, model);
    let relative_names = l.rebase_mesh_paths(output, "Chrono");
    std::mem::swap(&mut l.model, model);
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
