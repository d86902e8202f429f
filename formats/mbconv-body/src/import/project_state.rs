//! A body item's initial state, as Choreonoid's `BodyItem` restores it and its simulators start
//! from it ("start from the initial state"): the root at `initial_root_translation` and
//! `initial_root_rotation` (degrees, axis-angle; old projects: `initialRootPosition` and the
//! row-major matrix `initialRootAttitude`; neither: the origin), the joints at
//! `initial_joint_displacements`, else `joint_displacements` (degrees for every joint, prismatic
//! ones too, as Choreonoid writes them; old projects: `initialJointPositions`, else
//! `jointPositions`, in radians and metres), in Choreonoid's joint order
//! ([`crate::spec::joint_order`]), and `fix_root` (old: `staticModel`).

use super::fields::{self, Doc};
use super::project::first;
use crate::raw::Node;
use crate::spec;
use crate::spec::joint_order::joint_slots;
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::report::SourceSpan;
use mbconv_ir::{Category, JointKind, Model, Pose, Severity};
use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3};

/// What a body item says about its body's state.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ItemState {
    /// Where the simulation starts the root link.
    pub root: Pose,
    /// The project states no initial root position (the root starts at the origin).
    pub root_unstated: bool,
    /// `fix_root` / `staticModel`.
    pub fix_root: Option<FixRoot>,
    /// Initial joint values (radians or metres) by Choreonoid's joint index; `None`: the body
    /// file's value stays.
    pub joints: Vec<Option<f64>>,
}

/// How the item fixes or frees the root link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FixRoot {
    /// `fix_root: true/false`.
    Fixed(bool),
    /// Old `staticModel: true/false` (false frees only a body with no moving joint).
    Static(bool),
}

/// Reads the state from a body item's `data`.
pub(crate) fn read(doc: &Doc, data: &Node) -> SourceResult<ItemState> {
    let translation = first(data, &["initial_root_translation", "initialRootPosition"])
        .map(|n| fields::vector3(doc, n))
        .transpose()?;
    let rotation = if let Some(n) = data.get("initial_root_rotation") {
        let list = fields::rotation_list(doc, n)?;
        Some(
            spec::rotation_from_written(&list, true)
                .ok_or_else(|| doc.error("zero_axis", n, "the rotation axis is the zero vector"))?,
        )
    } else if let Some(n) = data.get("initialRootAttitude") {
        Some(attitude(doc, n)?)
    } else {
        None
    };
    let root_unstated = translation.is_none() && rotation.is_none();
    let root = Pose::new(
        translation.unwrap_or_else(Vector3::zeros),
        rotation.unwrap_or_else(UnitQuaternion::identity),
    );
    let fix_root = if let Some(n) = data.get("fix_root") {
        Some(FixRoot::Fixed(fields::boolean(doc, n)?))
    } else if let Some(n) = data.get("staticModel") {
        Some(FixRoot::Static(fields::boolean(doc, n)?))
    } else {
        None
    };
    Ok(ItemState {
        root,
        root_unstated,
        fix_root,
        joints: joints(doc, data)?,
    })
}

/// A row-major 3 × 3 rotation matrix (old projects), as the nearest rotation.
fn attitude(doc: &Doc, node: &Node) -> SourceResult<UnitQuaternion<f64>> {
    let m: [f64; 9] = fields::array(doc, node)?;
    let matrix = Matrix3::from_row_slice(&m);
    let orthonormal =
        (matrix.transpose() * matrix - Matrix3::identity()).norm() < 1e-6 && matrix.determinant() > 0.0;
    if !orthonormal {
        return Err(doc.error(
            "attitude",
            node,
            "initialRootAttitude is not a rotation matrix (row-major, 9 numbers)",
        ));
    }
    // Choreonoid uses the matrix as written; the IR's rotation is the nearest proper one
    // (the same matrix when it is exactly orthonormal, as written by Choreonoid to 9 digits).
    let rotation = Rotation3::from_matrix_eps(&matrix, 1e-15, 100, Rotation3::from_matrix_unchecked(matrix));
    Ok(UnitQuaternion::from_rotation_matrix(&rotation))
}

fn joints(doc: &Doc, data: &Node) -> SourceResult<Vec<Option<f64>>> {
    let list = |n: &Node| fields::numbers(doc, n);
    if let Some(current) = first(data, &["joint_displacements", "jointDisplacements"]) {
        let current = list(current)?;
        let initial = first(
            data,
            &["initial_joint_displacements", "initialJointDisplacements"],
        )
        .map(list)
        .transpose()?
        .unwrap_or_default();
        return Ok(current
            .iter()
            .enumerate()
            .map(|(i, q)| Some(spec::radians(*initial.get(i).unwrap_or(q))))
            .collect());
    }
    let current = data
        .get("jointPositions")
        .map(list)
        .transpose()?
        .unwrap_or_default();
    let initial = data
        .get("initialJointPositions")
        .map(list)
        .transpose()?
        .unwrap_or_default();
    let n = current.len().max(initial.len());
    Ok((0..n)
        .map(|i| initial.get(i).or(current.get(i)).copied())
        .collect())
}

/// Applies the state to the model of the item's body file; every change Choreonoid makes that
/// the body file alone would not is reported under `item_path`.
pub(crate) fn apply(
    state: &ItemState,
    model: &mut Model,
    session: &mut ImportSession,
    item_path: &str,
    doc: &Doc,
    item: &Node,
) {
    let span = Some(doc.span(item));
    let Some(root_joint) = model.joints.iter().position(|j| j.parent.is_world()) else {
        return;
    };
    let Some(root_body) = model.joints[root_joint]
        .child
        .name()
        .and_then(|n| model.bodies.iter().position(|b| b.name == n))
    else {
        return;
    };
    // The whole body moves with its root: every reference pose and the root's joint frame.
    let turn = state.root * model.bodies[root_body].pose.inverse();
    for body in &mut model.bodies {
        body.pose = turn * body.pose;
    }
    let joint = &mut model.joints[root_joint];
    joint.parent_frame = turn * joint.parent_frame;
    if state.root_unstated && turn != Pose::identity() {
        session.finding(
            "initial_root",
            Severity::Info,
            Category::Defaulted,
            item_path,
            span.clone(),
            "the body item states no initial root position: Choreonoid starts the simulation with the root at the origin",
        );
    }
    fix_root(state, model, root_joint, session, item_path, &span);
    set_joint_values(state, model, session, item_path, &span);
}

/// Fixes the root to the world or frees it as `fix_root` / `staticModel` say.
fn fix_root(
    state: &ItemState,
    model: &mut Model,
    root_joint: usize,
    session: &mut ImportSession,
    item_path: &str,
    span: &Option<SourceSpan>,
) {
    let all_fixed = model.joints.iter().all(|j| matches!(j.kind, JointKind::Fixed));
    let joint = &mut model.joints[root_joint];
    let was_fixed = matches!(joint.kind, JointKind::Fixed);
    let fixed = match state.fix_root {
        Some(FixRoot::Fixed(on)) => on,
        Some(FixRoot::Static(true)) => true,
        Some(FixRoot::Static(false)) if all_fixed => false,
        _ => was_fixed,
    };
    if fixed != was_fixed {
        joint.kind = if fixed { JointKind::Fixed } else { JointKind::Free };
        joint.q0.clear();
        joint.v0.clear();
        joint.dofs.clear();
        session.finding(
            "fix_root",
            Severity::Info,
            Category::Note,
            item_path,
            span.clone(),
            if fixed {
                "the body item fixes the root link to the world (fix_root)"
            } else {
                "the body item frees the root link the body file fixes (fix_root: false)"
            },
        );
    }
}

/// Sets the initial joint values the state gives, in Choreonoid's joint order.
fn set_joint_values(
    state: &ItemState,
    model: &mut Model,
    session: &mut ImportSession,
    item_path: &str,
    span: &Option<SourceSpan>,
) {
    let slots = joint_slots(model);
    if !state.joints.is_empty() && state.joints.len() != slots.len() {
        session.finding(
            "joint_displacements",
            Severity::Info,
            Category::Note,
            item_path,
            span.clone(),
            format!(
                "the body item gives {} joint values for the body's {} joints; Choreonoid uses the first {}",
                state.joints.len(),
                slots.len(),
                state.joints.len().min(slots.len())
            ),
        );
    }
    for (value, slot) in state.joints.iter().zip(&slots) {
        let (Some(q), Some(j)) = (value, slot) else {
            continue;
        };
        let joint = &mut model.joints[*j];
        if matches!(
            joint.kind,
            JointKind::Revolute { .. } | JointKind::Prismatic { .. }
        ) {
            joint.q0 = vec![*q];
        } else if *q != 0.0 {
            session.finding(
                "joint_displacement_ignored",
                Severity::Info,
                Category::Ignored,
                &mbconv_ir::report::path::item("joints", &joint.name),
                span.clone(),
                format!(
                    "the body item gives joint {:?} the value {q}; it has no coordinate to hold it",
                    joint.name
                ),
            );
        }
    }
}
