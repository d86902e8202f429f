//! What the reader and the writer share: Chrono's defaults, units and conventions. `import/`
//! and `export/` never use each other; both use this module.
//!
//! * [`frames`]: angles, orientations, joint types and the absolute frames Chrono builds from
//!   points and axes;
//! * [`rotation`]: Cardan angles and the frames Chrono builds from axes;
//! * [`velocity`]: Chrono's initial velocities (centre-of-mass velocity, angular velocity in
//!   the centre-of-mass frame) and the IR's body twists.

pub(crate) mod frames;
pub(crate) mod rotation;
pub(crate) mod velocity;

/// The format name: the prefix of finding codes and of the keys this format keeps in extras.
pub(crate) const FORMAT: &str = "chrono";

/// The `chrono-version` the writer states when the model does not say one.
pub(crate) const CHRONO_VERSION: &str = "10.0";

/// Chrono's contact material defaults: friction, restitution, Young's modulus, Poisson ratio,
/// normal stiffness, normal damping, tangential stiffness, tangential damping.
pub(crate) const MATERIAL_DEFAULTS: [f64; 8] = [0.8, 0.01, 2e7, 0.3, 2e5, 40.0, 2e5, 20.0];

/// The gravity Chrono's parser uses when no simulation file gives one (its `simulation`
/// default), and when the simulation file has no `gravity`.
pub(crate) const DEFAULT_GRAVITY: [f64; 3] = [0.0, 0.0, -9.8];

/// Chrono's time step when the solver file has no `integrator` block.
pub(crate) const DEFAULT_TIME_STEP: f64 = 1e-3;

/// The name of the contact material the writer gives collision shapes that have none.
pub(crate) const DEFAULT_MATERIAL: &str = "default";

/// Whether Chrono's parser creates a link for a constraint of this kind. It accepts
/// REVOLUTE-SPHERICAL and REVOLUTE-TRANSLATIONAL but builds nothing for them (empty branches),
/// so only a DISTANCE constraint takes part in the motion Chrono computes.
pub(crate) fn constraint_is_built(kind: &mbconv_ir::ConstraintKind) -> bool {
    matches!(kind, mbconv_ir::ConstraintKind::Distance { .. })
}
