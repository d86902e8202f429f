#![allow(clippy::unwrap_used)]
//! Every string YAML 1.1 or 1.2 could read as something else
//! (`mbconv_yaml::emit::AMBIGUOUS_SCALARS`), written by each YAML format as a body name and as a
//! verbatim value of the format's own, reads back through that format's reader as the same
//! string.

use mbconv::ir::format::{Options, Source};
use mbconv::ir::{Body, Model, Value};
use mbconv_yaml::emit::AMBIGUOUS_SCALARS;

#[test]
fn ambiguous_strings_survive_a_round_trip_through_each_yaml_format() {
    let registry = mbconv::formats();
    let mut failures = Vec::new();
    for (name, file) in [("chrono", "strings.yaml"), ("body", "strings.body")] {
        let format = registry.get(name).unwrap();
        let key = format!("{name}.note");
        for s in AMBIGUOUS_SCALARS {
            let mut model = Model::new("strings");
            let mut body = Body::new(if s.is_empty() { "named" } else { s });
            body.extras.insert(key.clone(), Value::String((*s).to_owned()));
            model.bodies.push(body);
            let written = format.write(&model, &Options::default()).unwrap();
            let back = format
                .read(
                    &Source::from_string(file, written.text.clone()),
                    &Options::default(),
                )
                .unwrap()
                .model;
            let body = &back.bodies[0].name;
            let note = back.bodies[0].extras.get(&key);
            if (!s.is_empty() && body != s) || note != Some(&Value::String((*s).to_owned())) {
                failures.push(format!(
                    "{name}: {s:?} read back as name {body:?}, note {note:?} from\n{}",
                    written.text
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
