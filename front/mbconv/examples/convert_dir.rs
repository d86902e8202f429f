//! Converts every model of a directory to one format and prints what each conversion lost.
//!
//! ```text
//! cargo run -p mbconv --example convert_dir -- fixtures/skel chrono /tmp/out
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, to, out_dir] = args.as_slice() else {
        eprintln!(
            "usage: convert_dir DIR FORMAT OUT_DIR   (FORMAT: chrono, skel, body, shift, urdf, mjcf, sdf, mbir)"
        );
        return ExitCode::from(2);
    };
    let registry = mbconv::formats();
    let Ok(target) = registry.get(to) else {
        eprintln!("unknown format {to}; run `mbconv formats`");
        return ExitCode::from(2);
    };
    let extension = target.info().extensions[0];
    let mut inputs: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(e) => {
            eprintln!("cannot read {dir}: {e}");
            return ExitCode::from(2);
        }
    };
    // Only the files some format reads, in a stable order.
    inputs.retain(|p| p.is_file() && registry.formats().any(|f| f.info().matches_extension(p)));
    inputs.sort();
    if let Err(e) = std::fs::create_dir_all(out_dir) {
        eprintln!("cannot create {out_dir}: {e}");
        return ExitCode::from(2);
    }
    let options = mbconv::Options {
        to: Some(to.clone()),
        // A second run replaces the first one's files.
        force: true,
        ..Default::default()
    };
    let mut failed = 0;
    for input in &inputs {
        let stem = input.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
        let output = Path::new(out_dir).join(format!("{stem}.{extension}"));
        match mbconv::convert(input, &output, &options) {
            Ok(conversion) => {
                let losses: Vec<&mbconv::Finding> = conversion
                    .report
                    .findings
                    .iter()
                    .filter(|f| f.category.is_loss())
                    .collect();
                println!("{}: {} losses", input.display(), losses.len());
                for loss in losses {
                    println!(
                        "    [{}] {}: {}",
                        loss.code,
                        loss.path.as_deref().unwrap_or("model"),
                        loss.message
                    );
                }
            }
            Err(e) => {
                failed += 1;
                println!("{}: failed: {e}", input.display());
            }
        }
    }
    println!("{} files, {failed} failed", inputs.len());
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
