//! A body item whose file is in another format (URDF), read by that format's reader through
//! the read options' hook ([`mbconv_ir::format::Readers`], which the facade `mbconv` fills),
//! as Choreonoid hands such a file to its loader for that format. A format crate depends on no
//! other format, so the Body crate alone (without the hook) refuses the item with words that
//! say why.

use super::fields::Doc;
use crate::raw::Node;
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::format::{Imported, Options, Readers, Source};
use mbconv_ir::report::path;
use mbconv_ir::{BodyRef, Category, Joint, JointKind, Severity};
use std::path::Path;

/// Reads the URDF file at `path` that body item `item` names (`file`: the node naming it) with
/// the URDF reader `readers` reaches, its root link free as Choreonoid's URDF loader makes it
/// (`setJointType(FreeJoint)`), so the item's placement and `fix_root` apply as to a body file.
pub(super) fn urdf_body(
    doc: &Doc,
    session: &mut ImportSession,
    readers: Option<&Readers>,
    item: &str,
    file: &Node,
    path: &Path,
) -> SourceResult<Imported> {
    let refuse = |why: String| {
        doc.error(
            "urdf_body",
            file,
            format!(
                "body item {item:?} names a URDF file ({}), which Choreonoid reads with its URDF loader: {why}",
                path.display()
            ),
        )
    };
    let Some(readers) = readers else {
        return Err(Box::new(
            refuse("the Body reader alone cannot reach a URDF reader".to_owned()).with_help(format!(
                "read the project through mbconv (its command or library), which hands the file to its URDF reader, or the URDF file itself: mbconv info {}",
                path.display()
            )),
        ));
    };
    let source = Source::from_path(path).map_err(|e| {
        doc.error(
            "body_file",
            file,
            format!("cannot read the body file {}: {e}", path.display()),
        )
    })?;
    let mut options = Options::default();
    options.set("root", "free");
    options.readers = Some(readers.clone());
    let mut imported = match readers.read("urdf", &source, &options) {
        None => return Err(refuse("this build of mbconv has no URDF reader".to_owned())),
        Some(Err(e)) => return Err(refuse(format!("mbconv's URDF reader refuses it: {e}"))),
        Some(Ok(imported)) => imported,
    };
    free_root_joint(&mut imported);
    session.finding(
        "urdf_item",
        Severity::Info,
        Category::Note,
        &path::item("groups", item),
        Some(doc.span(file)),
        format!(
            "body item {item:?} is the URDF file {}, read by mbconv's URDF reader (urdfdom's reading) with its root link free, as Choreonoid's URDF loader makes it",
            path.display()
        ),
    );
    Ok(imported)
}

/// Gives the free root link (a body no joint moves) a free joint from the world at its pose, as
/// the Body reader reads a root link, so the project's placement finds it.
fn free_root_joint(imported: &mut Imported) {
    let model = &mut imported.model;
    let moved: Vec<&str> = model.joints.iter().filter_map(|j| j.child.name()).collect();
    let Some(root) = model
        .bodies
        .iter()
        .find(|b| !b.fixed && !moved.contains(&b.name.as_str()))
    else {
        return;
    };
    let mut name = root.name.clone();
    while model.joints.iter().any(|j| j.name == name) {
        name.push_str("_root");
    }
    let mut joint = Joint::new(name, JointKind::Free, BodyRef::World, BodyRef::body(&root.name));
    joint.parent_frame = root.pose;
    model.joints.insert(0, joint);
}
