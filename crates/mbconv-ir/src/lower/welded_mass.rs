//! Inertias no rigid body has, made whole across fixed joints: the mass of a rigid assembly
//! moved onto one of its links, for targets whose loaders refuse or repair an inertia that
//! breaks the triangle inequality.

use crate::format::support::Feature;
use crate::kinematics::{Attachment, SpanningTree};
use crate::model::Model;
use crate::model::body::{Inertia, Inertial};
use crate::model::joint::JointKind;
use crate::pose::Pose;
use crate::report::{Finding, path};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};

/// Principal moments `a ≤ b ≤ c` whose triangle inequality holds or fails by at most this
/// fraction of their sum are on its edge, where rounding decides: the writers' own passes
/// nudge them. An inertia breaks the inequality when `a + b − c` is below minus this fraction
/// of the sum, and a composite is physical when it is above it.
pub const WELD_TRIANGLE_SLACK: f64 = 1e-12;

/// Where a body's own inertia breaks the triangle inequality (no rigid body has it: libsdformat
/// reports it invalid and Drake reads a sphere of water instead, MuJoCo refuses it) and the
/// rigid assembly it belongs to through fixed joints has an inertia that holds it, the mass
/// properties of that assembly are written on one of its links and the others are written
/// massless: the assembly is one rigid body, so the motion is the same (to rounding), where
/// altering the link's own inertia would change it. A fixed fingertip (Wonik's Allegro hand of
/// example-robot-data) makes its finger link physical this way; libsdformat's URDF conversion
/// does the same by lumping the tip into the finger.
///
/// For each body in tree order whose own inertia breaks the inequality (by more than
/// [`WELD_TRIANGLE_SLACK`] of its moments' sum), first the body with the bodies welded below
/// it is tried, the composite written on the body; then, if the body is welded to its tree
/// parent, the parent with the body and the bodies welded below it, written on the parent.
/// Only bodies under the same gravity switch are joined, through enabled fixed joints of the
/// spanning tree. The emptied bodies get mass 0, a zero inertia and the centre of mass at
/// their origin, which libsdformat, Drake and MuJoCo read as massless (a writer must still say
/// the zero explicitly: a missing `<inertial>` is 1 kg in SDFormat). Each move is a note
/// `FORMAT.inertia_lumped` at the body that receives the mass.
///
/// ```
/// use mbconv_ir::{lower::lump_unphysical_inertias, Body, BodyRef, Inertia, Joint, JointKind, Model, Pose};
/// use nalgebra::Vector3;
/// let mut m = Model::new("finger");
/// let mut finger = Body::new("finger");
/// finger.inertial.mass = 0.1;
/// finger.inertial.inertia = Inertia::from_moments_products([1e-6, 1e-6, 5e-6], [0.0; 3]);
/// let mut tip = Body::new("tip");
/// tip.inertial.mass = 0.1;
/// tip.inertial.inertia = Inertia::from_moments_products([1e-6, 1e-6, 1e-6], [0.0; 3]);
/// m.bodies = vec![finger, tip];
/// m.joints.push(Joint::new("hinge", JointKind::Revolute { axis: Vector3::x() }, BodyRef::World, BodyRef::body("finger")));
/// let mut weld = Joint::new("weld", JointKind::Fixed, BodyRef::body("finger"), BodyRef::body("tip"));
/// weld.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 0.02));
/// m.joints.push(weld);
/// let findings = lump_unphysical_inertias(&mut m, "sdf");
/// assert_eq!(findings[0].code, "sdf.inertia_lumped");
/// assert_eq!(m.bodies[0].inertial.mass, 0.2);
/// assert_eq!(m.bodies[1].inertial.mass, 0.0);
/// ```
pub fn lump_unphysical_inertias(model: &mut Model, format: &str) -> Vec<Finding> {
    let tree = SpanningTree::new(model);
    let mut findings = Vec::new();
    for &u in &tree.order {
        let Some(moments) = broken_moments(&model.bodies[u].inertial) else {
            continue;
        };
        let below = welded_below(model, &tree, u);
        let mut plan = Some((u, below.clone())).filter(|(_, members)| members.len() > 1);
        let mut made = plan
            .as_ref()
            .and_then(|(_, members)| physical_composite(model, members));
        if made.is_none()
            && let Some((p, joint_pose)) = welded_parent(model, &tree, u)
        {
            let mut members = vec![(p, Pose::identity())];
            members.extend(below.iter().map(|(b, pose)| (*b, joint_pose * *pose)));
            made = physical_composite(model, &members);
            plan = Some((p, members));
        }
        let (Some((target, members)), Some((inertial, composite_moments))) = (plan, made) else {
            continue;
        };
        let emptied: Vec<&str> = members
            .iter()
            .filter(|(b, _)| *b != target)
            .map(|(b, _)| model.bodies[*b].name.as_str())
            .collect();
        let message = format!(
            "the principal moments {moments:?} of {:?} break the triangle inequality (no rigid body has them; the target's loaders refuse or alter them): {:?}, welded to {} by fixed joints, is one rigid body with them, whose moments {composite_moments:?} hold it; its mass ({} kg) and inertia are written on {:?} and {} written massless (the same motion)",
            model.bodies[u].name,
            model.bodies[target].name,
            emptied.join(", "),
            inertial.mass,
            model.bodies[target].name,
            if emptied.len() == 1 {
                "the other is"
            } else {
                "the others are"
            },
        );
        for (b, _) in &members {
            model.bodies[*b].inertial = if *b == target {
                inertial.clone()
            } else {
                Inertial {
                    mass: 0.0,
                    com: Vector3::zeros(),
                    inertia: Inertia::zero(),
                    inertia_rotation: UnitQuaternion::identity(),
                }
            };
        }
        findings.push(super::note(
            format,
            "inertia_lumped",
            Feature::MassProperties,
            &path::item("bodies", &model.bodies[target].name),
            &message,
        ));
    }
    findings
}

/// The principal moments of `inertial`, ascending, when they break the triangle inequality by
/// more than [`WELD_TRIANGLE_SLACK`] of their sum.
fn broken_moments(inertial: &Inertial) -> Option<[f64; 3]> {
    let [a, b, c] = crate::validate::principal_moments(&inertial.inertia.matrix())?;
    let sum = a + b + c;
    (sum > 0.0 && a + b - c < -WELD_TRIANGLE_SLACK * sum).then_some([a, b, c])
}

/// Body `root` and the bodies welded below it through enabled fixed tree joints under the same
/// gravity switch, each with its pose in `root`'s frame, `root` first.
fn welded_below(model: &Model, tree: &SpanningTree, root: usize) -> Vec<(usize, Pose)> {
    let mut members = vec![(root, Pose::identity())];
    let mut k = 0;
    while k < members.len() {
        let (p, pose) = members[k];
        for c in 0..model.bodies.len() {
            if let Some((parent, joint_pose)) = welded_parent(model, tree, c)
                && parent == p
                && model.bodies[c].gravity == model.bodies[root].gravity
            {
                members.push((c, pose * joint_pose));
            }
        }
        k += 1;
    }
    members
}

/// The tree parent of body `c` and `c`'s pose in its frame, when `c` hangs from it by an enabled
/// fixed joint and both are under the same gravity switch.
fn welded_parent(model: &Model, tree: &SpanningTree, c: usize) -> Option<(usize, Pose)> {
    let Attachment::Joint {
        joint,
        parent: Some(p),
        reversed,
    } = tree.attachments[c]
    else {
        return None;
    };
    let j = &model.joints[joint];
    if !matches!(j.kind, JointKind::Fixed) || model.bodies[c].gravity != model.bodies[p].gravity {
        return None;
    }
    // The joint frame is at `parent_frame` on its parent and `child_frame` on its child.
    let child_in_parent = j.parent_frame * j.child_frame.inverse();
    Some((
        p,
        if reversed {
            child_in_parent.inverse()
        } else {
            child_in_parent
        },
    ))
}

/// The mass properties of `members` (bodies with their poses in the first one's frame) as one
/// body in the first one's frame, with their principal moments, when those hold the triangle
/// inequality by more than [`WELD_TRIANGLE_SLACK`] of their sum.
fn physical_composite(model: &Model, members: &[(usize, Pose)]) -> Option<(Inertial, [f64; 3])> {
    let parts: Vec<(f64, Vector3<f64>, Matrix3<f64>)> = members
        .iter()
        .map(|(b, pose)| {
            let i = &model.bodies[*b].inertial;
            let r = (pose.rotation * i.inertia_rotation)
                .to_rotation_matrix()
                .into_inner();
            let tensor = r * i.inertia.matrix() * r.transpose();
            (i.mass, pose.transform_point(&i.com), tensor)
        })
        .collect();
    let mass: f64 = parts.iter().map(|(m, _, _)| m).sum();
    if mass <= 0.0 || !mass.is_finite() {
        return None;
    }
    let com = parts.iter().map(|(m, c, _)| *m * c).sum::<Vector3<f64>>() / mass;
    let tensor: Matrix3<f64> = parts
        .iter()
        .map(|(m, c, i)| {
            let d = c - com;
            i + *m * (Matrix3::identity() * d.norm_squared() - d * d.transpose())
        })
        .sum();
    let tensor = (tensor + tensor.transpose()) * 0.5;
    let [a, b, c] = crate::validate::principal_moments(&tensor)?;
    let sum = a + b + c;
    if !(sum > 0.0 && a + b - c > WELD_TRIANGLE_SLACK * sum) {
        return None;
    }
    let inertial = Inertial {
        mass,
        com,
        inertia: Inertia::from_matrix(&tensor),
        inertia_rotation: UnitQuaternion::identity(),
    };
    Some((inertial, [a, b, c]))
}
