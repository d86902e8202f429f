//! Reads every `.body` file under a directory and writes it again with mbconv's writer into
//! another directory (same relative paths), so Choreonoid can be asked to load what mbconv
//! writes: `cargo run -p mbconv-body --example write_body -- IN_DIR OUT_DIR`.

use mbconv_body::BodyFormat;
use mbconv_ir::format::{Format, Options, Source};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "body") {
            out.push(path);
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(input), Some(output)) = (args.get(1), args.get(2)) else {
        return Err("usage: write_body IN_DIR OUT_DIR".into());
    };
    let (input, output) = (Path::new(input), Path::new(output));
    let mut all = Vec::new();
    files(input, &mut all);
    all.sort();
    for path in all {
        let target = output.join(path.strip_prefix(input)?);
        std::fs::create_dir_all(target.parent().unwrap_or(output))?;
        let Ok(imported) = BodyFormat.read(&Source::from_path(&path)?, &Options::default()) else {
            eprintln!("skipped (not read): {}", path.display());
            continue;
        };
        let mut options = Options::default();
        options.output_path = Some(target.clone());
        let written = BodyFormat.write(&imported.model, &options)?;
        std::fs::write(&target, written.text)?;
    }
    Ok(())
}
