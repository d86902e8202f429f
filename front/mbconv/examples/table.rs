//! Prints every model's bodies, joints and degrees of freedom as a table.
//!
//! ```text
//! cargo run -p mbconv --example table -- fixtures/skel/*.skel fixtures/body/arm.body
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: table MODEL...");
        return ExitCode::from(2);
    }
    println!(
        "{:<48} {:>6} {:>6} {:>4} {:>5}",
        "model", "bodies", "joints", "dof", "loops"
    );
    let mut failed = false;
    for path in &paths {
        match mbconv::read(path) {
            Ok(read) => {
                let summary = mbconv::ModelSummary::new(&read.model);
                println!(
                    "{:<48} {:>6} {:>6} {:>4} {:>5}",
                    path,
                    summary.bodies.len(),
                    summary.joints.len(),
                    summary.dof_total,
                    summary.loop_count
                );
            }
            Err(e) => {
                failed = true;
                println!("{path:<48} cannot read: {e}");
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
