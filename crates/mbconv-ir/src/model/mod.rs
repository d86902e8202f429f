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
use std::collections::HashMap;

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
    /// Name lookups' memory (not part of the model: never compared, cloned or written).
    #[serde(skip)]
    lookup: Lookup,
}

/// Indices by name behind [`Model::body_index`] and [`Model::joint_index`], so that resolving
/// every reference of a model is linear in its size instead of a scan per reference.
///
/// The lists are public and change freely, so an index is only ever a hint: a hit is checked
/// against the list (the name at that index), a miss falls back to a scan, and the index is
/// rebuilt when a check fails or the list shrank, extended when it grew.
#[derive(Debug, Default)]
struct Lookup {
    bodies: std::sync::Mutex<NameIndex>,
    joints: std::sync::Mutex<NameIndex>,
}

impl Clone for Lookup {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PartialEq for Lookup {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The first index of each name among the first `covered` items of a list.
#[derive(Debug, Default)]
struct NameIndex {
    first: HashMap<String, usize>,
    covered: usize,
}

impl NameIndex {
    /// The index of the first item named `name` in `names` (`len` items).
    fn find<'a>(&mut self, name: &str, len: usize, names: impl Fn(usize) -> &'a str) -> Option<usize> {
        if self.covered > len {
            *self = Self::default();
        }
        for i in self.covered..len {
            self.first.entry(names(i).to_owned()).or_insert(i);
        }
        self.covered = len;
        match self.first.get(name) {
            // An item of that name. (After an in-place rename, an earlier item may carry the
            // same name: a duplicate, which validation refuses.)
            Some(&i) if names(i) == name => Some(i),
            Some(_) => {
                self.covered = 0;
                self.first.clear();
                self.find(name, len, names)
            }
            None => (0..len).find(|&i| names(i) == name),
        }
    }
}

/// Index of the first occurrence of every name.
fn first_index_by_name<'a>(names: impl Iterator<Item = &'a str>) -> HashMap<&'a str, usize> {
    let mut index = HashMap::new();
    for (i, name) in names.enumerate() {
        index.entry(name).or_insert(i);
    }
    index
}

impl Model {
    /// An empty model.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }
    /// The model's lists of named items, each with its key in IR JSON and report paths, and
    /// its items' names in order: bodies, joints, constraints, force elements, motors, loads,
    /// devices, groups.
    ///
    /// ```
    /// use mbconv_ir::{Body, Model};
    /// let mut m = Model::new("m");
    /// m.bodies.push(Body::new("base"));
    /// let lists = m.item_names();
    /// assert_eq!(lists[0], ("bodies", vec!["base"]));
    /// assert!(lists[1].1.is_empty());
    /// ```
    pub fn item_names(&self) -> [(&'static str, Vec<&str>); 8] {
        fn names<T>(items: &[T], name: impl Fn(&T) -> &str) -> Vec<&str> {
            items.iter().map(name).collect()
        }
        [
            ("bodies", names(&self.bodies, |x| &x.name)),
            ("joints", names(&self.joints, |x| &x.name)),
            ("constraints", names(&self.constraints, |x| &x.name)),
            ("force_elements", names(&self.force_elements, |x| &x.name)),
            ("motors", names(&self.motors, |x| &x.name)),
            ("loads", names(&self.loads, |x| &x.name)),
            ("devices", names(&self.devices, |x| &x.name)),
            ("groups", names(&self.groups, |x| &x.name)),
        ]
    }
    /// The body named `name`.
    pub fn body(&self, name: &str) -> Option<&Body> {
        self.body_index(name).map(|i| &self.bodies[i])
    }
    /// Index of the body named `name` (the first, if several are). Constant time once the
    /// model's name index is built (see [`Lookup`]).
    pub fn body_index(&self, name: &str) -> Option<usize> {
        let bodies = &self.bodies;
        match self.lookup.bodies.lock() {
            Ok(mut index) => index.find(name, bodies.len(), |i| bodies[i].name.as_str()),
            Err(_) => bodies.iter().position(|b| b.name == name),
        }
    }
    /// Every body's index by name (the first body of a repeated name, like
    /// [`Model::body_index`]), so that resolving all references is linear in the model size.
    ///
    /// ```
    /// use mbconv_ir::{Body, Model};
    /// let mut model = Model::new("m");
    /// model.bodies = vec![Body::new("a"), Body::new("b"), Body::new("a")];
    /// let index = model.body_indices();
    /// assert_eq!((index["a"], index["b"]), (0, 1));
    /// ```
    pub fn body_indices(&self) -> HashMap<&str, usize> {
        first_index_by_name(self.bodies.iter().map(|b| b.name.as_str()))
    }
    /// Every joint's index by name (the first joint of a repeated name, like
    /// [`Model::joint_index`]).
    pub fn joint_indices(&self) -> HashMap<&str, usize> {
        first_index_by_name(self.joints.iter().map(|j| j.name.as_str()))
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
        // The bodies of every disabled group, gathered once: linear in the group lists.
        let mut disabled = std::collections::HashSet::new();
        for g in self.groups.iter().filter(|g| !group_enabled(&g.name)) {
            disabled.extend(g.bodies.iter().map(String::as_str));
        }
        self.bodies
            .iter()
            .map(|body| body.enabled && !disabled.contains(body.name.as_str()))
            .collect()
    }
    /// The joint named `name`.
    pub fn joint(&self, name: &str) -> Option<&Joint> {
        self.joint_index(name).map(|i| &self.joints[i])
    }
    /// Index of the joint named `name` (the first, if several are); constant time like
    /// [`Model::body_index`].
    pub fn joint_index(&self, name: &str) -> Option<usize> {
        let joints = &self.joints;
        match self.lookup.joints.lock() {
            Ok(mut index) => index.find(name, joints.len(), |i| joints[i].name.as_str()),
            Err(_) => joints.iter().position(|j| j.name == name),
        }
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
    /// True when the simulator checks contact between two bodies joined by a joint (Chrono's
    /// YAML parser puts every shape in collision family 0); false, the default, when it never
    /// does (DART, Choreonoid, MuJoCo's parent and child, Drake). Writers whose simulator
    /// cannot honour the model's choice report it (and Chrono's writer removes the collision
    /// shapes that would make a jointed pair touch at the start); the check tests such pairs
    /// along the motion when this is true.
    #[serde(default, skip_serializing_if = "crate::model::body::is_false")]
    pub jointed_bodies_collide: bool,
    /// Integrator or solver settings, verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

impl Simulation {
    /// The gravity mbconv simulates a model with when its format states none: `[0, 0, −9.81]`
    /// m/s², the default of DART, Chrono, Pinocchio and MuJoCo.
    pub const UNSTATED_GRAVITY: [f64; 3] = [0.0, 0.0, -9.81];

    /// The gravity stated, else [`Self::UNSTATED_GRAVITY`].
    ///
    /// ```
    /// let mut simulation = mbconv_ir::Simulation::default();
    /// assert_eq!(simulation.gravity_or_unstated().z, -9.81);
    /// simulation.gravity = Some(nalgebra::Vector3::new(0.0, -9.8, 0.0));
    /// assert_eq!(simulation.gravity_or_unstated().y, -9.8);
    /// ```
    pub fn gravity_or_unstated(&self) -> Vector3<f64> {
        self.gravity.unwrap_or(Vector3::from(Self::UNSTATED_GRAVITY))
    }

    /// True when no hint is set.
    pub fn is_empty(&self) -> bool {
        self.gravity.is_none()
            && self.time_step.is_none()
            && self.end_time.is_none()
            && !self.jointed_bodies_collide
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
