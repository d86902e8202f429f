//! Shapes, appearance and contact materials.

use crate::model::body::{is_true, yes};
use crate::pose::Pose;
use crate::value::Extras;
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// A visual and/or collision shape attached to a body.
///
/// ```
/// use mbconv_ir::{Geometry, Shape, ShapeRole};
/// let s = Shape::new(ShapeRole::Both, Geometry::Sphere { radius: 0.1 });
/// assert!(s.role.is_visual() && s.role.is_collision());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shape {
    /// Optional name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Whether the shape is drawn, collides, or both.
    pub role: ShapeRole,
    /// Pose of the geometry frame in the body frame.
    #[serde(default)]
    pub pose: Pose,
    /// The geometry.
    pub geometry: Geometry,
    /// Colours and texture (visual shapes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub appearance: Option<Appearance>,
    /// Collision shapes only: whether it currently collides (DART `<collidable>`).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub collidable: bool,
    /// Collision shapes only: name of a contact material of the same body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_material: Option<String>,
    /// Collision shapes only: contact radius / margin (Chrono mesh `contact_radius`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_radius: Option<f64>,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

impl Shape {
    /// A shape at the body origin with no appearance or material.
    pub fn new(role: ShapeRole, geometry: Geometry) -> Self {
        Self {
            name: None,
            role,
            pose: Pose::identity(),
            geometry,
            appearance: None,
            collidable: true,
            contact_material: None,
            contact_radius: None,
            extras: Extras::default(),
        }
    }
}

/// What a shape is used for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeRole {
    /// Drawn only.
    Visual,
    /// Collides only.
    Collision,
    /// Drawn and collides (Choreonoid shapes outside `Visual`/`Collision`).
    Both,
}

impl ShapeRole {
    /// Drawn?
    pub fn is_visual(self) -> bool {
        matches!(self, ShapeRole::Visual | ShapeRole::Both)
    }
    /// Collides?
    pub fn is_collision(self) -> bool {
        matches!(self, ShapeRole::Collision | ShapeRole::Both)
    }
}

/// Geometry in its own frame. Axisymmetric shapes (cylinder, capsule, cone) have their axis
/// along local **Z** and are centred at mid-height; all sizes are full lengths unless the
/// field says radius.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Geometry {
    /// Box with full edge lengths `[x, y, z]`.
    Box {
        /// Full extents.
        size: [f64; 3],
    },
    /// Sphere.
    Sphere {
        /// Radius.
        radius: f64,
    },
    /// Ellipsoid with semi-axes `[a, b, c]` (radii, not diameters).
    Ellipsoid {
        /// Semi-axes along x, y, z.
        radii: [f64; 3],
    },
    /// Cylinder along Z.
    Cylinder {
        /// Radius.
        radius: f64,
        /// Full length along Z.
        length: f64,
    },
    /// Capsule along Z; `length` is the cylindrical part only.
    Capsule {
        /// Radius of the cylinder and the end spheres.
        radius: f64,
        /// Length of the cylindrical part.
        length: f64,
    },
    /// Cone along Z, base at `-length/2`, apex at `+length/2`.
    Cone {
        /// Base radius.
        radius: f64,
        /// Height.
        length: f64,
    },
    /// Pyramid along Z with a rectangular base (DART).
    Pyramid {
        /// Base extent along x.
        base_width: f64,
        /// Base extent along y.
        base_depth: f64,
        /// Height.
        height: f64,
    },
    /// Infinite plane `normal · x = offset`.
    Plane {
        /// Plane normal.
        normal: Vector3<f64>,
        /// Signed offset along the normal.
        offset: f64,
    },
    /// Convex hull of spheres (DART `multi_sphere`).
    MultiSphere {
        /// The spheres.
        spheres: Vec<SphereItem>,
    },
    /// A mesh or scene file.
    Mesh(MeshRef),
    /// The convex hull of a mesh file (Chrono HULL).
    ConvexHull(MeshRef),
    /// A primitive fitted to a mesh file by the simulator (Shift `collision_geometry`).
    FittedPrimitive {
        /// The mesh the primitive is fitted to.
        mesh: MeshRef,
        /// The fitted primitive.
        primitive: FittedKind,
    },
    /// VRML extrusion (Choreonoid).
    Extrusion(Extrusion),
    /// VRML elevation grid (Choreonoid).
    ElevationGrid(ElevationGrid),
    /// Polygon mesh given inline (Choreonoid `IndexedFaceSet`).
    IndexedFaceSet(IndexedFaceSet),
    /// Triangle mesh given inline (Choreonoid `TriangleMesh`).
    TriangleMesh {
        /// Vertex coordinates.
        vertices: Vec<[f64; 3]>,
        /// Vertex indices, three per triangle.
        triangles: Vec<[u32; 3]>,
    },
}

impl Geometry {
    /// A box, sphere, cylinder, capsule or ellipsoid: the solids every XML format has an
    /// element for.
    ///
    /// ```
    /// use mbconv_ir::Geometry;
    /// assert!(Geometry::Sphere { radius: 0.1 }.is_basic_solid());
    /// assert!(!Geometry::Plane { normal: nalgebra::Vector3::z(), offset: 0.0 }.is_basic_solid());
    /// ```
    pub fn is_basic_solid(&self) -> bool {
        matches!(
            self,
            Self::Box { .. }
                | Self::Sphere { .. }
                | Self::Cylinder { .. }
                | Self::Capsule { .. }
                | Self::Ellipsoid { .. }
        )
    }
}

/// One sphere of a [`Geometry::MultiSphere`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SphereItem {
    /// Radius.
    pub radius: f64,
    /// Centre in the shape frame.
    pub center: Vector3<f64>,
}

/// A reference to an external mesh or scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshRef {
    /// The file reference exactly as written (never reduced to a basename).
    pub uri: String,
    /// The path it resolves to on this machine, when the importer could resolve it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_path: Option<String>,
    /// Scale factors along x, y, z.
    #[serde(default = "unit_scale")]
    pub scale: [f64; 3],
    /// A named node inside the file (Choreonoid `node:`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

impl MeshRef {
    /// A reference with unit scale.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            resolved_path: None,
            scale: unit_scale(),
            node: None,
        }
    }
}

impl MeshRef {
    /// The reference to write in a file saved at `output` (for formats whose loaders resolve
    /// mesh paths relative to the model file, as DART and Choreonoid do).
    ///
    /// With no output path, or when the importer could not resolve the mesh, the reference is
    /// written as it was read. Otherwise the resolved path is made relative to the output's
    /// directory; when that gives back the reference as written, it is kept unchanged, so a
    /// file written beside its source round-trips byte for byte.
    ///
    /// ```
    /// use mbconv_ir::MeshRef;
    /// use std::path::Path;
    /// let mut mesh = MeshRef::new("part.obj");
    /// mesh.resolved_path = Some("/models/robot/meshes/part.obj".into());
    /// assert_eq!(mesh.uri_for_output(Some(Path::new("/models/robot/robot.skel"))), "meshes/part.obj");
    /// assert_eq!(mesh.uri_for_output(Some(Path::new("/out/robot.skel"))), "../models/robot/meshes/part.obj");
    /// assert_eq!(mesh.uri_for_output(None), "part.obj");
    /// mesh.resolved_path = Some("/models/robot/../obj/foot.obj".into());
    /// assert_eq!(mesh.uri_for_output(Some(Path::new("/models/x.skel"))), "obj/foot.obj");
    /// ```
    pub fn uri_for_output(&self, output: Option<&std::path::Path>) -> String {
        let (Some(output), Some(resolved)) = (output, &self.resolved_path) else {
            return self.uri.clone();
        };
        let absolute = |p: &std::path::Path| std::path::absolute(p).ok();
        let (Some(dir), Some(target)) = (
            output.parent().and_then(absolute),
            absolute(std::path::Path::new(resolved)),
        ) else {
            return self.uri.clone();
        };
        let relative = relative_path(&dir, &target);
        if std::path::Path::new(&self.uri) == std::path::Path::new(&relative) {
            self.uri.clone()
        } else {
            relative
        }
    }
}

/// `target` relative to the directory `base` (both absolute), with `/` separators.
fn relative_path(base: &std::path::Path, target: &std::path::Path) -> String {
    use std::path::Component;
    // Lexical normalisation: `.` dropped, `..` cancels the component before it.
    fn normal(p: &std::path::Path) -> Vec<Component<'_>> {
        let mut out: Vec<Component<'_>> = Vec::new();
        for c in p.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    }
    let (base, target) = (normal(base), normal(target));
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let parts: Vec<String> = std::iter::repeat_n("..".to_owned(), base.len() - common)
        .chain(
            target[common..]
                .iter()
                .map(|c| c.as_os_str().to_string_lossy().into_owned()),
        )
        .collect();
    parts.join("/")
}

fn unit_scale() -> [f64; 3] {
    [1.0, 1.0, 1.0]
}

/// Primitive kinds a simulator fits to a mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FittedKind {
    /// Bounding sphere.
    Sphere,
    /// Bounding ellipsoid.
    Ellipsoid,
    /// Convex hull.
    ConvexHull,
}

/// VRML extrusion parameters (angles in radians).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extrusion {
    /// Cross-section points `[x, z]`.
    pub cross_section: Vec<[f64; 2]>,
    /// Spine points.
    pub spine: Vec<[f64; 3]>,
    /// Per-spine-point axis-angle rotations `[x, y, z, θ]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub orientation: Vec<[f64; 4]>,
    /// Per-spine-point scale `[sx, sz]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scale: Vec<[f64; 2]>,
    /// Crease angle for shading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crease_angle: Option<f64>,
    /// Cap at the start.
    #[serde(default = "yes")]
    pub begin_cap: bool,
    /// Cap at the end.
    #[serde(default = "yes")]
    pub end_cap: bool,
}

/// VRML elevation grid parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElevationGrid {
    /// Points along x.
    pub x_dimension: u32,
    /// Points along z.
    pub z_dimension: u32,
    /// Spacing along x.
    pub x_spacing: f64,
    /// Spacing along z.
    pub z_spacing: f64,
    /// Heights, `x_dimension * z_dimension` values, row by row.
    pub height: Vec<f64>,
    /// Counter-clockwise vertex order.
    #[serde(default = "yes")]
    pub ccw: bool,
    /// Crease angle for shading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crease_angle: Option<f64>,
}

/// VRML indexed face set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexedFaceSet {
    /// Vertex coordinates.
    pub coordinate: Vec<[f64; 3]>,
    /// Face vertex indices; `-1` ends a face.
    pub coord_index: Vec<i64>,
    /// Texture coordinates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tex_coord: Vec<[f64; 2]>,
    /// Texture coordinate indices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tex_coord_index: Vec<i64>,
    /// Crease angle for shading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crease_angle: Option<f64>,
}

/// Surface appearance of a visual shape. Colour components are in `[0, 1]`.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Appearance {
    /// Diffuse colour `[r, g, b]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diffuse: Option<[f64; 3]>,
    /// Alpha (1 = opaque), when the format gives RGBA.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Specular colour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specular: Option<[f64; 3]>,
    /// Emissive colour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emissive: Option<[f64; 3]>,
    /// Ambient intensity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ambient_intensity: Option<f64>,
    /// Shininess.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shininess: Option<f64>,
    /// Transparency (0 = opaque, VRML convention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transparency: Option<f64>,
    /// Texture image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture: Option<Texture>,
}

impl Appearance {
    /// Removes what the appearance says beyond its colour, alpha and texture: specular and
    /// emissive colours, ambient intensity, shininess and transparency; whether there was any
    /// (for the formats that state a colour only).
    ///
    /// ```
    /// use mbconv_ir::Appearance;
    /// let red = Appearance { diffuse: Some([1.0, 0.0, 0.0]), ..Appearance::default() };
    /// let mut shiny = Appearance { shininess: Some(0.8), ..red.clone() };
    /// assert!(shiny.take_shading());
    /// assert_eq!(shiny, red);
    /// assert!(!shiny.take_shading());
    /// ```
    pub fn take_shading(&mut self) -> bool {
        // Every field is taken (no short-circuit): `|` rather than `||`.
        self.specular.take().is_some()
            | self.emissive.take().is_some()
            | self.ambient_intensity.take().is_some()
            | self.shininess.take().is_some()
            | self.transparency.take().is_some()
    }
}

/// A texture image.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Texture {
    /// Image file as written.
    pub uri: String,
    /// Repeat horizontally.
    #[serde(default = "yes")]
    pub repeat_s: bool,
    /// Repeat vertically.
    #[serde(default = "yes")]
    pub repeat_t: bool,
}

/// Contact material parameters. `None` means the format did not say and its loader has no
/// default for it; importers fill in the defaults their loader applies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactMaterial {
    /// Name, unique within its body.
    pub name: String,
    /// Coulomb friction coefficient.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f64>,
    /// Coefficient of restitution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restitution: Option<f64>,
    /// Young's modulus (Pa), smooth contact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub young_modulus: Option<f64>,
    /// Poisson ratio, smooth contact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poisson_ratio: Option<f64>,
    /// Normal stiffness (N/m), smooth contact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal_stiffness: Option<f64>,
    /// Normal damping (N·s/m), smooth contact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal_damping: Option<f64>,
    /// Tangential stiffness (N/m), smooth contact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tangential_stiffness: Option<f64>,
    /// Tangential damping (N·s/m), smooth contact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tangential_damping: Option<f64>,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

impl ContactMaterial {
    /// A material with nothing specified.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            friction: None,
            restitution: None,
            young_modulus: None,
            poisson_ratio: None,
            normal_stiffness: None,
            normal_damping: None,
            tangential_stiffness: None,
            tangential_damping: None,
            extras: Extras::default(),
        }
    }
}
