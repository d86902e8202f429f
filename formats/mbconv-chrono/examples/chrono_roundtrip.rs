//! Reads a Chrono YAML file and prints the IR summary, the report and the file written back.
//!
//! `cargo run -p mbconv-chrono --example chrono_roundtrip -- FILE [key=value …]`

use mbconv_chrono::ChronoFormat;
use mbconv_ir::format::{Format, Options, Source};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: chrono_roundtrip FILE [key=value ...]");
        std::process::exit(2);
    };
    let mut options = Options::default();
    for kv in args {
        if let Some((k, v)) = kv.split_once('=') {
            options.set(k, v);
        }
    }
    let source = match Source::from_path(std::path::Path::new(&path)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let imported = match ChronoFormat.read(&source, &options) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    if std::env::var_os("MBIR").is_some() {
        println!("{}", mbconv_ir::mbir::to_string(&imported.model));
    }
    for f in &imported.report.findings {
        let at = f
            .span
            .as_ref()
            .map(|s| format!("{}:{}: ", s.line, s.column))
            .unwrap_or_default();
        eprintln!("read: {at}{f}");
    }
    match ChronoFormat.write(&imported.model, &options) {
        Ok(out) => {
            for f in &out.report.findings {
                eprintln!("write: {f}");
            }
            print!("{}", out.text);
            for c in out.companions {
                println!("--- {}\n{}", c.file_name, c.text);
            }
        }
        Err(e) => eprintln!("{e}"),
    }
}
