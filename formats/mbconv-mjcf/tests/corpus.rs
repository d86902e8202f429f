//! Every MJCF file of the shared corpus: read, or refused with the reason MuJoCo gives.

use mbconv_ir::format::{Format, Options, Source};
use mbconv_test_support::corpus_file;

/// Corpus files MuJoCo 4.0 loads (`../shared/corpus/mjcf/README.md`), with MuJoCo's body
/// count (world excluded) and number of degrees of freedom.
const LOADED: &[(&str, usize, usize)] = &[
    (
        "mjcf/dm_control/dm_control/mujoco/testing/assets/model_with_ball_joints.xml",
        3,
        6,
    ),
    ("mjcf/dm_control/dm_control/suite/acrobot.xml", 2, 2),
    ("mjcf/dm_control/dm_control/suite/finger.xml", 3, 3),
    ("mjcf/dm_control/dm_control/suite/fish.xml", 5, 13),
    ("mjcf/dm_control/dm_control/suite/hopper.xml", 5, 7),
    ("mjcf/dm_control/dm_control/suite/humanoid.xml", 16, 27),
    ("mjcf/dm_control/dm_control/suite/lqr.xml", 0, 0),
    ("mjcf/dm_control/dm_control/suite/manipulator.xml", 16, 14),
    ("mjcf/dm_control/dm_control/suite/pendulum.xml", 1, 1),
    ("mjcf/dm_control/dm_control/suite/point_mass.xml", 1, 2),
    ("mjcf/dm_control/dm_control/suite/quadruped.xml", 18, 28),
    ("mjcf/dm_control/dm_control/suite/stacker.xml", 14, 20),
    ("mjcf/dm_control/dm_control/suite/swimmer.xml", 1, 3),
    ("mjcf/dm_control/dm_control/suite/walker.xml", 7, 9),
    ("mjcf/drake/multibody/benchmarks/acrobot/acrobot.xml", 2, 2),
    (
        "mjcf/drake/multibody/parsing/test/mujoco_parser_test/pendulum.xml",
        1,
        1,
    ),
    ("mjcf/menagerie/skydio_x2/scene.xml", 1, 6),
    ("mjcf/menagerie/skydio_x2/x2.xml", 1, 6),
    ("mjcf/menagerie/trossen_wx250s/scene.xml", 9, 8),
    ("mjcf/menagerie/trossen_wx250s/wx250s.xml", 9, 8),
    ("mjcf/menagerie/wonik_allegro/left_hand.xml", 21, 16),
    ("mjcf/menagerie/wonik_allegro/right_hand.xml", 21, 16),
    ("mjcf/menagerie/wonik_allegro/scene_left.xml", 22, 22),
    ("mjcf/menagerie/wonik_allegro/scene_right.xml", 22, 22),
    ("mjcf/mujoco/model/adhesion/active_adhesion.xml", 71, 209),
    ("mjcf/mujoco/model/cube/cube_3x3x3.xml", 27, 66),
    ("mjcf/mujoco/model/humanoid/22_humanoids.xml", 352, 594),
    ("mjcf/mujoco/model/humanoid/humanoid.xml", 16, 27),
    ("mjcf/mujoco/model/replicate/newton_cradle.xml", 7, 42),
    ("mjcf/mujoco/model/replicate/tendon.xml", 37, 222),
    ("mjcf/mujoco/model/sleep/dominos.xml", 96, 576),
    ("mjcf/mujoco/model/slider_crank/slider_crank.xml", 3, 3),
    ("mjcf/mujoco/test/engine/testdata/armature_equivalence.xml", 3, 3),
    ("mjcf/mujoco/test/engine/testdata/connect.xml", 6, 18),
    (
        "mjcf/mujoco/test/engine/testdata/core_constraint/jdotv_connect_3d.xml",
        2,
        9,
    ),
    (
        "mjcf/mujoco/test/engine/testdata/core_constraint/jdotv_weld_3d.xml",
        2,
        9,
    ),
    (
        "mjcf/mujoco/test/engine/testdata/core_smooth/rne_post/connect/multiple_constraints.xml",
        6,
        14,
    ),
    (
        "mjcf/mujoco/test/engine/testdata/core_smooth/ten_armature_offtree.xml",
        8,
        22,
    ),
    ("mjcf/mujoco/test/engine/testdata/equality_site.xml", 3, 18),
    ("mjcf/mujoco/test/engine/testdata/frame.xml", 4, 1),
    ("mjcf/mujoco/test/engine/testdata/inertia.xml", 7, 14),
    ("mjcf/mujoco/test/engine/testdata/rotations.xml", 2, 9),
    ("mjcf/mujoco/test/engine/testdata/spin_recoil.xml", 2, 9),
    ("mjcf/mujoco/test/testdata/model.xml", 14, 43),
    ("mjcf/mujoco/test/testdata/tendon_wrap.xml", 4, 9),
    ("mjcf/mujoco/test/user/testdata/auto_limits.xml", 3, 18),
    ("mjcf/mujoco/test/user/testdata/dzhanibekov.xml", 1, 6),
    ("mjcf/mujoco/test/user/testdata/frame1.xml", 3, 1),
    ("mjcf/mujoco/test/user/testdata/frame2.xml", 5, 0),
    ("mjcf/mujoco/test/xml/testdata/parent.xml", 7, 24),
    ("mjcf/pinocchio/models/humanoid.xml", 13, 23),
    ("mjcf/pinocchio/unittest/models/test_composite.xml", 3, 3),
];

/// Corpus files MuJoCo loads that mbconv refuses, and the reason it gives.
const NOT_YET: &[(&str, &str)] = &[];

/// Corpus files MuJoCo refuses, refused by mbconv with MuJoCo's reason.
const REFUSED: &[(&str, &str)] = &[(
    "mjcf/drake/multibody/parsing/test/mujoco_parser_test/scene.xml",
    "File 'pendulum.xml' already included",
)];

fn read(file: &str) -> Option<Result<mbconv_ir::format::Imported, String>> {
    let path = corpus_file(file)?;
    let source = Source::from_path(&path).expect("a readable corpus file");
    Some(
        mbconv_mjcf::MjcfFormat
            .read(&source, &Options::default())
            .map_err(|e| e.to_string()),
    )
}

#[test]
fn every_loaded_corpus_file_has_mujocos_bodies_and_dofs() {
    for (file, bodies, dof) in LOADED {
        let Some(result) = read(file) else { continue };
        let m = match result {
            Ok(imported) => imported.model,
            Err(e) => match NOT_YET.iter().find(|(f, _)| f == file) {
                Some((_, reason)) => {
                    assert!(e.contains(reason), "{file}: expected {reason:?}, got {e}");
                    continue;
                }
                None => panic!("{file}: {e}"),
            },
        };
        assert!(
            !NOT_YET.iter().any(|(f, _)| f == file),
            "{file} is read now: take it off NOT_YET"
        );
        let real = m
            .bodies
            .iter()
            .filter(|b| {
                b.extras.get("mjcf.joint_body_of").is_none() && b.extras.get("mjcf.worldbody").is_none()
            })
            .count();
        let ndof: usize = m
            .joints
            .iter()
            .filter(|j| j.extras.get("mjcf.equality").is_none())
            .map(|j| j.kind.nv())
            .sum();
        assert_eq!(
            (real, ndof),
            (*bodies, *dof),
            "{file}: bodies and degrees of freedom"
        );
        let report = mbconv_ir::validate(&m);
        assert!(!report.has_errors(), "{file}: {:?}", report.findings);
    }
}

#[test]
fn corpus_files_mujoco_refuses_are_refused_for_its_reason() {
    for (file, reason) in REFUSED {
        let Some(result) = read(file) else { continue };
        let e = result.err().unwrap_or_else(|| panic!("{file} should be refused"));
        assert!(e.contains(reason), "{file}: expected {reason:?}, got {e}");
    }
}
