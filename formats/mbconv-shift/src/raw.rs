//! The JSON document as read: every value with its byte span, object members in file order.
//!
//! A small hand-written scanner, because errors must name line and column and because real
//! Shift files are not strict JSON: `//` and `/* */` comments and trailing commas are accepted
//! and listed in [`Document::leniencies`]. Nesting deeper than [`MAX_DEPTH`] is refused at once,
//! so a file of 100 000 nested arrays fails fast instead of exhausting the stack.

/// The deepest nesting of arrays and objects accepted.
pub(crate) const MAX_DEPTH: usize = 128;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// A number and whether it was written without fraction or exponent.
    Number(f64, bool),
    String(String),
    Array(Vec<Node>),
    Object(Vec<Member>),
}

/// A value and where it is: `offset..offset + length` bytes of the text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub value: Json,
    pub offset: usize,
    pub length: usize,
}

/// One `"key": value` of an object.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Member {
    pub key: String,
    pub key_offset: usize,
    pub value: Node,
}

/// What is not strict JSON but accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leniency {
    Comment,
    TrailingComma,
}

/// A parsed file.
#[derive(Debug)]
pub(crate) struct Document {
    pub root: Node,
    /// Comments and trailing commas, with their offsets, in file order.
    pub leniencies: Vec<(usize, Leniency)>,
}

/// Why the text is not JSON: a message and the byte offset it concerns.
#[derive(Debug, PartialEq)]
pub(crate) struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

impl Node {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Json::Object(members) => members.iter().find(|m| m.key == key).map(|m| &m.value),
            _ => None,
        }
    }
    /// The members of an object (none for other values).
    pub fn members(&self) -> &[Member] {
        match &self.value {
            Json::Object(members) => members,
            _ => &[],
        }
    }
    /// The items of an array.
    pub fn items(&self) -> Option<&[Node]> {
        match &self.value {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }
    /// The number, when this is one.
    pub fn number(&self) -> Option<f64> {
        match self.value {
            Json::Number(x, _) => Some(x),
            _ => None,
        }
    }
    /// The string, when this is one.
    pub fn str(&self) -> Option<&str> {
        match &self.value {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
    /// The boolean, when this is one.
    pub fn bool(&self) -> Option<bool> {
        match self.value {
            Json::Bool(b) => Some(b),
            _ => None,
        }
    }
    /// True for `null`.
    pub fn is_null(&self) -> bool {
        self.value == Json::Null
    }
    /// A short name of the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self.value {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(..) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

/// Parses `text`.
pub(crate) fn parse(text: &str) -> Result<Document, SyntaxError> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        leniencies: Vec::new(),
    };
    parser.skip_space()?;
    let root = parser.value(0)?;
    parser.skip_space()?;
    if parser.pos < parser.bytes.len() {
        return Err(parser.error("unexpected text after the end of the JSON value"));
    }
    Ok(Document {
        root,
        leniencies: parser.leniencies,
    })
}

struct Parser<'t> {
    bytes: &'t [u8],
    text: &'t str,
    pos: usize,
    leniencies: Vec<(usize, Leniency)>,
}

impl Parser<'_> {
    fn error(&self, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            offset: self.pos,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_space(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') => {
                    let start = self.pos;
                    match self.bytes.get(self.pos + 1) {
                        Some(b'/') => {
                            while self.peek().is_some_and(|b| b != b'\n') {
                                self.pos += 1;
                            }
                        }
                        Some(b'*') => {
                            let Some(end) = self.text[self.pos + 2..].find("*/") else {
                                return Err(self.error("unterminated /* comment"));
                            };
                            self.pos += 2 + end + 2;
                        }
                        _ => return Err(self.error("expected a value, found '/'")),
                    }
                    self.leniencies.push((start, Leniency::Comment));
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        let offset = self.pos;
        let value = match self.peek() {
            None => return Err(self.error("unexpected end of the file, expected a value")),
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Json::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => {
                if let Some(json) = self.literal() {
                    json
                } else if let Some(message) = self.not_a_json_number() {
                    return Err(self.error(message));
                } else {
                    return Err(
                        self.error("expected a value (object, array, string, number, true, false or null)")
                    );
                }
            }
        };
        Ok(Node {
            value,
            offset,
            length: self.pos - offset,
        })
    }

    /// What is wrong with a number spelling JSON does not have (`+1`, `.5`, `Infinity`, `NaN`,
    /// as Python's `json` writes non-finite floats), when the text here starts with one.
    fn not_a_json_number(&self) -> Option<String> {
        let rest = &self.bytes[self.pos..];
        for word in ["Infinity", "NaN"] {
            if rest.starts_with(word.as_bytes()) {
                return Some(format!(
                    "`{word}` is not a JSON number (Python's json writes it for a non-finite float); \
                     no Shift number can be infinite or NaN"
                ));
            }
        }
        match rest {
            [b'+', ..] => Some("a JSON number has no leading `+`".to_owned()),
            [b'.', d, ..] if d.is_ascii_digit() => {
                Some("a JSON number starts with a digit (write `0.5`, not `.5`)".to_owned())
            }
            _ => None,
        }
    }

    fn literal(&mut self) -> Option<Json> {
        for (word, json) in [
            ("true", Json::Bool(true)),
            ("false", Json::Bool(false)),
            ("null", Json::Null),
        ] {
            if self.bytes[self.pos..].starts_with(word.as_bytes()) {
                self.pos += word.len();
                return Some(json);
            }
        }
        None
    }

    fn enter(&self, depth: usize) -> Result<usize, SyntaxError> {
        if depth >= MAX_DEPTH {
            return Err(self.error(format!("arrays and objects nested more than {MAX_DEPTH} deep")));
        }
        Ok(depth + 1)
    }

    fn array(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        let depth = self.enter(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_space()?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.skip_space()?;
            match self.peek() {
                Some(b',') => {
                    let comma = self.pos;
                    self.pos += 1;
                    self.skip_space()?;
                    if self.peek() == Some(b']') {
                        self.leniencies.push((comma, Leniency::TrailingComma));
                        self.pos += 1;
                        return Ok(Json::Array(items));
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected ',' or ']' in an array")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        let depth = self.enter(depth)?;
        self.pos += 1;
        let mut members: Vec<Member> = Vec::new();
        self.skip_space()?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(members));
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a key in double quotes"));
            }
            let key_offset = self.pos;
            let key = self.string()?;
            if members.iter().any(|m| m.key == key) {
                return Err(SyntaxError {
                    offset: key_offset,
                    message: format!("duplicate key {key:?}"),
                });
            }
            self.skip_space()?;
            if self.peek() != Some(b':') {
                return Err(self.error("expected ':' after the key"));
            }
            self.pos += 1;
            self.skip_space()?;
            let value = self.value(depth)?;
            members.push(Member {
                key,
                key_offset,
                value,
            });
            self.skip_space()?;
            match self.peek() {
                Some(b',') => {
                    let comma = self.pos;
                    self.pos += 1;
                    self.skip_space()?;
                    if self.peek() == Some(b'}') {
                        self.leniencies.push((comma, Leniency::TrailingComma));
                        self.pos += 1;
                        return Ok(Json::Object(members));
                    }
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.error("expected ',' or '}' in an object")),
            }
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.pos..];
            let Some(c) = rest.chars().next() else {
                self.pos = start;
                return Err(self.error("unterminated string"));
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                '\\' => {
                    self.pos += 1;
                    let escaped = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let code = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&code)
                                && self.bytes[self.pos + 1..].starts_with(b"\\u")
                            {
                                self.pos += 2;
                                let low = self.hex4()?;
                                0x10000 + ((code - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                code
                            };
                            char::from_u32(code).ok_or_else(|| self.error("invalid \\u escape"))?
                        }
                        _ => return Err(self.error("invalid escape in a string")),
                    };
                    self.pos += 1;
                    out.push(escaped);
                }
                c if (c as u32) < 0x20 => return Err(self.error("control character in a string")),
                c => {
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// Reads the four hex digits after `\u`; leaves `pos` on the last digit.
    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let digits = self
            .text
            .get(self.pos + 1..self.pos + 5)
            .ok_or_else(|| self.error("expected four hex digits after \\u"))?;
        let code =
            u32::from_str_radix(digits, 16).map_err(|_| self.error("expected four hex digits after \\u"))?;
        self.pos += 4;
        Ok(code)
    }

    fn number(&mut self) -> Result<Json, SyntaxError> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.pos += 1;
            }
            p.pos > from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if let Some(message) = self.not_a_json_number() {
                return Err(self.error(message));
            }
        }
        let first = self.pos;
        if !digits(self) {
            return Err(self.error("expected digits in a number"));
        }
        if self.pos - first > 1 && self.bytes[first] == b'0' {
            return Err(SyntaxError {
                offset: start,
                message: format!(
                    "a JSON number has no leading zero ({:?})",
                    &self.text[start..self.pos]
                ),
            });
        }
        if matches!(self.peek(), Some(b'x' | b'X')) && self.pos - first == 1 {
            return Err(self.error("a JSON number is decimal (no hexadecimal)"));
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.pos += 1;
            if !digits(self) {
                return Err(self.error("expected digits after the decimal point"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.error("expected digits in the exponent"));
            }
        }
        let text = &self.text[start..self.pos];
        let x: f64 = text.parse().map_err(|_| SyntaxError {
            offset: start,
            message: format!("invalid number {text:?}"),
        })?;
        if !x.is_finite() {
            return Err(SyntaxError {
                offset: start,
                message: format!("number {text:?} is out of the range of a double"),
            });
        }
        Ok(Json::Number(x, integer))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reads_comments_and_trailing_commas_and_lists_them() {
        let doc = parse("// head\n{\"a\": [1, 2.5e1,], /* b */ \"b\": \"x\\u00e9\",}").unwrap();
        assert_eq!(
            doc.root.get("a").unwrap().items().unwrap()[1].number(),
            Some(25.0)
        );
        assert_eq!(doc.root.get("b").unwrap().str(), Some("xé"));
        let kinds: Vec<_> = doc.leniencies.iter().map(|(_, k)| *k).collect();
        assert_eq!(
            kinds,
            [
                Leniency::Comment,
                Leniency::TrailingComma,
                Leniency::Comment,
                Leniency::TrailingComma
            ]
        );
    }

    #[test]
    fn deep_nesting_fails_fast() {
        let text = "[".repeat(100_000);
        let err = parse(&text).unwrap_err();
        assert_eq!(err.offset, MAX_DEPTH);
    }

    #[test]
    fn malformed_input_names_the_offset() {
        assert_eq!(parse("{\"a\" 1}").unwrap_err().offset, 5);
        assert_eq!(parse("[1, 2").unwrap_err().offset, 5);
        assert!(
            parse("{\"a\": 1, \"a\": 2}")
                .unwrap_err()
                .message
                .contains("duplicate")
        );
        assert!(parse("[1e999]").is_err());
    }
}
