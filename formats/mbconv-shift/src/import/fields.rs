//! Typed access to JSON values with errors that point into the file, the units block, and
//! JSON values kept verbatim as IR extras.

use crate::raw::{Json, Node};
use crate::spec::FORMAT;
use crate::spec::rows as rows_convention;
use mbconv_ir::format::kit::{ImportSession, SourceResult, aids};
use mbconv_ir::{Category, Extras, Pose, Severity, SourceSpan, Value, ValueMap};
use nalgebra::{UnitQuaternion, Vector3};

/// The import session with the helpers every part of the reader uses.
pub(crate) struct Reader<'s> {
    pub session: ImportSession<'s>,
    pub units: Units,
}

/// Scale factors from the file's units to SI.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Units {
    pub length: f64,
    pub mass: f64,
    pub angle: f64,
    pub time: f64,
}

impl Units {
    pub const SI: Units = Units {
        length: 1.0,
        mass: 1.0,
        angle: 1.0,
        time: 1.0,
    };
    /// Scale of a joint coordinate: angle for rotations, length for translations.
    pub fn coordinate(&self, angular: bool) -> f64 {
        if angular { self.angle } else { self.length }
    }
    /// Scale of a force (or a torque, with `angular`).
    pub fn force(&self, angular: bool) -> f64 {
        let f = self.mass * self.length / (self.time * self.time);
        if angular { f * self.length } else { f }
    }
}

impl<'s> Reader<'s> {
    pub fn span(&self, node: &Node) -> SourceSpan {
        self.session.span(node.offset, node.length)
    }

    pub fn error(
        &self,
        node: &Node,
        code: &str,
        message: impl Into<String>,
    ) -> Box<mbconv_ir::format::SourceError> {
        self.session.error(code, Some(self.span(node)), message)
    }

    pub fn expected(&self, node: &Node, key: &str, what: &str) -> Box<mbconv_ir::format::SourceError> {
        self.error(
            node,
            "type",
            format!("`{key}` must be {what}, found {}", node.type_name()),
        )
    }

    pub fn finding(
        &mut self,
        code: &str,
        category: Category,
        ir_path: &str,
        node: &Node,
        message: impl Into<String>,
    ) {
        let span = Some(self.span(node));
        let severity = if category.is_loss() {
            Severity::Warning
        } else {
            Severity::Info
        };
        self.session
            .finding(code, severity, category, ir_path, span, message);
    }

    pub fn number(&self, node: &Node, key: &str) -> SourceResult<f64> {
        node.number().ok_or_else(|| self.expected(node, key, "a number"))
    }

    pub fn string<'n>(&self, node: &'n Node, key: &str) -> SourceResult<&'n str> {
        node.str().ok_or_else(|| self.expected(node, key, "a string"))
    }

    pub fn bool(&self, node: &Node, key: &str) -> SourceResult<bool> {
        node.bool()
            .ok_or_else(|| self.expected(node, key, "true or false"))
    }

    pub fn array<'n>(&self, node: &'n Node, key: &str) -> SourceResult<&'n [Node]> {
        node.items().ok_or_else(|| self.expected(node, key, "an array"))
    }

    /// An array of objects; `null` counts as empty.
    pub fn list<'n>(&self, node: Option<&'n Node>, key: &str) -> SourceResult<&'n [Node]> {
        match node {
            None => Ok(&[]),
            Some(n) if n.is_null() => Ok(&[]),
            Some(n) => self.array(n, key),
        }
    }

    pub fn numbers(&self, node: &Node, key: &str) -> SourceResult<Vec<f64>> {
        self.array(node, key)?
            .iter()
            .map(|item| self.number(item, key))
            .collect()
    }

    pub fn vec3(&self, node: &Node, key: &str) -> SourceResult<Vector3<f64>> {
        let v = self.numbers(node, key)?;
        if v.len() != 3 {
            return Err(self.expected(node, key, "an array of 3 numbers"));
        }
        Ok(Vector3::new(v[0], v[1], v[2]))
    }

    /// A 3×3 matrix given row by row.
    pub fn rows(&self, node: &Node, key: &str) -> SourceResult<[[f64; 3]; 3]> {
        let rows = self.array(node, key)?;
        if rows.len() != 3 {
            return Err(self.expected(node, key, "3 rows of 3 numbers"));
        }
        let mut out = [[0.0; 3]; 3];
        for (i, row) in rows.iter().enumerate() {
            let v = self.numbers(row, key)?;
            if v.len() != 3 {
                return Err(self.expected(row, key, "a row of 3 numbers"));
            }
            out[i] = [v[0], v[1], v[2]];
        }
        Ok(out)
    }

    /// A rotation from rows (columns = frame axes in body coordinates). A matrix orthonormal
    /// only to a tolerance becomes the nearest rotation, reported, and its rows are kept as an
    /// exactness aid; a matrix that is no rotation at all is an error.
    pub fn rotation(
        &mut self,
        node: &Node,
        ir_path: &str,
        extras: &mut Extras,
        aid: &str,
    ) -> SourceResult<UnitQuaternion<f64>> {
        let rows = self.rows(node, "R")?;
        let (q, deviation) = rows_convention::from_rows(rows);
        if !deviation.is_finite() || deviation > 1e-3 {
            return Err(self.error(
                node,
                "rotation",
                format!("`R` is not a rotation matrix (deviation from orthonormal {deviation:.3e})"),
            ));
        }
        if deviation > 1e-12 {
            self.finding(
                "rotation_fitted",
                Category::Approximated,
                ir_path,
                node,
                format!("`R` is orthonormal only to {deviation:.1e}: the nearest rotation is used"),
            );
        }
        let written: Vec<f64> = rows.iter().flatten().copied().collect();
        let fresh: Vec<f64> = rows_convention::to_rows(&q).iter().flatten().copied().collect();
        aids::keep(extras, FORMAT, aid, &written, &fresh);
        Ok(q)
    }

    /// A pose `{R, T}` (either may be missing), lengths scaled to SI.
    pub fn pose(&mut self, node: &Node, ir_path: &str, extras: &mut Extras, aid: &str) -> SourceResult<Pose> {
        let translation = match node.get("T") {
            Some(t) => self.vec3(t, "T")? * self.units.length,
            None => Vector3::zeros(),
        };
        let rotation = match node.get("R") {
            Some(r) => self.rotation(r, ir_path, extras, aid)?,
            None => UnitQuaternion::identity(),
        };
        Ok(Pose::new(translation, rotation))
    }

    /// Keeps the members of `node` not in `known` as `shift.<key>` extras, verbatim.
    pub fn keep_unknown(&mut self, node: &Node, known: &[&str], extras: &mut Extras) {
        for member in node.members() {
            if !known.contains(&member.key.as_str()) {
                extras.insert(format!("{FORMAT}.{}", member.key), value(&member.value));
            }
        }
    }
}

/// A JSON value as an IR value, verbatim (integers that fit stay integers).
pub(crate) fn value(node: &Node) -> Value {
    match &node.value {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(x, integer) => {
            if *integer && x.fract() == 0.0 && x.abs() < 9.0e15 {
                Value::Int(*x as i64)
            } else {
                Value::Float(*x)
            }
        }
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::List(items.iter().map(value).collect()),
        Json::Object(members) => Value::Map(ValueMap(
            members.iter().map(|m| (m.key.clone(), value(&m.value))).collect(),
        )),
    }
}
