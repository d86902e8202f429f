//! Contact between two bodies joined by a joint, for targets whose simulator decides it
//! differently from the model ([`Simulation::jointed_bodies_collide`](crate::Simulation)).
//!
//! DART, Choreonoid, MuJoCo (between a body and its parent) and Drake never check contact
//! between jointed bodies; Chrono's YAML parser puts every shape in collision family 0, so it
//! does. Shapes that overlap at a joint by design (a link's box reaching into the next one)
//! then push the links apart from the first step. Which shapes touch is decided with
//! [`crate::contact::touching`] in the initial configuration.

use super::note;
use crate::contact::touching;
use crate::format::support::Feature;
use crate::kinematics::{Configuration, SpanningTree, world_poses};
use crate::model::Model;
use crate::pose::Pose;
use crate::report::{Category, Finding, Severity, path};
use crate::{Body, Joint};
use crate::{Geometry, Shape, ShapeRole};

/// Two shapes closer than this (m) touch: shapes that meet face to face at a joint do.
pub const TOUCH_GAP: f64 = 1e-9;

/// What [`separate_jointed_shapes`] does with the shapes that make a jointed pair touch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TouchingShapes {
    /// They stop colliding (removed, or drawn only when they are also drawn): the default.
    Remove,
    /// They stay, and the pairs are reported as colliding in the target.
    Keep,
}

/// A collision shape of one body, by index, with its world pose at the start.
struct Placed<'a> {
    body: usize,
    shape: usize,
    geometry: &'a Shape,
    pose: Pose,
}

/// The pairs of collision shapes on the two bodies of each joint, in the initial
/// configuration: those that touch and those whose extent mbconv does not know (mesh files).
struct JointPairs {
    joint: usize,
    touching: Vec<[(usize, usize); 2]>,
    undecided: Vec<[(usize, usize); 2]>,
}

fn collides(shape: &Shape) -> bool {
    shape.collidable && shape.role.is_collision()
}

fn jointed_pairs(model: &Model) -> Vec<JointPairs> {
    let tree = SpanningTree::new(model);
    let poses = world_poses(model, &tree, Configuration::Initial);
    let placed = |body: usize| -> Vec<Placed<'_>> {
        model.bodies[body]
            .shapes
            .iter()
            .enumerate()
            .filter(|(_, s)| collides(s))
            .map(|(shape, s)| Placed {
                body,
                shape,
                geometry: s,
                pose: poses[body],
            })
            .collect()
    };
    let mut found = Vec::new();
    for (joint, j) in model.joints.iter().enumerate() {
        let (Some(a), Some(b)) = (
            j.parent.name().and_then(|n| model.body_index(n)),
            j.child.name().and_then(|n| model.body_index(n)),
        ) else {
            continue;
        };
        if a == b {
            continue;
        }
        let mut pairs = JointPairs {
            joint,
            touching: Vec::new(),
            undecided: Vec::new(),
        };
        for x in placed(a) {
            for y in placed(b) {
                let key = [(x.body, x.shape), (y.body, y.shape)];
                match touching(x.geometry, &x.pose, y.geometry, &y.pose, TOUCH_GAP) {
                    Some(true) => pairs.touching.push(key),
                    Some(false) => {}
                    None => pairs.undecided.push(key),
                }
            }
        }
        if !pairs.touching.is_empty() || !pairs.undecided.is_empty() {
            found.push(pairs);
        }
    }
    found
}

/// The IR path of shape `shape` of body `body`.
fn shape_path(model: &Model, (body, shape): (usize, usize)) -> String {
    path::index(&path::item("bodies", &model.bodies[body].name), "shapes", shape)
}

/// A rough size of a shape (m), to remove the smaller of two candidates: the radius of a
/// sphere about its frame that holds the primitive shapes; 0 for the others.
fn size(shape: &Shape) -> f64 {
    match &shape.geometry {
        Geometry::Box { size } => 0.5 * nalgebra::Vector3::from(*size).norm(),
        Geometry::Sphere { radius } => *radius,
        Geometry::Ellipsoid { radii } => radii.iter().fold(0.0, |m: f64, r| m.max(r.abs())),
        Geometry::Cylinder { radius, length } | Geometry::Cone { radius, length } => {
            radius.hypot(0.5 * length)
        }
        Geometry::Capsule { radius, length } => radius + 0.5 * length,
        _ => 0.0,
    }
}

/// The shapes to take out so that no touching pair is left: repeatedly the shape in the most
/// pairs left, then the smaller, then the child's (the pair's second), then the first in
/// model order. Sorted by body and shape.
fn shapes_to_remove(model: &Model, pairs: &[[(usize, usize); 2]]) -> Vec<(usize, usize)> {
    let mut left: Vec<[(usize, usize); 2]> = pairs.to_vec();
    let mut removed = Vec::new();
    while !left.is_empty() {
        let mut candidates: Vec<((usize, usize), usize, bool)> = Vec::new();
        for pair in &left {
            for (side, key) in pair.iter().enumerate() {
                match candidates.iter_mut().find(|(k, _, _)| k == key) {
                    Some(c) => {
                        c.1 += 1;
                        c.2 |= side == 1;
                    }
                    None => candidates.push((*key, 1, side == 1)),
                }
            }
        }
        let shape_size = |(b, s): (usize, usize)| size(&model.bodies[b].shapes[s]);
        let best = candidates.iter().copied().min_by(|x, y| {
            y.1.cmp(&x.1)
                .then(shape_size(x.0).total_cmp(&shape_size(y.0)))
                .then(y.2.cmp(&x.2))
                .then(x.0.cmp(&y.0))
        });
        let Some((key, _, _)) = best else { break };
        removed.push(key);
        left.retain(|pair| !pair.contains(&key));
    }
    removed.sort_unstable();
    removed
}

/// An approximated finding `<format>.<what>` on joint `joint`, under contact materials.
fn on_joint(
    model: &Model,
    format: &str,
    what: &str,
    severity: Severity,
    joint: usize,
    message: String,
) -> Finding {
    Finding::new(
        format!("{format}.{what}"),
        severity,
        Category::Approximated,
        message,
    )
    .for_feature(Feature::ContactMaterials)
    .at(path::item("joints", &model.joints[joint].name))
}

fn joint_bodies(model: &Model, joint: usize) -> String {
    let j = &model.joints[joint];
    format!(
        "{} and {}",
        path::item("bodies", j.parent.name().unwrap_or_default()),
        path::item("bodies", j.child.name().unwrap_or_default())
    )
}

/// For targets whose simulator checks contact between jointed bodies (Chrono): when the model
/// says its simulator does not, the collision shapes that make a jointed pair touch in the
/// initial configuration stop colliding (`touching` = [`TouchingShapes::Remove`], one dropped
/// finding `<format>.jointed_contact_shape_removed` per shape: a shape that is also drawn
/// stays as a visual), or stay, reported as colliding in the target
/// (`<format>.jointed_bodies_touch`, approximated). Pairs whose shapes mbconv cannot measure
/// (mesh files) are reported too; pairs apart at the start are left to the check, which tests
/// them along the motion. The model then says its jointed bodies collide.
///
/// ```
/// use mbconv_ir::lower::{separate_jointed_shapes, TouchingShapes};
/// use mbconv_ir::{Body, BodyRef, Geometry, Joint, JointKind, Model, Pose, Shape, ShapeRole};
/// use nalgebra::Vector3;
/// let mut m = Model::new("chain");
/// for (name, x) in [("upper", 0.0), ("lower", 1.0)] {
///     let mut b = Body::new(name);
///     b.pose = Pose::from_translation(Vector3::new(x, 0.0, 0.0));
///     b.shapes.push(Shape::new(ShapeRole::Collision, Geometry::Box { size: [1.2, 0.1, 0.1] }));
///     m.bodies.push(b);
/// }
/// m.joints.push(Joint::new("elbow", JointKind::Revolute { axis: Vector3::z() }, BodyRef::body("upper"), BodyRef::body("lower")));
/// let findings = separate_jointed_shapes(&mut m, "chrono", TouchingShapes::Remove);
/// // The boxes overlap by 0.2 m at the elbow: one of them (the child's) stops colliding.
/// assert!(m.bodies[1].shapes.is_empty());
/// assert_eq!(findings[0].code, "chrono.jointed_contact_shape_removed");
/// assert!(m.simulation.jointed_bodies_collide);
/// ```
pub fn separate_jointed_shapes(model: &mut Model, format: &str, touching: TouchingShapes) -> Vec<Finding> {
    let mut findings = Vec::new();
    if model.simulation.jointed_bodies_collide {
        return findings;
    }
    let found = jointed_pairs(model);
    for pairs in &found {
        if !pairs.undecided.is_empty() {
            let shapes: Vec<String> = pairs
                .undecided
                .iter()
                .map(|[x, y]| format!("{} with {}", shape_path(model, *x), shape_path(model, *y)))
                .collect();
            findings.push(on_joint(
                model,
                format,
                "jointed_contact_undecided",
                Severity::Warning,
                pairs.joint,
                format!(
                        "{}: {format} checks contact between jointed bodies, the source's simulator does not, and mbconv cannot tell whether these shapes touch (it does not read mesh files): {}",
                        joint_bodies(model, pairs.joint),
                        shapes.join(", ")
                    ),
            ));
        }
    }
    let all_touching: Vec<[(usize, usize); 2]> =
        found.iter().flat_map(|p| p.touching.iter().copied()).collect();
    match touching {
        TouchingShapes::Keep => {
            for pairs in found.iter().filter(|p| !p.touching.is_empty()) {
                findings.push(on_joint(
                model,
                format,
                "jointed_bodies_touch",
                Severity::Warning,
                pairs.joint,
                format!(
                            "{} touch at the start and {format} checks contact between jointed bodies (the source's simulator does not): the shapes are kept as asked and push the bodies apart",
                            joint_bodies(model, pairs.joint)
                        ),
            ));
            }
        }
        TouchingShapes::Remove => {
            let removed = shapes_to_remove(model, &all_touching);
            for key in &removed {
                let partners: Vec<String> = all_touching
                    .iter()
                    .filter_map(|[x, y]| {
                        (x == key)
                            .then_some(*y)
                            .or((y == key).then_some(*x))
                            .map(|k| shape_path(model, k))
                    })
                    .collect();
                let drawn = model.bodies[key.0].shapes[key.1].role.is_visual();
                findings.push(
                    Finding::new(
                        format!("{format}.jointed_contact_shape_removed"),
                        Severity::Warning,
                        Category::Dropped,
                        format!(
                            "the collision shape touches {} of a body joined to it at the start; {format} checks contact between jointed bodies (the source's simulator does not), so it {} (keep it with the write setting keep-jointed-contact)",
                            partners.join(", "),
                            if drawn { "is written as a visual only" } else { "is not written" }
                        ),
                    )
                    .for_feature(Feature::ContactMaterials)
                    .at(shape_path(model, *key)),
                );
            }
            for &(body, shape) in removed.iter().rev() {
                let shapes = &mut model.bodies[body].shapes;
                if shapes[shape].role.is_visual() {
                    shapes[shape].role = ShapeRole::Visual;
                } else {
                    shapes.remove(shape);
                }
            }
        }
    }
    if all_touching.is_empty() && colliding_jointed_joints(model).next().is_some() {
        findings.push(note(
            format,
            "jointed_bodies_collide",
            Feature::ContactMaterials,
            "simulation",
            &format!("{format} checks contact between jointed bodies; no jointed pair touches at the start (the check tests them along the motion)"),
        ));
    }
    model.simulation.jointed_bodies_collide = true;
    findings
}

/// True when `body` has a collidable collision shape: one a simulator checks for contact.
///
/// ```
/// use mbconv_ir::{Body, Geometry, Shape, ShapeRole};
/// let mut body = Body::new("b");
/// body.shapes.push(Shape::new(ShapeRole::Visual, Geometry::Sphere { radius: 0.1 }));
/// assert!(!mbconv_ir::lower::has_collision_shapes(&body));
/// body.shapes.push(Shape::new(ShapeRole::Both, Geometry::Sphere { radius: 0.1 }));
/// assert!(mbconv_ir::lower::has_collision_shapes(&body));
/// ```
pub fn has_collision_shapes(body: &Body) -> bool {
    body.shapes.iter().any(collides)
}

/// The joints that join two different bodies which both have collidable collision shapes
/// (see [`has_collision_shapes`]): the pairs a simulator that checks jointed bodies would test.
///
/// ```
/// use mbconv_ir::{Body, BodyRef, Geometry, Joint, JointKind, Model, Shape, ShapeRole};
/// let mut m = Model::new("m");
/// for name in ["a", "b"] {
///     let mut body = Body::new(name);
///     body.shapes.push(Shape::new(ShapeRole::Collision, Geometry::Sphere { radius: 0.1 }));
///     m.bodies.push(body);
/// }
/// m.joints.push(Joint::new("j", JointKind::Fixed, BodyRef::body("a"), BodyRef::body("b")));
/// m.joints.push(Joint::new("w", JointKind::Free, BodyRef::World, BodyRef::body("a")));
/// let names: Vec<&str> = mbconv_ir::lower::colliding_jointed_joints(&m).map(|j| j.name.as_str()).collect();
/// assert_eq!(names, ["j"]);
/// ```
pub fn colliding_jointed_joints(model: &Model) -> impl Iterator<Item = &Joint> {
    let collides = |name: Option<&str>| model.body(name?).map(has_collision_shapes);
    model.joints.iter().filter(move |j| {
        j.parent != j.child
            && collides(j.parent.name()) == Some(true)
            && collides(j.child.name()) == Some(true)
    })
}

/// For targets whose simulator never checks contact between jointed bodies (every format but
/// Chrono): when the model says its simulator does, each joint whose bodies' collision shapes
/// touch in the initial configuration is reported (`<format>.jointed_contact_filtered`,
/// approximated: the source's simulator pushes them apart, the target lets them pass), and
/// the model then says its jointed bodies do not collide. Pairs apart at the start are left
/// to the check, which tests them along the original's motion.
///
/// ```
/// use mbconv_ir::lower::filter_jointed_contact;
/// use mbconv_ir::{Body, BodyRef, Geometry, Joint, JointKind, Model, Shape, ShapeRole};
/// use nalgebra::Vector3;
/// let mut m = Model::new("stack");
/// for name in ["a", "b"] {
///     let mut body = Body::new(name);
///     body.shapes.push(Shape::new(ShapeRole::Collision, Geometry::Sphere { radius: 0.1 }));
///     m.bodies.push(body);
/// }
/// m.joints.push(Joint::new("j", JointKind::Revolute { axis: Vector3::z() }, BodyRef::body("a"), BodyRef::body("b")));
/// m.simulation.jointed_bodies_collide = true;
/// let findings = filter_jointed_contact(&mut m, "skel");
/// assert_eq!(findings[0].code, "skel.jointed_contact_filtered");
/// assert!(!m.simulation.jointed_bodies_collide);
/// ```
pub fn filter_jointed_contact(model: &mut Model, format: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !model.simulation.jointed_bodies_collide {
        return findings;
    }
    for pairs in jointed_pairs(model) {
        let (what, severity) = if pairs.touching.is_empty() {
            ("may touch (mbconv does not read mesh files)", Severity::Info)
        } else {
            ("touch at the start", Severity::Warning)
        };
        findings.push(on_joint(
                model,
                format,
                "jointed_contact_filtered",
                severity,
                pairs.joint,
                format!(
                    "the collision shapes of {} {what}: the source's simulator checks contact between jointed bodies, {format}'s never does",
                    joint_bodies(model, pairs.joint)
                ),
            ));
    }
    model.simulation.jointed_bodies_collide = false;
    findings
}
