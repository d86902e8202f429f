//! `mbconv formats`.

use mbconv_ir::format::{Registry, SettingSpec};

/// Prints every format with its status; with `settings`, each format's read and write
/// settings too.
pub fn list(registry: &Registry, settings: bool) {
    println!("{:<8} {:<11} {:<26} description", "name", "status", "extensions");
    for f in registry.formats() {
        let info = f.info();
        println!(
            "{:<8} {:<11} {:<26} {}",
            info.name,
            "read+write",
            extensions(info.extensions),
            info.description
        );
        if settings {
            print_settings("read", f.read_settings());
            print_settings("write", f.write_settings());
        }
    }
    for info in registry.planned() {
        println!(
            "{:<8} {:<11} {:<26} {}",
            info.name,
            "not built",
            extensions(info.extensions),
            info.description
        );
    }
}

fn print_settings(direction: &str, specs: &[SettingSpec]) {
    if specs.is_empty() {
        println!("    {direction} settings: none");
        return;
    }
    println!("    {direction} settings (--{direction}-option KEY=VALUE):");
    for spec in specs {
        println!(
            "      {}={}  (default: {}) {}",
            spec.name,
            spec.kind.expected(),
            spec.default,
            spec.help
        );
    }
}

fn extensions(exts: &[&str]) -> String {
    exts.iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(" ")
}
