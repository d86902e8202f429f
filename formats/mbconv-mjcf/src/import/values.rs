//! Typed attribute values with MuJoCo's rules (counts, booleans, keywords) and the default
//! classes behind them: an element's value of an attribute is its own, else its class's
//! (inherited), else MuJoCo's built-in one, and numeric vectors merge by layers.

use crate::import::compiler::defaults::{ClassId, Classes, Origin, resolve_numbers};
use crate::raw::{Attr, Element, Files};
use mbconv_ir::format::kit::{SourceResult, scan};

/// Attribute values of one model: the files (for errors) and the default classes.
pub(crate) struct Values<'d> {
    pub files: &'d Files,
    pub classes: Classes<&'d Attr>,
}

impl<'d> Values<'d> {
    /// The numbers of an attribute: at most `len` of them, exactly `len` when `exact`.
    pub(crate) fn numbers(&self, attr: &Attr, len: usize, exact: bool) -> SourceResult<Vec<f64>> {
        let mut out = Vec::new();
        for token in attr.value.split_ascii_whitespace() {
            out.push(self.number(attr, token)?);
        }
        if out.len() > len {
            return Err(self.files.error(
                &attr.loc,
                "count",
                format!("attribute '{}' has too much data", attr.name),
            ));
        }
        if exact && out.len() < len {
            return Err(self.files.error(
                &attr.loc,
                "count",
                format!("attribute '{}' does not have enough data", attr.name),
            ));
        }
        Ok(out)
    }

    /// One number token as MuJoCo reads it: C's `strtod` must read the whole token (decimal,
    /// hexadecimal, `inf`, `nan`), and a finite spelling that overflows (`1e400`) is "too
    /// large". MuJoCo keeps `inf` and `nan`; no number mbconv reads from MJCF may be
    /// non-finite yet (a `range` of `inf` would be no bound: not followed), so they are
    /// refused here.
    fn number(&self, attr: &Attr, token: &str) -> SourceResult<f64> {
        let Some((x, _)) = scan::strtod(token).filter(|(_, end)| *end == token.len()) else {
            return Err(self.files.error(
                &attr.loc,
                "number",
                format!("expected a number in `{}`, found {token:?}", attr.name),
            ));
        };
        let named = token
            .trim_start_matches(['+', '-'])
            .starts_with(|c: char| c.is_ascii_alphabetic());
        if x.is_infinite() && !named {
            return Err(self.files.error(
                &attr.loc,
                "number",
                format!(
                    "number is too large in attribute `{}` ({token}), as MuJoCo says",
                    attr.name
                ),
            ));
        }
        if !x.is_finite() {
            return Err(self.files.error(
                &attr.loc,
                "number",
                format!("`{}` holds a number that is not finite ({token})", attr.name),
            ));
        }
        Ok(x)
    }

    /// Exactly `N` numbers of an element's own attribute, when present.
    pub(crate) fn own_fixed<const N: usize>(
        &self,
        e: &Element,
        name: &str,
    ) -> SourceResult<Option<[f64; N]>> {
        let Some(attr) = e.attr(name) else { return Ok(None) };
        let v = self.numbers(attr, N, true)?;
        let mut out = [0.0; N];
        out.copy_from_slice(&v);
        Ok(Some(out))
    }

    /// One number of an element's own attribute.
    pub(crate) fn own_scalar(&self, e: &Element, name: &str) -> SourceResult<Option<f64>> {
        Ok(self.own_fixed::<1>(e, name)?.map(|[x]| x))
    }

    /// A boolean (`true`/`false`).
    pub(crate) fn boolean(&self, attr: &Attr) -> SourceResult<bool> {
        match attr.value.trim() {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(self.files.error(
                &attr.loc,
                "keyword",
                format!("`{}` expects true or false, found {other:?}", attr.name),
            )),
        }
    }

    /// A keyword from `words` (MuJoCo's enumerations are case-sensitive).
    pub(crate) fn keyword<'w>(&self, attr: &Attr, words: &[&'w str]) -> SourceResult<&'w str> {
        let v = attr.value.trim();
        words.iter().copied().find(|w| *w == v).ok_or_else(|| {
            self.files.error(
                &attr.loc,
                "keyword",
                format!(
                    "invalid keyword {v:?} in `{}`; valid: {}",
                    attr.name,
                    words.join(", ")
                ),
            )
        })
    }

    /// An integer.
    pub(crate) fn integer(&self, attr: &Attr) -> SourceResult<i64> {
        attr.value.trim().parse().map_err(|_| {
            self.files.error(
                &attr.loc,
                "number",
                format!(
                    "expected an integer in `{}`, found {:?}",
                    attr.name,
                    attr.value.trim()
                ),
            )
        })
    }

    /// The attribute as the element sees it: its own, else the nearest class's, with origin.
    pub(crate) fn get(
        &self,
        e: &'d Element,
        kind: &str,
        class: ClassId,
        name: &str,
    ) -> Option<(&'d Attr, Origin)> {
        if let Some(a) = e.attr(name) {
            return Some((a, Origin::Element));
        }
        self.classes.lookup(class, kind, name).map(|(a, o)| (*a, o))
    }

    /// A numeric vector by layers (built-in, classes root first, the element), with whether
    /// anything in the file set it.
    pub(crate) fn vector(
        &self,
        e: &'d Element,
        kind: &str,
        class: ClassId,
        name: &str,
        builtin: &[f64],
        exact: bool,
    ) -> SourceResult<(Vec<f64>, bool)> {
        let mut parsed: Vec<(Vec<f64>, Origin)> = Vec::new();
        for (attr, origin) in self.classes.layers(class, kind, name) {
            parsed.push((self.numbers(attr, builtin.len(), exact)?, origin));
        }
        if let Some(a) = e.attr(name) {
            parsed.push((self.numbers(a, builtin.len(), exact)?, Origin::Element));
        }
        let layers: Vec<(&[f64], Origin)> = parsed.iter().map(|(v, o)| (v.as_slice(), o.clone())).collect();
        let (values, _) = resolve_numbers(builtin, &layers);
        Ok((values, !parsed.is_empty()))
    }

    /// A number with its class default and a built-in default.
    pub(crate) fn scalar(
        &self,
        e: &'d Element,
        kind: &str,
        class: ClassId,
        name: &str,
        builtin: f64,
    ) -> SourceResult<f64> {
        Ok(self.vector(e, kind, class, name, &[builtin], true)?.0[0])
    }

    /// A number that may be undefined (MuJoCo's NaN defaults, `mass` of a geom).
    pub(crate) fn optional(
        &self,
        e: &'d Element,
        kind: &str,
        class: ClassId,
        name: &str,
    ) -> SourceResult<Option<f64>> {
        match self.get(e, kind, class, name) {
            None => Ok(None),
            Some(_) => Ok(Some(self.scalar(e, kind, class, name, 0.0)?)),
        }
    }

    /// A boolean with its class default.
    pub(crate) fn flag(
        &self,
        e: &'d Element,
        kind: &str,
        class: ClassId,
        name: &str,
        builtin: bool,
    ) -> SourceResult<bool> {
        match self.get(e, kind, class, name) {
            None => Ok(builtin),
            Some((a, _)) => self.boolean(a),
        }
    }

    /// A keyword with its class default.
    pub(crate) fn word(
        &self,
        e: &'d Element,
        kind: &str,
        class: ClassId,
        name: &str,
        words: &[&'static str],
        builtin: &'static str,
    ) -> SourceResult<&'static str> {
        match self.get(e, kind, class, name) {
            None => Ok(builtin),
            Some((a, _)) => self.keyword(a, words),
        }
    }

    /// An integer with its class default.
    pub(crate) fn int(
        &self,
        e: &'d Element,
        kind: &str,
        class: ClassId,
        name: &str,
        builtin: i64,
    ) -> SourceResult<i64> {
        match self.get(e, kind, class, name) {
            None => Ok(builtin),
            Some((a, _)) => self.integer(a),
        }
    }
}
