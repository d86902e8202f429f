//! `<option>`: gravity, time step and integrator, fluid forces (reported), and the `<flag>`
//! switches that change what the IR says, applied once the model is read.

use super::{Reader, verbatim};
use crate::raw::Element;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity};
use mbconv_ir::{DofProperties, Limits, Value, ValueMap};
use nalgebra::Vector3;

/// The `<option><flag>` switches that change the model's dynamics (MuJoCo's disable bits): a
/// disabled one is applied to the IR after the body tree is read (see [`Reader::apply_flags`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Flags {
    pub gravity: bool,
    pub spring: bool,
    pub damper: bool,
    pub frictionloss: bool,
    pub limit: bool,
    pub equality: bool,
    pub constraint: bool,
}

/// MuJoCo 4.0's `<flag>` attributes: the disable bits (default `enable`) and the enable bits
/// (default `disable`).
pub(crate) const FLAG_NAMES: &[&str] = &[
    "constraint",
    "equality",
    "frictionloss",
    "limit",
    "contact",
    "spring",
    "damper",
    "gravity",
    "clampctrl",
    "warmstart",
    "filterparent",
    "actuation",
    "refsafe",
    "sensor",
    "midphase",
    "eulerdamp",
    "autoreset",
    "nativeccd",
    "island",
    "multiccd",
    "override",
    "energy",
    "fwdinv",
    "invdiscrete",
    "sleep",
    "diagexact",
    "ipc",
    "speculative",
];

impl<'d> Reader<'d> {
    /// One `<option>` element: gravity and time step (MuJoCo's defaults recorded when absent),
    /// the integrator, flags and fluid settings; the rest kept as `mjcf.option.*` extras.
    pub(super) fn option(&mut self, o: &'d Element) -> SourceResult<()> {
        let v = self.values;
        for a in &o.attrs {
            match a.name.as_str() {
                "gravity" => {
                    let g = v.numbers(a, 3, true)?;
                    self.model.simulation.gravity = Some(Vector3::new(g[0], g[1], g[2]));
                }
                "timestep" => self.model.simulation.time_step = Some(v.numbers(a, 1, true)?[0]),
                "integrator" => {
                    v.keyword(a, &["Euler", "RK4", "implicit", "implicitfast", "discrete"])?;
                    self.model
                        .simulation
                        .extras
                        .insert("mjcf.integrator", Value::String(a.value.clone()));
                }
                _ => {
                    self.model
                        .simulation
                        .extras
                        .insert(format!("mjcf.option.{}", a.name), Value::String(a.value.clone()));
                }
            }
        }
        if self.model.simulation.gravity.is_none() {
            self.model.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
            self.session
                .defaulted("simulation.gravity", None, "MuJoCo's default gravity 0 0 -9.81");
        }
        if self.model.simulation.time_step.is_none() {
            self.model.simulation.time_step = Some(0.002);
            self.session
                .defaulted("simulation.time_step", None, "MuJoCo's default time step 0.002 s");
        }
        for child in &o.children {
            if child.name == "flag" {
                self.flag(child)?;
                // Several <option>s merge their flags, as MuJoCo does: one map, later wins.
                let key = "mjcf.option.flag";
                let mut merged = match self.model.simulation.extras.get(key) {
                    Some(Value::Map(m)) => m.clone(),
                    _ => ValueMap::new(),
                };
                if let Value::Map(m) = verbatim(child) {
                    for (k, v) in m.0 {
                        merged.insert(k, v);
                    }
                }
                self.model.simulation.extras.insert(key, Value::Map(merged));
                continue;
            }
            self.model
                .simulation
                .extras
                .insert(format!("mjcf.option.{}", child.name), verbatim(child));
        }
        self.fluid(o)?;
        Ok(())
    }

    /// `<flag>`: every attribute is `enable` or `disable`; the switches that change the
    /// dynamics the IR describes are remembered for [`Reader::apply_flags`].
    pub(super) fn flag(&mut self, f: &'d Element) -> SourceResult<()> {
        let v = self.values;
        for a in &f.attrs {
            if !FLAG_NAMES.contains(&a.name.as_str()) {
                return Err(self.error(
                    &a.loc,
                    "option",
                    format!("unrecognized attribute: '{}' in <flag>", a.name),
                ));
            }
            let disabled = v.keyword(a, &["disable", "enable"])? == "disable";
            let slot = match a.name.as_str() {
                "gravity" => &mut self.flags.gravity,
                "spring" => &mut self.flags.spring,
                "damper" => &mut self.flags.damper,
                "frictionloss" => &mut self.flags.frictionloss,
                "limit" => &mut self.flags.limit,
                "equality" => &mut self.flags.equality,
                "constraint" => &mut self.flags.constraint,
                _ => continue,
            };
            *slot = disabled;
        }
        Ok(())
    }

    /// `density`, `viscosity` and `wind`: MuJoCo's fluid forces act on every body when the
    /// medium has a density or a viscosity; the IR has no medium, so that is reported.
    pub(super) fn fluid(&mut self, o: &'d Element) -> SourceResult<()> {
        let v = self.values;
        let mut medium = Vec::new();
        for name in ["density", "viscosity"] {
            if let Some(a) = o.attr(name) {
                let x = v.numbers(a, 1, true)?[0];
                if x != 0.0 {
                    medium.push(format!("{name} {x}"));
                }
            }
        }
        if let Some(a) = o.attr("wind") {
            v.numbers(a, 3, true)?;
        }
        if !medium.is_empty() {
            let loc = o.loc.clone();
            self.finding(
                "fluid",
                Severity::Warning,
                Category::Dropped,
                "simulation",
                Some(&loc),
                format!(
                    "<option> {}: MuJoCo applies fluid forces (drag, and wind when given) to every body; the IR has no medium, they are kept as mjcf.option.* extras only",
                    medium.join(", ")
                ),
            );
        }
        Ok(())
    }

    /// Applies the disabled `<flag>` switches to what was read, so that the IR moves as MuJoCo
    /// moves the model: `gravity` zeroes the gravity vector (the written one kept as the
    /// `mjcf.gravity` simulation extra); `spring`, `damper`, `frictionloss` and `limit` (the
    /// last two also by `constraint`) zero joint stiffness, damping and Coulomb friction and
    /// lift position limits; `equality` (or `constraint`) switches the loop joints read from
    /// `<equality>` off. Each zeroed value is kept in the joint's `mjcf.flag_off` extra (the
    /// writer restores it beside the flag), each change reported.
    pub(super) fn apply_flags(&mut self) {
        let f = self.flags;
        if f.gravity
            && let Some(g) = self.model.simulation.gravity
        {
            self.model.simulation.extras.insert(
                "mjcf.gravity",
                Value::List(g.iter().map(|&x| Value::Float(x)).collect()),
            );
            self.model.simulation.gravity = Some(Vector3::zeros());
            self.finding(
                "flag_gravity",
                Severity::Info,
                Category::Note,
                "simulation.gravity",
                None,
                format!(
                    "<flag gravity=\"disable\"/>: gravity is zero (the written vector {} {} {} is kept as mjcf.gravity)",
                    g.x, g.y, g.z
                ),
            );
        }
        let frictionloss = f.frictionloss || f.constraint;
        let limit = f.limit || f.constraint;
        let equality = f.equality || f.constraint;
        let mut changed: Vec<(String, Vec<&'static str>)> = Vec::new();
        for joint in &mut self.model.joints {
            let mut off = ValueMap::new();
            if equality && joint.enabled && joint.extras.get("mjcf.equality").is_some() {
                joint.enabled = false;
                off.insert("enabled", Value::Bool(true));
            }
            let mut take = |what: &'static str, x: &mut f64| {
                if *x != 0.0 {
                    off.insert(what, Value::Float(*x));
                    *x = 0.0;
                }
            };
            // Every degree of freedom of an MJCF joint carries the same values.
            if let Some(dof) = joint.dofs.first().cloned() {
                let mut d = dof;
                if f.spring {
                    take("spring_stiffness", &mut d.spring_stiffness);
                }
                if f.damper {
                    take("damping", &mut d.damping);
                }
                if frictionloss {
                    take("friction", &mut d.friction);
                }
                if limit && !d.position_limits.is_unlimited() {
                    let l = d.position_limits;
                    off.insert(
                        "position_limits",
                        Value::List(
                            [l.lower, l.upper]
                                .iter()
                                .map(|x| x.map_or(Value::Null, Value::Float))
                                .collect(),
                        ),
                    );
                    d.position_limits = Limits::default();
                }
                for x in &mut joint.dofs {
                    *x = d.clone();
                }
                if joint.dofs.iter().all(|x| *x == DofProperties::default()) {
                    joint.dofs.clear();
                }
            }
            if !off.0.is_empty() {
                changed.push((
                    joint.name.clone(),
                    off.0.iter().map(|(k, _)| flag_word(k)).collect(),
                ));
                joint.extras.insert("mjcf.flag_off", Value::Map(off));
            }
        }
        for (name, what) in changed {
            self.finding(
                "flag_joint",
                Severity::Info,
                Category::Note,
                &mbconv_ir::report::path::item("joints", &name),
                None,
                format!(
                    "joint '{name}': switched off by <flag {}=\"disable\"/> as MuJoCo does (the written values kept as mjcf.flag_off)",
                    what.join("/")
                ),
            );
        }
    }
}

/// The `<flag>` attribute that switches an IR field off.
pub(super) fn flag_word(field: &str) -> &'static str {
    match field {
        "spring_stiffness" => "spring",
        "damping" => "damper",
        "friction" => "frictionloss",
        "position_limits" => "limit",
        _ => "equality",
    }
}
