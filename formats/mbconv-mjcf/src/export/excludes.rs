//! `<contact><exclude>` for the jointed bodies MuJoCo would collide. MuJoCo never checks two
//! bodies welded together (one weld body), and by default a body against its parent's weld
//! body, except where either is welded to the world: a link hinged to a fixed base, or to a
//! body welded to that base, collides with it (checked with MuJoCo 4.0: four contacts between
//! two overlapping boxes, the child hinged to a welded parent; none when the parent moves).
//! Joints outside the tree (`<equality>` loops) are not filtered either. A model whose
//! simulator never checks a jointed pair (`simulation.jointed_bodies_collide` false) gets an
//! exclude for each such pair whose bodies both have collidable shapes, so MuJoCo filters the
//! pairs the source's simulator filters.

use super::Plan;
use mbconv_ir::{JointKind, Model};
use mbconv_xml::write::XmlElement;

/// The weld body of every written body: itself when it holds a moving joint, else its MJCF
/// parent's (`None`: the world).
fn weld_bodies(model: &Model, plan: &Plan) -> Vec<Option<usize>> {
    let n = model.bodies.len();
    let mut weld: Vec<Option<Option<usize>>> = vec![None; n];
    fn find(b: usize, model: &Model, plan: &Plan, weld: &mut Vec<Option<Option<usize>>>) -> Option<usize> {
        if let Some(w) = weld[b] {
            return w;
        }
        let moving = plan.chain[b]
            .iter()
            .any(|&j| model.joints[j].kind != JointKind::Fixed);
        let w = if moving {
            Some(b)
        } else {
            plan.parent[b].and_then(|p| find(p, model, plan, weld))
        };
        weld[b] = Some(w);
        w
    }
    (0..n).map(|b| find(b, model, plan, &mut weld)).collect()
}

/// True when MuJoCo (with its default `filterparent`) never checks contact between the
/// written bodies `a` and `b`.
fn filtered(a: usize, b: usize, weld: &[Option<usize>], plan: &Plan) -> bool {
    let (wa, wb) = (weld[a], weld[b]);
    if wa == wb {
        return true;
    }
    let (Some(wa), Some(wb)) = (wa, wb) else {
        return false;
    };
    let weld_parent = |w: usize| plan.parent[w].and_then(|p| weld[p]);
    weld_parent(wb) == Some(wa) || weld_parent(wa) == Some(wb)
}

/// `<contact>` with an `<exclude>` per jointed pair MuJoCo would check and the model's
/// simulator does not; empty when there is none.
pub(super) fn contact(model: &Model, plan: &Plan) -> XmlElement {
    let mut contact = XmlElement::new("contact");
    if model.simulation.jointed_bodies_collide {
        return contact;
    }
    let collides = |b: usize| {
        !plan.merged[b]
            && model.bodies[b]
                .shapes
                .iter()
                .any(|s| s.collidable && s.role.is_collision())
    };
    let weld = weld_bodies(model, plan);
    let mut written: Vec<(usize, usize)> = Vec::new();
    for joint in &model.joints {
        let (Some(a), Some(b)) = (
            joint.parent.name().and_then(|n| model.body_index(n)),
            joint.child.name().and_then(|n| model.body_index(n)),
        ) else {
            continue;
        };
        let pair = (a.min(b), a.max(b));
        if a == b || !collides(a) || !collides(b) || filtered(a, b, &weld, plan) || written.contains(&pair) {
            continue;
        }
        written.push(pair);
        contact = contact.child(
            XmlElement::new("exclude")
                .attr("body1", model.bodies[a].name.as_str())
                .attr("body2", model.bodies[b].name.as_str()),
        );
    }
    contact
}
