//! Every expansion of the reference's own test inputs (xacro 2.1.1's source distribution,
//! `cargo xtask download`), of the field packages (`MBCONV_XACRO_FIELD`, see
//! `golden/field.md`), of `fixtures/xacro` and of the corner probes `tests/corners` against
//! the reference's (xacro 2.1.1, `cargo xtask golden xacro`; the corner probes' with
//! `oracles/xacro/xacro_golden.py`, see `docs/xacro.md`): the same document,
//! compared canonically (elements, attributes, text and comments, whitespace beside elements
//! left out; the reference's banner comment left out).

#![allow(clippy::unwrap_used, missing_docs)]

use mbconv_xml::roxmltree::{Document, Node};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One line per element open and close, attribute set, text and comment.
fn canonical(text: &str) -> Result<Vec<String>, String> {
    let options = mbconv_xml::roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = Document::parse_with_options(text, options).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    walk(doc.root_element(), &mut out);
    Ok(out)
}

fn walk(node: Node, out: &mut Vec<String>) {
    let name = node.tag_name();
    let mut attrs: Vec<String> = node
        .attributes()
        .map(|a| {
            format!(
                "{}{}={:?}",
                a.namespace().map(|n| format!("{{{n}}}")).unwrap_or_default(),
                a.name(),
                a.value()
            )
        })
        .collect();
    attrs.sort();
    out.push(format!(
        "<{}{} {}>",
        name.namespace().map(|n| format!("{{{n}}}")).unwrap_or_default(),
        name.name(),
        attrs.join(" ")
    ));
    for child in node.children() {
        if child.is_element() {
            walk(child, out);
        } else if child.is_text() {
            let t = child.text().unwrap_or("").trim();
            if !t.is_empty() {
                out.push(format!("text {t:?}"));
            }
        } else if child.is_comment() {
            out.push(format!("comment {:?}", child.text().unwrap_or("").trim()));
        }
    }
    out.push(format!("</{}>", name.name()));
}

/// The file and arguments a golden file's name stands for.
fn expansion_of(name: &str) -> (String, BTreeMap<String, String>) {
    let stem = name.trim_end_matches(".xml").trim_end_matches(".error.txt");
    let mut path = Vec::new();
    let mut args = BTreeMap::new();
    for part in stem.split("__") {
        match part.split_once('=') {
            Some((k, v)) => {
                args.insert(k.to_owned(), v.to_owned());
            }
            None => path.push(part),
        }
    }
    (path.join("/"), args)
}

/// Compares every golden expansion in `golden` with mbconv's expansion of the files under
/// `root`; returns the failures.
fn compare(golden: &Path, root: &Path) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(golden)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let root_text = root.display().to_string();
    for expected_path in &entries {
        let name = expected_path.file_name().unwrap().to_str().unwrap();
        let (file, args) = expansion_of(name);
        let settings = mbconv_xacro::Settings {
            args,
            package_path: vec![root.to_path_buf()],
            env: Some(BTreeMap::new()),
        };
        // Named as the reference was given it (relative to `root`, its working directory):
        // `xacro.abs_filename` answers from that name.
        let result = match std::fs::read_to_string(root.join(&file)) {
            Ok(text) => mbconv_xacro::expand_str(&text, &file, &root.join(&file), &settings),
            Err(_) => mbconv_xacro::expand_file(&root.join(&file), &settings),
        };
        let expected = std::fs::read_to_string(expected_path).unwrap();
        if name.ends_with(".error.txt") {
            if let Ok(x) = result {
                failures.push(format!(
                    "{name}: the reference refuses it ({}), mbconv expands it:\n{}",
                    expected.trim(),
                    &x.text[..x.text.len().min(300)]
                ));
            }
            continue;
        }
        let expansion = match result {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: mbconv refuses it: {e}"));
                continue;
            }
        };
        let want = canonical(&expected.replace("@ROOT@", &root_text)).unwrap();
        let got = match canonical(&expansion.text) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{name}: mbconv's expansion is not XML: {e}"));
                continue;
            }
        };
        if want != got {
            let at = want
                .iter()
                .zip(&got)
                .position(|(a, b)| a != b)
                .unwrap_or(want.len().min(got.len()));
            failures.push(format!(
                "{name}: differs at line {at}:\n  reference: {}\n  mbconv:    {}",
                want.get(at).map_or("(end)", String::as_str),
                got.get(at).map_or("(end)", String::as_str)
            ));
        }
    }
    (entries.len(), failures)
}

/// Compares the golden set `name` with mbconv's expansions of the files under `root` and
/// fails with every difference; at least `least` expansions must be compared.
fn assert_expands_as_golden(name: &str, root: &Path, least: usize) {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let (n, failures) = compare(&golden, root);
    assert!(n >= least, "{n} golden expansions in {name}");
    assert!(
        failures.is_empty(),
        "{} of {n} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_references_own_test_inputs_expand_as_the_reference_expands_them() {
    let Some(root) = mbconv_test_support::downloaded("xacro-2.1.1") else {
        return;
    };
    assert_expands_as_golden("xacro-2.1.1", &root, 13);
}

#[test]
fn the_field_packages_expand_as_the_reference_expands_them() {
    let Some(root) = std::env::var_os("MBCONV_XACRO_FIELD") else {
        eprintln!("notice: MBCONV_XACRO_FIELD is not set; the field packages are not compared");
        return;
    };
    assert_expands_as_golden("field", Path::new(&root), 13);
}

#[test]
fn the_fixtures_expand_as_the_reference_expands_them() {
    let root = mbconv_test_support::workspace_root().join("fixtures/xacro");
    assert_expands_as_golden("fixtures", &root, 5);
}

#[test]
fn the_corner_probes_expand_as_the_reference_expands_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corners");
    assert_expands_as_golden("corners", &root, 160);
}
