#![allow(clippy::unwrap_used)]
//! Every string YAML 1.1 or 1.2 could read as something else (`mbconv_yaml::emit::AMBIGUOUS_SCALARS`),
//! written by this format as a body name and as a verbatim value, reads back as that same string.

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{Body, Model, Value};
use mbconv_yaml::emit::AMBIGUOUS_SCALARS;

#[test]
fn ambiguous_strings_survive_a_round_trip() {
    let format = mbconv_body::BodyFormat;
    let mut failures = Vec::new();
    for s in AMBIGUOUS_SCALARS {
        let mut model = Model::new("strings");
        let mut body = Body::new(if s.is_empty() { "named" } else { s });
        body.extras.insert("body.note", Value::String((*s).to_owned()));
        model.bodies.push(body);
        let written = format.write(&model, &Options::default()).unwrap();
        let back = format
            .read(
                &Source::from_string("strings.body", written.text.clone()),
                &Options::default(),
            )
            .unwrap()
            .model;
        let name = &back.bodies[0].name;
        let note = back.bodies[0].extras.get("body.note");
        if (!s.is_empty() && name != s) || note != Some(&Value::String((*s).to_owned())) {
            failures.push(format!(
                "{s:?}: read back as name {name:?}, note {note:?} from\n{}",
                written.text
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
