//! A conversion to show beside the original: the check's verdict for it, the converted model
//! as read back, and its motion in the original's world, recorded at the page's frames.

use crate::findings::Side;
use mbconv_check::{
    BodyMatch, CheckSettings, Explanation, Motion, SimulationSettings, TargetCheck, Verdict, check_against,
    check_target, round_trip, simulate_original,
};
use mbconv_ir::format::{Asset, Format, Imported, Options, Registry};
use mbconv_ir::{Finding, Geometry, Model};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// A conversion as the page shows it.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// What the page's selector shows (`via urdf`, `against robot.urdf`).
    pub label: String,
    /// The target's format (registry name).
    pub format: String,
    /// The check's verdict, when the conversion was checked (`--via`, `check`), else `None`.
    pub verdict: Option<Verdict>,
    /// Why the verdict is what it is.
    pub message: String,
    /// When the original and the conversion part most (s), as the check measured it.
    pub worst_time: Option<f64>,
    /// Which body parts most (original name).
    pub worst_body: Option<String>,
    /// How far it parts (m).
    pub worst_com: Option<f64>,
    /// The converted model as read back; `None` when the conversion failed before.
    pub model: Option<Model>,
    /// Its motion in the original's world at the page's frames (when it could be simulated).
    pub motion: Option<Motion>,
    /// The bodies of the original's motion matched to the conversion's.
    pub matching: Option<BodyMatch>,
    /// The conversion's findings, each with whose items it names.
    pub findings: Vec<(Finding, Side)>,
    /// The lowering passes that explain the difference.
    pub explained_by: Vec<Explanation>,
    /// What the check did not compare.
    pub not_compared: Vec<String>,
    /// The mesh files the conversion wrote (converted or copied beside its output), by the
    /// path the converted model's shapes name them with: the folder the check wrote them into
    /// is gone when the page is made, so the page draws them from here.
    pub written_meshes: BTreeMap<String, Vec<u8>>,
}

impl Comparison {
    fn from_target(label: String, target: &TargetCheck) -> Self {
        let failed = target.verdict == Verdict::Failed;
        Self {
            label,
            format: target.format.clone(),
            verdict: Some(target.verdict),
            message: target.message.clone(),
            worst_time: (!failed).then_some(target.max_com_error_time),
            worst_body: target.max_com_error_body.clone(),
            worst_com: (!failed && target.max_com_error.is_finite()).then_some(target.max_com_error),
            model: None,
            motion: None,
            matching: None,
            findings: Vec::new(),
            explained_by: target.explained_by.clone(),
            not_compared: target.not_compared.clone(),
            written_meshes: BTreeMap::new(),
        }
    }
}

/// The settings the page records motions with: the check's, joint limits enforced when the
/// check enforced them.
pub(crate) fn page_simulation(
    model: &Model,
    settings: &CheckSettings,
    joint_limits: bool,
) -> SimulationSettings {
    SimulationSettings {
        joint_limits,
        ..settings.simulation(model)
    }
}

/// Every how many integrator steps the page records a frame: frames at most `rate` per
/// simulated second.
///
/// ```
/// assert_eq!(mbconv_view::frame_stride(1e-3, 30.0), 34);
/// assert_eq!(mbconv_view::frame_stride(0.1, 30.0), 1);
/// ```
pub fn frame_stride(dt: f64, rate: f64) -> usize {
    ((1.0 / rate) / dt).ceil().max(1.0) as usize
}

/// The conversion of `model` through `format`: checked as `mbconv check` checks it (or, with
/// `checked`, the check made already), lowered, written and read back again for the page, and
/// simulated at the page's frame rate.
pub fn via(
    model: &Model,
    registry: &Registry,
    format: &dyn Format,
    settings: &CheckSettings,
    checked: Option<&TargetCheck>,
    rate: f64,
) -> Comparison {
    let name = format.info().name;
    let target = match checked {
        Some(target) => target.clone(),
        None => check_target(
            model,
            &simulate_original(model, settings),
            registry,
            format,
            settings,
        ),
    };
    let mut comparison = Comparison::from_target(format!("via {name}"), &target);
    let default_options = Options::default();
    let write_options = settings.write_options.get(name).unwrap_or(&default_options);
    let Ok(round) = round_trip(registry, format, model, write_options, settings.to_file) else {
        return comparison;
    };
    comparison.findings = (round
        .lowered
        .report
        .findings
        .iter()
        .chain(&round.exported.report.findings))
    .map(|f| (f.clone(), Side::Original))
    .chain(
        round
            .read_back
            .report
            .findings
            .iter()
            .map(|f| (f.clone(), Side::Conversion)),
    )
    .collect();
    let simulation = page_simulation(model, settings, !target.joint_limits_reached.is_empty());
    let stride = frame_stride(simulation.dt, rate);
    if let Ok(motion) = Motion::simulate_every(&round.read_back.model, &simulation, stride) {
        let motion = match round.lowered.turned_by {
            Some(turn) => motion.turned(&turn.inverse()),
            None => motion,
        };
        let bodies: Vec<String> = model.bodies.iter().map(|b| b.name.clone()).collect();
        let reports = [
            &round.lowered.report,
            &round.exported.report,
            &round.read_back.report,
        ];
        comparison.matching = Some(BodyMatch::new(&bodies, &motion.bodies, &reports));
        comparison.motion = Some(motion);
    }
    let mut read_back = round.read_back.model;
    comparison.written_meshes = point_at_written_meshes(&mut read_back, &round.lowered.assets);
    comparison.model = Some(read_back);
    comparison
}

/// Points the mesh shapes of `model`, read back from the check's temporary folder (gone by
/// now), at the files the conversion wrote or referenced: a mesh the writer converted (its
/// bytes among `assets`) is returned by the path the shape names, for the page to draw; one it
/// copied is the file it copied; a reference relative to the written file (`../../robot/arm.stl`
/// from the temporary folder) is the file it names, its `..` taken lexically; any other is left
/// to its URI.
fn point_at_written_meshes(model: &mut Model, assets: &[Asset]) -> BTreeMap<String, Vec<u8>> {
    let mut written = BTreeMap::new();
    for shape in model.bodies.iter_mut().flat_map(|b| b.shapes.iter_mut()) {
        let (Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh) | Geometry::FittedPrimitive { mesh, .. }) =
            &mut shape.geometry
        else {
            continue;
        };
        let Some(path) = mesh.resolved_path.clone() else {
            continue;
        };
        if Path::new(&path).is_file() {
            continue;
        }
        let asset = assets
            .iter()
            .find(|a| Path::new(&path).ends_with(Path::new(&a.file_name)));
        match asset {
            Some(Asset {
                bytes: Some(bytes), ..
            }) => {
                written.insert(path, bytes.clone());
            }
            Some(Asset { source, .. }) => mesh.resolved_path = Some(source.display().to_string()),
            None => {
                // Found lexically, or else named by its URI alone, which the page resolves
                // against the original's folder (text written as to standard output names
                // meshes as the source did).
                let normal = lexically_normal(Path::new(&path));
                mesh.resolved_path = normal.is_file().then(|| normal.display().to_string());
            }
        }
    }
    written
}

/// `path` with its `.` and `..` components taken lexically (`/t/x/../../a` is `/a`).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !normal.pop() {
                    normal.push(component);
                }
            }
            other => normal.push(other),
        }
    }
    normal
}

/// `model` compared with `other`, a conversion made earlier or by another tool (read with the
/// format `format`), as `mbconv check --against` compares them. `conversion_findings` are
/// findings of the conversion that made `other` (from `mbconv convert`), naming the
/// original's items.
pub fn against(
    model: &Model,
    label: &str,
    other: &Imported,
    format: &str,
    settings: &CheckSettings,
    conversion_findings: &[Finding],
    rate: f64,
) -> Comparison {
    let report = check_against(model, label, other, format, settings);
    let target = &report.targets[0];
    let mut comparison = Comparison::from_target(format!("against {label}"), target);
    comparison.findings = conversion_findings
        .iter()
        .map(|f| (f.clone(), Side::Original))
        .chain(
            other
                .report
                .findings
                .iter()
                .map(|f| (f.clone(), Side::Conversion)),
        )
        .collect();
    let simulation = page_simulation(model, settings, !target.joint_limits_reached.is_empty());
    if let Ok(motion) = Motion::simulate_every(&other.model, &simulation, frame_stride(simulation.dt, rate)) {
        let bodies: Vec<String> = model.bodies.iter().map(|b| b.name.clone()).collect();
        comparison.matching = Some(BodyMatch::new(&bodies, &motion.bodies, &[&other.report]));
        comparison.motion = Some(motion);
    }
    comparison.model = Some(other.model.clone());
    comparison
}
