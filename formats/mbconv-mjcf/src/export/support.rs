//! What the MJCF writer does with each IR feature (the format's row of the loss matrix); the
//! `lower` passes report the same, item by item.

use mbconv_ir::format::support::{Feature, FeatureTable, SimulatorLaw, full_table};

/// The MJCF writer's feature table.
///
/// The rows are kept as text in `support.txt` beside this file (one line a feature: its key,
/// its support and the words), read when the crate is built: a row missing, misspelt or
/// given twice does not build.
pub(crate) const FEATURE_SUPPORT: FeatureTable = full_table(include_str!("support.txt"));

/// Where MuJoCo solves a feature the written file says exactly by a law that is not mbconv's
/// solver's: the check names these where the model uses the feature, since it simulates both
/// sides with mbconv's law.
pub(crate) const SIMULATOR_LAWS: &[SimulatorLaw] = &[
    SimulatorLaw {
        feature: Feature::JointFriction,
        law: "MuJoCo solves frictionloss as a soft constraint (solreffriction, solimpfriction), mbconv's solver as the smooth force -F·tanh(v / 0.01): while a joint sticks the two part",
        applies: None,
    },
    SimulatorLaw {
        feature: Feature::JointLimits,
        law: "MuJoCo's joint ranges are soft constraints (solreflimit, solimplimit), where mbconv's solver stops a joint inelastically at its limit",
        applies: None,
    },
    SimulatorLaw {
        feature: Feature::KinematicLoops,
        law: "MuJoCo solves <connect> and <weld> as soft equality constraints, where mbconv's solver closes loops exactly",
        applies: None,
    },
];
