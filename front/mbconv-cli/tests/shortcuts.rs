//! The `x2y` shortcuts come from the registry: a format that registers a short name gets its
//! shortcuts in the parser, its help and `mbconv formats` with no change to the CLI.
#![allow(clippy::unwrap_used)]

use mbconv::ir::format::kit::Tracing;
use mbconv::ir::format::{Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, Source};
use mbconv::{Category, Finding, Model, Report, Severity};
use mbconv_cli::cli::{Invocation, parse_from};

/// A toy format: a file holds `toy <model name>` and nothing else.
struct Toy;

const TOY: FormatInfo = FormatInfo {
    name: "toy",
    aliases: &[],
    extensions: &["toy"],
    description: "a model's name, and nothing else",
    shortcut: Some("toy"),
    read_settings: &[],
    write_settings: &[],
    features: &[],
};

impl Format for Toy {
    fn info(&self) -> &FormatInfo {
        &TOY
    }
    fn sniff(&self, text: &str) -> bool {
        text.starts_with("toy ")
    }
    fn read(&self, source: &Source, _: &Options) -> Result<Imported, FormatError> {
        let name = source.text.strip_prefix("toy ").unwrap_or_default().trim();
        Ok(Imported {
            model: Model::new(name),
            report: Report::default(),
            source_map: Default::default(),
            source_map_file: None,
        })
    }
    fn lower_with(&self, model: &Model, _: &Options, tracing: Tracing) -> Result<Lowered, FormatError> {
        let mut report = Report::default();
        if !model.bodies.is_empty() {
            report.push(Finding::new(
                "toy.bodies_lost",
                Severity::Warning,
                Category::Dropped,
                "a toy file holds the model's name only",
            ));
        }
        Ok(Lowered::as_one_pass(
            model,
            Model::new(&model.name),
            report,
            tracing,
        ))
    }
    fn emit(&self, lowered: &Model, _: &Options) -> Result<Exported, FormatError> {
        Ok(Exported::text(
            format!("toy {}\n", lowered.name),
            Report::default(),
        ))
    }
}

fn registry_with_toy() -> mbconv::Registry {
    let mut registry = mbconv::formats();
    registry.register(Box::new(Toy));
    registry
}

#[test]
fn a_registered_format_gets_its_shortcuts_in_the_parser() {
    let registry = registry_with_toy();
    for (name, from, to) in [
        ("toy2skel", "toy", "skel"),
        ("skel2toy", "skel", "toy"),
        ("toy2json", "toy", "shift"),
        ("yaml2toy", "chrono", "toy"),
    ] {
        let parsed = parse_from(&registry, ["mbconv", name, "in.model", "-o", "out.model", "-q"]).unwrap();
        let Invocation::Shortcut {
            shortcut,
            args,
            quiet,
            verbose,
        } = parsed
        else {
            panic!("{name} is not parsed as a shortcut");
        };
        assert_eq!((shortcut.from, shortcut.to), (from, to), "{name}");
        assert_eq!(args.input, std::path::Path::new("in.model"));
        assert_eq!(args.output.as_deref(), Some(std::path::Path::new("out.model")));
        assert!(quiet && !verbose);
    }
    // Without the toy format, the same command line is refused.
    let err = parse_from(&mbconv::formats(), ["mbconv", "toy2skel", "in.model"]).unwrap_err();
    assert_eq!(err.kind(), clap::error::ErrorKind::InvalidSubcommand);
}

/// A registered format's shortcuts are commands of the parser, hidden from the help's list
/// (the help describes them in one line).
#[test]
fn a_registered_format_gets_its_shortcuts_as_commands_hidden_from_the_help() {
    let registry = registry_with_toy();
    let mut command = mbconv_cli::cli::command(&registry);
    let help = command.render_help().to_string();
    for name in ["toy2skel", "skel2toy", "toy2body", "json2toy"] {
        let shortcut = command.find_subcommand(name);
        assert!(shortcut.is_some_and(clap::Command::is_hide_set), "{name}");
        assert!(!help.contains(name), "--help lists {name} one by one:\n{help}");
    }
    // The built-in commands are still there, and a shortcut takes the conversion flags.
    assert!(help.contains("convert"));
    let parsed = parse_from(
        &registry,
        ["mbconv", "toy2yaml", "a.toy", "--strict", "--no-check"],
    )
    .unwrap();
    let Invocation::Shortcut { args, .. } = parsed else {
        panic!("toy2yaml is not parsed as a shortcut");
    };
    assert!(args.flags.strict && args.flags.no_check);
}

/// `mbconv formats` lists every shortcut; `mbconv --help` says how they are formed and where
/// they are listed, in one line, and `mbconv X2Y --help` answers for each.
#[test]
fn the_formats_command_lists_every_shortcut_of_the_build_and_the_help_points_to_it() {
    let registry = mbconv::formats();
    let names: Vec<String> = registry.shortcuts().into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"skel2yaml".to_owned()) && names.contains(&"json2body".to_owned()));
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mbconv"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (formats, help) = (run(&["formats"]), run(&["--help"]));
    for name in &names {
        assert!(
            formats.contains(name.as_str()),
            "`mbconv formats` does not list {name}:\n{formats}"
        );
        assert!(
            run(&[name.as_str(), "--help"]).contains("shortcut"),
            "`mbconv {name} --help` does not answer"
        );
    }
    assert!(
        help.contains("<from>2<to>") && help.contains("`mbconv formats` lists them"),
        "`mbconv --help` does not say how the shortcuts are formed:\n{help}"
    );
}
