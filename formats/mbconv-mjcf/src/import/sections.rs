//! The sections of `<mujoco>` the IR has no typed home for (tendons, contact, sensors, visual
//! settings, ...), kept verbatim as `mjcf.*` extras and reported, and `<actuator>`, whose joint
//! motors become IR motors.

use super::{Reader, verbatim};
use crate::import::compiler::defaults::ClassId;
use crate::raw::Element;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity};
use mbconv_ir::{Extras, JointKind, Motor, MotorActuation, MotorTarget, MotorType, TimeFunction};
use std::collections::BTreeSet;

impl<'d> Reader<'d> {
    /// Sections the IR has no typed home for: kept verbatim, with a finding per section
    /// saying what a simulation without them lacks.
    pub(super) fn keep_sections(&mut self) -> SourceResult<()> {
        let root = self.root;
        for e in &root.children {
            let (code, severity, category, what) = match e.name.as_str() {
                "actuator" if !e.children.is_empty() => {
                    let v = verbatim(e);
                    self.append_extra("mjcf.actuator", v);
                    self.actuators(e)?;
                    continue;
                }
                "tendon" if !e.children.is_empty() => (
                    "tendon_kept",
                    Severity::Warning,
                    Category::Dropped,
                    "tendons are kept as mjcf.tendon extras only; their coupling, springs and limits act in MuJoCo, not in the IR model",
                ),
                "contact" if !e.children.is_empty() => (
                    "contact_kept",
                    Severity::Info,
                    Category::Ignored,
                    "contact <exclude>/<pair> are kept as mjcf.contact extras; the IR has no contact filter",
                ),
                "sensor" if !e.children.is_empty() => (
                    "sensor_kept",
                    Severity::Info,
                    Category::Ignored,
                    "sensors are kept as mjcf.sensor extras",
                ),
                "visual" | "statistic" | "size" | "custom" | "extension" | "deformable" | "keyframe" => {
                    let v = verbatim(e);
                    self.append_extra(&format!("mjcf.{}", e.name), v);
                    continue;
                }
                "compiler" | "default" | "asset" | "option" | "worldbody" | "equality" | "actuator"
                | "tendon" | "contact" | "sensor" => continue,
                // MuJoCo 4.0 accepts a <body> or <frame> directly in <mujoco> (outside
                // <worldbody>) and builds nothing of it: the robot parts IsaacGymEnvs'
                // `open_ai_assets` keep for inclusion load as an empty model.
                "body" | "frame" => {
                    let loc = e.loc.clone();
                    self.finding(
                        "element_ignored",
                        Severity::Warning,
                        Category::Ignored,
                        "",
                        Some(&loc),
                        format!(
                            "<{}> directly in <mujoco>, outside <worldbody>, is ignored, as MuJoCo 4.0 \
                             ignores it (it builds nothing of it)",
                            e.name
                        ),
                    );
                    continue;
                }
                other => {
                    return Err(self.error(
                        &e.loc,
                        "element",
                        format!("unrecognized element <{other}> in <mujoco>"),
                    ));
                }
            };
            let v = verbatim(e);
            self.append_extra(&format!("mjcf.{}", e.name), v);
            let loc = e.loc.clone();
            self.finding(
                code,
                severity,
                category,
                "",
                Some(&loc),
                format!("{} ({} elements)", what, e.children.len()),
            );
        }
        Ok(())
    }

    /// `<actuator>`: a `motor` on a hinge or slide joint becomes an IR force motor on that
    /// coordinate at MuJoCo's initial control, zero (its force is `gear · ctrl`); servos
    /// (`position`, `velocity`, …), `general` and actuators on tendons or sites are kept in the
    /// `mjcf.actuator` extra and reported.
    pub(super) fn actuators(&mut self, section: &'d Element) -> SourceResult<()> {
        let mut dropped = Vec::new();
        let targets = TargetNames::of(self.root);
        for (i, a) in section.children.iter().enumerate() {
            if let Some(targets) = &targets {
                self.missing_targets(targets, a);
            }
            let class = self.class_of(a, ClassId::MAIN)?;
            let joint = a
                .value("joint")
                .and_then(|j| self.model.joints.iter().find(|x| x.name == j));
            let motor_type = match joint.map(|j| &j.kind) {
                Some(JointKind::Revolute { .. }) => Some(MotorType::Rotation),
                Some(JointKind::Prismatic { .. }) => Some(MotorType::Linear),
                _ => None,
            };
            // A control range that excludes zero clamps the initial control away from it.
            let range = self
                .values
                .vector(a, "actuator", class, "ctrlrange", &[0.0, 0.0], true)?
                .0;
            let clamps = range[0] < range[1] && (range[0] > 0.0 || range[1] < 0.0);
            match (a.name.as_str(), motor_type) {
                ("motor", Some(motor_type)) if !clamps => {
                    let joint = a.value("joint").unwrap_or_default().to_string();
                    let wanted = a
                        .value("name")
                        .map_or_else(|| format!("actuator{i}"), str::to_string);
                    let name = self.session.unique_name("motors", &wanted, "mjcf");
                    let mut extras = Extras::default();
                    extras.insert("mjcf.actuator", verbatim(a));
                    self.model.motors.push(Motor {
                        name: name.clone(),
                        motor_type,
                        actuation: MotorActuation::Force,
                        target: MotorTarget::Joint { joint, dof: 0 },
                        function: TimeFunction::Constant { value: 0.0 },
                        extras,
                    });
                    let path = mbconv_ir::report::path::item("motors", &name);
                    self.record(&path, &a.loc);
                }
                _ => dropped.push(a),
            }
        }
        if !self.model.motors.is_empty() {
            self.finding(
                "actuator_zero_control",
                Severity::Info,
                Category::Note,
                "",
                Some(&section.loc),
                format!(
                    "{} joint motor(s) read as force motors at MuJoCo's initial control (zero force); the control signal is not part of the model",
                    self.model.motors.len()
                ),
            );
        }
        if let Some(first) = dropped.first() {
            let names: Vec<String> = dropped
                .iter()
                .map(|a| a.value("name").map_or_else(|| a.name.clone(), str::to_string))
                .collect();
            let loc = first.loc.clone();
            self.finding(
                "actuator_kept",
                Severity::Info,
                Category::Dropped,
                "",
                Some(&loc),
                format!(
                    "{} actuator(s) kept as mjcf.actuator extras, written back to MJCF only (servos, general actuators, tendon or site transmissions, or a control range excluding zero): {}",
                    dropped.len(),
                    names.join(", ")
                ),
            );
        }
        Ok(())
    }
}

/// The names an actuator's transmission can target, as the file states them: joints, tendons,
/// sites and bodies (`world` too).
struct TargetNames<'d> {
    joints: BTreeSet<&'d str>,
    tendons: BTreeSet<&'d str>,
    sites: BTreeSet<&'d str>,
    bodies: BTreeSet<&'d str>,
}

/// The elements that make names the file does not state (replicated, attached or generated
/// ones): with any of them, targets are not checked.
const NAME_MAKERS: [&str; 4] = ["replicate", "attach", "composite", "flexcomp"];

impl<'d> TargetNames<'d> {
    /// The names of `root`'s world and tendons; `None` when an element makes names.
    fn of(root: &'d Element) -> Option<Self> {
        let mut names = TargetNames {
            joints: BTreeSet::new(),
            tendons: BTreeSet::new(),
            sites: BTreeSet::new(),
            bodies: BTreeSet::from(["world"]),
        };
        for world in root.children_named("worldbody") {
            if !names.collect(world) {
                return None;
            }
        }
        for tendon in root.children_named("tendon").flat_map(|t| t.children.iter()) {
            names.tendons.extend(tendon.value("name"));
        }
        Some(names)
    }

    /// Adds the names under `element`; false at an element that makes names.
    fn collect(&mut self, element: &'d Element) -> bool {
        for child in &element.children {
            if NAME_MAKERS.contains(&child.name.as_str()) {
                return false;
            }
            let set = match child.name.as_str() {
                "joint" | "freejoint" => Some(&mut self.joints),
                "site" => Some(&mut self.sites),
                "body" => Some(&mut self.bodies),
                _ => None,
            };
            if let (Some(set), Some(name)) = (set, child.value("name")) {
                set.insert(name);
            }
            if !self.collect(child) {
                return false;
            }
        }
        true
    }
}

impl<'d> Reader<'d> {
    /// Warns about each transmission target of actuator `a` that the file does not name, which
    /// MuJoCo refuses ("transmission target ... not found"); the actuator is kept as written.
    fn missing_targets(&mut self, targets: &TargetNames<'d>, a: &'d Element) {
        let kinds: [(&str, &BTreeSet<&str>); 8] = [
            ("joint", &targets.joints),
            ("jointinparent", &targets.joints),
            ("tendon", &targets.tendons),
            ("site", &targets.sites),
            ("refsite", &targets.sites),
            ("cranksite", &targets.sites),
            ("slidersite", &targets.sites),
            ("body", &targets.bodies),
        ];
        for (attr, names) in kinds {
            let Some(found) = a.attr(attr) else { continue };
            if names.contains(found.value.as_str()) {
                continue;
            }
            let actuator = a.value("name").unwrap_or(a.name.as_str());
            let loc = found.loc.clone();
            self.finding(
                "actuator_target_missing",
                Severity::Warning,
                Category::Ignored,
                "",
                Some(&loc),
                format!(
                    "actuator '{actuator}': its {attr} '{}' is not in the file (MuJoCo refuses the file: \"transmission target not found\"); the actuator is kept as written",
                    found.value
                ),
            );
        }
    }
}
