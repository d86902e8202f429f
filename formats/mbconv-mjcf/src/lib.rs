//! MuJoCo MJCF (XML) models -> mbconv IR.
//!
//! This crate reads MJCF the way MuJoCo 4.0's compiler does. It is being built in pieces; this
//! piece holds the compiler semantics that do not depend on XML (`spec`): the compiler's
//! arithmetic in its order of operations, every orientation form (`quat`, `axisangle`,
//! `euler` with `eulerseq`, `xyaxes`, `zaxis`) in degrees or radians, `<default>` classes with
//! inheritance and the origin of every value, and mass and inertia from primitive geoms as
//! MuJoCo computes them. It is **not** a MuJoCo simulator, and it does not yet read XML,
//! meshes or write MJCF.
//!
//! ```
//! use mbconv_mjcf::spec::orientation::{resolve, Alternative, AngleUnit, EulerSeq};
//! // MJCF's default unit is degrees: euler="0 0 90" is a quarter turn about z.
//! let q = resolve(&Alternative::Euler([0.0, 0.0, 90.0]), AngleUnit::Degree, EulerSeq::default()).unwrap();
//! assert!((q[0] - q[3]).abs() < 1e-15);
//! ```

pub mod spec;
