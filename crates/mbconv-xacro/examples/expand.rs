//! Prints the expansion of a xacro file as mbconv expands it (the command line of `xacro`):
//! `cargo run -p mbconv-xacro --example expand -- FILE [NAME:=VALUE ...]`, packages for
//! `$(find)` from `ROS_PACKAGE_PATH` or `--package-path DIR` (repeatable). Used to compare
//! held-out packages with the reference (`oracles/xacro/heldout.py`).

#![allow(clippy::print_stdout, clippy::print_stderr)]

fn main() {
    let mut settings = mbconv_xacro::Settings::default();
    let mut file = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--package-path" {
            settings.package_path.extend(args.next().map(Into::into));
        } else if let Some((k, v)) = a.split_once(":=") {
            settings.args.insert(k.to_owned(), v.to_owned());
        } else {
            file = Some(std::path::PathBuf::from(a));
        }
    }
    let Some(file) = file else {
        eprintln!("usage: expand FILE [NAME:=VALUE ...] [--package-path DIR]");
        std::process::exit(2);
    };
    match mbconv_xacro::expand_file(&file, &settings) {
        Ok(x) => print!("{}", x.text),
        Err(e) => {
            println!("ERROR: {e}");
            std::process::exit(3);
        }
    }
}
