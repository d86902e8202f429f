//! `${...}` expressions: the subset of Python's expression grammar that robot descriptions
//! use (literals, names, attribute access, subscripts and slices, calls with keyword
//! arguments, unary and binary arithmetic, chained comparisons, `in`, `is`, `and`/`or`/`not`,
//! conditional expressions, lists, tuples, dictionaries, list comprehensions and `lambda`),
//! parsed into a small tree and evaluated with Python's semantics. Anything else is an error
//! that names the construct.

use crate::builtins;
use crate::value::{Dict, Num, Value, parse_float};
use std::rc::Rc;

/// Why an expression could not be evaluated, in Python's words (`name 'x' is not defined`).
#[derive(Debug, Clone)]
pub(crate) struct EvalError(pub String);

pub(crate) type EResult<T> = Result<T, EvalError>;

pub(crate) fn fail<T>(message: impl Into<String>) -> EResult<T> {
    Err(EvalError(message.into()))
}

/// What an expression sees: names, and the functions that need the expander.
pub(crate) trait Env {
    /// The value of a name (property, global symbol), or `name 'x' is not defined`.
    fn lookup(&mut self, name: &str) -> EResult<Value>;
    /// Calls a function of the `xacro` namespace (`load_yaml`, `arg`, `fatal`, ...).
    fn call_xacro(&mut self, name: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> EResult<Value>;
    /// Looks `name` up in a namespace value.
    fn namespace_attr(&mut self, ns: &crate::scope::Scope, name: &str) -> EResult<Value>;
}

/// A `lambda`: its parameters and body.
#[derive(Debug)]
pub(crate) struct Lambda {
    pub params: Vec<String>,
    pub body: Expr,
    pub captured: Vec<(String, Value)>,
}

/// An expression tree.
#[derive(Debug, Clone)]
pub(crate) enum Expr {
    Const(Value),
    Name(Rc<str>),
    Attr(Box<Expr>, Rc<str>),
    Index(Box<Expr>, Box<Expr>),
    Slice(Box<Expr>, [Option<Box<Expr>>; 3]),
    Call(Box<Expr>, Vec<Arg>),
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Compare(Box<Expr>, Vec<(&'static str, Expr)>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    IfElse(Box<Expr>, Box<Expr>, Box<Expr>),
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
    /// An f-string.
    FString(Vec<FPart>),
    /// A construct parsed but refused when evaluated (Python evaluates lazily: `x if c else
    /// b'...'` is fine while `c` holds).
    Unsupported(&'static str),
    /// `[elt for target in iter if cond ...]` (one `for`); a generator expression
    /// `(elt for ...)` when the flag is set.
    ListComp(Box<Expr>, Vec<String>, Box<Expr>, Vec<Expr>, bool),
    Lambda(Rc<(Vec<String>, Expr)>),
}

/// A call argument.
#[derive(Debug, Clone)]
pub(crate) enum Arg {
    Pos(Expr),
    Star(Expr),
    Kw(String, Expr),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Int(i64),
    Big(Rc<num_bigint::BigInt>),
    Float(f64),
    /// An imaginary literal (`2j`).
    Imag(f64),
    Str(String),
    /// A bytes literal (refused when evaluated, as a value mbconv does not have).
    Bytes,
    /// An f-string: literal text and fields (expression text, conversion, format spec).
    FStr(Vec<FPiece>),
    Op(&'static str),
    End,
}

const OPS: &[&str] = &[
    "**", "//", "==", "!=", "<=", ">=", "<<", ">>", "->", ":=", "+", "-", "*", "/", "%", "<", ">", "(", ")",
    "[", "]", "{", "}", ",", ":", ".", "~", "&", "|", "^", "@", "=",
];

fn tokenize(src: &str) -> EResult<Vec<Tok>> {
    let mut toks = Vec::new();
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() || c == b'\\' && b.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        let rest = &src[i..];
        let ch = rest.chars().next().unwrap_or(' ');
        if ch.is_alphabetic() || ch == '_' {
            let end = rest
                .char_indices()
                .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
                .map_or(rest.len(), |(j, _)| j);
            let word = &rest[..end];
            let after = rest[end..].chars().next();
            if matches!(after, Some('\'' | '"'))
                && matches!(
                    word.to_ascii_lowercase().as_str(),
                    "r" | "u" | "b" | "f" | "rb" | "br" | "fr" | "rf"
                )
            {
                let lower = word.to_ascii_lowercase();
                if lower.contains('f') {
                    let (s, len) = string(&rest[end..], lower.contains('r'))?;
                    toks.push(Tok::FStr(fstring_pieces(&s)?));
                    i += end + len;
                    continue;
                }
                let (s, len) = string(&rest[end..], lower.contains('r'))?;
                toks.push(if lower.contains('b') {
                    Tok::Bytes
                } else {
                    Tok::Str(s)
                });
                i += end + len;
                continue;
            }
            toks.push(Tok::Name(word.to_owned()));
            i += end;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let (tok, len) = number(rest)?;
            toks.push(tok);
            i += len;
            continue;
        }
        if c == b'\'' || c == b'"' {
            let (s, len) = string(rest, false)?;
            toks.push(Tok::Str(s));
            i += len;
            continue;
        }
        match OPS.iter().find(|op| rest.starts_with(**op)) {
            Some(op) => {
                toks.push(Tok::Op(op));
                i += op.len();
            }
            None => return fail(format!("invalid syntax: unexpected character {ch:?}")),
        }
    }
    toks.push(Tok::End);
    Ok(toks)
}

fn int_token(v: num_bigint::BigInt) -> Tok {
    match crate::bignum::value(v) {
        Value::Big(b) => Tok::Big(b),
        Value::Int(i) => Tok::Int(i),
        _ => Tok::Int(0),
    }
}

fn number(s: &str) -> EResult<(Tok, usize)> {
    let b = s.as_bytes();
    if b.len() > 1 && b[0] == b'0' && matches!(b[1], b'x' | b'X' | b'o' | b'O' | b'b' | b'B') {
        let radix = match b[1] {
            b'x' | b'X' => 16,
            b'o' | b'O' => 8,
            _ => 2,
        };
        let end = s[2..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(s.len(), |j| j + 2);
        let digits: String = s[2..end].chars().filter(|c| *c != '_').collect();
        return match num_bigint::BigInt::parse_bytes(digits.as_bytes(), radix) {
            Some(v) if !digits.starts_with(['+', '-']) => Ok((int_token(v), end)),
            _ => fail(format!("invalid number literal {:?}", &s[..end])),
        };
    }
    let mut end = 0;
    let mut float = false;
    while end < b.len() && (b[end].is_ascii_digit() || b[end] == b'_') {
        end += 1;
    }
    if end < b.len() && b[end] == b'.' {
        float = true;
        end += 1;
        while end < b.len() && (b[end].is_ascii_digit() || b[end] == b'_') {
            end += 1;
        }
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut j = end + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            float = true;
            end = j;
            while end < b.len() && (b[end].is_ascii_digit() || b[end] == b'_') {
                end += 1;
            }
        }
    }
    let imaginary = end < b.len() && (b[end] == b'j' || b[end] == b'J');
    let text = &s[..end];
    if text.contains("__") || text.ends_with('_') || text.contains("_.") || text.contains("._") {
        return fail(format!("invalid decimal literal {text:?}"));
    }
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    if imaginary {
        return match parse_float(&clean) {
            Some(v) => Ok((Tok::Imag(v), end + 1)),
            None => fail(format!("invalid imaginary literal {text:?}")),
        };
    }
    if float {
        match parse_float(&clean) {
            Some(v) => Ok((Tok::Float(v), end)),
            None => fail(format!("invalid number literal {text:?}")),
        }
    } else {
        if clean.len() > 1 && clean.starts_with('0') && clean.chars().any(|c| c != '0') {
            return fail(format!(
                "leading zeros in decimal integer literals are not permitted: {text}"
            ));
        }
        match crate::bignum::parse(&clean, 10)? {
            Some(Value::Int(v)) => Ok((Tok::Int(v), end)),
            Some(Value::Big(v)) => Ok((Tok::Big(v), end)),
            _ => fail(format!("invalid decimal literal {text:?}")),
        }
    }
}

/// A piece of an f-string as written.
#[derive(Debug, Clone, PartialEq)]
enum FPiece {
    Lit(String),
    Field(String, Option<char>, String),
}

/// A piece of an f-string parsed.
#[derive(Debug, Clone)]
pub(crate) enum FPart {
    Lit(String),
    Field(Expr, Option<char>, String),
}

/// Splits the text of an f-string into literal text and `{expr!c:spec}` fields.
fn fstring_pieces(s: &str) -> EResult<Vec<FPiece>> {
    let mut pieces = Vec::new();
    let mut lit = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                lit.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                lit.push('}');
            }
            '}' => return fail("f-string: single '}' is not allowed"),
            '{' => {
                pieces.push(FPiece::Lit(std::mem::take(&mut lit)));
                // The expression: up to a `!`, `:` or `}` outside brackets and strings.
                let (mut expr, mut depth, mut quote) = (String::new(), 0usize, None);
                let stop = loop {
                    let Some(c) = chars.next() else {
                        return fail("f-string: expecting '}'");
                    };
                    match (quote, c) {
                        (Some(q), c) if c == q => quote = None,
                        (Some(_), _) => {}
                        (None, '\'' | '"') => quote = Some(c),
                        (None, '(' | '[' | '{') => depth += 1,
                        (None, ')' | ']' | '}') if depth > 0 => depth -= 1,
                        (None, '!') if depth == 0 && chars.peek() != Some(&'=') => break '!',
                        (None, ':' | '}') if depth == 0 => break c,
                        _ => {}
                    }
                    expr.push(c);
                };
                if expr.trim().is_empty() {
                    return fail("f-string: empty expression not allowed");
                }
                let mut conv = None;
                let mut stop = stop;
                if stop == '!' {
                    conv = chars.next();
                    stop = chars.next().unwrap_or(' ');
                    if !matches!(conv, Some('r' | 's' | 'a')) || !matches!(stop, ':' | '}') {
                        return fail("f-string: invalid conversion character: expected 's', 'r', or 'a'");
                    }
                }
                let mut spec = String::new();
                if stop == ':' {
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some('{') => {
                                return fail(
                                    "nested fields in an f-string's format spec are not supported by mbconv's xacro",
                                );
                            }
                            Some(c) => spec.push(c),
                            None => return fail("f-string: expecting '}'"),
                        }
                    }
                }
                pieces.push(FPiece::Field(expr, conv, spec));
            }
            c => lit.push(c),
        }
    }
    pieces.push(FPiece::Lit(lit));
    Ok(pieces)
}

fn string(s: &str, raw: bool) -> EResult<(String, usize)> {
    let quote = s.chars().next().unwrap_or('\'');
    let triple: String = std::iter::repeat_n(quote, 3).collect();
    let (open, close) = if s.starts_with(&triple) {
        (3, triple.as_str())
    } else {
        (1, &s[..1])
    };
    let mut out = String::new();
    let body = &s[open..];
    let mut chars = body.char_indices();
    while let Some((j, c)) = chars.next() {
        if body[j..].starts_with(close) {
            return Ok((out, open + j + close.len()));
        }
        if c == '\n' && open == 1 {
            break;
        }
        if c == '\\' {
            let Some((_, e)) = chars.next() else { break };
            if raw {
                out.push('\\');
                out.push(e);
                continue;
            }
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                '\\' => out.push('\\'),
                '\'' => out.push('\''),
                '"' => out.push('"'),
                '\n' => {}
                'x' => {
                    let hex: String = chars.by_ref().take(2).map(|(_, c)| c).collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(c) => out.push(c),
                        None => return fail("invalid \\x escape in a string"),
                    }
                }
                'u' => {
                    let hex: String = chars.by_ref().take(4).map(|(_, c)| c).collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(c) => out.push(c),
                        None => return fail("invalid \\u escape in a string"),
                    }
                }
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        } else {
            out.push(c);
        }
    }
    fail("unterminated string literal")
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

const KEYWORDS: &[&str] = &[
    "and", "or", "not", "in", "is", "if", "else", "for", "lambda", "None", "True", "False", "import", "def",
    "class", "return", "yield", "await", "async", "del", "pass", "while", "with", "global", "nonlocal",
    "assert", "raise", "try", "except", "finally", "from", "as", "elif", "break", "continue",
];

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos]
    }
    /// The token after the next one (the last, the end, when there is none).
    fn peek_second(&self) -> &Tok {
        let at = (self.pos + 1).min(self.toks.len().saturating_sub(1));
        &self.toks[at]
    }
    fn next(&mut self) -> Tok {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }
    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Name(n) if n == kw)
    }
    fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.next();
            true
        } else {
            false
        }
    }
    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.next();
            true
        } else {
            false
        }
    }
    fn expect_op(&mut self, op: &str) -> EResult<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            fail(format!(
                "invalid syntax: expected '{op}', found {}",
                describe(self.peek())
            ))
        }
    }

    /// test: or_test ['if' or_test 'else' test] | lambda
    fn test(&mut self) -> EResult<Expr> {
        if self.eat_kw("lambda") {
            let mut params = Vec::new();
            while !self.is_op(":") {
                match self.next() {
                    Tok::Name(n) if !KEYWORDS.contains(&n.as_str()) => params.push(n),
                    t => return fail(format!("invalid syntax in lambda parameters: {}", describe(&t))),
                }
                if !self.eat_op(",") {
                    break;
                }
            }
            self.expect_op(":")?;
            let body = self.test()?;
            return Ok(Expr::Lambda(Rc::new((params, body))));
        }
        let e = self.or_test()?;
        if self.eat_kw("if") {
            let cond = self.or_test()?;
            if !self.eat_kw("else") {
                return fail("invalid syntax: expected 'else' after 'if' in a conditional expression");
            }
            let other = self.test()?;
            return Ok(Expr::IfElse(Box::new(cond), Box::new(e), Box::new(other)));
        }
        Ok(e)
    }
    fn or_test(&mut self) -> EResult<Expr> {
        let mut e = self.and_test()?;
        while self.eat_kw("or") {
            e = Expr::Or(Box::new(e), Box::new(self.and_test()?));
        }
        Ok(e)
    }
    fn and_test(&mut self) -> EResult<Expr> {
        let mut e = self.not_test()?;
        while self.eat_kw("and") {
            e = Expr::And(Box::new(e), Box::new(self.not_test()?));
        }
        Ok(e)
    }
    fn not_test(&mut self) -> EResult<Expr> {
        if self.eat_kw("not") {
            return Ok(Expr::Not(Box::new(self.not_test()?)));
        }
        self.comparison()
    }
    fn comp_op(&mut self) -> Option<&'static str> {
        let op = match self.peek() {
            Tok::Op(o @ ("<" | ">" | "==" | "!=" | "<=" | ">=")) => *o,
            Tok::Name(n) if n == "in" => "in",
            Tok::Name(n) if n == "is" => {
                self.next();
                return Some(if self.eat_kw("not") { "is not" } else { "is" });
            }
            Tok::Name(n) if n == "not" && matches!(self.peek_second(), Tok::Name(m) if m == "in") => {
                self.next();
                self.next();
                return Some("not in");
            }
            _ => return None,
        };
        self.next();
        Some(op)
    }
    fn comparison(&mut self) -> EResult<Expr> {
        let first = self.bitor()?;
        let mut rest = Vec::new();
        while let Some(op) = self.comp_op() {
            rest.push((op, self.bitor()?));
        }
        Ok(if rest.is_empty() {
            first
        } else {
            Expr::Compare(Box::new(first), rest)
        })
    }
    fn binary_level(&mut self, ops: &[&'static str], next: fn(&mut Self) -> EResult<Expr>) -> EResult<Expr> {
        let mut e = next(self)?;
        loop {
            let Some(op) = ops.iter().find(|o| self.is_op(o)).copied() else {
                return Ok(e);
            };
            self.next();
            e = Expr::Binary(op, Box::new(e), Box::new(next(self)?));
        }
    }
    fn bitor(&mut self) -> EResult<Expr> {
        self.binary_level(&["|"], Self::bitxor)
    }
    fn bitxor(&mut self) -> EResult<Expr> {
        self.binary_level(&["^"], Self::bitand)
    }
    fn bitand(&mut self) -> EResult<Expr> {
        self.binary_level(&["&"], Self::shift)
    }
    fn shift(&mut self) -> EResult<Expr> {
        self.binary_level(&["<<", ">>"], Self::arith)
    }
    fn arith(&mut self) -> EResult<Expr> {
        self.binary_level(&["+", "-"], Self::term)
    }
    fn term(&mut self) -> EResult<Expr> {
        self.binary_level(&["*", "/", "//", "%", "@"], Self::factor)
    }
    fn factor(&mut self) -> EResult<Expr> {
        for op in ["-", "+", "~"] {
            if self.eat_op(op) {
                return Ok(Expr::Unary(op, Box::new(self.factor()?)));
            }
        }
        self.power()
    }
    fn power(&mut self) -> EResult<Expr> {
        let base = self.primary()?;
        if self.eat_op("**") {
            let exp = self.factor()?;
            return Ok(Expr::Binary("**", Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }
    fn primary(&mut self) -> EResult<Expr> {
        let mut e = self.atom()?;
        loop {
            if self.eat_op(".") {
                match self.next() {
                    Tok::Name(n) => e = Expr::Attr(Box::new(e), Rc::from(n.as_str())),
                    t => {
                        return fail(format!(
                            "invalid syntax: expected a name after '.', found {}",
                            describe(&t)
                        ));
                    }
                }
            } else if self.eat_op("(") {
                let mut args = Vec::new();
                while !self.is_op(")") {
                    if self.eat_op("*") {
                        args.push(Arg::Star(self.test()?));
                    } else if self.is_op("**") {
                        return fail("'**' arguments are not supported by mbconv's xacro");
                    } else if let (Tok::Name(n), Tok::Op("=")) = (self.peek().clone(), self.peek_second()) {
                        self.next();
                        self.next();
                        args.push(Arg::Kw(n, self.test()?));
                    } else {
                        let value = self.test()?;
                        if self.eat_kw("for") {
                            // A generator as the only argument: `sum(x for x in l)`.
                            args.push(Arg::Pos(self.comprehension(value, true)?));
                            if !self.is_op(")") {
                                return fail("invalid syntax: Generator expression must be parenthesized");
                            }
                            break;
                        }
                        args.push(Arg::Pos(value));
                    }
                    if !self.eat_op(",") {
                        break;
                    }
                }
                self.expect_op(")")?;
                e = Expr::Call(Box::new(e), args);
            } else if self.eat_op("[") {
                let index = self.subscript()?;
                self.expect_op("]")?;
                e = match index {
                    Sub::Index(i) => Expr::Index(Box::new(e), Box::new(i)),
                    Sub::Slice(parts) => Expr::Slice(Box::new(e), parts),
                };
            } else {
                return Ok(e);
            }
        }
    }
    /// The rest of a comprehension after its `for`: targets, `in`, the iterable and the
    /// conditions.
    fn comprehension(&mut self, first: Expr, generator: bool) -> EResult<Expr> {
        let mut targets = Vec::new();
        loop {
            match self.next() {
                Tok::Name(n) if !KEYWORDS.contains(&n.as_str()) => targets.push(n),
                t => return fail(format!("invalid syntax in a comprehension: {}", describe(&t))),
            }
            if !self.eat_op(",") {
                break;
            }
        }
        if !self.eat_kw("in") {
            return fail("invalid syntax: expected 'in' in a comprehension");
        }
        let iter = self.or_test()?;
        let mut conds = Vec::new();
        while self.eat_kw("if") {
            conds.push(self.or_test()?);
        }
        if self.is_kw("for") {
            return fail("nested comprehensions are not supported by mbconv's xacro");
        }
        Ok(Expr::ListComp(
            Box::new(first),
            targets,
            Box::new(iter),
            conds,
            generator,
        ))
    }
    fn subscript(&mut self) -> EResult<Sub> {
        let mut parts: [Option<Box<Expr>>; 3] = [None, None, None];
        let mut slot = 0;
        let mut sliced = false;
        loop {
            if self.is_op("]") {
                break;
            }
            if self.eat_op(":") {
                sliced = true;
                slot += 1;
                if slot > 2 {
                    return fail("invalid syntax in a slice");
                }
                continue;
            }
            let e = self.test()?;
            if !sliced && self.is_op(",") {
                let mut items = vec![e];
                while self.eat_op(",") {
                    if self.is_op("]") {
                        break;
                    }
                    items.push(self.test()?);
                }
                return Ok(Sub::Index(Expr::Tuple(items)));
            }
            parts[slot] = Some(Box::new(e));
        }
        if sliced {
            Ok(Sub::Slice(parts))
        } else {
            match parts[0].take() {
                Some(e) => Ok(Sub::Index(*e)),
                None => fail("invalid syntax: empty subscript"),
            }
        }
    }
    /// The items of a list or tuple after `first`, up to and including `close`.
    fn sequence(&mut self, first: Expr, close: &str) -> EResult<Vec<Expr>> {
        let mut items = vec![first];
        while self.eat_op(",") {
            if self.is_op(close) {
                break;
            }
            items.push(self.test()?);
        }
        self.expect_op(close)?;
        Ok(items)
    }

    /// An f-string and the strings and f-strings written right after it (one literal).
    fn fstring(&mut self, mut pieces: Vec<FPiece>) -> EResult<Expr> {
        loop {
            match self.peek().clone() {
                Tok::Str(s) => pieces.push(FPiece::Lit(s)),
                Tok::FStr(more) => pieces.extend(more),
                _ => break,
            }
            self.next();
        }
        let mut parts = Vec::new();
        for piece in pieces {
            parts.push(match piece {
                FPiece::Lit(t) => FPart::Lit(t),
                FPiece::Field(src, conv, spec) => FPart::Field(parse(&format!("({src})"))?, conv, spec),
            });
        }
        Ok(Expr::FString(parts))
    }

    fn atom(&mut self) -> EResult<Expr> {
        match self.next() {
            Tok::Int(i) => Ok(Expr::Const(Value::Int(i))),
            Tok::Big(b) => Ok(Expr::Const(Value::Big(b))),
            Tok::Bytes => Ok(Expr::Unsupported(
                "bytes literals are not supported by mbconv's xacro",
            )),
            Tok::FStr(pieces) => self.fstring(pieces),
            Tok::Float(f) => Ok(Expr::Const(Value::Float(f))),
            Tok::Imag(f) => Ok(Expr::Const(Value::Complex(0.0, f))),
            Tok::Str(s) if !matches!(self.peek(), Tok::FStr(_)) => {
                let mut s = s;
                while let Tok::Str(more) = self.peek().clone() {
                    self.next();
                    s.push_str(&more);
                }
                if matches!(self.peek(), Tok::FStr(_)) {
                    return self.fstring(vec![FPiece::Lit(s)]);
                }
                Ok(Expr::Const(Value::str(&s)))
            }
            Tok::Str(s) => self.fstring(vec![FPiece::Lit(s)]),
            Tok::Name(n) => match n.as_str() {
                "None" => Ok(Expr::Const(Value::None)),
                "True" => Ok(Expr::Const(Value::Bool(true))),
                "False" => Ok(Expr::Const(Value::Bool(false))),
                kw if KEYWORDS.contains(&kw) => fail(format!("invalid syntax: unexpected keyword '{kw}'")),
                _ => Ok(Expr::Name(Rc::from(n.as_str()))),
            },
            Tok::Op("(") => {
                if self.eat_op(")") {
                    return Ok(Expr::Tuple(Vec::new()));
                }
                let first = self.test()?;
                if self.eat_kw("for") {
                    let generator = self.comprehension(first, true)?;
                    self.expect_op(")")?;
                    return Ok(generator);
                }
                if !self.is_op(",") {
                    self.expect_op(")")?;
                    return Ok(first);
                }
                Ok(Expr::Tuple(self.sequence(first, ")")?))
            }
            Tok::Op("[") => {
                if self.eat_op("]") {
                    return Ok(Expr::List(Vec::new()));
                }
                let first = self.test()?;
                if self.eat_kw("for") {
                    let comprehension = self.comprehension(first, false)?;
                    self.expect_op("]")?;
                    return Ok(comprehension);
                }
                Ok(Expr::List(self.sequence(first, "]")?))
            }
            Tok::Op("{") => {
                let mut items = Vec::new();
                while !self.is_op("}") {
                    let k = self.test()?;
                    if !self.eat_op(":") {
                        return fail("sets are not supported by mbconv's xacro");
                    }
                    let v = self.test()?;
                    if self.is_kw("for") {
                        return fail("dict comprehensions are not supported by mbconv's xacro");
                    }
                    items.push((k, v));
                    if !self.eat_op(",") {
                        break;
                    }
                }
                self.expect_op("}")?;
                Ok(Expr::Dict(items))
            }
            Tok::End => fail("invalid syntax: unexpected end of expression"),
            t => fail(format!("invalid syntax: unexpected {}", describe(&t))),
        }
    }
}

enum Sub {
    Index(Expr),
    Slice([Option<Box<Expr>>; 3]),
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Name(n) => format!("'{n}'"),
        Tok::Int(i) => format!("'{i}'"),
        Tok::Big(b) => format!("'{b}'"),
        Tok::FStr(_) => "an f-string".to_owned(),
        Tok::Bytes => "a bytes literal".to_owned(),
        Tok::Float(f) => format!("'{f}'"),
        Tok::Imag(f) => format!("'{f}j'"),
        Tok::Str(s) => crate::value::str_repr(s),
        Tok::Op(o) => format!("'{o}'"),
        Tok::End => "the end of the expression".to_owned(),
    }
}

/// The names beginning with `__` that the expression's own code uses (Python's `co_names`:
/// global names and attributes, not those inside a lambda or a comprehension's body),
/// which xacro refuses.
fn dunder_names(e: &Expr, out: &mut Vec<String>) {
    let mut push = |n: &str| {
        if n.starts_with("__") && !out.iter().any(|o| o == n) {
            out.push(n.to_owned());
        }
    };
    match e {
        Expr::Name(n) => push(n),
        Expr::Attr(o, n) => {
            dunder_names(o, out);
            if n.starts_with("__") && !out.iter().any(|o| **o == **n) {
                out.push(n.to_string());
            }
        }
        Expr::Const(_) | Expr::Lambda(_) | Expr::Unsupported(_) => {}
        Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            dunder_names(a, out);
            dunder_names(b, out);
        }
        Expr::Slice(a, bounds) => {
            dunder_names(a, out);
            bounds.iter().flatten().for_each(|b| dunder_names(b, out));
        }
        Expr::Call(f, args) => {
            dunder_names(f, out);
            for a in args {
                match a {
                    Arg::Pos(e) | Arg::Star(e) | Arg::Kw(_, e) => dunder_names(e, out),
                }
            }
        }
        Expr::Unary(_, a) | Expr::Not(a) => dunder_names(a, out),
        Expr::Compare(a, rest) => {
            dunder_names(a, out);
            rest.iter().for_each(|(_, e)| dunder_names(e, out));
        }
        Expr::IfElse(a, b, c) => {
            for x in [a, b, c] {
                dunder_names(x, out);
            }
        }
        Expr::List(items) | Expr::Tuple(items) => items.iter().for_each(|e| dunder_names(e, out)),
        Expr::Dict(items) => items.iter().for_each(|(k, v)| {
            dunder_names(k, out);
            dunder_names(v, out);
        }),
        Expr::FString(parts) => parts.iter().for_each(|p| {
            if let FPart::Field(e, _, _) = p {
                dunder_names(e, out);
            }
        }),
        Expr::ListComp(_, _, iter, _, _) => dunder_names(iter, out),
    }
}

/// Parses a `${...}` expression as xacro does: refuses the names beginning with `__`.
pub(crate) fn parse_checked(src: &str) -> EResult<Expr> {
    let e = parse(src)?;
    let mut names = Vec::new();
    dunder_names(&e, &mut names);
    if !names.is_empty() {
        return fail(format!("Use of invalid name(s):  {}", names.join(", ")));
    }
    Ok(e)
}

/// Parses a whole expression.
pub(crate) fn parse(src: &str) -> EResult<Expr> {
    let toks = tokenize(src)?;
    let mut p = Parser { toks, pos: 0 };
    if matches!(p.peek(), Tok::End) {
        return fail("invalid syntax: empty expression");
    }
    let first = p.test()?;
    let e = if p.is_op(",") {
        let mut items = vec![first];
        while p.eat_op(",") {
            if matches!(p.peek(), Tok::End) {
                break;
            }
            items.push(p.test()?);
        }
        Expr::Tuple(items)
    } else {
        first
    };
    match p.peek() {
        Tok::End => Ok(e),
        Tok::Op(":=") => fail("assignment expressions (':=') are not supported by mbconv's xacro"),
        t => fail(format!("invalid syntax: unexpected {}", describe(t))),
    }
}

/// Evaluates expressions against an environment, with the local names of comprehensions and
/// lambdas.
pub(crate) struct Eval<'e> {
    pub env: &'e mut dyn Env,
    pub locals: Vec<(String, Value)>,
    pub depth: usize,
}

impl Eval<'_> {
    fn name(&mut self, n: &str) -> EResult<Value> {
        if let Some((_, v)) = self.locals.iter().rev().find(|(k, _)| k == n) {
            return Ok(v.clone());
        }
        self.env.lookup(n)
    }

    pub fn eval(&mut self, e: &Expr) -> EResult<Value> {
        self.depth += 1;
        if self.depth > 200 {
            return fail("maximum recursion depth exceeded");
        }
        let r = self.eval_inner(e);
        self.depth -= 1;
        r
    }

    fn eval_inner(&mut self, e: &Expr) -> EResult<Value> {
        match e {
            Expr::Const(v) => Ok(v.clone()),
            Expr::Unsupported(what) => fail(*what),
            Expr::FString(parts) => {
                let mut out = String::new();
                for part in parts {
                    match part {
                        FPart::Lit(t) => out.push_str(t),
                        FPart::Field(e, conv, spec) => {
                            let v = self.eval(e)?;
                            let v = match conv {
                                Some('r' | 'a') => Value::str(&v.repr()),
                                Some(_) => Value::str(&v.to_py_str()),
                                None => v,
                            };
                            out.push_str(&crate::format::format_value(&v, spec)?);
                        }
                    }
                    if out.len() > crate::builtins::MAX_TEXT {
                        return crate::builtins::too_long();
                    }
                }
                Ok(Value::str(&out))
            }
            Expr::Name(n) => self.name(n),
            Expr::Attr(obj, name) => {
                let obj = self.eval(obj)?;
                builtins::attribute(self, obj, name)
            }
            Expr::Index(obj, index) => {
                let obj = self.eval(obj)?;
                let index = self.eval(index)?;
                builtins::index(&obj, &index)
            }
            Expr::Slice(obj, parts) => {
                let obj = self.eval(obj)?;
                let mut bounds = [None, None, None];
                for (slot, part) in bounds.iter_mut().zip(parts) {
                    if let Some(p) = part {
                        *slot = match self.eval(p)? {
                            Value::None => None,
                            v => Some(builtins::as_index(&v)?),
                        };
                    }
                }
                builtins::slice(&obj, bounds)
            }
            Expr::Call(f, args) => {
                let f = self.eval(f)?;
                let mut pos = Vec::new();
                let mut kw = Vec::new();
                for a in args {
                    match a {
                        Arg::Pos(e) => pos.push(self.eval(e)?),
                        Arg::Star(e) => {
                            let v = self.eval(e)?;
                            pos.extend(builtins::iterate(&v)?);
                        }
                        Arg::Kw(k, e) => kw.push((k.clone(), self.eval(e)?)),
                    }
                }
                self.call(&f, pos, kw)
            }
            Expr::Unary(op, x) => {
                let x = self.eval(x)?;
                builtins::unary(op, &x)
            }
            Expr::Binary(op, a, b) => {
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                builtins::binary(op, &a, &b)
            }
            Expr::Compare(first, rest) => {
                let mut left = self.eval(first)?;
                for (op, right) in rest {
                    let right = self.eval(right)?;
                    if !builtins::compare(op, &left, &right)? {
                        return Ok(Value::Bool(false));
                    }
                    left = right;
                }
                Ok(Value::Bool(true))
            }
            Expr::And(a, b) => {
                let a = self.eval(a)?;
                if a.truthy() { self.eval(b) } else { Ok(a) }
            }
            Expr::Or(a, b) => {
                let a = self.eval(a)?;
                if a.truthy() { Ok(a) } else { self.eval(b) }
            }
            Expr::Not(a) => Ok(Value::Bool(!self.eval(a)?.truthy())),
            Expr::IfElse(cond, yes, no) => {
                if self.eval(cond)?.truthy() {
                    self.eval(yes)
                } else {
                    self.eval(no)
                }
            }
            Expr::List(items) => {
                let v = items.iter().map(|i| self.eval(i)).collect::<EResult<Vec<_>>>()?;
                Ok(Value::list(v))
            }
            Expr::Tuple(items) => {
                let v = items.iter().map(|i| self.eval(i)).collect::<EResult<Vec<_>>>()?;
                Ok(Value::Tuple(Rc::new(v)))
            }
            Expr::Dict(items) => {
                let mut d = Dict::default();
                for (k, v) in items {
                    let k = self.eval(k)?;
                    builtins::hashable(&k)?;
                    let v = self.eval(v)?;
                    d.insert(k, v);
                }
                Ok(Value::dict(d))
            }
            Expr::ListComp(elt, targets, iter, conds, generator) => {
                let iter = self.eval(iter)?;
                let items = builtins::iterate(&iter)?;
                let mut out = Vec::new();
                let mark = self.locals.len();
                for item in items {
                    self.locals.truncate(mark);
                    bind(&mut self.locals, targets, item)?;
                    let mut keep = true;
                    for c in conds {
                        if !self.eval(c)?.truthy() {
                            keep = false;
                            break;
                        }
                    }
                    if keep {
                        out.push(self.eval(elt)?);
                    }
                }
                self.locals.truncate(mark);
                // A generator is evaluated at once (its items are what any consumer reads).
                Ok(if *generator {
                    Value::Iter(Rc::new(out), "generator")
                } else {
                    Value::list(out)
                })
            }
            Expr::Lambda(def) => Ok(Value::Lambda(Rc::new(Lambda {
                params: def.0.clone(),
                body: def.1.clone(),
                captured: self.locals.clone(),
            }))),
        }
    }

    /// Calls a function value.
    pub fn call(&mut self, f: &Value, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> EResult<Value> {
        match f {
            Value::Func(crate::value::Builtin::Named(name)) => {
                if let Some(x) = name.strip_prefix("xacro.") {
                    return self.env.call_xacro(x, args, kwargs);
                }
                builtins::call(self, name, args, kwargs)
            }
            Value::Method(obj, name) => builtins::method(self, obj, name, args, kwargs),
            Value::Lambda(l) => {
                if !kwargs.is_empty() || args.len() != l.params.len() {
                    return fail(format!(
                        "<lambda>() takes {} positional arguments but {} were given",
                        l.params.len(),
                        args.len()
                    ));
                }
                let saved = std::mem::replace(&mut self.locals, l.captured.clone());
                for (p, a) in l.params.iter().zip(args) {
                    self.locals.push((p.clone(), a));
                }
                let r = self.eval(&l.body);
                self.locals = saved;
                r
            }
            other => fail(format!("'{}' object is not callable", other.type_name())),
        }
    }
}

fn bind(locals: &mut Vec<(String, Value)>, targets: &[String], item: Value) -> EResult<()> {
    if let [one] = targets {
        locals.push((one.clone(), item));
        return Ok(());
    }
    let parts = builtins::iterate(&item)?;
    if parts.len() != targets.len() {
        return fail(format!(
            "not enough values to unpack (expected {}, got {})",
            targets.len(),
            parts.len()
        ));
    }
    for (t, v) in targets.iter().zip(parts) {
        locals.push((t.clone(), v));
    }
    Ok(())
}

/// Parses and evaluates `src` in `env`.
pub(crate) fn evaluate(src: &str, env: &mut dyn Env) -> EResult<Value> {
    let e = parse(src)?;
    Eval {
        env,
        locals: Vec::new(),
        depth: 0,
    }
    .eval(&e)
}

/// The number in `v`, for the numeric built-ins.
pub(crate) fn number_of(v: &Value, what: &str) -> EResult<Num> {
    if let Value::Big(b) = v {
        return crate::bignum::to_f64(b).map(Num::Float);
    }
    v.as_number().map_or_else(
        || fail(format!("must be real number, not {} ({what})", v.type_name())),
        Ok,
    )
}
