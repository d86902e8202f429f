//! Reads every SKEL XML file under INPUT_DIR with mbconv and writes it back out as SKEL under
//! OUTPUT_DIR (same relative paths), for loading the written files with DART
//! (`oracles/dart/dart_golden.py --prefix written`). Mesh references that resolved are written
//! as absolute paths so the files load from any directory. Files mbconv refuses (the legacy
//! text format) are listed and skipped.
//!
//! ```text
//! cargo run -p mbconv-skel --example write_skel -- ../shared/corpus/skel /tmp/skel-written
//! ```

use mbconv_ir::Geometry;
use mbconv_ir::format::{Format, Options, Source};
use mbconv_skel::SkelFormat;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn skel_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            skel_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "skel") {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: write_skel INPUT_DIR OUTPUT_DIR");
        return ExitCode::from(2);
    };
    let (input, output) = (Path::new(input), Path::new(output));
    let mut files = Vec::new();
    if let Err(e) = skel_files(input, &mut files) {
        eprintln!("{}: {e}", input.display());
        return ExitCode::from(2);
    }
    files.sort();
    let mut written = 0;
    for path in files {
        let relative = path.strip_prefix(input).unwrap_or(&path);
        let source = match Source::from_path(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                continue;
            }
        };
        let mut imported = match SkelFormat.read(&source, &Options::default()) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("skipped: {e}");
                continue;
            }
        };
        for body in &mut imported.model.bodies {
            for shape in &mut body.shapes {
                if let Geometry::Mesh(mesh) = &mut shape.geometry
                    && let Some(resolved) = &mesh.resolved_path
                    && let Ok(absolute) = std::fs::canonicalize(resolved)
                {
                    mesh.uri = absolute.display().to_string();
                }
            }
        }
        let exported = match SkelFormat.write(&imported.model, &Options::default()) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("{}: cannot write: {e}", path.display());
                continue;
            }
        };
        let target = output.join(relative);
        if let Some(dir) = target.parent()
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            eprintln!("{}: {e}", dir.display());
            return ExitCode::from(2);
        }
        if let Err(e) = std::fs::write(&target, exported.text) {
            eprintln!("{}: {e}", target.display());
            return ExitCode::from(2);
        }
        written += 1;
    }
    eprintln!("wrote {written} SKEL files to {}", output.display());
    ExitCode::SUCCESS
}
