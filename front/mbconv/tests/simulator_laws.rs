//! A law the target's simulator does not share is named in the verdict: MuJoCo solves
//! `frictionloss` as a soft constraint, mbconv's solver regularises Coulomb friction, so a
//! conversion to MJCF of a model with joint friction is not called proven there.

use mbconv::ir::{DofProperties, Model};
use mbconv::{CheckSettings, Pipeline};

/// The demo pendulum with Coulomb friction `friction` (N·m) at its pivot.
fn pendulum(friction: f64) -> Model {
    let mut model = mbconv::demo::pendulum();
    model.joints[0].dofs = vec![DofProperties {
        friction,
        ..DofProperties::default()
    }];
    model
}

fn not_compared(model: &Model, via: &str) -> Vec<String> {
    let pipeline = Pipeline::new();
    let registry = pipeline.registry();
    let format = registry.get(via).expect("registered");
    let settings = CheckSettings {
        duration: 0.3,
        ..CheckSettings::default()
    };
    let mut report = mbconv::checker::check(model, "rubbing", registry, &[format], &settings);
    let target = report.targets.remove(0);
    assert!(target.verdict.is_proof(), "{}", target.message);
    target.not_compared
}

#[test]
fn joint_friction_written_for_mujoco_is_named_as_a_law_mujoco_does_not_share() {
    let notes = not_compared(&pendulum(0.3), "mjcf");
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("joint Coulomb friction: MuJoCo solves frictionloss as a soft constraint")),
        "{notes:?}"
    );
}

#[test]
fn without_friction_or_for_a_target_that_shares_the_law_nothing_is_named() {
    assert!(not_compared(&pendulum(0.0), "mjcf").is_empty());
    assert!(not_compared(&pendulum(0.3), "mbir").is_empty());
}
