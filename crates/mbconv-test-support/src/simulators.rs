//! The cross-simulator golden cases (`cargo xtask golden chrono`): each is a model converted to
//! another format and run in both simulators, DART on the SKEL side and Chrono on the Chrono
//! side. A case is named `{direction}__{origin}__{stem}`, e.g. `skel2chrono__fixtures__joint_free`
//! (DART runs `fixtures/skel/joint_free.skel`, Chrono runs what mbconv wrote from it) or
//! `chrono2skel__corpus__model_slider_crank`.

use crate::{corpus_root, workspace_root};
use std::path::PathBuf;

/// The largest centre-of-mass gap (m) at which the two simulators agree on a conversion, at
/// the golden step of 1e-4 s over 1 s (both integrators are first order).
pub const SIMULATOR_TOLERANCE: f64 = 1e-3;

/// How the two simulators' runs of one case compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// Within [`SIMULATOR_TOLERANCE`] at the golden step.
    Within,
    /// Apart at the golden step, but the gap is integration error: it halves with the step
    /// (both integrators are first order) and extrapolates to within the tolerance at dt -> 0
    /// (`2·gap(dt/2) − gap(dt)`, Richardson for a first-order error).
    Converging,
    /// Apart: the models move differently.
    Apart,
}

/// Judges a case from its gap at the golden step and at half of it.
///
/// ```
/// use mbconv_test_support::simulators::{agreement, Agreement};
/// assert_eq!(agreement(2e-4, Some(1e-4)), Agreement::Within);
/// assert_eq!(agreement(1.65e-3, Some(0.83e-3)), Agreement::Converging);
/// assert_eq!(agreement(4.9, Some(4.9)), Agreement::Apart);
/// ```
pub fn agreement(gap: f64, half_step_gap: Option<f64>) -> Agreement {
    if gap <= SIMULATOR_TOLERANCE {
        return Agreement::Within;
    }
    match half_step_gap {
        Some(half) if half <= 0.6 * gap && (2.0 * half - gap).abs() <= SIMULATOR_TOLERANCE => {
            Agreement::Converging
        }
        _ => Agreement::Apart,
    }
}

/// Where the golden files live: one `CASE.json` per case and `written/CASE/` with the files
/// mbconv wrote for it.
pub fn simulator_golden_dir() -> PathBuf {
    workspace_root().join("crates/mbconv-cli/tests/golden/simulators")
}

/// One cross-simulator case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimulatorCase {
    /// The case name.
    pub name: String,
    /// The model converted.
    pub source: PathBuf,
    /// The model as `xtask corpus` names it (`fixtures/skel/joint_free.skel`,
    /// `corpus/chrono/model_bushing.yaml`).
    pub shown: String,
    /// The format written (`chrono` or `skel`).
    pub target_format: &'static str,
    /// The simulator that runs the original, then the one that runs the conversion.
    pub simulators: (&'static str, &'static str),
}

/// The case called `name`, or `None` for a name that follows no known pattern.
///
/// ```
/// let case = mbconv_test_support::simulators::simulator_case("skel2chrono__fixtures__joint_free").unwrap();
/// assert_eq!(case.shown, "fixtures/skel/joint_free.skel");
/// assert_eq!(case.target_format, "chrono");
/// ```
pub fn simulator_case(name: &str) -> Option<SimulatorCase> {
    let (direction, rest) = name.split_once("__")?;
    let (origin, stem) = rest.rsplit_once("__")?;
    let (folder, extension, target_format, simulators) = match direction {
        "skel2chrono" => ("skel", "skel", "chrono", ("DART", "Chrono")),
        "chrono2skel" => ("chrono", "yaml", "skel", ("Chrono", "DART")),
        _ => return None,
    };
    let relative = match origin {
        "fixtures" | "corpus" => format!("{folder}/{stem}.{extension}"),
        "corpus__fea" => format!("{folder}/fea/{stem}.{extension}"),
        _ => return None,
    };
    let source = if origin == "fixtures" {
        workspace_root().join("fixtures").join(&relative)
    } else {
        corpus_root().join(&relative)
    };
    let label = if origin == "fixtures" {
        "fixtures"
    } else {
        "corpus"
    };
    Some(SimulatorCase {
        name: name.to_owned(),
        source,
        shown: format!("{label}/{relative}"),
        target_format,
        simulators,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn case_names_map_to_their_models() {
        let case = simulator_case("chrono2skel__corpus__model_slider_crank").unwrap();
        assert_eq!(case.shown, "corpus/chrono/model_slider_crank.yaml");
        assert_eq!(case.target_format, "skel");
        assert_eq!(case.simulators, ("Chrono", "DART"));
        assert!(simulator_case("skel2body__fixtures__x").is_none());
        assert!(simulator_case("nonsense").is_none());
    }
}
