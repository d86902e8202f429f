//! Why a bushing cannot be evaluated, converted or designed.

/// Errors of the bushing laws, conversions and design helpers.
///
/// Every variant that concerns one bushing carries its `name` (empty when the caller did not
/// give one; [`BushingError::with_name`] fills it in), and the message names it.
///
/// ```
/// use mbconv_bushing::BushingError;
/// let e = BushingError::GimbalLock { name: String::new(), pitch: 1.57, cos_pitch: 0.0008 }.with_name("mount");
/// assert!(e.to_string().starts_with("bushing 'mount': "));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error, miette::Diagnostic)]
pub enum BushingError {
    /// Drake's roll-pitch-yaw bushing is near gimbal lock (`|cos pitch| < 0.008`): the
    /// roll-pitch-yaw rates, hence the gimbal torques, are undefined.
    #[error(
        "{}the roll-pitch-yaw pitch angle of frame C in frame A is {pitch} rad (|cos pitch| = {cos_pitch}), \
         within 0.0080000853 rad of ±π/2 (gimbal lock, |cos pitch| < 0.008); Drake's \
         LinearBushingRollPitchYaw cannot compute its angle rates there",
        label(name)
    )]
    #[diagnostic(
        code(bushing::gimbal_lock),
        help(
            "choose frames A and C so that the bushing's pitch stays far from ±90°, e.g. put the \
             largest expected rotation on the yaw (z) axis"
        )
    )]
    GimbalLock {
        /// Bushing name.
        name: String,
        /// Pitch angle `q1` (radians).
        pitch: f64,
        /// `cos(q1)`.
        cos_pitch: f64,
    },
    /// A stiffness or damping constant is negative (Drake refuses it) or not finite.
    #[error("{}{quantity}[{index}] = {value} is invalid: {expected}", label(name))]
    #[diagnostic(code(bushing::bad_constant))]
    BadConstant {
        /// Bushing name.
        name: String,
        /// `torque_stiffness`, `torque_damping`, `force_stiffness` or `force_damping`.
        quantity: &'static str,
        /// Index 0, 1 or 2.
        index: usize,
        /// The offending value.
        value: f64,
        /// What was expected.
        expected: &'static str,
    },
    /// The frame states given to a law are not finite.
    #[error("{}the state of frame {frame} is not finite", label(name))]
    #[diagnostic(code(bushing::bad_state))]
    BadState {
        /// Bushing name.
        name: String,
        /// `A` or `C`.
        frame: &'static str,
    },
    /// A joint cannot be turned into a bushing (unknown name, unsupported kind, …).
    #[error("joint '{joint}': {reason}")]
    #[diagnostic(code(bushing::joint))]
    Joint {
        /// Joint name.
        joint: String,
        /// What is wrong.
        reason: String,
    },
    /// A design input is missing or out of range.
    #[error("bushing design: {0}")]
    #[diagnostic(code(bushing::design))]
    Design(String),
}

impl BushingError {
    /// The same error, naming bushing `name` (no effect on errors that name a joint or no
    /// bushing).
    pub fn with_name(self, name: &str) -> Self {
        match self {
            BushingError::GimbalLock { pitch, cos_pitch, .. } => BushingError::GimbalLock {
                name: name.to_owned(),
                pitch,
                cos_pitch,
            },
            BushingError::BadConstant {
                quantity,
                index,
                value,
                expected,
                ..
            } => BushingError::BadConstant {
                name: name.to_owned(),
                quantity,
                index,
                value,
                expected,
            },
            BushingError::BadState { frame, .. } => BushingError::BadState {
                name: name.to_owned(),
                frame,
            },
            other => other,
        }
    }
}

fn label(name: &str) -> String {
    if name.is_empty() {
        "bushing: ".to_owned()
    } else {
        format!("bushing '{name}': ")
    }
}
