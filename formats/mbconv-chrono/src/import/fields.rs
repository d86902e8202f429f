//! Reading typed values out of nodes, with `file:line:column` errors, and the bookkeeping of
//! which keys were read (the rest become extras and findings).

use super::DataPath;
use crate::raw::Node;
use crate::spec::FORMAT;
use crate::spec::frames as convert;
use mbconv_ir::format::kit::ImportSession;
use mbconv_ir::format::{Source, SourceError};
use mbconv_ir::{Category, Extras, Severity};
use nalgebra::{UnitQuaternion, Vector3};
use std::collections::HashSet;

/// The state of one import: the kit's [`ImportSession`] (source, report, source map) plus what
/// Chrono's parser carries from key to key (the angle unit, the data path) and the reading mode.
pub(crate) struct Ctx<'a> {
    pub session: ImportSession<'a>,
    pub degrees: bool,
    pub lenient: bool,
    /// The `normalize-quaternions` setting.
    pub normalize_quaternions: bool,
    pub data: DataPath,
}

impl<'a> Ctx<'a> {
    pub fn new(src: &'a Source, lenient: bool) -> Self {
        Self {
            session: ImportSession::new(FORMAT, src),
            degrees: true,
            lenient,
            normalize_quaternions: false,
            data: DataPath {
                relative_root: None,
                base: src.base_dir().map(|p| p.to_path_buf()),
            },
        }
    }

    /// The text being read.
    pub fn src(&self) -> &'a Source {
        self.session.source
    }

    pub fn error(&self, node: &Node, message: impl Into<String>) -> Box<SourceError> {
        self.session
            .error("input", Some(node.span(self.session.source)), message)
    }

    pub fn record(&mut self, ir_path: &str, node: &Node) {
        let span = node.span(self.session.source);
        self.session.record(ir_path, span);
    }

    pub fn finding(
        &mut self,
        code: &str,
        severity: Severity,
        category: Category,
        ir_path: &str,
        node: Option<&Node>,
        message: String,
    ) {
        let span = node.map(|n| n.span(self.session.source));
        self.session
            .finding(code, severity, category, ir_path, span, message);
    }

    pub fn defaulted(&mut self, ir_path: &str, node: Option<&Node>, message: &str) {
        let span = node.map(|n| n.span(self.session.source));
        self.session.defaulted(ir_path, span, message);
    }

    /// A number as Chrono reads it: yaml-cpp's `as<double>()` on the scalar's text
    /// ([`mbconv_yaml::yaml_cpp_double`]). No Chrono number read here can be infinite or NaN
    /// and mean something (masses, lengths, positions, gains, times), so the infinities and
    /// NaN yaml-cpp accepts (`.inf`, `-.inf`, `.nan`) are refused with a located error.
    pub fn number(&self, node: &Node, what: &str) -> Result<f64, Box<SourceError>> {
        let text = node.scalar();
        match text.and_then(mbconv_yaml::yaml_cpp_double) {
            Some(x) if x.is_finite() => Ok(x),
            Some(x) => Err(self.error(
                node,
                format!(
                    "expected a finite number for {what}, found {:?} (Chrono reads it as {x})",
                    text.unwrap_or_default()
                ),
            )),
            None => Err(self.error(
                node,
                format!("expected a number for {what}, found {}", shown(node)),
            )),
        }
    }

    pub fn numbers(&self, node: &Node, what: &str) -> Result<Vec<f64>, Box<SourceError>> {
        if !matches!(node.kind, crate::raw::NodeKind::Seq(_)) {
            return Err(self.error(
                node,
                format!("expected a list of numbers for {what}, found {}", node.describe()),
            ));
        }
        node.items().iter().map(|n| self.number(n, what)).collect()
    }

    pub fn fixed<const N: usize>(&self, node: &Node, what: &str) -> Result<[f64; N], Box<SourceError>> {
        let v = self.numbers(node, what)?;
        v.clone().try_into().map_err(|_| {
            self.error(
                node,
                format!(
                    "expected a list of {N} numbers for {what}, found {} numbers",
                    v.len()
                ),
            )
        })
    }

    pub fn vec3(&self, node: &Node, what: &str) -> Result<Vector3<f64>, Box<SourceError>> {
        Ok(Vector3::from(self.fixed::<3>(node, what)?))
    }

    pub fn string(&self, node: &Node, what: &str) -> Result<String, Box<SourceError>> {
        match node.scalar() {
            Some(s) => Ok(s.to_owned()),
            None => Err(self.error(
                node,
                format!("expected text for {what}, found {}", node.describe()),
            )),
        }
    }

    /// An enum value, upper-cased as Chrono compares them.
    pub fn upper(&self, node: &Node, what: &str) -> Result<String, Box<SourceError>> {
        Ok(self.string(node, what)?.trim().to_ascii_uppercase())
    }

    pub fn boolean(&self, node: &Node, what: &str) -> Result<bool, Box<SourceError>> {
        node.as_bool().ok_or_else(|| {
            self.error(
                node,
                format!("expected true or false for {what}, found {}", shown(node)),
            )
        })
    }

    pub fn expect_list(&self, node: &Node, what: &str) -> Result<(), Box<SourceError>> {
        match node.kind {
            crate::raw::NodeKind::Seq(_) | crate::raw::NodeKind::Null => Ok(()),
            _ => Err(self.error(
                node,
                format!("expected a list for `{what}`, found {}", node.describe()),
            )),
        }
    }

    /// An orientation (3 Cardan angles or a quaternion), with the numbers as written.
    pub fn orientation(
        &mut self,
        node: &Node,
        what: &str,
        ir_path: &str,
    ) -> Result<(UnitQuaternion<f64>, Vec<f64>), Box<SourceError>> {
        let values = self.numbers(node, what)?;
        if values.len() != 3 && values.len() != 4 {
            return Err(self.error(
                node,
                format!(
                    "expected 3 Cardan angles [yaw, pitch, roll] or a quaternion [e0, e1, e2, e3] for {what}, found {} numbers",
                    values.len()
                ),
            ));
        }
        let (q, norm) = convert::orientation_from(&values, self.degrees)
            .ok_or_else(|| self.error(node, format!("the quaternion for {what} is zero")))?;
        if (norm - 1.0).abs() > convert::UNIT_TOLERANCE {
            self.finding(
                "chrono.quaternion_normalized",
                Severity::Warning,
                Category::Approximated,
                ir_path,
                Some(node),
                if self.normalize_quaternions {
                    format!(
                        "quaternion for {what} has norm {norm}; normalised (normalize-quaternions=true; Chrono would use it as written)"
                    )
                } else {
                    format!(
                        "quaternion for {what} has norm {norm}; Chrono uses it as written, and its matrix from it is a rotation scaled and shifted (not a rotation), which the IR cannot hold: the rotation is read normalised, a centre of mass where Chrono puts it (chrono.com_as_built); read with normalize-quaternions=true to normalise the quaternion as written"
                    )
                },
            );
        }
        Ok((q, values))
    }

    pub fn data_path(&mut self, node: &Node) -> Result<(), Box<SourceError>> {
        let mut f = Fields::new(self, node, "data_path")?;
        let ty = self.upper(f.req(self, "type")?, "data_path type")?;
        let root = match f.get("root") {
            Some(r) => self.string(r, "data_path root")?,
            None => ".".to_owned(),
        };
        match ty.as_str() {
            "ABSOLUTE" => self.data.relative_root = None,
            "RELATIVE" => self.data.relative_root = Some(root),
            _ => {
                let n = f.get("type").unwrap_or(node);
                return Err(self.error(
                    n,
                    format!("unknown data_path type {ty:?}; expected ABSOLUTE or RELATIVE"),
                ));
            }
        }
        Ok(())
    }

    /// The path a data file name resolves to, when it can be resolved.
    pub fn resolve(&self, file: &str) -> Option<String> {
        let root = self.data.relative_root.as_ref();
        let p = match root {
            None => std::path::PathBuf::from(file),
            Some(root) => self.data.base.as_ref()?.join(root).join(file),
        };
        Some(p.display().to_string())
    }

    /// Checks that `name` is new in `seen` (a set: checking every name of a list is linear).
    pub fn unique(
        &self,
        seen: &mut HashSet<String>,
        name: &str,
        node: &Node,
        list: &str,
    ) -> Result<(), Box<SourceError>> {
        if seen.contains(name) {
            return Err(self.error(
                node,
                format!("duplicate name {name:?} in {list} (Chrono would silently keep the first)"),
            ));
        }
        seen.insert(name.to_owned());
        Ok(())
    }
}

fn shown(node: &Node) -> String {
    match node.scalar() {
        Some(s) => format!("{s:?}"),
        None => node.describe().to_owned(),
    }
}

/// The keys of one mapping, remembering which were read.
pub(crate) struct Fields<'n> {
    node: &'n Node,
    what: String,
    used: Vec<String>,
}

impl<'n> Fields<'n> {
    pub fn new(ctx: &Ctx, node: &'n Node, what: &str) -> Result<Self, Box<SourceError>> {
        if !matches!(node.kind, crate::raw::NodeKind::Map(_)) {
            return Err(ctx.error(
                node,
                format!("expected a mapping for {what}, found {}", node.describe()),
            ));
        }
        Ok(Self {
            node,
            what: what.to_owned(),
            used: Vec::new(),
        })
    }

    pub fn node(&self) -> &'n Node {
        self.node
    }

    /// The value of an optional key (null counts as absent).
    pub fn get(&mut self, key: &str) -> Option<&'n Node> {
        self.used.push(key.to_owned());
        self.node.get(key).filter(|n| !n.is_null())
    }

    /// Whether the key is present.
    pub fn has(&self, key: &str) -> bool {
        self.node.get(key).is_some_and(|n| !n.is_null())
    }

    /// Marks a key as handled without reading it.
    pub fn mark(&mut self, key: &str) {
        self.used.push(key.to_owned());
    }

    /// The value of a required key.
    pub fn req(&mut self, ctx: &Ctx, key: &str) -> Result<&'n Node, Box<SourceError>> {
        let what = self.what.clone();
        self.get(key)
            .ok_or_else(|| ctx.error(self.node, format!("missing required key `{key}` in {what}")))
    }

    /// Keys that were not read: kept in `extras` under `chrono.{prefix}{key}` and reported.
    pub fn finish_into(self, ctx: &mut Ctx, extras: &mut Extras, prefix: &str, ir_path: &str) {
        for (key, value) in self.node.entries() {
            if self.used.contains(&key.name) {
                continue;
            }
            extras.insert(format!("chrono.{prefix}{}", key.name), value.to_value());
            let hint = match key.name.as_str() {
                "lin_vel" => " (Chrono reads `initial_linear_velocity`; this velocity is zero in Chrono)",
                "ang_vel" => " (Chrono reads `initial_angular_velocity`; this velocity is zero in Chrono)",
                "properties" => {
                    " (Chrono reads `physical_properties` with `Young_modulus` and `Poisson_ratio`)"
                }
                "Coefficients" => " (Chrono reads `coefficients`)",
                "Youngs_modulus" => " (Chrono reads `Young_modulus`)",
                "collision_family" => " (Chrono always uses collision family 0)",
                _ => "",
            };
            let span = ctx.src().span(key.offset, key.length);
            ctx.session.finding(
                "key_ignored",
                Severity::Warning,
                Category::Ignored,
                ir_path,
                Some(span),
                format!(
                    "key `{prefix}{}` in {} is not read by Chrono's parser{hint}; kept verbatim",
                    key.name, self.what
                ),
            );
        }
    }
}
