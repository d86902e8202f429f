//! `mbconv formats`.

use mbconv::ir::format::{Registry, SettingSpec};

/// Prints every format with its status and short name, then the `x2y` shortcuts the short
/// names make; with `settings`, each format's read and write settings too.
pub fn list(registry: &Registry, settings: bool) {
    println!(
        "{:<8} {:<11} {:<6} {:<26} description",
        "name", "status", "short", "extensions"
    );
    for f in registry.formats() {
        let info = f.info();
        println!(
            "{:<8} {:<11} {:<6} {:<26} {}",
            info.name,
            "read+write",
            info.shortcut.unwrap_or("-"),
            extensions(info.extensions),
            info.description
        );
        if settings {
            print_settings("read", f.read_settings());
            print_settings("write", &registry.write_settings(f));
        }
    }
    if settings {
        println!("{}", mbconv::xacro::DESCRIPTION);
        print_settings("read", mbconv::xacro::READ_SETTINGS);
    }
    let shortcuts: Vec<String> = registry.shortcuts().into_iter().map(|s| s.name).collect();
    if !shortcuts.is_empty() {
        println!(
            "shortcuts (`mbconv X2Y INPUT [-o OUTPUT]`, X and Y short names): {}",
            shortcuts.join(" ")
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
