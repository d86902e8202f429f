//! `mbconv formats`.

use mbconv_ir::format::Registry;

/// Prints every format with its status.
pub fn list(registry: &Registry) {
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

fn extensions(exts: &[&str]) -> String {
    exts.iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(" ")
}
