//! Groups of bodies and joints: DART skeletons, Shift assemblies, Choreonoid bodies.

use crate::model::body::{is_true, yes};
use crate::pose::Pose;
use crate::value::Extras;
use serde::{Deserialize, Serialize};

/// A named collection of bodies and joints, possibly nested.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// Unique name.
    pub name: String,
    /// What the format called it.
    pub group_type: GroupType,
    /// Enclosing group, for nested assemblies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Pose of the group frame in the world (DART skeleton `<transformation>`), informative:
    /// body poses are already in world coordinates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pose: Option<Pose>,
    /// Member bodies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bodies: Vec<String>,
    /// Member joints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<String>,
    /// False for an immobile group (DART `<mobile>false</mobile>`).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub mobile: bool,
    /// False for a switched-off assembly (Shift `active: false`).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

impl Group {
    /// An empty, mobile, enabled group.
    pub fn new(name: impl Into<String>, group_type: GroupType) -> Self {
        Self {
            name: name.into(),
            group_type,
            parent: None,
            pose: None,
            bodies: Vec::new(),
            joints: Vec::new(),
            mobile: true,
            enabled: true,
            extras: Extras::default(),
        }
    }
}

/// Group kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupType {
    /// A DART skeleton.
    Skeleton,
    /// A Shift assembly.
    Assembly,
    /// A Choreonoid body (or sub-body).
    Body,
    /// Anything else.
    Other,
}
