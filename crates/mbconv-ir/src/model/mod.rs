//! The neutral model: every type of the IR.

pub mod body;
pub mod constraint;
pub mod device;
pub mod force;
pub mod function;
pub mod geometry;
pub mod group;
pub mod joint;
pub mod load;
pub mod motor;

use crate::value::Extras;
use body::{Body, Frame};
use constraint::Constraint;
use device::Device;
use force::ForceElement;
use group::Group;
use joint::Joint;
use load::BodyLoad;
use motor::Motor;
use nalgebra::Vector3;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A multibody model in SI units and radians.
///
/// Bodies are the nodes of a graph whose edges are joints; loops are ordinary edges.
/// References between items are by name and are checked by [`crate::validate()`].
///
/// ```
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
/// let mut model = Model::new("pendulum");
/// model.bodies.push(Body::new("bob"));
/// model.joints.push(Joint::new("pivot", JointKind::Revolute { axis: nalgebra::Vector3::y() }, BodyRef::World, BodyRef::body("bob")));
/// assert!(model.body("bob").is_some());
/// ```
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// Model name.
    pub name: String,
    /// Gravity, time step and other simulation hints.
    #[serde(default, skip_serializing_if = "Simulation::is_empty")]
    pub simulation: Simulation,
    /// Rigid bodies.
    #[serde(default)]
    pub bodies: Vec<Body>,
    /// Joints (graph edges).
    #[serde(default)]
    pub joints: Vec<Joint>,
    /// Kinematic constraints other than joints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<Constraint>,
    /// Spring-dampers, bushings and restraints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub force_elements: Vec<ForceElement>,
    /// Motors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub motors: Vec<Motor>,
    /// External loads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loads: Vec<BodyLoad>,
    /// Sensors, cameras and lights.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<Device>,
    /// Skeletons, assemblies, bodies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<Group>,
    /// Named frames fixed in the world (Shift `fixed.frames`), world coordinates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub world_frames: Vec<Frame>,
    /// Format-specific model-level data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

impl Model {
    /// An empty model.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }
    /// The body named `name`.
    pub fn body(&self, name: &str) -> Option<&Body> {
        self.bodies.iter().find(|b| b.name == name)
    }
    /// Index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// Which bodies (by index) take part in the dynamics: a body is active when it is enabled
    /// and no group containing it, directly or through enclosing groups, is disabled.
    ///
    /// ```
    /// use mbconv_ir::{Body, Group, GroupType, Model};
    /// let mut m = Model::new("m");
    /// m.bodies = vec![Body::new("a"), Body::new("b"), Body::new("c")];
    /// m.bodies[0].enabled = false;
    /// let mut outer = Group::new("outer", GroupType::Assembly);
    /// outer.enabled = false;
    /// let mut inner = Group::new("inner", GroupType::Assembly);
    /// inner.parent = Some("outer".into());
    /// inner.bodies = vec!["b".into()];
    /// m.groups = vec![outer, inner];
    /// assert_eq!(m.active_bodies(), vec![false, false, true]);
    /// ```
    pub fn active_bodies(&self) -> Vec<bool> {
        let group_enabled = |start: &str| {
            let mut name = Some(start);
            let mut steps = 0;
            while let Some(n) = name {
                let Some(group) = self.groups.iter().find(|g| g.name == n) else {
                    break;
                };
                if !group.enabled {
                    return false;
                }
                name = group.parent.as_deref();
                steps += 1;
                if steps > self.groups.len() {
                    break; // a cycle (validation reports it)
                }
            }
            true
        };
        self.bodies
            .iter()
            .map(|body| {
                body.enabled
                    && self
                        .groups
                        .iter()
                        .filter(|g| g.bodies.contains(&body.name))
                        .all(|g| group_enabled(&g.name))
            })
            .collect()
    }
    /// The joint named `name`.
    pub fn joint(&self, name: &str) -> Option<&Joint> {
        self.joints.iter().find(|j| j.name == name)
    }
    /// Index of the joint named `name`.
    pub fn joint_index(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }
}

/// Simulation hints a format carries.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// Gravity vector in world coordinates (m/s²); `None` when the format does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gravity: Option<Vector3<f64>>,
    /// Integration time step (s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_step: Option<f64>,
    /// End time (s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<f64>,
    /// Integrator or solver settings, verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

impl Simulation {
    /// True when no hint is set.
    pub fn is_empty(&self) -> bool {
        self.gravity.is_none()
            && self.time_step.is_none()
            && self.end_time.is_none()
            && self.extras.is_empty()
    }
}

/// A reference to a body by name, or to the world (written `null` in IR JSON).
///
/// ```
/// use mbconv_ir::BodyRef;
/// assert_eq!(serde_json::to_string(&BodyRef::World).unwrap(), "null");
/// assert_eq!(serde_json::to_string(&BodyRef::body("a")).unwrap(), "\"a\"");
/// assert_eq!(BodyRef::body("a").to_string(), "a");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BodyRef {
    /// The world (ground) frame.
    World,
    /// A body by name.
    Body(String),
}

impl BodyRef {
    /// A reference to a named body.
    pub fn body(name: impl Into<String>) -> Self {
        BodyRef::Body(name.into())
    }
    /// The body name, or `None` for the world.
    pub fn name(&self) -> Option<&str> {
        match self {
            BodyRef::World => None,
            BodyRef::Body(name) => Some(name),
        }
    }
    /// True for the world.
    pub fn is_world(&self) -> bool {
        matches!(self, BodyRef::World)
    }
}

impl std::fmt::Display for BodyRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyRef::World => f.write_str("world"),
            BodyRef::Body(name) => f.write_str(name),
        }
    }
}

impl Serialize for BodyRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BodyRef::World => s.serialize_none(),
            BodyRef::Body(name) => s.serialize_str(name),
        }
    }
}

impl<'de> Deserialize<'de> for BodyRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Option::<String>::deserialize(d)? {
            None => BodyRef::World,
            Some(name) => BodyRef::Body(name),
        })
    }
}
