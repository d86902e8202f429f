//! The page's data as serialised into it: the contract with the front-end, described field by
//! field in `docs/view-data.md`.

use serde::Serialize;
use std::collections::BTreeMap;

/// A pose as `[px, py, pz, qx, qy, qz, qw]` (three.js quaternion order).
pub type PoseArray = [f64; 7];

/// Everything the page shows.
#[derive(Clone, Debug, Serialize)]
pub struct PageData {
    /// The data's version.
    pub format: u32,
    /// The page's title (usually the model's path).
    pub title: String,
    /// The original's format (registry name).
    pub source: String,
    /// The frames' times (s), shared by every scene.
    pub times: Vec<f64>,
    /// The model as read, and its motion.
    pub original: SceneData,
    /// The conversions drawn as ghosts.
    pub conversions: Vec<ConversionData>,
    /// What reading and validating the original found.
    pub findings: Vec<FindingData>,
    /// The mesh files the shapes refer to, by key.
    pub meshes: BTreeMap<String, MeshData>,
    /// Page-wide notes.
    pub notes: Vec<String>,
}

/// One model and its motion.
#[derive(Clone, Debug, Serialize)]
pub struct SceneData {
    /// The model's name.
    pub name: String,
    /// Gravity (m/s²).
    pub gravity: [f64; 3],
    /// The bodies, in model order.
    pub bodies: Vec<BodyData>,
    /// The joints, in model order.
    pub joints: Vec<JointData>,
    /// The groups, in model order.
    pub groups: Vec<GroupData>,
    /// How many frames `poses` holds.
    pub frames: usize,
    /// `frames × bodies × 7` floats (f32, base64).
    pub poses: String,
}

/// A body.
#[derive(Clone, Debug, Serialize)]
pub struct BodyData {
    /// Its name.
    pub name: String,
    /// Its IR path.
    pub path: String,
    /// The innermost group listing it.
    pub group: Option<usize>,
    /// Welded to the world.
    pub fixed: bool,
    /// Mass (kg).
    pub mass: f64,
    /// Centre of mass in the body frame (m).
    pub com: [f64; 3],
    /// Inertia about the centre of mass, in body axes (kg·m²).
    pub inertia: [[f64; 3]; 3],
    /// Its shapes.
    pub shapes: Vec<ShapeData>,
}

/// A shape of a body.
#[derive(Clone, Debug, Serialize)]
pub struct ShapeData {
    /// Its name, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `visual`, `collision` or `both`.
    pub role: &'static str,
    /// Pose in the body frame.
    pub pose: PoseArray,
    /// Diffuse colour, when the model gives one.
    pub color: Option<[f64; 3]>,
    /// 1 opaque, 0 invisible.
    pub opacity: f64,
    /// What to draw.
    pub geometry: GeometryData,
}

/// What a shape draws, in the page's few primitives.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GeometryData {
    /// A centred box.
    Box {
        /// Full sizes.
        size: [f64; 3],
    },
    /// A sphere.
    Sphere {
        /// Radius (m).
        radius: f64,
    },
    /// An ellipsoid.
    Ellipsoid {
        /// Semi-axes.
        radii: [f64; 3],
    },
    /// A cylinder along z.
    Cylinder {
        /// Radius (m).
        radius: f64,
        /// Full length (m).
        length: f64,
    },
    /// A capsule along z.
    Capsule {
        /// Radius (m).
        radius: f64,
        /// Length of the cylindrical part (m).
        length: f64,
    },
    /// A cone along z, apex up.
    Cone {
        /// Base radius (m).
        radius: f64,
        /// Height (m).
        length: f64,
    },
    /// The half-space boundary `normal·x = offset`.
    Plane {
        /// Its normal.
        normal: [f64; 3],
        /// Its offset (m).
        offset: f64,
    },
    /// An inline triangle mesh.
    Triangles {
        /// xyz per vertex (f32, base64).
        vertices: String,
        /// Three vertex indices per triangle (u32, base64).
        indices: String,
    },
    /// A mesh file embedded in the page.
    Mesh {
        /// Key into the page's meshes.
        mesh: String,
        /// Scale per axis.
        scale: [f64; 3],
    },
    /// A mesh the page cannot draw, as its bounding box.
    Bounds {
        /// Lower corner (m).
        min: [f64; 3],
        /// Upper corner (m).
        max: [f64; 3],
        /// Why it is a box.
        note: String,
    },
}

/// A mesh file.
#[derive(Clone, Debug, Serialize)]
pub struct MeshData {
    /// `stl`, `obj` or `dae`.
    pub format: &'static str,
    /// The file's bytes (base64).
    pub data: String,
    /// The reference as the model wrote it.
    pub uri: String,
}

/// A joint.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JointData {
    /// Its name.
    pub name: String,
    /// Its IR path.
    pub path: String,
    /// The IR's joint type name.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Parent body index, -1 for the world.
    pub parent: i64,
    /// Child body index, -1 for the world.
    pub child: i64,
    /// The joint frame in the parent's frame.
    pub frame_in_parent: PoseArray,
    /// The joint frame in the child's frame.
    pub frame_in_child: PoseArray,
    /// Its axes in the joint frame.
    pub axes: Vec<[f64; 3]>,
    /// Per degree of freedom: radians (true) or metres.
    pub angular: Vec<bool>,
    /// Per degree of freedom: `[lower, upper]`, or `null` when unlimited.
    pub limits: Vec<Option<[Option<f64>; 2]>>,
    /// Initial positions.
    pub q0: Vec<f64>,
    /// Initial velocities.
    pub v0: Vec<f64>,
}

/// A group of bodies and joints.
#[derive(Clone, Debug, Serialize)]
pub struct GroupData {
    /// Its name.
    pub name: String,
    /// Its IR path.
    pub path: String,
    /// Its type (`skeleton`, `assembly`, …).
    #[serde(rename = "type")]
    pub kind: String,
    /// The enclosing group's index.
    pub parent: Option<usize>,
    /// Body indices.
    pub bodies: Vec<usize>,
    /// Joint indices.
    pub joints: Vec<usize>,
}

/// A conversion, drawn as a ghost.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversionData {
    /// What the selector shows (`via urdf`, `against robot.urdf`).
    pub label: String,
    /// The target's format.
    pub format: String,
    /// The check's verdict, when it was checked.
    pub verdict: Option<&'static str>,
    /// Why the verdict is what it is.
    pub message: String,
    /// The converted model read back, and its motion in the original's world.
    pub scene: SceneData,
    /// Per original body: the index of its counterpart in `scene.bodies`.
    #[serde(rename = "match")]
    pub matching: Vec<Option<usize>>,
    /// Per frame and original body, the check's two measures.
    pub error: ErrorData,
    /// Where they part most.
    pub worst: WorstData,
    /// The conversion's findings.
    pub findings: Vec<FindingData>,
    /// The lowering passes that explain the difference.
    pub explained_by: Vec<ExplanationData>,
    /// What was not compared.
    pub not_compared: Vec<String>,
}

/// The per-frame, per-body distances.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorData {
    /// Distance between matched centres of mass (m), `frames × bodies` f32, base64.
    pub com: String,
    /// Angle between rotations since t = 0 (rad), as `com`.
    pub rotation: String,
}

/// The frame where a conversion parts most from the original.
#[derive(Clone, Debug, Serialize)]
pub struct WorstData {
    /// Its index.
    pub frame: usize,
    /// Its time (s).
    pub time: f64,
    /// The body (original index).
    pub body: Option<usize>,
    /// The distance (m).
    pub com: Option<f64>,
}

/// A lowering pass that explains a difference.
#[derive(Clone, Debug, Serialize)]
pub struct ExplanationData {
    /// The pass.
    pub pass: String,
    /// The finding that excuses it.
    pub code: String,
    /// Its IR path.
    pub path: String,
    /// How far the pass alone moved a body (m).
    pub com: f64,
}

/// A finding, with the item it names.
#[derive(Clone, Debug, Serialize)]
pub struct FindingData {
    /// `info`, `warning` or `error`.
    pub severity: String,
    /// What happened to the data.
    pub category: String,
    /// The stable code.
    pub code: String,
    /// The message.
    pub message: String,
    /// The IR path.
    pub path: Option<String>,
    /// The path of the body, joint or group it names.
    pub item: Option<String>,
    /// `original` or `conversion`: whose item.
    pub scene: &'static str,
    /// The file it points into.
    pub file: Option<String>,
    /// Line (1-based).
    pub line: Option<usize>,
    /// Column (1-based).
    pub column: Option<usize>,
}
