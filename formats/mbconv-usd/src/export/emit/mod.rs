//! The lowered model as one `.usda` layer, written by hand (the `openusd` crate can author
//! layers too, but this keeps the text deterministic and every number spelt by the kit's
//! number policy). Schema attributes that UsdPhysics types as 32-bit floats are written as
//! floats; where the float does not give the IR's double back, the double is written beside
//! it as `mbconv:<attribute>` in SI units (radians, metres, kilograms), which this reader
//! prefers, and the rounding other readers see is one `usd.float_rounding` note.

use super::prim_names;
use crate::spec::{
    DEGREES_PER_RADIAN, EXACT_INERTIA, EXACT_INERTIA_ROTATION, FORMAT, GENERIC_DOFS, USDA_HEADER, api, attr,
    axis_token, drive_attr, drive_instance, exact_attr, limit_attr, prim,
};
use mbconv_ir::format::Exported;
use mbconv_ir::format::kit::Unsayable;
use mbconv_ir::format::kit::numbers::format_number;
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::report::path;
use mbconv_ir::{
    Body, BodyRef, Category, ConstraintKind, DofProperties, Finding, Geometry, Joint, JointKind, Model, Pose,
    Report, Severity, Shape, ShapeRole,
};
use nalgebra::{UnitQuaternion, Vector3};
use std::fmt::Write;

/// Writes a lowered model as a `.usda` layer.
pub(crate) fn emit(model: &Model) -> Result<Exported, Unsayable> {
    let mut w = Writer::default();
    let root = super::prim_name(&model.name);
    let plan = Articulations::new(model);
    let body_prims = prim_names(
        model
            .bodies
            .iter()
            .map(|b| b.name.as_str())
            .chain(plan.anchors.iter().map(|_| ANCHOR)),
    );
    let anchor_prims = &body_prims[model.bodies.len()..];
    let joint_prims = prim_names(
        model
            .joints
            .iter()
            .map(|j| j.name.as_str())
            .chain(model.constraints.iter().map(|c| c.name.as_str()))
            .chain(plan.anchors.iter().map(|_| ANCHOR))
            .chain(plan.welded.iter().map(|_| WELD)),
    );
    let _ = writeln!(
        w.text,
        "{USDA_HEADER}\n(\n    defaultPrim = \"{root}\"\n    kilogramsPerUnit = 1\n    metersPerUnit = 1\n    upAxis = \"Z\"\n)\n"
    );
    w.open(&format!("def Xform \"{root}\""), &[]);
    w.name(&model.name, &root);
    if let Some(g) = model.simulation.gravity {
        w.scene(&g);
    }
    w.open("def Scope \"bodies\"", &[]);
    for (b, (body, prim_name)) in model.bodies.iter().zip(&body_prims).enumerate() {
        w.body(body, prim_name, plan.floating_roots.contains(&b))?;
    }
    for prim_name in anchor_prims {
        w.anchor(prim_name);
    }
    w.close();
    let bodies_path = |b: usize| format!("/{root}/bodies/{}", body_prims[b]);
    if !joint_prims.is_empty() {
        w.open("def Scope \"joints\"", &[]);
        let target = |r: &BodyRef, at: String| -> Result<Option<String>, Unsayable> {
            match r {
                BodyRef::World => Ok(None),
                BodyRef::Body(n) => model
                    .body_index(n)
                    .map(|i| Some(bodies_path(i)))
                    .ok_or_else(|| Unsayable::new("USD", at, format!("names the unknown body {n:?}"))),
            }
        };
        for (j, (joint, prim_name)) in model.joints.iter().zip(&joint_prims).enumerate() {
            let at = || path::item("joints", &joint.name);
            let body0 = match plan.held.get(&j) {
                Some(&k) => Some(format!("/{root}/bodies/{}", anchor_prims[k])),
                None => target(&joint.parent, at())?,
            };
            let body1 = target(&joint.child, at())?;
            let exclude = plan.loops.contains(&j);
            let (rates, _) = super::rates::newton_rates(model, joint, &generic_dofs(&joint.kind));
            w.joint(
                joint,
                prim_name,
                [body0.as_deref(), body1.as_deref()],
                exclude,
                &rates,
            )?;
        }
        let constraint_prims = &joint_prims[model.joints.len()..model.joints.len() + model.constraints.len()];
        for (c, (constraint, prim_name)) in model.constraints.iter().zip(constraint_prims).enumerate() {
            let ConstraintKind::Distance {
                body1,
                point1,
                body2,
                point2,
                distance,
            } = &constraint.kind
            else {
                return Err(Unsayable::new(
                    "USD",
                    path::item("constraints", &constraint.name),
                    "a constraint that is not a distance",
                ));
            };
            let at = || path::item("constraints", &constraint.name);
            let (body0, body1) = (target(body1, at())?, target(body2, at())?);
            w.distance_joint(
                &constraint.name,
                prim_name,
                [body0.as_deref(), body1.as_deref()],
                [point1, point2],
                distance.unwrap_or_default(),
                !plan.tree_distances.contains(&c),
            );
        }
        let added = &joint_prims[model.joints.len() + model.constraints.len()..];
        let (anchor_joints, weld_joints) = added.split_at(plan.anchors.len());
        for (prim_name, anchor) in anchor_joints.iter().zip(anchor_prims) {
            w.anchor_joint(prim_name, &format!("/{root}/bodies/{anchor}"));
        }
        for (prim_name, &(b, k)) in weld_joints.iter().zip(&plan.welded) {
            let anchor = format!("/{root}/bodies/{}", anchor_prims[k]);
            w.weld(prim_name, &anchor, &bodies_path(b), &model.bodies[b].pose);
        }
        w.close();
    }
    w.close();
    let mut report = Report::default();
    if let Some((count, worst, at)) = w.rounding.take() {
        report.push(
            Finding::new(
                format!("{FORMAT}.float_rounding"),
                Severity::Info,
                Category::Note,
                format!("{count} values UsdPhysics types as 32-bit floats do not hold the model's doubles (largest relative change {worst:.1e}, {at}): OpenUSD and other readers see the floats; the doubles are kept in mbconv: attributes, which this reader prefers"),
            ),
        );
    }
    Ok(Exported::text(w.text, report))
}

/// The prim name of the anchors the writer adds (made unique beside the bodies' names).
const ANCHOR: &str = "world_anchor";
/// The prim name of the joints welding fixed bodies to their anchors.
const WELD: &str = "world_weld";

/// The articulations the layer declares, from the model's spanning tree (whose tree joints the
/// lowering turned away from their roots). Every tree held to the world (a fixed body and what
/// hangs from it, or a body jointed to the world and what hangs from it) gets an anchor of its
/// own: a rigid body marked `mbconv:world` at the world's origin, welded to the world by a fixed
/// joint that carries `PhysicsArticulationRootAPI`; the tree's joints to the world name the
/// anchor, and its fixed body is welded to it. OpenUSD's parse (`LoadUsdPhysicsFromRange`)
/// lists as an articulation's bodies only those met across a joint from another body, so a
/// body whose only joint goes to the world would be left out (Newton leaves it frozen), and it
/// counts no kinematic body as a link. An anchor per tree keeps each articulation as small as
/// the model's trees (Newton's Featherstone factors each articulation's joint-space inertia).
/// A floating tree carries the API on its root body; loop-closing joints are excluded.
struct Articulations {
    /// Per anchor, the body at the root of its tree.
    anchors: Vec<usize>,
    /// Joints to the world that hold a tree, and the anchor they name instead.
    held: std::collections::BTreeMap<usize, usize>,
    /// Bodies welded to an anchor (fixed in the world), with the anchor.
    welded: Vec<(usize, usize)>,
    /// The roots of floating trees that have joints.
    floating_roots: std::collections::BTreeSet<usize>,
    /// Joints that close a loop: `physics:excludeFromArticulation`.
    loops: std::collections::BTreeSet<usize>,
    /// Distance constraints that join a floating tree's root to another tree: written as tree
    /// joints of the articulation (not excluded), so that Newton builds the floating tree's
    /// bodies (see [`Articulations::tree_distances`]); the other distance joints are excluded.
    tree_distances: std::collections::BTreeSet<usize>,
}

impl Articulations {
    fn new(model: &Model) -> Self {
        let tree = SpanningTree::new(model);
        let mut plan = Articulations {
            anchors: Vec::new(),
            held: Default::default(),
            welded: Vec::new(),
            floating_roots: Default::default(),
            loops: tree.loop_joints.iter().copied().collect(),
            tree_distances: Default::default(),
        };
        // Bodies joined by any joint or distance constraint share one articulation: OpenUSD
        // lists the body across an excluded joint among an articulation's bodies, and Newton
        // builds a body two articulations list twice.
        let index = model.body_indices();
        let mut group: Vec<usize> = (0..model.bodies.len()).collect();
        let body = |r: &BodyRef| match r {
            BodyRef::World => None,
            BodyRef::Body(n) => index.get(n.as_str()).copied(),
        };
        let pairs = model
            .joints
            .iter()
            .filter(|j| j.enabled)
            .map(|j| (body(&j.parent), body(&j.child)))
            .chain(model.constraints.iter().filter_map(|c| match &c.kind {
                ConstraintKind::Distance { body1, body2, .. } => Some((body(body1), body(body2))),
                _ => None,
            }));
        for (a, b) in pairs {
            if let (Some(a), Some(b)) = (a, b) {
                let (a, b) = (find(&mut group, a), find(&mut group, b));
                group[a] = b;
            }
        }
        // Bodies with a tree child: a floating one roots an articulation.
        let mut parents: std::collections::BTreeSet<usize> = tree
            .attachments
            .iter()
            .filter_map(|a| match a {
                Attachment::Joint { parent: Some(p), .. } => Some(*p),
                _ => None,
            })
            .collect();
        // A floating root hung from another tree by a distance joint is no root (`hung`).
        for (parent, _) in plan.tree_distances(model, &tree) {
            parents.insert(parent);
        }
        let mut anchor_of_group = std::collections::BTreeMap::new();
        let mut anchor = |plan: &mut Articulations, group: &mut [usize], b: usize| {
            *anchor_of_group.entry(find(group, b)).or_insert_with(|| {
                plan.anchors.push(b);
                plan.anchors.len() - 1
            })
        };
        for &b in &tree.order {
            match tree.attachments[b] {
                Attachment::Fixed => {
                    let k = anchor(&mut plan, &mut group, b);
                    plan.welded.push((b, k));
                }
                Attachment::Joint {
                    joint, parent: None, ..
                } => {
                    let k = anchor(&mut plan, &mut group, b);
                    plan.held.insert(joint, k);
                }
                Attachment::Joint { .. } => {}
                Attachment::Floating if parents.contains(&b) && !plan.hung(model, b) => {
                    plan.floating_roots.insert(b);
                }
                Attachment::Floating => {}
            }
        }
        plan
    }

    /// Picks the distance constraints that become tree joints, and returns their (parent,
    /// child) bodies. OpenUSD lists the body across an excluded joint among an articulation's
    /// bodies, and Newton 1.8 then builds no body for it (measured: chrono `constraints.yaml`'s
    /// `link`, held only by a rope to a fixed body): a body, or a floating tree, that only
    /// distance constraints hold would be left out. So a distance constraint from a body of
    /// another tree (`body1`) to the root of a floating tree (`body2`, a body with no joint to
    /// a parent) that no joint or earlier pick joins to it yet is a tree joint: not excluded,
    /// `body1` its parent and `body2` its child. Newton's Featherstone integrates a
    /// `PhysicsDistanceJoint` as a free joint (the distance is not held), so the floating tree
    /// moves freely there; UsdPhysics' meaning and mbconv's reading are unchanged (the reader
    /// takes no notice of `excludeFromArticulation`).
    fn tree_distances(&mut self, model: &Model, tree: &SpanningTree) -> Vec<(usize, usize)> {
        let index = model.body_indices();
        let body = |r: &BodyRef| match r {
            BodyRef::World => None,
            BodyRef::Body(n) => index.get(n.as_str()).copied(),
        };
        // Trees joined by joints (loop-closing ones too), and whether each is held to the world.
        let n = model.bodies.len();
        let mut tree_of: Vec<usize> = (0..=n).collect();
        let world = n;
        for (b, attachment) in tree.attachments.iter().enumerate() {
            if matches!(
                attachment,
                Attachment::Fixed | Attachment::Joint { parent: None, .. }
            ) {
                let (a, b) = (find(&mut tree_of, b), find(&mut tree_of, world));
                tree_of[a] = b;
            }
        }
        for j in model.joints.iter().filter(|j| j.enabled) {
            let (a, b) = (body(&j.parent).unwrap_or(world), body(&j.child).unwrap_or(world));
            let (a, b) = (find(&mut tree_of, a), find(&mut tree_of, b));
            tree_of[a] = b;
        }
        let mut picked = Vec::new();
        for (c, constraint) in model.constraints.iter().enumerate() {
            let ConstraintKind::Distance { body1, body2, .. } = &constraint.kind else {
                continue;
            };
            let (Some(a), Some(b)) = (body(body1), body(body2)) else {
                continue;
            };
            if !matches!(tree.attachments[b], Attachment::Floating) {
                continue;
            }
            let (ta, tb) = (find(&mut tree_of, a), find(&mut tree_of, b));
            if ta == tb || tb == find(&mut tree_of, world) {
                continue;
            }
            tree_of[tb] = ta;
            self.tree_distances.insert(c);
            picked.push((a, b));
        }
        picked
    }

    /// True when the body hangs from a distance constraint written as a tree joint.
    fn hung(&self, model: &Model, b: usize) -> bool {
        self.tree_distances.iter().any(|&c| {
            matches!(&model.constraints[c].kind, ConstraintKind::Distance { body2: BodyRef::Body(n), .. }
                if model.body_index(n) == Some(b))
        })
    }
}

/// The representative of `b`'s set in a union-find forest (halving the path).
fn find(group: &mut [usize], mut b: usize) -> usize {
    while group[b] != b {
        group[b] = group[group[b]];
        b = group[b];
    }
    b
}

/// The layer being written, with its indentation and the float rounding met so far.
#[derive(Default)]
struct Writer {
    text: String,
    depth: usize,
    /// How many floats rounded, the largest relative change and where.
    rounding: Option<(usize, f64, String)>,
    /// The prim being written (for the rounding note).
    at: String,
}

/// A 32-bit float spelt shortest, with the kit's exponent policy.
fn f32_text(x: f32) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let magnitude = x.abs();
    if magnitude != 0.0 && magnitude.is_finite() && !(1e-5..1e16).contains(&magnitude) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A double spelt by the kit's number policy, `inf` for infinities.
fn f64_text(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    format_number(x)
}

fn tuple(values: impl IntoIterator<Item = String>) -> String {
    format!("({})", values.into_iter().collect::<Vec<_>>().join(", "))
}

/// A quaternion's numbers, scalar first.
fn wxyz(q: &UnitQuaternion<f64>) -> [f64; 4] {
    [q.w, q.i, q.j, q.k]
}

/// USD string quoting.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

impl Writer {
    /// A single-axis joint's spring and damper as a force `PhysicsDriveAPI` (gains per degree
    /// for an angle).
    fn drive(&mut self, dof: &DofProperties, angular: bool) {
        let to_usd = |x: f64| if angular { x * DEGREES_PER_RADIAN } else { x };
        let from_usd = move |x: f64| if angular { x / DEGREES_PER_RADIAN } else { x };
        let instance = drive_instance(angular);
        let gain = |x: f64| if angular { x / DEGREES_PER_RADIAN } else { x };
        let gain_back = move |x: f64| if angular { x * DEGREES_PER_RADIAN } else { x };
        self.line(&format!(
            "uniform token {} = \"force\"",
            drive_attr(instance, "type")
        ));
        let k = dof.spring_stiffness;
        self.floats(
            "float",
            &drive_attr(instance, "stiffness"),
            &[gain(k)],
            &[k],
            gain_back,
        );
        self.floats(
            "float",
            &drive_attr(instance, "damping"),
            &[gain(dof.damping)],
            &[dof.damping],
            gain_back,
        );
        let rest = if k != 0.0 { dof.spring_rest_position } else { 0.0 };
        self.floats(
            "float",
            &drive_attr(instance, "targetPosition"),
            &[to_usd(rest)],
            &[rest],
            from_usd,
        );
    }

    /// A generic joint's `PhysicsLimitAPI` instances, one per degree of freedom: locked ones
    /// (low > high) and the limits of the free ones, an unbounded side as an infinity (an
    /// unlimited axis as `-inf`..`inf`: UsdPhysics reads it as free, as it reads an axis with
    /// no instance, and Newton 1.8 frees a D6 axis only where an instance states a range).
    fn generic_limits(&mut self, joint: &Joint, generic: &[bool]) {
        let mut coordinate = 0;
        for (k, free) in generic.iter().enumerate() {
            let name = GENERIC_DOFS[k];
            let (low, high) = if *free {
                let limits = joint.dof(coordinate).position_limits;
                coordinate += 1;
                (
                    limits.lower.unwrap_or(f64::NEG_INFINITY),
                    limits.upper.unwrap_or(f64::INFINITY),
                )
            } else {
                (1.0, -1.0)
            };
            let rot = k >= 3;
            let conv = |x: f64| {
                if rot && x.is_finite() {
                    x * DEGREES_PER_RADIAN
                } else {
                    x
                }
            };
            let back = move |x: f64| {
                if rot && x.is_finite() {
                    x / DEGREES_PER_RADIAN
                } else {
                    x
                }
            };
            let locked = !*free;
            let (low_ir, high_ir) = if locked { (1.0, -1.0) } else { (low, high) };
            let usd = if locked {
                (1.0, -1.0)
            } else {
                (conv(low), conv(high))
            };
            let back_locked = move |x: f64| if locked { x } else { back(x) };
            self.floats(
                "float",
                &limit_attr(name, "low"),
                &[usd.0],
                &[low_ir],
                back_locked,
            );
            self.floats(
                "float",
                &limit_attr(name, "high"),
                &[usd.1],
                &[high_ir],
                back_locked,
            );
        }
    }

    fn line(&mut self, s: &str) {
        let _ = writeln!(self.text, "{}{s}", "    ".repeat(self.depth));
    }

    /// Opens a prim with its metadata lines (`prepend apiSchemas = [...]`, ...).
    fn open(&mut self, head: &str, metadata: &[String]) {
        if metadata.is_empty() {
            self.line(head);
        } else {
            self.line(&format!("{head} ("));
            self.depth += 1;
            for m in metadata {
                self.line(m);
            }
            self.depth -= 1;
            self.line(")");
        }
        self.line("{");
        self.depth += 1;
    }

    fn close(&mut self) {
        self.depth -= 1;
        self.line("}");
    }

    /// `mbconv:name` when the prim name is not the IR's.
    fn name(&mut self, name: &str, prim: &str) {
        if name != prim {
            self.line(&format!("string {} = {}", attr::MBCONV_NAME, quoted(name)));
        }
    }

    /// A float-typed schema attribute: `usd` its values in the attribute's units, `ir` the
    /// IR's values and `back` the reader's conversion from the attribute's units to the IR's.
    /// Writes the doubles beside it when the floats do not give them back.
    fn floats(&mut self, ty: &str, name: &str, usd: &[f64], ir: &[f64], back: impl Fn(f64) -> f64) {
        let floats: Vec<f32> = usd.iter().map(|x| *x as f32).collect();
        let text: Vec<String> = floats.iter().map(|x| f32_text(*x)).collect();
        let value = if text.len() == 1 {
            text[0].clone()
        } else {
            tuple(text)
        };
        self.line(&format!("{ty} {name} = {value}"));
        let mut worst = 0.0f64;
        let mut exact = true;
        for (f, x) in floats.iter().zip(ir) {
            let read = back(f64::from(*f));
            if read != *x && !(read.is_nan() && x.is_nan()) {
                exact = false;
                worst = worst.max((read - x).abs() / x.abs().max(f64::MIN_POSITIVE));
            }
        }
        if !exact {
            let double = match ty.trim_start_matches("uniform ") {
                "quatf" => "quatd",
                "float" => "double",
                _ => "double3",
            };
            let value = if ir.len() == 1 {
                f64_text(ir[0])
            } else {
                tuple(ir.iter().map(|x| f64_text(*x)))
            };
            self.line(&format!("{double} {} = {value}", exact_attr(name)));
            let at = format!("{}.{name}", self.at);
            let r = self.rounding.get_or_insert((0, 0.0, at.clone()));
            r.0 += ir.len();
            if worst > r.1 {
                r.1 = worst;
                r.2 = at;
            }
        }
    }

    fn scene(&mut self, g: &Vector3<f64>) {
        self.at = "PhysicsScene".into();
        self.open(&format!("def {} \"physicsScene\"", prim::SCENE), &[]);
        let magnitude = g.norm();
        let direction = if magnitude > 0.0 {
            g / magnitude
        } else {
            -Vector3::z()
        };
        let d = [direction.x, direction.y, direction.z];
        self.floats("vector3f", attr::GRAVITY_DIRECTION, &d, &d, |x| x);
        self.floats(
            "float",
            attr::GRAVITY_MAGNITUDE,
            &[magnitude],
            &[magnitude],
            |x| x,
        );
        self.close();
    }

    /// A body; `root` when it is the root of a floating tree (`PhysicsArticulationRootAPI`). A
    /// fixed body is marked `mbconv:fixed` and welded to its anchor (see [`Articulations`]).
    fn body(&mut self, body: &Body, prim_name: &str, root: bool) -> Result<(), Unsayable> {
        self.at = format!("bodies/{prim_name}");
        let mut schemas = vec![api::RIGID_BODY, api::MASS];
        if root {
            schemas.push(api::ARTICULATION_ROOT);
        }
        let metadata = vec![format!(
            "prepend apiSchemas = [{}]",
            schemas
                .iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )];
        self.open(&format!("def Xform \"{prim_name}\""), &metadata);
        self.name(&body.name, prim_name);
        self.xform(&body.pose, None);
        if body.fixed {
            self.line(&format!("bool {} = 1", attr::MBCONV_FIXED));
        }
        if !body.gravity {
            self.line(&format!("bool {} = 1", attr::DISABLE_GRAVITY));
        }
        self.mass(body);
        if let Some(v) = &body.initial_velocity {
            // UsdPhysics' velocity is the centre of mass's (PhysX's convention).
            let com = body.pose.rotation * body.inertial.com;
            let linear = v.linear + v.angular.cross(&com);
            let l = [linear.x, linear.y, linear.z];
            self.floats("vector3f", attr::VELOCITY, &l, &l, |x| x);
            let a = [v.angular.x, v.angular.y, v.angular.z];
            let deg = a.map(|x| x * DEGREES_PER_RADIAN);
            self.floats("vector3f", attr::ANGULAR_VELOCITY, &deg, &a, |x| {
                x / DEGREES_PER_RADIAN
            });
        }
        let names = prim_names(body.shapes.iter().map(|s| s.name.as_deref().unwrap_or("shape")));
        for (shape, name) in body.shapes.iter().zip(&names) {
            self.shape(shape, name, &body.name)?;
        }
        self.close();
        Ok(())
    }

    /// An anchor: a rigid body standing for the world at its origin (1 kg, unit inertia: a
    /// body welded to the world whose mass does not act), marked `mbconv:world`.
    fn anchor(&mut self, prim_name: &str) {
        self.at = format!("bodies/{prim_name}");
        let metadata = vec![format!(
            "prepend apiSchemas = [\"{}\", \"{}\"]",
            api::RIGID_BODY,
            api::MASS
        )];
        self.open(&format!("def Xform \"{prim_name}\""), &metadata);
        self.line(&format!("bool {} = 1", attr::MBCONV_WORLD));
        self.xform(&Pose::identity(), None);
        self.line(&format!("float {} = 1", attr::MASS));
        self.line(&format!("float3 {} = (1, 1, 1)", attr::DIAGONAL_INERTIA));
        self.close();
    }

    /// The fixed joint holding an anchor to the world: the root of its articulation.
    fn anchor_joint(&mut self, prim_name: &str, anchor: &str) {
        self.at = format!("joints/{prim_name}");
        let metadata = vec![format!("prepend apiSchemas = [\"{}\"]", api::ARTICULATION_ROOT)];
        self.open(&format!("def {} \"{prim_name}\"", prim::FIXED), &metadata);
        self.line(&format!("bool {} = 1", attr::MBCONV_WORLD));
        self.line(&format!("rel {} = <{anchor}>", attr::BODY1));
        self.close();
    }

    /// The fixed joint welding a fixed body (at `pose`) to its anchor.
    fn weld(&mut self, prim_name: &str, anchor: &str, body: &str, pose: &Pose) {
        self.at = format!("joints/{prim_name}");
        self.open(&format!("def {} \"{prim_name}\"", prim::FIXED), &[]);
        self.line(&format!("bool {} = 1", attr::MBCONV_WORLD));
        self.line(&format!("rel {} = <{anchor}>", attr::BODY0));
        self.line(&format!("rel {} = <{body}>", attr::BODY1));
        let t = [pose.translation.x, pose.translation.y, pose.translation.z];
        self.floats("point3f", attr::LOCAL_POS0, &t, &t, |x| x);
        let q = wxyz(&pose.rotation);
        self.floats("quatf", attr::LOCAL_ROT0, &q, &q, |x| x);
        self.close();
    }

    /// An xform stack: `translate` and `orient` in doubles, then `scale` when given.
    fn xform(&mut self, pose: &Pose, scale: Option<[f64; 3]>) {
        let t = pose.translation;
        self.line(&format!(
            "double3 xformOp:translate = {}",
            tuple([t.x, t.y, t.z].map(f64_text))
        ));
        self.line(&format!(
            "quatd xformOp:orient = {}",
            tuple(wxyz(&pose.rotation).map(f64_text))
        ));
        let mut order = vec!["\"xformOp:translate\"", "\"xformOp:orient\""];
        if let Some(s) = scale {
            self.line(&format!("double3 xformOp:scale = {}", tuple(s.map(f64_text))));
            order.push("\"xformOp:scale\"");
        }
        self.line(&format!(
            "uniform token[] {} = [{}]",
            attr::XFORM_OP_ORDER,
            order.join(", ")
        ));
    }

    /// Mass, centre of mass and inertia as PhysicsMassAPI states them: the principal moments
    /// and the rotation to the principal axes (the IR's own when its tensor is diagonal, an
    /// eigen-decomposition otherwise, with the tensor kept in `mbconv:inertia`).
    ///
    /// A fixed body (kinematic) whose mass or inertia is zero gets a stand-in of 1 kg and unit
    /// inertia for other readers, the zeros kept in the `mbconv:` doubles: a kinematic body's
    /// mass does not act, but Newton gives a massless kinematic body a free joint with zero
    /// inertia and integrates its articulation to NaN (MJCF's `worldbody`: quadruped.xml,
    /// newton_cradle.xml, skydio_x2).
    fn mass(&mut self, body: &Body) {
        let i = &body.inertial;
        let zero_inertia = i.inertia.0 == [[0.0; 3]; 3];
        if body.fixed && (i.mass == 0.0 || zero_inertia) {
            return self.fixed_stand_in(body);
        }
        self.floats("float", attr::MASS, &[i.mass], &[i.mass], |x| x);
        if i.mass == 0.0 {
            // Zero is "not stated" to UsdPhysics: the double says it is meant.
            self.line(&format!("double {} = 0", exact_attr(attr::MASS)));
        }
        let c = [i.com.x, i.com.y, i.com.z];
        self.floats("point3f", attr::CENTER_OF_MASS, &c, &c, |x| x);
        let products = i.inertia.products();
        let symmetric = i.inertia.symmetrised().is_none();
        let (diagonal, axes, keep) = if products == [0.0; 3] && symmetric {
            (i.inertia.moments(), i.inertia_rotation, false)
        } else {
            let (moments, axes) = i.principal_axes();
            (moments, axes, true)
        };
        let before = self.rounding.as_ref().map_or(0, |r| r.0);
        self.floats("float3", attr::DIAGONAL_INERTIA, &diagonal, &diagonal, |x| x);
        let q = wxyz(&axes);
        self.floats("quatf", attr::PRINCIPAL_AXES, &q, &q, |x| x);
        let rounded = self.rounding.as_ref().map_or(0, |r| r.0) > before;
        // A zero inertia (a point mass) is "not stated" to UsdPhysics too: the double says
        // it is meant, as for a zero mass.
        let unstated = i.mass == 0.0 || diagonal == [0.0; 3];
        if keep || rounded || unstated {
            let m = i.inertia.0;
            let nine: Vec<String> = m.iter().flatten().map(|x| f64_text(*x)).collect();
            self.line(&format!("double[] {EXACT_INERTIA} = [{}]", nine.join(", ")));
            self.line(&format!(
                "quatd {EXACT_INERTIA_ROTATION} = {}",
                tuple(wxyz(&i.inertia_rotation).map(f64_text))
            ));
        }
    }

    /// The mass properties of a fixed body whose mass or inertia is zero: 1 kg and unit
    /// inertia where the IR has zeros, the IR's values in the `mbconv:` doubles this reader
    /// prefers (see [`Self::mass`]).
    fn fixed_stand_in(&mut self, body: &Body) {
        let i = &body.inertial;
        if i.mass == 0.0 {
            self.line(&format!("float {} = 1", attr::MASS));
            self.line(&format!("double {} = 0", exact_attr(attr::MASS)));
        } else {
            self.floats("float", attr::MASS, &[i.mass], &[i.mass], |x| x);
        }
        let c = [i.com.x, i.com.y, i.com.z];
        self.floats("point3f", attr::CENTER_OF_MASS, &c, &c, |x| x);
        self.line(&format!("float3 {} = (1, 1, 1)", attr::DIAGONAL_INERTIA));
        self.line(&format!("quatf {} = (1, 0, 0, 0)", attr::PRINCIPAL_AXES));
        let nine: Vec<String> = i.inertia.0.iter().flatten().map(|x| f64_text(*x)).collect();
        self.line(&format!("double[] {EXACT_INERTIA} = [{}]", nine.join(", ")));
        self.line(&format!(
            "quatd {EXACT_INERTIA_ROTATION} = {}",
            tuple(wxyz(&i.inertia_rotation).map(f64_text))
        ));
    }

    /// A gprim's own attributes (sizes; a mesh's faces and points).
    fn geometry(&mut self, geometry: &Geometry) {
        match geometry {
            Geometry::Box { .. } => self.line("double size = 1"),
            Geometry::Sphere { radius } => self.line(&format!("double radius = {}", f64_text(*radius))),
            Geometry::Ellipsoid { .. } => self.line("double radius = 1"),
            Geometry::Cylinder { radius, length }
            | Geometry::Capsule { radius, length }
            | Geometry::Cone { radius, length } => {
                self.line("uniform token axis = \"Z\"");
                self.line(&format!("double height = {}", f64_text(*length)));
                self.line(&format!("double radius = {}", f64_text(*radius)));
            }
            Geometry::Plane { .. } => self.line("uniform token axis = \"Z\""),
            Geometry::TriangleMesh { vertices, triangles } => {
                let counts = vec!["3"; triangles.len()].join(", ");
                let indices: Vec<String> = triangles.iter().flatten().map(u32::to_string).collect();
                self.line(&format!("int[] {} = [{counts}]", attr::FACE_VERTEX_COUNTS));
                self.line(&format!(
                    "int[] {} = [{}]",
                    attr::FACE_VERTEX_INDICES,
                    indices.join(", ")
                ));
                let points: Vec<String> = vertices.iter().map(|v| tuple(v.map(f64_text))).collect();
                self.line(&format!("point3d[] {} = [{}]", attr::POINTS, points.join(", ")));
            }
            _ => {}
        }
    }

    fn shape(&mut self, shape: &Shape, name: &str, body: &str) -> Result<(), Unsayable> {
        let mut metadata = Vec::new();
        if shape.role.is_collision() {
            metadata.push(format!("prepend apiSchemas = [\"{}\"]", api::COLLISION));
        }
        let (ty, scale) = match &shape.geometry {
            Geometry::Box { size } => (prim::CUBE, Some(*size)),
            Geometry::Sphere { .. } => (prim::SPHERE, None),
            Geometry::Ellipsoid { radii } => (prim::SPHERE, Some(*radii)),
            Geometry::Cylinder { .. } => (prim::CYLINDER, None),
            Geometry::Capsule { .. } => (prim::CAPSULE, None),
            Geometry::Cone { .. } => (prim::CONE, None),
            Geometry::Plane { .. } => (prim::PLANE, None),
            Geometry::TriangleMesh { .. } => (prim::MESH, None),
            _ => {
                return Err(Unsayable::new(
                    "USD",
                    path::item("bodies", body),
                    "a shape UsdGeom has no gprim for",
                ));
            }
        };
        self.open(&format!("def {ty} {}", quoted(name)), &metadata);
        if shape.name.as_deref().is_some_and(|n| n != name) {
            self.name(shape.name.as_deref().unwrap_or_default(), name);
        }
        let mut pose = shape.pose;
        if let Geometry::Plane { normal, offset } = &shape.geometry {
            let n = normal.normalize();
            let turn = UnitQuaternion::rotation_between(&Vector3::z(), &n)
                .unwrap_or_else(|| UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI));
            pose = pose * Pose::new(n * *offset, turn);
        }
        self.xform(&pose, scale);
        self.geometry(&shape.geometry);
        if shape.role == ShapeRole::Collision {
            self.line(&format!("uniform token {} = \"guide\"", attr::PURPOSE));
        }
        if !shape.collidable && shape.role.is_collision() {
            self.line(&format!("bool {} = 0", attr::COLLISION_ENABLED));
        }
        if let Some(a) = &shape.appearance
            && let Some(c) = a.diffuse
        {
            self.line(&format!(
                "color3f[] {} = [{}]",
                attr::DISPLAY_COLOR,
                tuple(c.map(|x| f32_text(x as f32)))
            ));
            if let Some(alpha) = a.alpha {
                self.line(&format!(
                    "float[] {} = [{}]",
                    attr::DISPLAY_OPACITY,
                    f32_text(alpha as f32)
                ));
            }
        }
        self.close();
        Ok(())
    }

    /// A distance constraint as a `PhysicsDistanceJoint` with equal minimum and maximum;
    /// `exclude`: out of the articulations (all but the tree joints of
    /// [`Articulations::tree_distances`]).
    fn distance_joint(
        &mut self,
        name: &str,
        prim_name: &str,
        bodies: [Option<&str>; 2],
        points: [&Vector3<f64>; 2],
        distance: f64,
        exclude: bool,
    ) {
        self.at = format!("joints/{prim_name}");
        self.open(&format!("def {} \"{prim_name}\"", prim::DISTANCE), &[]);
        self.name(name, prim_name);
        if exclude {
            self.line(&format!("bool {} = 1", attr::EXCLUDE_FROM_ARTICULATION));
        }
        for ((body, rel), (point, pos)) in bodies
            .iter()
            .zip([attr::BODY0, attr::BODY1])
            .zip(points.iter().zip([attr::LOCAL_POS0, attr::LOCAL_POS1]))
        {
            if let Some(b) = body {
                self.line(&format!("rel {rel} = <{b}>"));
            }
            let p = [point.x, point.y, point.z];
            self.floats("point3f", pos, &p, &p, |x| x);
        }
        for bound in [attr::MIN_DISTANCE, attr::MAX_DISTANCE] {
            self.floats("float", bound, &[distance], &[distance], |x| x);
        }
        self.close();
    }

    /// A joint between `bodies` (`body0`, `body1`; `None`: the world), with the initial rates
    /// Newton reads (`rates`, from [`super::rates::newton_rates`]).
    fn joint(
        &mut self,
        joint: &Joint,
        prim_name: &str,
        [body0, body1]: [Option<&str>; 2],
        exclude: bool,
        rates: &[(String, f64)],
    ) -> Result<(), Unsayable> {
        self.at = format!("joints/{prim_name}");
        let at = path::item("joints", &joint.name);
        let (ty, axis) = match &joint.kind {
            JointKind::Fixed => (prim::FIXED, None),
            JointKind::Revolute { axis } => (prim::REVOLUTE, Some(axis)),
            JointKind::Prismatic { axis } => (prim::PRISMATIC, Some(axis)),
            JointKind::Spherical => (prim::SPHERICAL, None),
            JointKind::Cylindrical { .. }
            | JointKind::Universal { .. }
            | JointKind::Planar { .. }
            | JointKind::Translational
            | JointKind::PointLine
            | JointKind::PointPlane => (prim::JOINT, None),
            other => {
                return Err(Unsayable::new(
                    "USD",
                    at,
                    format!("a {} joint", other.type_name()),
                ));
            }
        };
        let token = match axis {
            Some(a) => Some(
                axis_token(a)
                    .ok_or_else(|| Unsayable::new("USD", at.clone(), "an axis that is not X, Y or Z"))?,
            ),
            None => None,
        };
        let angular = matches!(joint.kind, JointKind::Revolute { .. });
        let dof = joint.dofs.first().cloned().unwrap_or_default();
        let drive = token.is_some() && (dof.spring_stiffness != 0.0 || dof.damping != 0.0);
        let mut schemas = Vec::new();
        if drive {
            schemas.push(format!("\"{}:{}\"", api::DRIVE, drive_instance(angular)));
        }
        let generic = generic_dofs(&joint.kind);
        for dof in GENERIC_DOFS.iter().take(generic.len()) {
            schemas.push(format!("\"{}:{dof}\"", api::LIMIT));
        }
        let metadata = if schemas.is_empty() {
            vec![]
        } else {
            vec![format!("prepend apiSchemas = [{}]", schemas.join(", "))]
        };
        self.open(&format!("def {ty} \"{prim_name}\""), &metadata);
        self.name(&joint.name, prim_name);
        if let Some(b) = body0 {
            self.line(&format!("rel {} = <{b}>", attr::BODY0));
        }
        if let Some(b) = body1 {
            self.line(&format!("rel {} = <{b}>", attr::BODY1));
        }
        if exclude {
            self.line(&format!("bool {} = 1", attr::EXCLUDE_FROM_ARTICULATION));
        }
        if let Some(t) = token {
            self.line(&format!("uniform token {} = \"{t}\"", attr::AXIS));
        }
        for (pose, pos, rot) in [
            (&joint.parent_frame, attr::LOCAL_POS0, attr::LOCAL_ROT0),
            (&joint.child_frame, attr::LOCAL_POS1, attr::LOCAL_ROT1),
        ] {
            let t = [pose.translation.x, pose.translation.y, pose.translation.z];
            self.floats("point3f", pos, &t, &t, |x| x);
            let q = wxyz(&pose.rotation);
            self.floats("quatf", rot, &q, &q, |x| x);
        }
        if !joint.enabled {
            self.line(&format!("bool {} = 0", attr::JOINT_ENABLED));
        }
        let to_usd = |x: f64| if angular { x * DEGREES_PER_RADIAN } else { x };
        let from_usd = move |x: f64| if angular { x / DEGREES_PER_RADIAN } else { x };
        if token.is_some() {
            if let Some(lo) = dof.position_limits.lower {
                self.floats("float", attr::LOWER_LIMIT, &[to_usd(lo)], &[lo], from_usd);
            }
            if let Some(hi) = dof.position_limits.upper {
                self.floats("float", attr::UPPER_LIMIT, &[to_usd(hi)], &[hi], from_usd);
            }
        }
        if drive {
            self.drive(&dof, angular);
        }
        if token.is_some() {
            // The joint's own armature is always written, 0 included: Newton 1.8 reads an
            // unauthored one as 0 (`ModelBuilder.JointDofConfig.armature`), so a 0 restates its
            // default, and the text does not depend on any reader's.
            let [armature, friction] = [attr::ARMATURE[0], attr::FRICTION[0]];
            self.floats(
                "float",
                armature,
                &[dof.rotor_inertia],
                &[dof.rotor_inertia],
                |x| x,
            );
            if dof.friction != 0.0 {
                self.floats("float", friction, &[dof.friction], &[dof.friction], |x| x);
            }
            if let Some(v) = dof.velocity_limits.upper {
                self.floats("float", attr::MAX_JOINT_VELOCITY, &[to_usd(v)], &[v], from_usd);
            }
        }
        for (name, rate) in rates {
            self.line(&format!("double {name} = {}", f64_text(*rate)));
        }
        self.generic_limits(joint, &generic);
        self.close();
        Ok(())
    }
}

/// For a joint written as a generic `PhysicsJoint`, which of the six degrees of freedom
/// (`GENERIC_DOFS`) are free, in the order of the joint's coordinates; empty for the typed
/// joints.
pub(crate) fn generic_dofs(kind: &JointKind) -> Vec<bool> {
    let free: &[usize] = match kind {
        JointKind::Cylindrical { .. } => &[0, 3],
        JointKind::Universal { .. } => &[3, 4],
        JointKind::Planar { .. } => &[0, 1, 5],
        JointKind::Translational => &[0, 1, 2],
        JointKind::PointLine => &[0, 3, 4, 5],
        JointKind::PointPlane => &[0, 1, 3, 4, 5],
        _ => return Vec::new(),
    };
    (0..6).map(|k| free.contains(&k)).collect()
}
