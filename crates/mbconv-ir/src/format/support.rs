//! What a format can say of each IR feature: kept exactly, kept through an exact equivalent,
//! approximated (how), or lost. Each format's `lower` step declares its table
//! ([`Format::feature_support`](super::Format::feature_support)) and reports its findings from
//! it, and `docs/loss-matrix.md` is generated from the same tables, so the documentation cannot
//! drift from the code.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An IR feature a model may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// Body mass, centre of mass and inertia tensor.
    MassProperties,
    /// A rotated inertia frame (products of inertia in the body frame).
    InertiaProducts,
    /// Fixed (welded) bodies.
    FixedBodies,
    /// Joint coordinates at the initial state (`q0`).
    InitialJointPositions,
    /// Joint rates at the initial state (`v0`).
    InitialJointVelocities,
    /// Initial body velocities of bodies without a joint (floating bodies).
    InitialBodyVelocities,
    /// Fixed joints.
    FixedJoint,
    /// Revolute joints.
    RevoluteJoint,
    /// Prismatic joints.
    PrismaticJoint,
    /// Screw joints.
    ScrewJoint,
    /// Universal joints.
    UniversalJoint,
    /// Spherical (ball) joints.
    SphericalJoint,
    /// Euler-angle joints.
    EulerJoint,
    /// Cylindrical joints.
    CylindricalJoint,
    /// Planar joints.
    PlanarJoint,
    /// Translational (3 sliding dof) joints.
    TranslationalJoint,
    /// Free (6 dof) joints.
    FreeJoint,
    /// Point-on-line and point-on-plane joints.
    PointJoints,
    /// Closed kinematic loops (joints outside the spanning tree).
    KinematicLoops,
    /// Joint position limits.
    JointLimits,
    /// Joint velocity and effort limits.
    JointVelocityEffortLimits,
    /// Joint springs (stiffness and rest position).
    JointSprings,
    /// Joint viscous damping.
    JointDamping,
    /// Joint Coulomb friction.
    JointFriction,
    /// Joint actuators (force, servo, velocity, locked, …).
    JointActuators,
    /// Constraints (distance, revolute-spherical, …).
    Constraints,
    /// Translational spring-damper-actuators between two points.
    Tsda,
    /// Rotational spring-damper-actuators about an axis.
    Rsda,
    /// Bushings (Drake's roll-pitch-yaw law, Chrono's generic law).
    Bushings,
    /// Shift restraints (piecewise polynomials).
    Restraints,
    /// Motors driven by time functions.
    Motors,
    /// Body loads (forces and torques).
    BodyLoads,
    /// Visual and collision shapes.
    Shapes,
    /// Meshes referenced by shapes.
    Meshes,
    /// Visual materials and colours.
    Appearance,
    /// Contact materials.
    ContactMaterials,
    /// Sensors, cameras, lights.
    Devices,
    /// Groups (skeletons, assemblies).
    Groups,
    /// Named frames fixed to a body or the world (markers).
    NamedFrames,
    /// Gravity.
    Gravity,
    /// The simulation time step.
    TimeStep,
    /// Data only one format understands, kept verbatim.
    FormatExtras,
}

impl Feature {
    /// Every feature, in table order.
    pub const ALL: [Feature; 42] = [
        Self::MassProperties,
        Self::InertiaProducts,
        Self::FixedBodies,
        Self::InitialJointPositions,
        Self::InitialJointVelocities,
        Self::InitialBodyVelocities,
        Self::FixedJoint,
        Self::RevoluteJoint,
        Self::PrismaticJoint,
        Self::ScrewJoint,
        Self::UniversalJoint,
        Self::SphericalJoint,
        Self::EulerJoint,
        Self::CylindricalJoint,
        Self::PlanarJoint,
        Self::TranslationalJoint,
        Self::FreeJoint,
        Self::PointJoints,
        Self::KinematicLoops,
        Self::JointLimits,
        Self::JointVelocityEffortLimits,
        Self::JointSprings,
        Self::JointDamping,
        Self::JointFriction,
        Self::JointActuators,
        Self::Constraints,
        Self::Tsda,
        Self::Rsda,
        Self::Bushings,
        Self::Restraints,
        Self::Motors,
        Self::BodyLoads,
        Self::Shapes,
        Self::Meshes,
        Self::Appearance,
        Self::ContactMaterials,
        Self::Devices,
        Self::Groups,
        Self::NamedFrames,
        Self::Gravity,
        Self::TimeStep,
        Self::FormatExtras,
    ];

    /// A short human name.
    pub fn title(self) -> &'static str {
        match self {
            Self::MassProperties => "mass, COM, inertia",
            Self::InertiaProducts => "products of inertia",
            Self::FixedBodies => "fixed bodies",
            Self::InitialJointPositions => "initial joint positions",
            Self::InitialJointVelocities => "initial joint velocities",
            Self::InitialBodyVelocities => "initial velocities of floating bodies",
            Self::FixedJoint => "fixed joint",
            Self::RevoluteJoint => "revolute joint",
            Self::PrismaticJoint => "prismatic joint",
            Self::ScrewJoint => "screw joint",
            Self::UniversalJoint => "universal joint",
            Self::SphericalJoint => "spherical joint",
            Self::EulerJoint => "euler joint",
            Self::CylindricalJoint => "cylindrical joint",
            Self::PlanarJoint => "planar joint",
            Self::TranslationalJoint => "translational joint",
            Self::FreeJoint => "free joint",
            Self::PointJoints => "point-line / point-plane joint",
            Self::KinematicLoops => "closed loops",
            Self::JointLimits => "joint position limits",
            Self::JointVelocityEffortLimits => "joint velocity / effort limits",
            Self::JointSprings => "joint springs",
            Self::JointDamping => "joint damping",
            Self::JointFriction => "joint Coulomb friction",
            Self::JointActuators => "joint actuators",
            Self::Constraints => "constraints",
            Self::Tsda => "TSDA",
            Self::Rsda => "RSDA",
            Self::Bushings => "bushings",
            Self::Restraints => "restraints",
            Self::Motors => "motors",
            Self::BodyLoads => "body loads",
            Self::Shapes => "shapes",
            Self::Meshes => "meshes",
            Self::Appearance => "colours and materials",
            Self::ContactMaterials => "contact materials",
            Self::Devices => "sensors, cameras, lights",
            Self::Groups => "groups",
            Self::NamedFrames => "named frames",
            Self::Gravity => "gravity",
            Self::TimeStep => "time step",
            Self::FormatExtras => "other formats' extras",
        }
    }
}

impl Feature {
    /// Whether losing or approximating this feature can change how a body moves in mbconv's
    /// solver. Names, groups, colours and visual shapes, contact (the solver simulates none),
    /// named frames, the time step (the check chooses its own integration) and other formats'
    /// extras cannot: a loss of one of them never explains a difference of motion.
    ///
    /// ```
    /// use mbconv_ir::format::support::Feature;
    /// assert!(Feature::JointDamping.moves_bodies());
    /// assert!(Feature::Gravity.moves_bodies());
    /// assert!(!Feature::Groups.moves_bodies());
    /// assert!(!Feature::ContactMaterials.moves_bodies());
    /// assert!(!Feature::TimeStep.moves_bodies());
    /// ```
    pub fn moves_bodies(self) -> bool {
        !matches!(
            self,
            Self::Shapes
                | Self::Meshes
                | Self::Appearance
                | Self::ContactMaterials
                | Self::Devices
                | Self::Groups
                | Self::NamedFrames
                | Self::TimeStep
                | Self::FormatExtras
        )
    }

    /// The severity of losing or approximating this feature, the rule of `docs/errors.md`: a
    /// warning when what a simulator computes or a user refers to changes (motion, contact,
    /// shapes and meshes, named frames, devices), a note when only the look or the bookkeeping
    /// does (colours and materials, groups, the time step and solver settings of a run, other
    /// formats' extras, which only say how their file was written).
    ///
    /// ```
    /// use mbconv_ir::format::support::Feature;
    /// use mbconv_ir::Severity;
    /// assert_eq!(Feature::JointDamping.loss_severity(), Severity::Warning);
    /// assert_eq!(Feature::Meshes.loss_severity(), Severity::Warning);
    /// assert_eq!(Feature::Appearance.loss_severity(), Severity::Info);
    /// assert_eq!(Feature::FormatExtras.loss_severity(), Severity::Info);
    /// ```
    pub fn loss_severity(self) -> crate::report::Severity {
        use crate::report::Severity;
        match self {
            Self::Appearance | Self::Groups | Self::TimeStep | Self::FormatExtras => Severity::Info,
            _ => Severity::Warning,
        }
    }

    /// The feature row of a joint of kind `kind`.
    ///
    /// ```
    /// use mbconv_ir::format::support::Feature;
    /// use mbconv_ir::JointKind;
    /// assert_eq!(Feature::of_joint(&JointKind::Spherical), Feature::SphericalJoint);
    /// ```
    pub fn of_joint(kind: &crate::model::joint::JointKind) -> Self {
        use crate::model::joint::JointKind as K;
        match kind {
            K::Fixed => Self::FixedJoint,
            K::Revolute { .. } => Self::RevoluteJoint,
            K::Prismatic { .. } => Self::PrismaticJoint,
            K::Screw { .. } => Self::ScrewJoint,
            K::Universal { .. } => Self::UniversalJoint,
            K::Spherical => Self::SphericalJoint,
            K::Euler { .. } => Self::EulerJoint,
            K::Cylindrical { .. } => Self::CylindricalJoint,
            K::Planar { .. } => Self::PlanarJoint,
            K::Translational => Self::TranslationalJoint,
            K::Free => Self::FreeJoint,
            K::PointLine | K::PointPlane => Self::PointJoints,
            // A track has no kinematic freedom: a weld whose surface moves.
            K::PseudoContinuousTrack { .. } => Self::FixedJoint,
        }
    }

    /// The feature's name in finding codes and JSON: `joint_damping`, `contact_materials`, ...
    ///
    /// ```
    /// use mbconv_ir::format::support::Feature;
    /// assert_eq!(Feature::JointDamping.key(), "joint_damping");
    /// assert_eq!(Feature::Tsda.key(), "tsda");
    /// ```
    pub const fn key(self) -> &'static str {
        match self {
            Self::MassProperties => "mass_properties",
            Self::InertiaProducts => "inertia_products",
            Self::FixedBodies => "fixed_bodies",
            Self::InitialJointPositions => "initial_joint_positions",
            Self::InitialJointVelocities => "initial_joint_velocities",
            Self::InitialBodyVelocities => "initial_body_velocities",
            Self::FixedJoint => "fixed_joint",
            Self::RevoluteJoint => "revolute_joint",
            Self::PrismaticJoint => "prismatic_joint",
            Self::ScrewJoint => "screw_joint",
            Self::UniversalJoint => "universal_joint",
            Self::SphericalJoint => "spherical_joint",
            Self::EulerJoint => "euler_joint",
            Self::CylindricalJoint => "cylindrical_joint",
            Self::PlanarJoint => "planar_joint",
            Self::TranslationalJoint => "translational_joint",
            Self::FreeJoint => "free_joint",
            Self::PointJoints => "point_joints",
            Self::KinematicLoops => "kinematic_loops",
            Self::JointLimits => "joint_limits",
            Self::JointVelocityEffortLimits => "joint_velocity_effort_limits",
            Self::JointSprings => "joint_springs",
            Self::JointDamping => "joint_damping",
            Self::JointFriction => "joint_friction",
            Self::JointActuators => "joint_actuators",
            Self::Constraints => "constraints",
            Self::Tsda => "tsda",
            Self::Rsda => "rsda",
            Self::Bushings => "bushings",
            Self::Restraints => "restraints",
            Self::Motors => "motors",
            Self::BodyLoads => "body_loads",
            Self::Shapes => "shapes",
            Self::Meshes => "meshes",
            Self::Appearance => "appearance",
            Self::ContactMaterials => "contact_materials",
            Self::Devices => "devices",
            Self::Groups => "groups",
            Self::NamedFrames => "named_frames",
            Self::Gravity => "gravity",
            Self::TimeStep => "time_step",
            Self::FormatExtras => "format_extras",
        }
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

/// How a format carries a feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Said as it is.
    Kept,
    /// Said through an exact equivalent (how, in a few words).
    Equivalent(&'static str),
    /// Said approximately (how).
    Approximated(&'static str),
    /// Not said (why).
    Lost(&'static str),
}

impl Support {
    /// `kept`, `exact: …`, `approximated: …` or `lost: …`, for tables.
    pub fn describe(&self) -> String {
        match self {
            Self::Kept => "kept".to_owned(),
            Self::Equivalent(how) => format!("exact: {how}"),
            Self::Approximated(how) => format!("approximated: {how}"),
            Self::Lost(why) => format!("lost: {why}"),
        }
    }
}

/// One row of a format's table.
///
/// ```
/// use mbconv_ir::format::support::{Feature, FeatureSupport, Support, lookup};
/// const TABLE: &[FeatureSupport] = &[FeatureSupport {
///     feature: Feature::Devices,
///     support: Support::Lost("the format has no sensors"),
/// }];
/// assert_eq!(lookup(TABLE, Feature::Devices), Support::Lost("the format has no sensors"));
/// assert_eq!(lookup(TABLE, Feature::Gravity), Support::Kept);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureSupport {
    /// The feature.
    pub feature: Feature,
    /// How the format carries it.
    pub support: Support,
}

/// A law by which the simulator a format is written for solves a feature differently from
/// mbconv's solver, though the file says the feature exactly (MuJoCo's `frictionloss` is the
/// same friction force, solved as a soft constraint where mbconv's solver regularises it). The
/// check cannot prove the motion in that simulator where the model uses the feature, and says
/// so in the verdict's `not compared` lines ([`Format::simulator_laws`](super::Format::simulator_laws)).
///
/// ```
/// use mbconv_ir::format::support::{Feature, SimulatorLaw};
/// use mbconv_ir::Model;
/// const LAWS: &[SimulatorLaw] = &[
///     SimulatorLaw {
///         feature: Feature::JointFriction,
///         law: "MuJoCo solves frictionloss as a soft constraint",
///         applies: None,
///     },
///     SimulatorLaw {
///         feature: Feature::Constraints,
///         law: "the simulator treats distance joints as free joints",
///         applies: Some(|model: &Model| !model.constraints.is_empty()),
///     },
/// ];
/// assert_eq!(LAWS[0].feature, Feature::JointFriction);
/// assert_eq!(LAWS[1].applies.map(|f| f(&Model::default())), Some(false));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SimulatorLaw {
    /// The feature whose law differs.
    pub feature: Feature,
    /// How the target's simulator solves it, and how that differs, in a few words.
    pub law: &'static str,
    /// Whether a model uses the feature in the way the law concerns (a law may concern some
    /// joint kinds only). `None`: the check's rule for the feature decides (joint friction on a
    /// moving joint, a joint limit reached, a closed loop; any other feature always).
    pub applies: Option<fn(&crate::Model) -> bool>,
}

/// A row of a feature table, for the `const` tables formats declare.
///
/// ```
/// use mbconv_ir::format::support::{row, Feature, FeatureSupport, Support};
/// const TABLE: &[FeatureSupport] = &[row(Feature::Gravity, Support::Kept)];
/// assert_eq!(TABLE[0].support, Support::Kept);
/// ```
pub const fn row(feature: Feature, support: Support) -> FeatureSupport {
    FeatureSupport { feature, support }
}

/// A format's whole feature table: one row for every [`Feature`], in [`Feature::ALL`]'s order.
pub type FeatureTable = [FeatureSupport; Feature::ALL.len()];

/// Reads a feature table kept as text (a format's `export/support.txt`), at compile time, so
/// that a table that misses a feature, names one twice or misspells one does not build.
///
/// One row a line: the feature's [`key`](Feature::key), the support (`kept`, `equivalent`,
/// `approximated` or `lost`) and, but for `kept`, the words that say how (or why it is lost),
/// separated by spaces. Blank lines and lines starting with `#` are passed over. The rows may
/// stand in any order; the table holds them in [`Feature::ALL`]'s.
///
/// ```
/// use mbconv_ir::format::support::{Feature, FeatureTable, Support, lookup, table};
/// const TABLE: FeatureTable = table(
///     "# feature  support  words\n\
///      devices    lost     the format has no sensors\n\
///      gravity    equivalent  a world-frame vector\n",
/// );
/// assert_eq!(lookup(&TABLE, Feature::Devices), Support::Lost("the format has no sensors"));
/// assert_eq!(lookup(&TABLE, Feature::Gravity), Support::Equivalent("a world-frame vector"));
/// assert_eq!(lookup(&TABLE, Feature::Shapes), Support::Kept);
/// ```
///
/// A feature named twice does not build:
///
/// ```compile_fail
/// use mbconv_ir::format::support::{FeatureTable, table};
/// const TABLE: FeatureTable = table("devices lost no sensors\ndevices kept\n");
/// ```
///
/// Unlisted features are kept (`table("")` keeps everything); a format's own table is read
/// with [`full_table`], which insists on a row for every feature.
pub const fn table(text: &'static str) -> FeatureTable {
    rows_of(said_rows(text))
}

/// As [`table`], and a feature the text does not name is an error: the formats' tables say
/// what they do with every feature.
///
/// ```compile_fail
/// use mbconv_ir::format::support::{FeatureTable, full_table};
/// const TABLE: FeatureTable = full_table("devices lost the format has no sensors\n");
/// ```
pub const fn full_table(text: &'static str) -> FeatureTable {
    let said = said_rows(text);
    let mut i = 0;
    while i < said.len() {
        if said[i].is_none() {
            panic!("{}", Feature::ALL[i].key()); // a feature without a row
        }
        i += 1;
    }
    rows_of(said)
}

/// What each row of `text` says, at its feature's index in [`Feature::ALL`].
const fn said_rows(text: &'static str) -> [Option<Support>; Feature::ALL.len()] {
    let mut said: [Option<Support>; Feature::ALL.len()] = [None; Feature::ALL.len()];
    let mut rest = text.as_bytes();
    while !rest.is_empty() {
        let (line, after) = split_line(rest);
        rest = after;
        let line = line.trim_ascii();
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let (key, after_key) = split_word(line);
        let (kind, words) = split_word(after_key);
        let index = feature_index(key, line);
        if said[index].is_some() {
            panic!("{}", text_of(line)); // a feature named twice
        }
        said[index] = Some(support_of(kind, words));
    }
    said
}

/// The table's rows in [`Feature::ALL`]'s order: each as `said`, or kept.
const fn rows_of(said: [Option<Support>; Feature::ALL.len()]) -> FeatureTable {
    let mut rows = [row(Feature::ALL[0], Support::Kept); Feature::ALL.len()];
    let mut i = 0;
    while i < rows.len() {
        if let Some(support) = said[i] {
            rows[i].support = support;
        }
        rows[i].feature = Feature::ALL[i];
        i += 1;
    }
    rows
}

/// The first line of `bytes` (without its newline) and what follows it.
const fn split_line(bytes: &'static [u8]) -> (&'static [u8], &'static [u8]) {
    let mut end = 0;
    while end < bytes.len() && bytes[end] != b'\n' {
        end += 1;
    }
    let (line, rest) = bytes.split_at(end);
    match rest.split_first() {
        Some((_, after)) => (line, after),
        None => (line, rest),
    }
}

/// The first word of `bytes` (which starts with no space) and the rest without its leading
/// spaces.
const fn split_word(bytes: &'static [u8]) -> (&'static [u8], &'static [u8]) {
    let mut end = 0;
    while end < bytes.len() && !bytes[end].is_ascii_whitespace() {
        end += 1;
    }
    let (word, rest) = bytes.split_at(end);
    (word, rest.trim_ascii_start())
}

/// The index in [`Feature::ALL`] of the feature whose key is `key`; `line` is quoted when
/// there is none.
const fn feature_index(key: &[u8], line: &'static [u8]) -> usize {
    let mut i = 0;
    while i < Feature::ALL.len() {
        if same_bytes(key, Feature::ALL[i].key().as_bytes()) {
            return i;
        }
        i += 1;
    }
    panic!("{}", text_of(line)) // no feature has this key
}

/// Whether `a` and `b` hold the same bytes (`==` on slices is not `const`).
const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The support a row's `kind` and `words` say.
const fn support_of(kind: &[u8], words: &'static [u8]) -> Support {
    let how = text_of(words);
    let said = !words.is_empty();
    if same_bytes(kind, b"kept") && !said {
        Support::Kept
    } else if same_bytes(kind, b"equivalent") && said {
        Support::Equivalent(how)
    } else if same_bytes(kind, b"approximated") && said {
        Support::Approximated(how)
    } else if same_bytes(kind, b"lost") && said {
        Support::Lost(how)
    } else {
        panic!("{}", how) // an unknown support, words after `kept` or none after the others
    }
}

/// `bytes` as text (a table is UTF-8, being a Rust string).
const fn text_of(bytes: &'static [u8]) -> &'static str {
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => panic!("a feature table is UTF-8"),
    }
}

/// How `table` carries `feature`; a feature the table does not list is kept.
pub fn lookup(table: &[FeatureSupport], feature: Feature) -> Support {
    table
        .iter()
        .find(|row| row.feature == feature)
        .map_or(Support::Kept, |row| row.support)
}
