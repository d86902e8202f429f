//! The verdicts on writers that are honest, lossy, or lying, and on `--against` comparisons.

use mbconv_check::{
    BodyMatch, CheckSettings, Difference, Motion, SimulationSettings, Verdict, check, check_against,
};
use mbconv_ir::format::kit::{LowerSession, Tracing};
use mbconv_ir::format::support::Feature;
use mbconv_ir::format::{
    Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, Registry, Source,
};
use mbconv_ir::mbir::MbirFormat;
use mbconv_ir::{
    Body, BodyRef, Category, ContactMaterial, Finding, ForceElement, ForceKind, Group, GroupType, Inertia,
    Joint, JointKind, Model, Pose, Report, Rsda, Severity, SpringDamperLaw, Twist,
};
use nalgebra::{UnitQuaternion, Vector3};

/// A pendulum swinging about y from 0.3 rad, and a free body tumbling with products of inertia.
fn model() -> Model {
    let mut model = Model::new("test");
    let mut bob = Body::new("bob");
    bob.inertial.com = Vector3::new(0.0, 0.0, -1.0);
    model.bodies.push(bob);
    let mut pivot = Joint::new(
        "pivot",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    );
    pivot.q0 = vec![0.3];
    pivot.dofs = vec![mbconv_ir::DofProperties {
        damping: 0.4,
        spring_stiffness: 3.0,
        spring_rest_position: 0.1,
        ..Default::default()
    }];
    model.joints.push(pivot);
    let mut tumbler = Body::new("tumbler");
    tumbler.pose.translation = Vector3::new(2.0, 0.0, 0.0);
    tumbler.inertial.inertia = Inertia::from_moments_products([1.0, 2.0, 3.0], [0.1, 0.2, 0.3]);
    tumbler.initial_velocity = Some(Twist {
        linear: Vector3::zeros(),
        angular: Vector3::new(1.0, 2.0, 3.0),
    });
    let rubber: ContactMaterial =
        serde_json::from_str(r#"{"name": "rubber", "friction": 0.8}"#).expect("a contact material");
    tumbler.contact_materials.push(rubber);
    model.bodies.push(tumbler);
    let mut group = Group::new("all", GroupType::Other);
    group.bodies = vec!["bob".into(), "tumbler".into()];
    model.groups.push(group);
    model
}

/// What a test writer does wrong, if anything.
#[derive(Clone, Copy)]
enum Fault {
    /// Emits the model unchanged: exact.
    None,
    /// Flips the pendulum's axis in emit, silently.
    FlipAxisInEmit,
    /// Moves the tumbler's centre of mass by 1 cm in emit, silently.
    MoveComInEmit,
    /// Drops the initial joint position in lower, and reports it.
    DropQ0InLowerReported,
    /// Drops the initial joint position in lower, silently.
    DropQ0InLowerSilently,
    /// Drops the initial joint position in emit, and reports it there (formats whose lower is
    /// not written yet).
    DropQ0InEmitReported,
    /// Emit errors.
    EmitFails,
    /// Lower drops the group (reported) in one pass and flips the pendulum's axis (silently)
    /// in the next.
    GroupDroppedThenAxisFlippedSilently,
    /// Lower reports an unrelated contact-material loss in the pass that moves the tumbler's
    /// centre of mass.
    ContactMaterialLossWhileComMoves,
    /// Lower writes the pivot's spring and damper as an RSDA about the pivot's axis, an exact
    /// equivalent (reported as a note).
    JointSpringAsRsda,
    /// Writes the model into a companion file and names it as the entry (as a Chrono
    /// simulation file names its model file); the main file is a stub.
    ModelInCompanion,
}

struct TestWriter(Fault);

const INFO: FormatInfo = FormatInfo {
    name: "test",
    aliases: &[],
    extensions: &["mbir.json"],
    description: "IR JSON written by a test writer",
    shortcut: None,
    read_settings: &[],
    write_settings: &[],
    features: &[],
};

fn dropped_q0() -> Finding {
    Finding::new(
        "test.q0_dropped",
        Severity::Warning,
        Category::Dropped,
        "initial joint position dropped",
    )
    .for_feature(Feature::InitialJointPositions)
    .at("joints[\"pivot\"].q0")
}

impl Format for TestWriter {
    fn info(&self) -> &FormatInfo {
        &INFO
    }
    fn sniff(&self, text: &str) -> bool {
        MbirFormat.sniff(text)
    }
    fn read(&self, source: &Source, options: &Options) -> Result<Imported, FormatError> {
        MbirFormat.read(source, options)
    }
    fn lower_with(
        &self,
        model: &Model,
        _options: &Options,
        tracing: Tracing,
    ) -> Result<Lowered, FormatError> {
        Ok(self.lower_faulty(model, tracing))
    }
    fn emit(&self, lowered: &Model, options: &Options) -> Result<Exported, FormatError> {
        let mut model = lowered.clone();
        let mut report = Report::default();
        match self.0 {
            Fault::FlipAxisInEmit => model.joints[0].kind = JointKind::Revolute { axis: -Vector3::y() },
            Fault::MoveComInEmit => model.bodies[1].inertial.com.x += 0.01,
            Fault::DropQ0InEmitReported => {
                model.joints[0].q0 = vec![0.0];
                report.push(dropped_q0());
            }
            Fault::EmitFails => {
                return Err(Box::new(Source::from_string("m", "").error(
                    "test.emit",
                    None,
                    "cannot emit",
                )));
            }
            _ => {}
        }
        let mut exported = MbirFormat.emit(&model, options)?;
        exported.report = report;
        if let Fault::ModelInCompanion = self.0 {
            let text = std::mem::replace(&mut exported.text, "not a model".to_owned());
            exported.companions.push(mbconv_ir::format::Companion {
                file_name: "entry.mbir.json".to_owned(),
                text,
            });
            exported.entry = Some("entry.mbir.json".to_owned());
        }
        Ok(exported)
    }
}

impl TestWriter {
    fn lower_faulty(&self, model: &Model, tracing: Tracing) -> Lowered {
        let mut s = LowerSession::new("test", model, tracing);
        match self.0 {
            Fault::DropQ0InLowerReported => s.run("drop_q0", |s| {
                s.model.joints[0].q0 = vec![0.0];
                s.report.push(dropped_q0());
            }),
            Fault::DropQ0InLowerSilently => s.run("drop_q0", |s| s.model.joints[0].q0 = vec![0.0]),
            Fault::GroupDroppedThenAxisFlippedSilently => {
                s.run("drop_groups", |s| {
                    s.model.groups.clear();
                    s.lost("group_lost", Feature::Groups, "groups[\"all\"]", "no groups");
                });
                s.run("joint_axes", |s| {
                    s.model.joints[0].kind = JointKind::Revolute { axis: -Vector3::y() };
                });
            }
            Fault::ContactMaterialLossWhileComMoves => s.run("contact_materials", |s| {
                s.model.bodies[1].contact_materials.clear();
                s.model.bodies[1].inertial.com.x += 0.01;
                s.lost(
                    "contact_material_lost",
                    Feature::ContactMaterials,
                    "bodies[\"tumbler\"].contact_materials[0]",
                    "no contact materials",
                );
            }),
            Fault::JointSpringAsRsda => s.run("joint_spring_as_rsda", |s| {
                let dof = std::mem::take(&mut s.model.joints[0].dofs[0]);
                // Z of both frames along the pivot's y axis: a rotation of -90° about x.
                let z_along_y = Pose::new(
                    Vector3::zeros(),
                    UnitQuaternion::from_axis_angle(&Vector3::x_axis(), -std::f64::consts::FRAC_PI_2),
                );
                s.model.force_elements.push(ForceElement {
                    name: "pivot_spring".into(),
                    extras: Default::default(),
                    kind: ForceKind::Rsda(Rsda {
                        body1: BodyRef::World,
                        frame1: z_along_y,
                        body2: BodyRef::body("bob"),
                        frame2: z_along_y,
                        free_angle: dof.spring_rest_position,
                        preload: 0.0,
                        law: SpringDamperLaw::Linear {
                            stiffness: Some(dof.spring_stiffness),
                            damping: Some(dof.damping),
                        },
                    }),
                });
                s.note(
                    "joint_spring_as_rsda",
                    Feature::JointSprings,
                    "joints[\"pivot\"]",
                    "the joint's spring and damper are an RSDA about its axis",
                );
            }),
            _ => {}
        }
        s.finish()
    }
}

fn verdict_of(fault: Fault) -> mbconv_check::TargetCheck {
    let mut registry = Registry::new();
    registry.register(Box::new(TestWriter(fault)));
    let format = registry.get("test").expect("registered");
    let settings = CheckSettings {
        duration: 0.5,
        ..CheckSettings::default()
    };
    let mut report = check(&model(), "test", &registry, &[format], &settings);
    report.targets.remove(0)
}

#[test]
fn an_honest_writer_is_exact() {
    let t = verdict_of(Fault::None);
    assert_eq!(t.verdict, Verdict::Exact, "{}", t.message);
    assert_eq!(t.max_com_error, 0.0);
}

#[test]
fn the_model_is_read_back_from_the_entry_companion() {
    let t = verdict_of(Fault::ModelInCompanion);
    assert_eq!(t.verdict, Verdict::Exact, "{}", t.message);
}

#[test]
fn a_writer_that_flips_a_joint_axis_is_caught() {
    let t = verdict_of(Fault::FlipAxisInEmit);
    assert_eq!(t.verdict, Verdict::Unexplained, "{}", t.message);
    assert!(t.message.contains("writer or reader bug"), "{}", t.message);
    assert_eq!(t.max_com_error_body.as_deref(), Some("bob"));
}

#[test]
fn a_writer_that_moves_a_centre_of_mass_is_caught() {
    let t = verdict_of(Fault::MoveComInEmit);
    assert_eq!(t.verdict, Verdict::Unexplained, "{}", t.message);
    assert_eq!(t.max_com_error_body.as_deref(), Some("tumbler"));
    assert!(t.max_com_error >= 0.01 - 1e-12);
}

/// The trace carries every body's error at every sample, and its largest is the verdict's.
#[test]
fn the_trace_holds_every_bodys_error_over_time() {
    let t = verdict_of(Fault::MoveComInEmit);
    let trace = t.trace.as_ref().expect("a compared target has a trace");
    assert_eq!(
        trace.bodies,
        model().bodies.iter().map(|b| b.name.clone()).collect::<Vec<_>>()
    );
    assert_eq!(trace.position_error.len(), trace.times.len());
    assert!(
        trace
            .position_error
            .iter()
            .all(|row| row.len() == trace.bodies.len())
    );
    let tumbler = trace.bodies.iter().position(|b| b == "tumbler").expect("tumbler");
    let largest = trace
        .position_error
        .iter()
        .map(|row| row[tumbler])
        .fold(0.0, f64::max);
    assert_eq!(largest, t.max_com_error);
    let rotation = trace.rotation_error.iter().flatten().copied().fold(0.0, f64::max);
    assert_eq!(rotation, t.max_rotation_error);
    assert_eq!(trace.body.as_deref(), Some("tumbler"));
    // An exact target has its (zero) errors too, and no worst body.
    let exact = verdict_of(Fault::None);
    let trace = exact.trace.as_ref().expect("a compared target has a trace");
    assert!(trace.body.is_none() && trace.original.is_empty());
    assert!(trace.position_error.iter().flatten().all(|e| *e == 0.0));
}

#[test]
fn a_reported_loss_in_lower_is_explained() {
    let t = verdict_of(Fault::DropQ0InLowerReported);
    assert_eq!(t.verdict, Verdict::Explained, "{}", t.message);
    assert_eq!(t.findings, ["test.q0_dropped"]);
    assert_eq!(t.counts.lost, 1);
    assert!(t.message.contains("test.q0_dropped"), "{}", t.message);
    assert!(t.message.contains("drop_q0"), "{}", t.message);
}

#[test]
fn a_silent_loss_in_lower_is_unexplained() {
    let t = verdict_of(Fault::DropQ0InLowerSilently);
    assert_eq!(t.verdict, Verdict::Unexplained, "{}", t.message);
    assert!(t.message.contains("without reporting a loss"), "{}", t.message);
}

#[test]
fn a_loss_emit_reports_is_never_excused() {
    let t = verdict_of(Fault::DropQ0InEmitReported);
    assert_eq!(t.verdict, Verdict::Unexplained, "{}", t.message);
    assert!(t.message.contains("belongs in a lowering pass"), "{}", t.message);
}

#[test]
fn a_reported_group_loss_does_not_excuse_a_silent_axis_flip() {
    let t = verdict_of(Fault::GroupDroppedThenAxisFlippedSilently);
    assert_eq!(t.verdict, Verdict::Unexplained, "{}", t.message);
    assert!(
        t.message.contains("lowering pass \"joint_axes\""),
        "{}",
        t.message
    );
    assert!(t.message.contains("\"bob\""), "{}", t.message);
    assert!(t.explained_by.is_empty());
}

#[test]
fn a_contact_material_loss_does_not_excuse_a_moved_centre_of_mass() {
    let t = verdict_of(Fault::ContactMaterialLossWhileComMoves);
    assert_eq!(t.verdict, Verdict::Unexplained, "{}", t.message);
    assert!(
        t.message.contains("lowering pass \"contact_materials\""),
        "{}",
        t.message
    );
    assert!(t.message.contains("\"tumbler\""), "{}", t.message);
}

#[test]
fn a_joint_spring_written_as_an_rsda_is_exact() {
    let t = verdict_of(Fault::JointSpringAsRsda);
    assert_eq!(
        t.verdict,
        Verdict::Exact,
        "{} ({:e} m)",
        t.message,
        t.max_com_error
    );
    assert!(t.max_com_error < 1e-8, "{:e}", t.max_com_error);
}

#[test]
fn an_explained_verdict_names_the_pass_its_finding_and_the_motion_it_caused() {
    let t = verdict_of(Fault::DropQ0InLowerReported);
    assert_eq!(t.explained_by.len(), 1, "{:?}", t.explained_by);
    let e = &t.explained_by[0];
    assert_eq!((e.pass.as_str(), e.code.as_str()), ("drop_q0", "test.q0_dropped"));
    assert_eq!(e.path, "joints[\"pivot\"].q0");
    // The pass is the only change: its own motion is the whole gap.
    assert!((e.max_com_error - t.max_com_error).abs() <= 1e-9 * t.max_com_error.max(1.0));
}

#[test]
fn an_emit_error_fails_and_names_the_step() {
    let t = verdict_of(Fault::EmitFails);
    assert_eq!(t.verdict, Verdict::Failed);
    assert!(t.message.starts_with("emitting failed"), "{}", t.message);
    assert!(!t.written());
}

fn imported(model: Model) -> Imported {
    Imported {
        model,
        report: Report::default(),
        source_map: Default::default(),
        source_map_file: None,
    }
}

#[test]
fn against_an_identical_model_is_exact() {
    let report = check_against(
        &model(),
        "a",
        &imported(model()),
        "mbir",
        &CheckSettings::default(),
    );
    assert_eq!(report.targets[0].verdict, Verdict::Exact);
    assert!(report.passed());
}

#[test]
fn against_a_model_with_a_moved_com_is_unexplained() {
    let mut other = model();
    other.bodies[0].inertial.com.z = -1.001;
    let report = check_against(&model(), "a", &imported(other), "mbir", &CheckSettings::default());
    assert_eq!(report.targets[0].verdict, Verdict::Unexplained);
    assert!(!report.passed());
}

#[test]
fn against_matches_renamed_bodies() {
    let mut other = model();
    other.bodies[1].name = "tumbler_1".into();
    let mut with_rename = imported(other);
    with_rename
        .report
        .rename("body", "tumbler", "tumbler_1", "bodies[\"tumbler_1\"]");
    let report = check_against(&model(), "a", &with_rename, "mbir", &CheckSettings::default());
    assert_eq!(
        report.targets[0].verdict,
        Verdict::Exact,
        "{}",
        report.targets[0].message
    );
    // Without the rename the body is missing, which no tolerance forgives.
    let mut unrenamed = model();
    unrenamed.bodies[1].name = "tumbler_1".into();
    let report = check_against(
        &model(),
        "a",
        &imported(unrenamed),
        "mbir",
        &CheckSettings::default(),
    );
    assert_eq!(report.targets[0].verdict, Verdict::Unexplained);
    assert!(report.targets[0].message.contains("missing"));
}

/// A change a careless writer might make.
type Slip = fn(&mut Model);

/// The default tolerances catch each of the slips `docs/check.md` names, by a wide margin.
#[test]
fn default_tolerances_catch_the_classic_slips() {
    let settings = SimulationSettings::new(1.0, 1e-3, mbconv_solver::Integrator::SemiImplicitEuler);
    let tolerances = CheckSettings::default().tolerances;
    let original = Motion::simulate(&model(), &settings).expect("simulates");
    let slips: [(&str, Slip); 5] = [
        ("wrong axis sign", |m| {
            m.joints[0].kind = JointKind::Revolute { axis: -Vector3::y() }
        }),
        ("degrees read as radians", |m| {
            m.joints[0].q0 = vec![0.3_f64.to_radians()]
        }),
        ("swapped products of inertia", |m| {
            m.bodies[1].inertial.inertia = Inertia::from_moments_products([1.0, 2.0, 3.0], [0.2, 0.1, 0.3]);
        }),
        ("lost initial velocity", |m| m.bodies[1].initial_velocity = None),
        ("slightly lost initial joint rate", |m| {
            m.joints[0].v0 = vec![1e-3]
        }),
    ];
    for (slip, apply) in slips {
        let mut changed = model();
        apply(&mut changed);
        let motion = Motion::simulate(&changed, &settings).expect("simulates");
        let matching = BodyMatch::new(&original.bodies, &motion.bodies, &[]);
        let d = Difference::between(&original, &motion, &matching);
        println!(
            "{slip}: COM {:.3e} m, rotation {:.3e} rad",
            d.max_com_error, d.max_rotation_error
        );
        assert!(
            d.max_com_error > 100.0 * tolerances.position
                || d.max_rotation_error > 100.0 * tolerances.rotation,
            "{slip}: COM {:.3e} m, rotation {:.3e} rad",
            d.max_com_error,
            d.max_rotation_error
        );
    }
}
