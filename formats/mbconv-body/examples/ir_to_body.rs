//! Writes an IR model (`.mbir.json`) as a Choreonoid body file and prints, as JSON, every IR
//! body's initial world COM, so the result can be compared with what Choreonoid loads:
//! `cargo run -p mbconv-body --example ir_to_body -- MODEL.mbir.json OUT.body`.

use mbconv_body::BodyFormat;
use mbconv_ir::format::{Format, Options};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(input), Some(output)) = (args.get(1), args.get(2)) else {
        return Err("usage: ir_to_body MODEL.mbir.json OUT.body".into());
    };
    let model = mbconv_ir::mbir::from_str(&std::fs::read_to_string(input)?)?;
    let mut options = Options::default();
    options.output_path = Some(output.into());
    let written = BodyFormat.write(&model, &options)?;
    std::fs::write(output, &written.text)?;
    for finding in &written.report.findings {
        eprintln!("{finding}");
    }
    let poses = world_poses(&model, &SpanningTree::new(&model), Configuration::Initial);
    let coms: Vec<String> = model
        .bodies
        .iter()
        .zip(poses)
        .map(|(b, p)| {
            let c = p.transform_point(&b.inertial.com);
            format!("{:?}: [{}, {}, {}]", b.name, c.x, c.y, c.z)
        })
        .collect();
    println!("{{{}}}", coms.join(", "));
    Ok(())
}
