//! Writes every fixture MuJoCo judges the writer on as MJCF, for `cargo xtask golden mjcf`:
//! `cargo run -p mbconv-mjcf --example write_mjcf -- OUTDIR` writes
//! `OUTDIR/<fixture directory>__<file>.xml` for every fixture of `fixtures/mjcf` (read, then
//! written) and of `fixtures/ir`, `fixtures/skel` and `fixtures/chrono` (read by their formats,
//! then written), the same texts `tests/golden.rs` writes and checks against the golden data.

use std::path::PathBuf;

#[path = "../tests/support/written.rs"]
mod written;
use written::written;

fn main() -> std::io::Result<()> {
    let Some(dir) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: write_mjcf OUTDIR");
        std::process::exit(2);
    };
    std::fs::create_dir_all(&dir)?;
    for (name, text) in written() {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}
