//! Golden-data plumbing for the simulator judges: the model a conversion's target simulator is
//! judged against is the original lowered for the target format (the conversion's losses
//! applied), written back in the original's own format through the same registry the CLI
//! uses. The source simulator runs it, the target simulator runs the converted file, and the
//! two must then move alike (`cargo xtask golden chrono`, the simulator golden test of
//! `mbconv-cli`, `docs/check.md`).
//!
//! ```no_run
//! use std::path::Path;
//! # fn registry() -> mbconv_ir::format::Registry { unimplemented!() }
//! let registry = registry(); // every format, e.g. `mbconv::formats()`
//! let back = mbconv_test_support::lowered_back::write_lowered_back(
//!     &registry,
//!     Path::new("fixtures/skel/joint_free.skel"),
//!     "chrono",
//!     Path::new("out/joint_free.yaml"),
//!     Path::new("out/lowered/joint_free.skel"),
//! )
//! .unwrap();
//! assert!(back.motion_losses.is_empty(), "not a clean comparison: {:?}", back.motion_losses);
//! ```

use mbconv_ir::format::{FormatError, LookupError, Options, Registry, Source};
use mbconv_ir::{Model, ShapeRole};
use std::path::{Path, PathBuf};

/// Why [`write_lowered_back`] failed.
#[derive(Debug, thiserror::Error)]
pub enum LoweredBackError {
    /// A file could not be read, a directory created or a file written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// `read`, `create` or `write`.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A format is unknown or the source's format cannot be told.
    #[error(transparent)]
    Lookup(#[from] LookupError),
    /// The reader, the lowering or the writer refused.
    #[error("{0}")]
    Format(FormatError),
}

type Result<T> = std::result::Result<T, LoweredBackError>;

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> LoweredBackError {
    let path = path.to_path_buf();
    move |source| LoweredBackError::Io { action, path, source }
}

/// What [`write_lowered_back`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenBack {
    /// Every file written: the main file, then its companions, in the writer's order.
    pub files: Vec<PathBuf>,
    /// The file a simulator opens: the writer's entry (a Chrono simulation file, which states
    /// gravity) or the main file.
    pub entry: PathBuf,
    /// The findings of writing the lowered model back in the source format that can change
    /// motion ([`mbconv_ir::Finding::can_change_motion`]), as `code at path`: when there is
    /// one, the source simulator does not run exactly the lowered model, and the comparison is
    /// not clean.
    pub motion_losses: Vec<String>,
}

/// Reads `source` (format detected by extension and content, as the CLI does; default
/// settings), lowers it for
/// `target` as `mbconv convert` does when writing `converted` (the lowering may depend on the
/// output's place, e.g. relative mesh names), and writes the lowered model at `output` in the
/// source's own format, with its companions beside it, without contact ([`without_contact`]):
/// the judges compare contact-free motion, as mbconv's solver simulates it.
///
/// # Errors
/// When the source cannot be read, a format is unknown, or lowering, writing or a file write
/// fails.
pub fn write_lowered_back(
    registry: &Registry,
    source: &Path,
    target: &str,
    converted: &Path,
    output: &Path,
) -> Result<WrittenBack> {
    let plain = LoweredBack {
        write_settings: Options::default(),
        contact: false,
    };
    write_lowered_back_with(registry, source, target, converted, output, &plain)
}

/// How [`write_lowered_back_with`] lowers and what it keeps.
#[derive(Clone, Debug, Default)]
pub struct LoweredBack {
    /// The target's write settings the lowering runs with (as `--write-option`s).
    pub write_settings: Options,
    /// Keep contact (collision shapes) instead of taking it out with [`without_contact`], for
    /// judges that run with contact.
    pub contact: bool,
}

/// [`write_lowered_back`] with the target's write settings and, when asked, contact kept.
///
/// # Errors
/// As [`write_lowered_back`].
pub fn write_lowered_back_with(
    registry: &Registry,
    source: &Path,
    target: &str,
    converted: &Path,
    output: &Path,
    how: &LoweredBack,
) -> Result<WrittenBack> {
    let text = Source::from_path(source).map_err(io("read", source))?;
    let from = registry.detect(source, Some(&text.text))?;
    let to = registry.get(target)?;
    let imported = registry
        .read(from, &text, &Options::default())
        .map_err(LoweredBackError::Format)?;
    let mut lower_options = how.write_settings.clone();
    lower_options.output_path = Some(converted.to_path_buf());
    let mut lowered = registry
        .lower(to, &imported.model, &lower_options)
        .map_err(LoweredBackError::Format)?;
    if !how.contact {
        without_contact(&mut lowered.model);
    }
    let mut write_options = Options::default();
    write_options.output_path = Some(output.to_path_buf());
    let exported = registry
        .write(from, &lowered.model, &write_options)
        .map_err(LoweredBackError::Format)?;
    let motion_losses = exported
        .report
        .findings
        .iter()
        .filter(|f| f.can_change_motion())
        .map(|f| format!("{} at {}", f.code, f.path.as_deref().unwrap_or("the model")))
        .collect();
    let dir = output.parent().map(Path::to_path_buf).unwrap_or_default();
    std::fs::create_dir_all(&dir).map_err(io("create", &dir))?;
    let mut files = vec![output.to_path_buf()];
    std::fs::write(output, &exported.text).map_err(io("write", output))?;
    for companion in &exported.companions {
        let path = dir.join(&companion.file_name);
        std::fs::write(&path, &companion.text).map_err(io("write", &path))?;
        files.push(path);
    }
    let entry = exported
        .entry
        .as_ref()
        .map_or_else(|| output.to_path_buf(), |e| dir.join(e));
    Ok(WrittenBack {
        files,
        entry,
        motion_losses,
    })
}

/// Takes contact out of `model`: collision shapes are removed, shapes that are drawn and
/// collide are only drawn, and no shape collides.
/// The simulator judges compare contact-free motion (DART runs with collisions off, and
/// mbconv's solver simulates no contact); without this, Chrono's run of a model whose bodies
/// rest on a ground box keeps them there while DART lets them fall.
///
/// ```
/// use mbconv_ir::{Body, Geometry, Model, Shape, ShapeRole};
/// let mut model = Model::new("m");
/// model.bodies.push(Body::new("bob"));
/// let mut ball = Shape::new(ShapeRole::Collision, Geometry::Sphere { radius: 0.1 });
/// ball.collidable = true;
/// model.bodies[0].shapes.push(ball);
/// mbconv_test_support::lowered_back::without_contact(&mut model);
/// assert!(model.bodies.iter().flat_map(|b| &b.shapes).all(|s| s.role != ShapeRole::Collision && !s.collidable));
/// ```
pub fn without_contact(model: &mut Model) {
    for body in &mut model.bodies {
        body.shapes.retain(|s| s.role != ShapeRole::Collision);
        for shape in &mut body.shapes {
            if shape.role == ShapeRole::Both {
                shape.role = ShapeRole::Visual;
            }
            shape.collidable = false;
        }
    }
}
