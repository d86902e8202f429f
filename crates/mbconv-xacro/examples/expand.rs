//! Prints the expansion of a xacro file as mbconv expands it (the command line of `xacro`):
//! `cargo run -p mbconv-xacro --example expand -- FILE [NAME:=VALUE ...]`, packages for
//! `$(find)` from `ROS_PACKAGE_PATH` or `--package-path DIR` (repeatable). Used to compare
//! held-out packages with the reference (`oracles/xacro/heldout.py`). With `--time N` it
//! expands the file N times and prints the median time in milliseconds instead (`cargo xtask
//! bench xacro`).

#![allow(clippy::print_stdout, clippy::print_stderr)]

fn main() {
    let mut settings = mbconv_xacro::Settings::default();
    let mut file = None;
    let mut rounds = 0usize;
    let mut count_files = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--files" {
            count_files = true;
        } else if a == "--time" {
            rounds = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
        } else if a == "--package-path" {
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
    if rounds > 0 {
        let mut times: Vec<f64> = (0..rounds)
            .map(|_| {
                let start = std::time::Instant::now();
                let ok = mbconv_xacro::expand_file(&file, &settings).is_ok();
                let ms = start.elapsed().as_secs_f64() * 1e3;
                if !ok {
                    eprintln!("{}: refused", file.display());
                    std::process::exit(3);
                }
                ms
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!("{:.3}", times[times.len() / 2]);
        return;
    }
    match mbconv_xacro::expand_file(&file, &settings) {
        Ok(x) if count_files => {
            let mut files = x.files.clone();
            files.sort();
            files.dedup();
            println!("{}", files.len());
        }
        Ok(x) => print!("{}", x.text),
        Err(e) => {
            println!("ERROR: {e}");
            std::process::exit(3);
        }
    }
}
