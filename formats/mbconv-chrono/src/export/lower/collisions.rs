//! Contact between jointed bodies. Chrono's YAML parser puts every collision shape in
//! collision family 0 and never disables a pair, so two bodies joined by a joint that both
//! carry collision shapes touch each other in Chrono; DART (and the IR's reading of SKEL)
//! never checks a jointed pair.

use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{Body, BodyRef, Model};

/// Reports every joint whose two bodies both have collision shapes.
pub(super) fn jointed_pairs(s: &mut LowerSession, model: &Model) {
    let collides = |r: &BodyRef| {
        r.name()
            .and_then(|n| model.body(n))
            .is_some_and(|b: &Body| b.shapes.iter().any(|s| s.role.is_collision() && s.collidable))
    };
    for j in &model.joints {
        let (Some(parent), Some(child)) = (j.parent.name(), j.child.name()) else {
            continue;
        };
        if parent != child && collides(&j.parent) && collides(&j.child) {
            s.approximated(
                "jointed_bodies_collide",
                Feature::ContactMaterials,
                &path::item("joints", &j.name),
                format!(
                    "{} and {} both have collision shapes: Chrono checks contact between them (its YAML parser puts every shape in collision family 0), where DART never checks a jointed pair",
                    path::item("bodies", parent),
                    path::item("bodies", child)
                ),
            );
        }
    }
}
