//! Several `<worldbody>` elements in one file (a scene and the robot it includes each have one,
//! or a file that repeats the section): MuJoCo merges them into its one world body, and so does
//! the reader, into one fixed body named `worldbody`, without renaming anything.
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_mjcf::MjcfFormat;

#[test]
fn every_worldbody_is_read_into_one_world_body_without_renaming() {
    let text = r#"<mujoco model="scene">
      <worldbody>
        <light name="spot" pos="0 0 2"/>
        <body name="arm"><joint type="hinge"/><geom size="0.1" mass="1"/></body>
      </worldbody>
      <worldbody>
        <geom name="floor" type="plane" size="1 1 0.1"/>
        <light name="sun" pos="0 0 3"/>
      </worldbody>
    </mujoco>"#;
    let imported = MjcfFormat
        .read(&Source::from_string("scene.xml", text), &Options::default())
        .unwrap();
    let worlds: Vec<&mbconv_ir::Body> = imported
        .model
        .bodies
        .iter()
        .filter(|b| b.extras.get("mjcf.worldbody").is_some())
        .collect();
    assert_eq!(worlds.len(), 1, "{:?}", imported.model.bodies);
    assert_eq!(worlds[0].name, "worldbody");
    assert_eq!(worlds[0].shapes.len(), 1);
    match worlds[0].extras.get("mjcf.kept") {
        Some(mbconv_ir::Value::List(kept)) => assert_eq!(kept.len(), 2, "both lights kept"),
        other => panic!("{other:?}"),
    }
    assert!(
        !imported.report.contains("name.renamed"),
        "{:#?}",
        imported.report.findings
    );
}
