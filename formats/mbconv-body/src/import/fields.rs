//! Typed reads of YAML nodes with `file:line:column` errors: numbers, vectors, the
//! translation and rotation spellings, and keys in both spellings.

use crate::raw::{Key, Node, NodeKind};
use crate::spec::{self, FORMAT};
use mbconv_ir::format::kit::{SourceResult, aids, scan};
use mbconv_ir::format::{Source, SourceError};
use mbconv_ir::report::SourceSpan;
use mbconv_ir::{Extras, Pose};
use nalgebra::{UnitQuaternion, Vector3};
use std::sync::Arc;

/// One parsed YAML file: the main `.body` file, a sub-body or a YAML resource.
pub(crate) struct Doc {
    /// The text and its name.
    pub source: Arc<Source>,
    /// The parsed tree.
    pub root: Node,
    /// `angleUnit: degree` (the default).
    pub degree_mode: bool,
    /// True for the file the user asked to read (its spans go into the source map).
    pub is_main: bool,
    /// Values read the lenient way Choreonoid reads them (reported by the importer).
    pub lenient: std::cell::RefCell<Vec<(SourceSpan, String)>>,
}

impl Doc {
    /// The file the user asked to read, in degrees until it says otherwise.
    pub fn main(source: &Source, root: Node) -> Self {
        Self {
            source: Arc::new(source.clone()),
            root,
            degree_mode: true,
            is_main: true,
            lenient: Default::default(),
        }
    }

    /// An error at `node` with code `body.<code>`.
    pub fn error(&self, code: &str, node: &Node, message: impl Into<String>) -> Box<SourceError> {
        Box::new(
            self.source
                .error(&format!("{FORMAT}.{code}"), Some(self.span(node)), message),
        )
    }
    /// An error at `span` (or, without one, at `fallback`) with code `body.<code>`.
    pub fn error_at(
        &self,
        code: &str,
        span: Option<SourceSpan>,
        fallback: &Node,
        message: impl Into<String>,
    ) -> Box<SourceError> {
        let span = span.unwrap_or_else(|| self.span(fallback));
        Box::new(
            self.source
                .error(&format!("{FORMAT}.{code}"), Some(span), message),
        )
    }
    /// The span of a node.
    pub fn span(&self, node: &Node) -> SourceSpan {
        node.span(&self.source)
    }
    /// The span of a node, only for the main file.
    pub fn main_span(&self, node: &Node) -> Option<SourceSpan> {
        self.is_main.then(|| self.span(node))
    }
}

/// The value under `key` in either spelling (camelCase or snake_case).
pub(crate) fn get<'n>(map: &'n Node, key: &str) -> Option<&'n Node> {
    entry(map, key).map(|(_, v)| v)
}

/// The key and value under `key` in either spelling.
pub(crate) fn entry<'n>(map: &'n Node, key: &str) -> Option<(&'n Key, &'n Node)> {
    let [camel, snake] = spec::spellings(key);
    map.entry(&camel).or_else(|| map.entry(&snake))
}

/// True when `name` is one of the spellings of `key`.
pub(crate) fn is_key(name: &str, key: &str) -> bool {
    let [camel, snake] = spec::spellings(key);
    name == camel || name == snake
}

/// A number, as Choreonoid's `ValueNode::toDouble` reads a scalar: C's `strtod` on its text
/// (quoted or not), so `1.`, `.5`, `+2`, `0x1p3` and ` 3` read, and a text that starts with a
/// number reads as that number (`0.t` is 0; the rest is reported). A text that does not start
/// with a number is refused. Where this is used the number is a size, a mass, a position...,
/// so a non-finite value (`inf`, `nan`, `1e400`) is refused too; bounds that may be infinite
/// are read by [`bound`].
pub(crate) fn number(doc: &Doc, node: &Node) -> SourceResult<f64> {
    let Some((x, end, text)) = node
        .scalar()
        .and_then(|t| scan::strtod(t).map(|(x, e)| (x, e, t)))
    else {
        return Err(doc.error(
            "number",
            node,
            format!("expected a number, found {}", describe(node)),
        ));
    };
    if !x.is_finite() {
        return Err(doc.error(
            "number",
            node,
            format!("expected a finite number, found {text:?} (Choreonoid reads it as {x})"),
        ));
    }
    if !text[end..].bytes().all(scan::is_c_space) {
        doc.lenient.borrow_mut().push((
            doc.span(node),
            format!("{text:?} is not a number; Choreonoid reads its numeric start, {x}"),
        ));
    }
    Ok(x)
}

/// A bound of a range (`jointRange`, `jointVelocityRange`, `maxJointVelocity`,
/// `maxJointEffort`), as Choreonoid's `readLimitValue` reads it: the whole scalar must be a
/// number for `strtod` (white space after it allowed), or the symbol `unlimited`. Both
/// `unlimited` and an infinity on its own side (`inf` as an upper bound, `-inf` as a lower
/// one, `1e400`) mean "no bound" (`None`); `nan`, or an infinity on the wrong side, is refused.
pub(crate) fn bound(doc: &Doc, node: &Node, upper: bool) -> SourceResult<Option<f64>> {
    let text = node.scalar().ok_or_else(|| {
        doc.error(
            "joint_range",
            node,
            format!(
                "expected a number or `unlimited` as a range bound, found {}",
                describe(node)
            ),
        )
    })?;
    let whole = scan::strtod(text).filter(|(_, end)| text[*end..].bytes().all(scan::is_c_space));
    let Some((x, _)) = whole else {
        if text == "unlimited" {
            return Ok(None);
        }
        return Err(doc.error(
            "joint_range",
            node,
            format!("expected a number or `unlimited` as a range bound, found {text:?}"),
        ));
    };
    let side = if upper { "upper" } else { "lower" };
    if x.is_nan() || (x.is_infinite() && (x > 0.0) != upper) {
        return Err(doc.error(
            "joint_range",
            node,
            format!("{text:?} (read as {x}) cannot be the {side} bound of a range"),
        ));
    }
    Ok(x.is_finite().then_some(x))
}

/// A string (any scalar's text).
pub(crate) fn text(doc: &Doc, node: &Node) -> SourceResult<String> {
    node.scalar()
        .map(str::to_owned)
        .ok_or_else(|| doc.error("text", node, format!("expected a name, found {}", describe(node))))
}

/// An integer.
pub(crate) fn integer(doc: &Doc, node: &Node) -> SourceResult<i64> {
    let x = number(doc, node)?;
    if x.fract() != 0.0 || x.abs() > 9.0e15 {
        return Err(doc.error("integer", node, format!("expected an integer, found {x}")));
    }
    Ok(x as i64)
}

/// A list of numbers.
pub(crate) fn numbers(doc: &Doc, node: &Node) -> SourceResult<Vec<f64>> {
    match &node.kind {
        NodeKind::Seq(items) => items.iter().map(|n| number(doc, n)).collect(),
        _ => Err(doc.error(
            "list",
            node,
            format!("expected a list of numbers, found {}", describe(node)),
        )),
    }
}

/// Exactly `N` numbers.
pub(crate) fn array<const N: usize>(doc: &Doc, node: &Node) -> SourceResult<[f64; N]> {
    let list = numbers(doc, node)?;
    let n = list.len();
    list.try_into()
        .map_err(|_| doc.error("list_length", node, format!("expected {N} numbers, found {n}")))
}

/// A 3-vector.
pub(crate) fn vector3(doc: &Doc, node: &Node) -> SourceResult<Vector3<f64>> {
    Ok(Vector3::from(array::<3>(doc, node)?))
}

/// `translation`: one 3-vector, or a list of translations that are summed (nesting allowed).
pub(crate) fn translation(doc: &Doc, node: &Node) -> SourceResult<Vector3<f64>> {
    if node
        .items()
        .first()
        .is_some_and(|n| matches!(n.kind, NodeKind::Seq(_)))
    {
        let mut sum = Vector3::zeros();
        for item in node.items() {
            sum += translation(doc, item)?;
        }
        Ok(sum)
    } else {
        vector3(doc, node)
    }
}

/// `rotation` as written: one axis-angle, or a list of rotations composed left to right
/// (nesting allowed), flattened.
pub(crate) fn rotation_list(doc: &Doc, node: &Node) -> SourceResult<Vec<[f64; 4]>> {
    if node
        .items()
        .first()
        .is_some_and(|n| matches!(n.kind, NodeKind::Seq(_)))
    {
        let mut out = Vec::new();
        for item in node.items() {
            out.extend(rotation_list(doc, item)?);
        }
        Ok(out)
    } else {
        Ok(vec![array::<4>(doc, node)?])
    }
}

/// A rotation (angles in the document's unit), keeping the numbers as written under
/// `body.source.<aid>` when the writer would not give them back.
pub(crate) fn rotation(
    doc: &Doc,
    node: &Node,
    extras: &mut Extras,
    aid: &str,
) -> SourceResult<UnitQuaternion<f64>> {
    let list = rotation_list(doc, node)?;
    if list
        .iter()
        .any(|[x, y, z, _]| Vector3::new(*x, *y, *z).norm() < 1e-6)
    {
        return Err(doc.error("zero_axis", node, "the rotation axis is the zero vector"));
    }
    let q = spec::rotation_from_written(&list, doc.degree_mode)
        .ok_or_else(|| doc.error("zero_axis", node, "the rotation axis is zero"))?;
    if doc.degree_mode {
        let written: Vec<f64> = list.iter().flatten().copied().collect();
        aids::keep(extras, FORMAT, aid, &written, &spec::written_rotation(&q));
    }
    Ok(q)
}

/// The `translation` and `rotation` of a mapping as a pose (identity parts when absent).
/// Returns `None` when the mapping has neither.
pub(crate) fn pose(doc: &Doc, map: &Node, extras: &mut Extras, aid: &str) -> SourceResult<Option<Pose>> {
    let t = get(map, "translation").map(|n| translation(doc, n)).transpose()?;
    let r = get(map, "rotation")
        .map(|n| rotation(doc, n, extras, aid))
        .transpose()?;
    if t.is_none() && r.is_none() {
        return Ok(None);
    }
    Ok(Some(Pose::new(
        t.unwrap_or_else(Vector3::zeros),
        r.unwrap_or_else(UnitQuaternion::identity),
    )))
}

/// An angle in the document's unit, in radians; the written degrees are kept under
/// `body.source.<aid>` when the writer would not give them back.
pub(crate) fn angle(doc: &Doc, written: f64, convert: bool, extras: &mut Extras, aid: &str) -> f64 {
    if !(convert && doc.degree_mode) {
        return written;
    }
    let rad = spec::radians(written);
    aids::keep(extras, FORMAT, aid, &[written], &[spec::degrees_exact(rad)]);
    rad
}

/// A bool (`true`, `false`, `yes`, `no`, ...).
pub(crate) fn boolean(doc: &Doc, node: &Node) -> SourceResult<bool> {
    node.as_bool().ok_or_else(|| {
        doc.error(
            "bool",
            node,
            format!("expected true or false, found {}", describe(node)),
        )
    })
}

/// A node for messages: its text for a scalar, else its kind.
pub(crate) fn describe(node: &Node) -> String {
    match node.scalar() {
        Some(text) => format!("{text:?}"),
        None => node.describe().to_owned(),
    }
}
