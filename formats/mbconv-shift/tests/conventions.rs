//! The `{R, T}` direction decided in `spec` against real data: the Abiflexx delta robot's six
//! closed loops close under this reading and not under the other.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use mbconv_ir::Model;
use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_shift::ShiftFormat;
use mbconv_test_support::corpus_file;

/// The largest distance between the two frames of a loop-closing joint, initially.
fn worst_loop_gap(model: &Model) -> f64 {
    let tree = SpanningTree::new(model);
    let poses = world_poses(model, &tree, Configuration::Initial);
    let pose_of = |r: &mbconv_ir::BodyRef| match r {
        mbconv_ir::BodyRef::World => mbconv_ir::Pose::identity(),
        mbconv_ir::BodyRef::Body(n) => poses[model.body_index(n).unwrap()],
    };
    assert_eq!(tree.loop_joints.len(), 5);
    tree.loop_joints
        .iter()
        .map(|&j| {
            let joint = &model.joints[j];
            let a = pose_of(&joint.parent) * joint.parent_frame;
            let b = pose_of(&joint.child) * joint.child_frame;
            (a.translation - b.translation).norm()
        })
        .fold(0.0, f64::max)
}

#[test]
fn abiflexx_loops_close_under_the_chosen_offset_direction_only() {
    let Some(path) = corpus_file("shift/abiflexx_d4_1300/abiflexx_d4_1300.json") else {
        return;
    };
    let imported = ShiftFormat
        .read(&Source::from_path(&path).unwrap(), &Options::default())
        .unwrap();
    let model = &imported.model;
    let gap = worst_loop_gap(model);
    // The reader names the gap: one `loop_gap` note per loop left open, with its size.
    let gaps: Vec<_> = imported
        .report
        .findings
        .iter()
        .filter(|f| f.code == "shift.loop_gap")
        .collect();
    assert!(!gaps.is_empty());
    assert!(
        gaps.iter().any(|f| f.message.contains(&format!("{gap:.3e} m"))),
        "{gaps:#?}"
    );
    // The file's joint angles and matrices are rounded (8 digits): the loops close to 0.66 mm
    // on 1 m links under the chosen reading, and stay open by 0.4 m under the other.
    assert!(gap < 1e-3, "loops open by {gap} m under the chosen reading");
    // The other reading: the displacement is the parent frame in the child frame (inverse).
    let mut other = model.clone();
    for joint in &mut other.joints {
        if joint.kind == mbconv_ir::JointKind::Spherical {
            joint.q0.iter_mut().for_each(|x| *x = -*x);
        }
    }
    let other_gap = worst_loop_gap(&other);
    assert!(
        other_gap > 0.1,
        "the inverse reading should not close the loops ({other_gap} m)"
    );
}
