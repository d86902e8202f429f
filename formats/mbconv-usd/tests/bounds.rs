//! Generated stages at the reader's bounds: wide ones (thousands of bodies and joints) read in
//! time linear in their size; prims nested past `MAX_PRIM_DEPTH` (256) are refused, located,
//! instead of running for minutes or overflowing the stack; a prim inheriting what its
//! ancestor's inherit already brings it (the pattern of Newton's `ant_multi.usda`, which the
//! `openusd` crate composes without end) is composed once, as OpenUSD composes it.
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_usd::UsdFormat;
use std::fmt::Write;

const HEADER: &str = "#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = \"Z\"\n)\n";

fn body(name: &str, depth: usize) -> String {
    let pad = "    ".repeat(depth);
    format!(
        "{pad}def Xform \"{name}\" (\n{pad}    prepend apiSchemas = [\"PhysicsRigidBodyAPI\"]\n{pad})\n{pad}{{\n{pad}    float physics:mass = 1\n{pad}}}\n"
    )
}

/// A body under `depth` nested Xforms.
fn deep(depth: usize) -> String {
    let mut text = HEADER.to_owned();
    for i in 0..depth {
        let pad = "    ".repeat(i);
        let _ = write!(text, "{pad}def Xform \"x{i}\"\n{pad}{{\n");
    }
    text.push_str(&body("bob", depth));
    for i in (0..depth).rev() {
        let _ = writeln!(text, "{}}}", "    ".repeat(i));
    }
    text
}

fn read(name: &str, text: String) -> Result<mbconv_ir::Model, String> {
    UsdFormat
        .read(&Source::from_string(name, text), &Options::default())
        .map(|i| i.model)
        .map_err(|e| e.to_string())
}

#[test]
fn a_wide_chain_of_thousands_of_bodies_reads() {
    let n = 3000;
    let mut text = format!("{HEADER}def Xform \"W\"\n{{\n");
    for i in 0..n {
        text.push_str(&body(&format!("b{i}"), 1));
    }
    for i in 1..n {
        let _ = writeln!(
            text,
            "    def PhysicsRevoluteJoint \"j{i}\"\n    {{\n        rel physics:body0 = </W/b{}>\n        rel physics:body1 = </W/b{i}>\n    }}",
            i - 1
        );
    }
    text.push_str("}\n");
    let model = read("wide.usda", text).unwrap();
    assert_eq!((model.bodies.len(), model.joints.len()), (n, n - 1));
}

#[test]
fn nesting_is_read_to_a_bound_and_refused_past_it() {
    let model = read("deep.usda", deep(100)).unwrap();
    assert_eq!(model.bodies.len(), 1);
    // past the bound in the specs: refused before composition, naming the prim
    let error = read("deeper.usda", deep(260)).unwrap_err();
    assert!(error.contains("more than 256 levels deep"), "{error}");
    assert!(error.contains("/x0/x1/"), "{error}");
    assert!(error.contains("deeper.usda:"), "located: {error}");
    // far past it: refused before parsing (the parser recurses per block)
    let error = read("deepest.usda", deep(2000)).unwrap_err();
    assert!(error.contains("nested more than 272 levels deep"), "{error}");
    assert!(error.contains("deepest.usda:551:"), "located: {error}");
}

/// `World/env_0` with a rigid body `Robot`, and `env_1`..`env_3` inheriting `env_0`, each with
/// an `over "Robot"` that also inherits `</World/env_0/Robot>` (stated by `robot_arc`), the
/// pattern of Newton's `ant_multi.usda`; `env_1`'s metadata first states `env_1_metadata`.
fn environments(robot_arc: &str, env_1_metadata: &str) -> String {
    let mut text = format!("{HEADER}def Xform \"World\"\n{{\n    def Xform \"env_0\"\n    {{\n");
    text.push_str(&body("Robot", 2));
    text.push_str("    }\n");
    for k in 1..4 {
        let extra = if k == 1 { env_1_metadata } else { "" };
        let _ = write!(
            text,
            "    def Xform \"env_{k}\" (\n        {extra}prepend inherits = </World/env_0>\n    )\n    {{\n        over \"Robot\" (\n            {robot_arc}\n        )\n        {{\n            float physics:mass = {k}\n        }}\n    }}\n"
        );
    }
    text.push_str("}\n");
    text
}

#[test]
fn a_prim_inheriting_what_its_ancestor_brings_it_is_composed_once_not_a_stack_overflow() {
    // The arc as Newton's ant_multi.usda states it, alone, in a list, twice, relative: the
    // reader leaves it out (OpenUSD composes it once) and reads the four robots with each
    // environment's own mass over the class's.
    for arc in [
        "prepend inherits = </World/env_0/Robot>",
        "inherits = [</World/env_0/Robot>]",
        "prepend inherits = [</World/env_0/Robot>, </World/env_0/Robot>]",
        "prepend inherits = <../../env_0/Robot>",
    ] {
        let imported = UsdFormat
            .read(
                &Source::from_string("multi.usda", environments(arc, "")),
                &Options::default(),
            )
            .unwrap_or_else(|e| panic!("{arc}: {e}"));
        let masses: Vec<f64> = imported.model.bodies.iter().map(|b| b.inertial.mass).collect();
        assert_eq!(masses, [1.0, 1.0, 2.0, 3.0], "{arc}");
        let notes: Vec<&str> = imported
            .report
            .findings
            .iter()
            .filter(|f| f.code == "usd.inherit_redundant")
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(notes.len(), 3, "{arc}: {notes:?}");
        assert!(
            notes[0].starts_with("/World/env_1/Robot: it inherits /World/env_0/Robot, which its ancestor /World/env_1 already brings it"),
            "{notes:?}"
        );
    }
    // A statement the reader does not find where the prim is written (here the quoted name
    // `"Robot"` first appears in env_1's metadata): refused, located, as before.
    let text = environments(
        "prepend inherits = </World/env_0/Robot>",
        "doc = \"Robot\"\n        ",
    );
    let error = read("multi.usda", text).unwrap_err();
    assert!(error.contains("composes it without end"), "{error}");
    assert!(error.contains("multi.usda:"), "located: {error}");
    assert!(
        error.contains("/World/env_1/Robot: it inherits /World/env_0/Robot"),
        "{error}"
    );
}

/// A stage whose `Collision` prim carries `name` and whose joint targets `target`.
fn named(name: &str, target: &str) -> String {
    format!(
        "{HEADER}def Xform \"W\"\n{{\n{}    def PhysicsCollisionGroup \"{name}\"\n    {{\n    }}\n    def PhysicsRevoluteJoint \"j\"\n    {{\n        rel physics:body1 = <{target}>\n    }}\n}}\n",
        body("bob", 1)
    )
}

#[test]
fn ill_formed_prim_names_and_paths_are_refused_not_a_stack_overflow() {
    // The pattern a fuzzer found: a quote left open swallows lines, so a prim's name holds `}`
    // and `/`; the `openusd` crate cannot walk up from such a path and recursed until the
    // stack overflowed (an abort). Refused at the quoted name instead.
    let text = named("grip\n        }\n    }\n\n    def Xfpers", "/W/bob");
    let error = read("name.usda", text).unwrap_err();
    assert!(error.contains("not an identifier"), "{error}");
    assert!(error.contains("name.usda:14:31:"), "located: {error}");
    for target in ["/W/bob}", "/W/bob }", "/W//bob", "/W/bob."] {
        let error = read("target.usda", named("grip", target)).unwrap_err();
        assert!(error.contains("not a well-formed USD path"), "{target}: {error}");
        assert!(error.contains("target.usda:19:29:"), "{target}: located: {error}");
    }
    // well-formed names and paths read
    let model = read("fine.usda", named("grip", "/W/bob")).unwrap();
    assert_eq!(model.bodies.len(), 1);
}

#[test]
fn an_ill_formed_name_in_a_referenced_layer_is_refused_too() {
    let dir = std::env::temp_dir().join(format!("mbconv-usd-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let payload = named("grip }", "/W/bob");
    std::fs::write(dir.join("physics.usda"), payload).unwrap();
    let root = format!("{HEADER}def Xform \"R\" (\n    prepend payload = @./physics.usda@</W>\n)\n{{\n}}\n");
    let path = dir.join("root.usda");
    std::fs::write(&path, &root).unwrap();
    let source = Source::from_path(&path).unwrap();
    let error = UsdFormat
        .read(&source, &Options::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(error.contains("physics.usda: line 14: the prim name"), "{error}");
}
