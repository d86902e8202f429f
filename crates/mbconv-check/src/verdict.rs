//! Verdicts and the result of checking one target.

use crate::compare::Difference;
use mbconv_ir::{Category, Report};
use nalgebra::Vector3;
use serde::{Serialize, Serializer};
use std::fmt;

/// What a check concluded about one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The read-back model moves like the original, within tolerance.
    Exact,
    /// The read-back model moves differently, and every difference comes from a reported
    /// loss: the lowered model moves like the read-back one.
    Explained,
    /// The read-back model moves unlike the lowered one (a writer or reader bug), or a
    /// difference has no reported loss behind it.
    Unexplained,
    /// A step errored; the message says which. The proof could not be completed.
    Failed,
    /// Nothing could be compared: no body of the original has mass, so no centre of mass
    /// moves (a model of massless links is no evidence either way); the message says why.
    NotCompared,
    /// The check was not run to its end: it went over the work budget of an automatic check
    /// (`mbconv convert` checks within a budget; `--check` or `mbconv check` runs it fully).
    Skipped,
}

impl Verdict {
    /// `exact`, `explained`, `unexplained`, `failed`, `not compared` or `skipped`.
    ///
    /// ```
    /// use mbconv_check::Verdict;
    /// assert_eq!(Verdict::NotCompared.name(), "not compared");
    /// assert_eq!(Verdict::Failed.to_string(), "failed");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Exact => "exact",
            Verdict::Explained => "explained",
            Verdict::Unexplained => "unexplained",
            Verdict::Failed => "failed",
            Verdict::NotCompared => "not compared",
            Verdict::Skipped => "skipped",
        }
    }
    /// True for `unexplained` and `failed`: the conversion is not proven, by a difference no
    /// loss explains or by a proof that could not be completed (the two exit with different
    /// codes; see `docs/errors.md`).
    ///
    /// ```
    /// use mbconv_check::Verdict;
    /// assert!(Verdict::Failed.is_failure() && Verdict::Unexplained.is_failure());
    /// assert!(!Verdict::NotCompared.is_failure() && !Verdict::Skipped.is_failure());
    /// ```
    pub fn is_failure(self) -> bool {
        matches!(self, Verdict::Unexplained | Verdict::Failed)
    }
    /// True for the verdicts that prove the conversion: `exact` and `explained`.
    ///
    /// ```
    /// use mbconv_check::Verdict;
    /// assert!(Verdict::Explained.is_proof());
    /// assert!(!Verdict::NotCompared.is_proof());
    /// ```
    pub fn is_proof(self) -> bool {
        matches!(self, Verdict::Exact | Verdict::Explained)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How many findings of each kind a conversion reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FindingCounts {
    /// Dropped or ignored items.
    pub lost: usize,
    /// Approximated items.
    pub approximated: usize,
    /// Renamed items.
    pub renamed: usize,
}

impl FindingCounts {
    /// Counts the findings of `reports`.
    pub fn of(reports: &[&Report]) -> Self {
        let mut counts = Self::default();
        for finding in reports.iter().flat_map(|r| &r.findings) {
            match finding.category {
                Category::Dropped | Category::Ignored => counts.lost += 1,
                Category::Approximated => counts.approximated += 1,
                Category::Renamed => counts.renamed += 1,
                _ => {}
            }
        }
        counts
    }
}

/// The motions a target was compared by: the centre-of-mass paths of the body that parted
/// most, original against converted (for plots), and every body's error at every sample (for
/// callers that look at more than the worst body: the Python package's arrays).
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The body that parted most (original name), whose paths `original` and `converted` are;
    /// `None` when no body parted at all (both paths are then empty).
    pub body: Option<String>,
    /// Sample times (s).
    pub times: Vec<f64>,
    /// Its centre of mass in the original.
    pub original: Vec<Vector3<f64>>,
    /// Its centre of mass in the converted model.
    pub converted: Vec<Vector3<f64>>,
    /// The bodies of the original (names, in model order): the columns of the errors below.
    pub bodies: Vec<String>,
    /// `position_error[sample][body]`: the distance between the body's centres of mass in the
    /// original and the converted model (m), as the verdict measures it (zero for a body
    /// that carries nothing), at the first `position_error.len()` of `times` (the samples both
    /// simulations reached); NaN for a body the conversion lost.
    pub position_error: Vec<Vec<f64>>,
    /// `rotation_error[sample][body]`: the angle between the body's rotations since t = 0
    /// (rad), at the same samples; NaN for a body the conversion lost.
    pub rotation_error: Vec<Vec<f64>>,
}

/// The result of checking one target format (or one `--against` file).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetCheck {
    /// Registry name of the target format.
    pub format: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Largest distance between the original's and the read-back model's centres of mass (m);
    /// `null` when a step failed or a body went missing.
    #[serde(serialize_with = "finite_or_null")]
    pub max_com_error: f64,
    /// When it occurs (s).
    pub max_com_error_time: f64,
    /// Which body (original name).
    pub max_com_error_body: Option<String>,
    /// Largest angle between their rotations since t = 0 (rad).
    #[serde(serialize_with = "finite_or_null")]
    pub max_rotation_error: f64,
    /// Which body (original name).
    pub max_rotation_error_body: Option<String>,
    /// Codes of the lower and emit findings that record a loss, approximation or rename, each
    /// once, in order of first appearance.
    pub findings: Vec<String>,
    /// Findings counted by kind.
    #[serde(flatten)]
    pub counts: FindingCounts,
    /// Why the verdict is what it is.
    pub message: String,
    /// The lowering passes whose change of motion explains the difference, each with the
    /// finding that excuses it and the motion the pass's change caused on its own.
    pub explained_by: Vec<crate::Explanation>,
    /// What the check did not compare (contact, which mbconv's solver does not simulate).
    pub not_compared: Vec<String>,
    /// Joints whose position limits were reached in the original, the lowered or the
    /// read-back model; when any is, every model was simulated with the limits enforced.
    pub joint_limits_reached: Vec<String>,
    /// The estimated integration error of the original's simulation (m): against a more
    /// accurate reference run (the default integration), or by halving the step of the
    /// fixed-step scheme the check fell back to.
    pub integration_error: Option<f64>,
    /// The tolerances the motions were compared within: the ones asked for, or wider where
    /// the integration error of the original's simulation would otherwise decide the verdict
    /// (see [`Original::tolerances`](crate::Original::tolerances)); `None` when nothing was
    /// compared.
    pub compared_within: Option<crate::Tolerances>,
    /// True when `compared_within` is wider than the tolerances asked for; every line that
    /// prints the verdict then says within what it holds.
    pub tolerance_widened: bool,
    /// The worst body's paths, for plots (not serialised).
    #[serde(skip)]
    pub trace: Option<Trace>,
    /// The step that errored, for `failed` (not serialised; the message names it).
    #[serde(skip)]
    pub failed_step: Option<crate::Step>,
}

impl TargetCheck {
    /// A target whose check could not finish.
    pub fn failed(format: &str, message: impl Into<String>) -> Self {
        Self::unproven(format, Verdict::Failed, message)
    }

    /// A target with a verdict reached without comparing motions (`failed`, `not compared`,
    /// `skipped`), and why.
    ///
    /// ```
    /// use mbconv_check::{TargetCheck, Verdict};
    /// let t = TargetCheck::unproven("urdf", Verdict::Skipped, "over budget");
    /// assert!(t.max_com_error.is_nan() && t.compared_within.is_none());
    /// ```
    pub fn unproven(format: &str, verdict: Verdict, message: impl Into<String>) -> Self {
        Self {
            format: format.to_owned(),
            verdict,
            max_com_error: f64::NAN,
            max_com_error_time: 0.0,
            max_com_error_body: None,
            max_rotation_error: f64::NAN,
            max_rotation_error_body: None,
            findings: Vec::new(),
            counts: FindingCounts::default(),
            message: message.into(),
            explained_by: Vec::new(),
            not_compared: Vec::new(),
            joint_limits_reached: Vec::new(),
            integration_error: None,
            compared_within: None,
            tolerance_widened: false,
            trace: None,
            failed_step: None,
        }
    }

    /// A target whose check stopped at a step that errored.
    pub fn failed_at(format: &str, error: &crate::StepError) -> Self {
        let mut target = Self::failed(format, error.to_string());
        target.failed_step = Some(error.step);
        target
    }

    /// True when the target's files were emitted (the check got past lower and emit).
    pub fn written(&self) -> bool {
        !matches!(
            self.failed_step,
            Some(crate::Step::Lower | crate::Step::Emit | crate::Step::WriteFiles)
        )
    }

    /// True when the emitted files were read back.
    pub fn read_back(&self) -> bool {
        self.written() && self.failed_step != Some(crate::Step::ReadBack)
    }

    /// A target with a verdict reached by comparing motions.
    pub(crate) fn decided(
        format: &str,
        verdict: Verdict,
        difference: &Difference,
        reports: &[&Report],
        message: String,
    ) -> Self {
        let mut findings: Vec<String> = Vec::new();
        for finding in reports.iter().flat_map(|r| &r.findings) {
            let counted = finding.category.is_loss() || finding.category == Category::Renamed;
            if counted && !findings.contains(&finding.code) {
                findings.push(finding.code.clone());
            }
        }
        Self {
            format: format.to_owned(),
            verdict,
            max_com_error: difference.max_com_error,
            max_com_error_time: difference.max_com_error_time,
            max_com_error_body: difference.max_com_error_body.clone(),
            max_rotation_error: difference.max_rotation_error,
            max_rotation_error_body: difference.max_rotation_error_body.clone(),
            findings,
            counts: FindingCounts::of(reports),
            message,
            explained_by: Vec::new(),
            not_compared: Vec::new(),
            joint_limits_reached: Vec::new(),
            integration_error: None,
            compared_within: None,
            tolerance_widened: false,
            trace: None,
            failed_step: None,
        }
    }
}

fn finite_or_null<S: Serializer>(x: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if x.is_finite() {
        serializer.serialize_f64(*x)
    } else {
        serializer.serialize_none()
    }
}
