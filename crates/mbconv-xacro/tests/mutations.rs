//! Robustness without cargo-fuzz: every fixture of `fixtures/xacro` and `fixtures/bad/xacro_*`,
//! mutated a few thousand ways (bytes replaced by xacro's own punctuation, spans cut out or
//! doubled, truncations), is expanded or refused, never a panic, each quickly.

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).unwrap()
    }
}

const PIECES: &[&str] = &[
    "$",
    "{",
    "}",
    "(",
    ")",
    "${",
    "$(",
    "$$",
    "<",
    ">",
    "/>",
    "\"",
    "'",
    "*",
    "**",
    "^",
    "^|",
    ":=",
    "=",
    "xacro:",
    "<xacro:if value=\"1\">",
    "</xacro:if>",
    "${a}",
    "$(arg x)",
    "[",
    "]",
    ".",
    "0",
    "1e308",
    "-",
    "//",
    "%",
    "&amp;",
    "<!--",
    "-->",
    " ",
    "\n",
    "lambda",
    "__",
    "9999999999999999999999",
];

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut s = text.to_owned();
    for _ in 0..1 + rng.below(3) {
        let mut at = rng.below(s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        let mut end = (at + rng.below(40)).min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        match rng.below(4) {
            0 => s.replace_range(at..end, PIECES[rng.below(PIECES.len())]),
            1 => s.insert_str(at, PIECES[rng.below(PIECES.len())]),
            2 => {
                let copy = s[at..end].to_owned();
                s.insert_str(at, &copy);
            }
            _ => s.truncate(at),
        }
    }
    s
}

#[test]
fn mutated_fixtures_are_expanded_or_refused_without_a_panic() {
    let root = mbconv_test_support::workspace_root().join("fixtures");
    let mut files: Vec<_> = std::fs::read_dir(root.join("xacro"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xacro"))
        .collect();
    files.extend(
        std::fs::read_dir(root.join("bad"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("xacro_"))
            })
            .filter(|p| !p.to_string_lossy().contains("blowup")),
    );
    files.sort();
    let settings = mbconv_xacro::Settings {
        env: Some(BTreeMap::new()),
        package_path: vec![root.join("xacro")],
        ..Default::default()
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut runs = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for _ in 0..150 {
            let mutated = mutate(&text, &mut rng);
            let start = Instant::now();
            let _ = mbconv_xacro::expand_str(&mutated, "m.urdf.xacro", file, &settings);
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "{} mutated took {:?}:\n{mutated}",
                file.display(),
                start.elapsed()
            );
            runs += 1;
        }
    }
    assert!(runs > 1000);
}
