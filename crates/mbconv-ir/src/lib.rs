//! `mbconv-ir` is the neutral multibody model every mbconv format converts to and from: the
//! types (bodies, joints as graph edges, constraints, force elements, motors, loads, devices,
//! groups, simulation hints, verbatim extras), every rotation convention of the formats,
//! validation, spanning trees and forward kinematics, the conversion report, and the
//! [`Format`](format::Format) trait with its registry. The IR itself as JSON (`.mbir.json`)
//! is the first registered format. It is **not** a parser of the seven file formats (Chrono
//! YAML, DART SKEL, Choreonoid Body, Shift JSON, URDF, MJCF, SDFormat: those live in
//! `formats/`), and it does not simulate (that is `mbconv-solver`).
//!
//! Units are SI and radians throughout. A body's `pose` is its world pose in the reference
//! configuration (every tree joint at zero); joint frames are body-fixed and coincide at
//! zero; see `docs/architecture.md`.
//!
//! ```
//! use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model, validate};
//! use nalgebra::Vector3;
//! let mut model = Model::new("pendulum");
//! model.bodies.push(Body::new("bob"));
//! model.joints.push(Joint::new("pivot", JointKind::Revolute { axis: Vector3::y() }, BodyRef::World, BodyRef::body("bob")));
//! assert!(!validate(&model).has_errors());
//! let text = mbconv_ir::mbir::to_string(&model);
//! assert_eq!(mbconv_ir::mbir::from_str(&text).unwrap(), model);
//! ```

pub mod contact;
pub mod format;
pub mod kinematics;
pub mod lower;
pub mod mbir;
pub mod model;
pub mod pose;
pub mod report;
pub mod rotation;
pub mod summary;
pub mod validate;
pub mod value;

pub use model::body::{Body, Frame, FrameKind, Inertia, Inertial, Twist};
pub use model::constraint::{Constraint, ConstraintKind, ExtraJointType};
pub use model::device::{Device, DeviceType};
pub use model::force::{
    Bushing, BushingLaw, DistanceType, ForceElement, ForceKind, ORIGIN_FRAME, PiecewisePolynomial, Restraint,
    RestraintTarget, RestraintType, Rsda, SpringDamperLaw, SpringStyle, SpringVisual, Tsda,
};
pub use model::function::TimeFunction;
pub use model::geometry::{
    Appearance, ContactMaterial, ElevationGrid, Extrusion, FittedKind, Geometry, IndexedFaceSet, MeshRef,
    Shape, ShapeRole, SphereItem, Texture,
};
pub use model::group::{Group, GroupType};
pub use model::joint::{
    ActuatorKind, BushingConstants, DofProperties, EulerOrder, Joint, JointBushing, JointKind, Limits,
};
pub use model::load::{BodyLoad, LoadType};
pub use model::motor::{Motor, MotorActuation, MotorGuide, MotorTarget, MotorType};
pub use model::{BodyRef, Model, Simulation};
pub use pose::Pose;
pub use report::{Category, Finding, Report, Severity, SourceSpan};
pub use summary::ModelSummary;
pub use validate::validate;
pub use value::{Extras, Value, ValueMap};
