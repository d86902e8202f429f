//! Verbatim values for format-specific extras.
//!
//! Formats carry keys the IR has no typed home for (a Chrono `collision_family`, a Choreonoid
//! plugin parameter, a DART `<self_collide>`). They are kept here, in source order, so that a
//! same-format round trip loses nothing and a cross-format conversion can report them.

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A JSON-like value tree with ordered maps and distinct integer and float numbers.
///
/// ```
/// use mbconv_ir::Value;
/// let v = Value::Map(vec![("friction".into(), Value::Float(0.5))].into());
/// assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"friction":0.5}"#);
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Value {
    /// No value (`null`, `~`, an empty XML element).
    #[default]
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A string, kept exactly as written (XML text, YAML scalars that are not numbers).
    String(String),
    /// An ordered sequence.
    List(Vec<Value>),
    /// An ordered mapping with string keys.
    Map(ValueMap),
}

/// An ordered string-keyed map. Order is the source order; lookups are linear (maps are small).
///
/// ```
/// use mbconv_ir::{Value, ValueMap};
/// let mut m = ValueMap::default();
/// m.insert("b", Value::Int(1));
/// m.insert("a", Value::Int(2));
/// assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "a"]);
/// assert_eq!(m.get("a"), Some(&Value::Int(2)));
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ValueMap(pub Vec<(String, Value)>);

impl ValueMap {
    /// An empty map.
    pub fn new() -> Self {
        Self(Vec::new())
    }
    /// Inserts or replaces `key`, keeping the position of an existing key.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }
    /// The value stored under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// Removes and returns the value under `key`.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let index = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(index).1)
    }
    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }
    /// Key-value pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// True when the map holds nothing.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Vec<(String, Value)>> for ValueMap {
    fn from(entries: Vec<(String, Value)>) -> Self {
        Self(entries)
    }
}

impl Serialize for ValueMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ValueMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor;
        impl<'de> Visitor<'de> for MapVisitor {
            type Value = ValueMap;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<ValueMap, A::Error> {
                let mut entries = Vec::new();
                while let Some((k, v)) = access.next_entry::<String, Value>()? {
                    entries.push((k, v));
                }
                Ok(ValueMap(entries))
            }
        }
        deserializer.deserialize_map(MapVisitor)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Int(i) => serializer.serialize_i64(*i),
            Value::Float(x) => serializer.serialize_f64(*x),
            Value::String(s) => serializer.serialize_str(s),
            Value::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Map(map) => map.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ValueVisitor;
        impl<'de> Visitor<'de> for ValueVisitor {
            type Value = Value;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_unit<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }
            fn visit_none<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
                Value::deserialize(d)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
                Ok(Value::Bool(b))
            }
            fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
                Ok(Value::Int(i))
            }
            fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Value, E> {
                i64::try_from(u)
                    .map(Value::Int)
                    .map_err(|_| E::custom("integer does not fit in 64 bits"))
            }
            fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
                Ok(Value::Float(x))
            }
            fn visit_str<E>(self, s: &str) -> Result<Value, E> {
                Ok(Value::String(s.to_owned()))
            }
            fn visit_string<E>(self, s: String) -> Result<Value, E> {
                Ok(Value::String(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Value::List(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
                let mut entries = Vec::new();
                while let Some((k, v)) = access.next_entry::<String, Value>()? {
                    entries.push((k, v));
                }
                Ok(Value::Map(ValueMap(entries)))
            }
        }
        deserializer.deserialize_any(ValueVisitor)
    }
}

/// Format-specific data without a typed IR home, kept verbatim.
///
/// Keys are namespaced by format: `"chrono.collision_family"`, `"skel.self_collide"`,
/// `"body.jointId"`. An exporter of the same format writes them back; an exporter of another
/// format reports them as dropped.
///
/// Keys under `"{format}.source."` are **exactness aids**, not data: the values a file wrote
/// (degrees, Euler angles, world points) kept so that the same format can write them back bit
/// for bit when the IR value still matches. Other formats ignore them silently
/// ([`Extras::not_for_format`] leaves them out).
///
/// ```
/// use mbconv_ir::{Extras, Value};
/// let mut extras = Extras::default();
/// extras.insert("skel.self_collide", Value::Bool(true));
/// assert_eq!(extras.for_format("skel").count(), 1);
/// assert_eq!(extras.for_format("chrono").count(), 0);
/// ```
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Extras(pub ValueMap);

impl Extras {
    /// Inserts or replaces a namespaced key.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) {
        self.0.insert(key, value);
    }
    /// The value under a namespaced key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }
    /// Removes a namespaced key.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.0.remove(key)
    }
    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// All entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter()
    }
    /// Entries whose key starts with `"{format}."`, with the prefix removed.
    pub fn for_format<'a>(&'a self, format: &'a str) -> impl Iterator<Item = (&'a str, &'a Value)> {
        self.0.iter().filter_map(move |(k, v)| {
            k.strip_prefix(format)
                .and_then(|rest| rest.strip_prefix('.'))
                .map(|rest| (rest, v))
        })
    }
    /// Entries of every format other than `format`, without exactness aids
    /// (`"{other}.source.…"` keys), i.e. the data another format would lose.
    ///
    /// ```
    /// use mbconv_ir::{Extras, Value};
    /// let mut e = Extras::default();
    /// e.insert("chrono.collision_family", Value::Int(2));
    /// e.insert("chrono.source.orientation", Value::List(vec![]));
    /// e.insert("skel.self_collide", Value::Bool(true));
    /// let foreign: Vec<&str> = e.not_for_format("skel").map(|(k, _)| k).collect();
    /// assert_eq!(foreign, ["chrono.collision_family"]);
    /// ```
    pub fn not_for_format<'a>(&'a self, format: &'a str) -> impl Iterator<Item = (&'a str, &'a Value)> {
        self.0.iter().filter(move |(k, _)| {
            let own = k.strip_prefix(format).is_some_and(|rest| rest.starts_with('.'));
            let aid = k
                .split_once('.')
                .is_some_and(|(_, rest)| rest.starts_with("source."));
            !own && !aid
        })
    }

    /// Removes what other formats own, for a writer of `format`: their data, whose keys are
    /// returned so that the writer reports them as dropped, and their exactness aids
    /// (`<other>.source.*`), removed silently since they only say how another format wrote a
    /// value.
    ///
    /// ```
    /// use mbconv_ir::{Extras, Value};
    /// let mut e = Extras::default();
    /// e.insert("chrono.collision_family", Value::Int(2));
    /// e.insert("chrono.source.orientation", Value::List(vec![]));
    /// e.insert("skel.self_collide", Value::Bool(true));
    /// assert_eq!(e.take_foreign("skel"), ["chrono.collision_family"]);
    /// assert_eq!(e.iter().map(|(k, _)| k).collect::<Vec<_>>(), ["skel.self_collide"]);
    /// ```
    pub fn take_foreign(&mut self, format: &str) -> Vec<String> {
        let foreign: Vec<String> = self.not_for_format(format).map(|(k, _)| k.to_owned()).collect();
        let own_prefix = format!("{format}.");
        self.0.0.retain(|(k, _)| k.starts_with(&own_prefix));
        foreign
    }
}
