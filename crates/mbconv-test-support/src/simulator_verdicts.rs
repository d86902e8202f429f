//! The cross-simulator golden cases (`cargo xtask golden chrono`) and how they are judged:
//! each is a model converted to another format; the target simulator runs the converted file,
//! the source simulator runs the model lowered for the target and written back in the source
//! format (the conversion's losses on both sides), DART on the SKEL side and Chrono on the
//! Chrono side, each at dt and dt / 2. A case is named `{direction}__{origin}__{stem}`, e.g.
//! `skel2chrono__fixtures__joint_free` (DART runs `fixtures/skel/joint_free.skel` lowered for
//! Chrono and written back as SKEL, Chrono runs what mbconv wrote from it) or
//! `chrono2skel__corpus__model_slider_crank`.

use crate::corpus::{corpus_root, workspace_root};
use std::path::PathBuf;

/// The largest centre-of-mass gap (m) left between the two simulators once their integration
/// error is extrapolated away: the check's own tolerance (`mbconv check` holds mbconv's
/// solver to 1e-6 m), since both sides run the same lowered model. See `docs/check.md`, "The
/// simulators as judges".
pub const SIMULATOR_TOLERANCE: f64 = 1e-6;

/// Below this gap (m) at both steps, the two runs are equal to rounding, and no convergence
/// order can be read from them: 1e4 steps of double arithmetic on coordinates of a metre
/// accumulate a few 1e-12 m (measured: up to 2.5e-12 on the exact pairs), and chains amplify
/// it; 1e-9 m leaves a factor of several hundred above that and is a thousandth of
/// [`SIMULATOR_TOLERANCE`].
pub const ROUNDING_FLOOR: f64 = 1e-9;

/// The range `gap(dt / 2) / gap(dt)` must fall in for the gap to be integration error that
/// vanishes with the step: 0.5 when it is first order (both integrators are), 0.25 when the
/// two first-order errors cancel and a second-order one is left (measured: 0.250 on the
/// Chrono bushing model, whose two sides integrate the same implicit spring).
pub const CONVERGENCE_RATIO: (f64, f64) = (0.2, 0.6);

/// A pair's runs, from its golden file: the gaps (m) between the source simulator on the
/// lowered model and the target simulator on the converted file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaps {
    /// The largest COM distance at the golden step dt.
    pub full: f64,
    /// The same at dt / 2.
    pub half: f64,
    /// The largest distance between the two sides' Richardson extrapolations
    /// `2·x(dt/2) − x(dt)`, sample by sample.
    pub extrapolated: f64,
}

/// How a pair's two simulators compare.
#[derive(Clone, Debug, PartialEq)]
pub enum Judgement {
    /// Equal to rounding at both steps (below [`ROUNDING_FLOOR`]).
    Equal,
    /// The gap is integration error (it halves or quarters with the step) and extrapolates
    /// to within [`SIMULATOR_TOLERANCE`] at dt → 0.
    Converging {
        /// `gap(dt / 2) / gap(dt)`.
        ratio: f64,
        /// The larger of the sample-by-sample extrapolation and `2·gap(dt/2) − gap(dt)`.
        extrapolated: f64,
    },
    /// The pair fails: why.
    Fails(String),
}

impl Judgement {
    /// True unless the pair fails.
    pub fn agrees(&self) -> bool {
        !matches!(self, Self::Fails(_))
    }
}

/// Judges a pair from its gaps at the golden step and at half of it: it agrees when both are
/// below [`ROUNDING_FLOOR`], or when the gap halves or quarters with the step (the ratio
/// within [`CONVERGENCE_RATIO`]) and the extrapolated gap (the larger of `gaps.extrapolated` and
/// `2·gap(dt/2) − gap(dt)`) is below [`SIMULATOR_TOLERANCE`].
///
/// ```
/// use mbconv_test_support::simulator_verdicts::{judge, Gaps, Judgement};
/// let gaps = |full, half, extrapolated| Gaps { full, half, extrapolated };
/// assert_eq!(judge(gaps(6.9e-13, 5.7e-13, 3e-13)), Judgement::Equal);
/// assert!(judge(gaps(2.06e-5, 1.03e-5, 5e-10)).agrees());
/// // A systematic gap does not halve: the models differ.
/// assert!(!judge(gaps(3.9e-4, 3.9e-4, 3.9e-4)).agrees());
/// // It halves, but what is left at dt -> 0 is above the tolerance.
/// assert!(!judge(gaps(1.0e-3, 0.51e-3, 2e-5)).agrees());
/// ```
pub fn judge(gaps: Gaps) -> Judgement {
    let Gaps {
        full,
        half,
        extrapolated,
    } = gaps;
    if !(full.is_finite() && half.is_finite() && extrapolated.is_finite()) {
        return Judgement::Fails("a gap is not a number".to_owned());
    }
    if full < ROUNDING_FLOOR && half < ROUNDING_FLOOR {
        return Judgement::Equal;
    }
    let ratio = half / full;
    let extrapolated = extrapolated.max((2.0 * half - full).abs());
    if !(CONVERGENCE_RATIO.0..=CONVERGENCE_RATIO.1).contains(&ratio) {
        return Judgement::Fails(format!(
            "the gap does not shrink with the step ({full:.3e} m at dt, {half:.3e} m at dt/2, ratio {ratio:.3}): the simulators move differently"
        ));
    }
    if extrapolated > SIMULATOR_TOLERANCE {
        return Judgement::Fails(format!(
            "the gap shrinks with the step but extrapolates to {extrapolated:.3e} m at dt -> 0, above {SIMULATOR_TOLERANCE:e} m"
        ));
    }
    Judgement::Converging { ratio, extrapolated }
}

/// What a pair's golden file (`CASE.json`, written by `oracles/simulators/merge.py`) says.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseOutcome {
    /// mbconv refused to convert the model (on purpose): nothing for the simulators to run.
    Refused(String),
    /// Both simulators ran; how they compare.
    Judged {
        /// The gaps; `None` when bodies could not be matched.
        gaps: Option<Gaps>,
        /// The judgement (a failure when a simulator could not run, when a body has no match
        /// on the other side, or when writing the lowered model back lost something that can
        /// change motion, so that the comparison is not clean).
        judgement: Judgement,
    },
}

impl CaseOutcome {
    /// True for a pair that fails.
    pub fn fails(&self) -> bool {
        matches!(
            self,
            Self::Judged {
                judgement: Judgement::Fails(_),
                ..
            }
        )
    }
}

/// True when a golden file was made by the judge of this module (the source simulator on the
/// lowered model written back; `merge.py` then records `lowered_losses`, even empty), not by
/// the earlier one that ran the original.
///
/// ```
/// use mbconv_test_support::simulator_verdicts::made_on_the_lowered_model;
/// assert!(made_on_the_lowered_model(&serde_json::json!({"case": "c", "lowered_losses": []})));
/// assert!(!made_on_the_lowered_model(&serde_json::json!({"case": "c", "max_com_difference": 0.0})));
/// ```
pub fn made_on_the_lowered_model(golden: &serde_json::Value) -> bool {
    golden
        .get("lowered_losses")
        .is_some_and(serde_json::Value::is_array)
}

/// Reads a pair's golden file.
///
/// ```
/// use mbconv_test_support::simulator_verdicts::{judge_case, CaseOutcome};
/// let golden = serde_json::json!({"case": "c", "unmatched": {"source": ["nut"], "target": []},
///     "max_com_difference": null, "lowered_losses": []});
/// assert!(judge_case(&golden).fails());
/// ```
pub fn judge_case(golden: &serde_json::Value) -> CaseOutcome {
    let fails = |why: String| CaseOutcome::Judged {
        gaps: None,
        judgement: Judgement::Fails(why),
    };
    if let Some(error) = golden["error"].as_str() {
        let error = error.lines().next().unwrap_or_default().to_owned();
        return if error.contains("mbconv convert failed") {
            CaseOutcome::Refused(error)
        } else {
            fails(format!("not run: {error}"))
        };
    }
    let names = |side: &str| -> Vec<String> {
        golden["unmatched"][side]
            .as_array()
            .map(|a| a.iter().filter_map(|n| n.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    };
    let (only_source, only_target) = (names("source"), names("target"));
    if !only_source.is_empty() || !only_target.is_empty() {
        return fails(format!(
            "bodies without a match: only the source simulator has {only_source:?}, only the target simulator has {only_target:?}"
        ));
    }
    let number = |key: &str| golden[key].as_f64();
    let (Some(full), Some(half), Some(extrapolated)) = (
        number("max_com_difference"),
        number("max_com_difference_half_step"),
        number("max_com_difference_extrapolated"),
    ) else {
        return fails("the golden file has no gaps: run `cargo xtask golden chrono`".to_owned());
    };
    let gaps = Gaps {
        full,
        half,
        extrapolated,
    };
    let losses: Vec<&str> = golden["lowered_losses"]
        .as_array()
        .map(|a| a.iter().filter_map(|l| l.as_str()).collect())
        .unwrap_or_default();
    let judgement = if losses.is_empty() {
        judge(gaps)
    } else {
        Judgement::Fails(format!(
            "not a clean comparison: writing the lowered model back in the source format lost {}",
            losses.join(", ")
        ))
    };
    CaseOutcome::Judged {
        gaps: Some(gaps),
        judgement,
    }
}

/// Where the golden files live: one `CASE.json` per case and `written/CASE/` with the files
/// mbconv wrote for it.
pub fn simulator_golden_dir() -> PathBuf {
    workspace_root().join("front/mbconv-cli/tests/golden/simulators")
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
    /// The source simulator (it runs the lowered model written back), then the one that runs
    /// the conversion.
    pub simulators: (&'static str, &'static str),
}

/// The case called `name`, or `None` for a name that follows no known pattern.
///
/// ```
/// let case = mbconv_test_support::simulator_verdicts::simulator_case("skel2chrono__fixtures__joint_free").unwrap();
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

    fn gaps(full: f64, half: f64, extrapolated: f64) -> Gaps {
        Gaps {
            full,
            half,
            extrapolated,
        }
    }

    #[test]
    fn a_pair_agrees_only_when_its_gap_is_first_order_and_extrapolates_to_the_tolerance() {
        assert_eq!(judge(gaps(0.0, 0.0, 0.0)), Judgement::Equal);
        // Rounding at one step, a real gap at the other: not equal.
        assert!(!judge(gaps(1e-12, 2e-9, 4e-9)).agrees());
        let converging = judge(gaps(1.654e-3, 8.267e-4, 6.1e-7));
        assert!(matches!(converging, Judgement::Converging { ratio, .. } if (ratio - 0.4998).abs() < 1e-3));
        // The scalar extrapolation counts too.
        assert!(!judge(gaps(1.0e-3, 0.55e-3, 1e-9)).agrees());
        assert!(!judge(gaps(4.9, 4.9, 4.9)).agrees());
        assert!(!judge(gaps(f64::NAN, 0.0, 0.0)).agrees());
        assert!(
            !judge(gaps(1e-3, 1e-4, 1e-9)).agrees(),
            "faster than first order is not this integrator"
        );
    }

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
