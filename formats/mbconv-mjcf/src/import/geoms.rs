//! `<geom>`: its shape (primitives where the compiler puts them, meshes at their written pose),
//! its look, and what it weighs as MuJoCo computes it (primitives, meshes, primitives fitted to
//! meshes, shells, `inertiagrouprange`).

use super::Reader;
use super::bodies::{Place, pose};
use crate::import::compiler::defaults::ClassId;
use crate::import::compiler::inertia::{
    GeomMass, GeomType, InertiaKind, MassError, counts_for_inertia, geom_mass,
};
use crate::import::compiler::mesh::mass::MeshMass;
use crate::raw::Element;
use crate::spec::arith::{EPS, Frame, normalize, rotate, z_to_quat};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity};
use mbconv_ir::{Appearance, Geometry, MeshRef, Shape, ShapeRole, Value};
use nalgebra::Vector3;

/// The words of `type` (MuJoCo's geom types).
const GEOM_TYPES: &[&str] = &[
    "plane",
    "hfield",
    "sphere",
    "capsule",
    "ellipsoid",
    "cylinder",
    "box",
    "mesh",
    "sdf",
];

/// A geom being read: its element, its type (and the word that named it) and its class.
#[derive(Clone, Copy)]
struct GeomRead<'d> {
    element: &'d Element,
    kind: GeomType,
    word: &'static str,
    class: ClassId,
}

/// The mesh a geom names (a mesh geom's shape, or the mesh a primitive is fitted to) and the
/// frame the compiler adds to the geom's: the mesh's inertial frame (and for a fitted
/// primitive the centre of the fitted box); known once the mesh is processed.
struct GeomMesh {
    index: Option<usize>,
    frame: Option<Frame>,
}

impl<'d> Reader<'d> {
    /// A geom: its shape, and (when `infer`) what it weighs, in the body frame.
    #[allow(clippy::type_complexity)]
    pub(super) fn geom(
        &mut self,
        g: &'d Element,
        place: Place,
        body_path: &str,
        infer: bool,
    ) -> SourceResult<Option<(Shape, Option<GeomMass>)>> {
        let v = self.values;
        let class = self.class_of(g, place.class)?;
        let type_word = v.word(g, "geom", class, "type", GEOM_TYPES, "sphere")?;
        let kind = GeomType::parse(type_word).unwrap_or(GeomType::Sphere);
        let geom = GeomRead {
            element: g,
            kind,
            word: type_word,
            class,
        };
        let contype = v.int(g, "geom", class, "contype", 1)?;
        let conaffinity = v.int(g, "geom", class, "conaffinity", 1)?;
        if self.compiler.discardvisual && contype == 0 && conaffinity == 0 {
            return Ok(None);
        }
        let group = v.int(g, "geom", class, "group", 0)?;
        let (mut size, local, fromto) = self.geom_frame(&geom)?;
        let mut mesh = self.geom_mesh(&geom, fromto.is_some(), &mut size)?;
        self.check_geom_size(&geom, &size)?;
        let range = self.compiler.inertiagrouprange;
        let counted = infer && group >= range[0] && group <= range[1];
        let weighed = self.weigh_geom(&geom, &size, counted, &mut mesh)?;
        let placed = place.frame.compose(&local);
        let mut placed = placed;
        normalize(&mut placed.quat);
        // Where the compiler puts the geom's frame: offset by the mesh's frame.
        let mut compiled = match &mesh.frame {
            Some(f) => placed.compose(f),
            None => placed,
        };
        normalize(&mut compiled.quat);
        let mass = weighed.and_then(|(m, moments)| {
            counts_for_inertia(group, self.compiler.inertiagrouprange, m).then_some(GeomMass {
                mass: m,
                inertia: moments,
                pos: compiled.pos,
                quat: compiled.quat,
            })
        });

        // The shape: a primitive where the compiler puts it; a mesh at its written pose.
        let mut shape_frame = if matches!(kind, GeomType::Mesh | GeomType::Sdf) {
            placed
        } else {
            compiled
        };
        let Some(geometry) =
            self.geom_geometry(&geom, &size, mesh.index, placed, &mut shape_frame, body_path)?
        else {
            return Ok(None);
        };
        let collides = contype != 0 || conaffinity != 0;
        let mut shape = Shape::new(
            if collides {
                ShapeRole::Both
            } else {
                ShapeRole::Visual
            },
            geometry,
        );
        shape.name = self.name_of(g, place);
        shape.pose = pose(&shape_frame);
        if kind == GeomType::Sdf {
            shape.extras.insert("mjcf.type", Value::String("sdf".to_string()));
        }
        self.geom_look(&geom, &mut shape)?;
        self.geom_extras(&geom, &size, &mut shape);
        Ok(Some((shape, mass)))
    }

    /// A geom's size and its frame where it stands: `pos` and its orientation, or `fromto`
    /// (which also gives the length), with `fromto` as written.
    #[allow(clippy::type_complexity)]
    fn geom_frame(&self, geom: &GeomRead<'d>) -> SourceResult<([f64; 3], Frame, Option<Vec<f64>>)> {
        let (v, g, kind, class) = (self.values, geom.element, geom.kind, geom.class);
        let sz = v.vector(g, "geom", class, "size", &[0.0; 3], false)?.0;
        let mut size = [sz[0], sz[1], sz[2]];
        let fromto = match v.get(g, "geom", class, "fromto") {
            Some(_) => Some(v.vector(g, "geom", class, "fromto", &[0.0; 6], true)?.0),
            None => None,
        };
        let pos = v.vector(g, "geom", class, "pos", &[0.0; 3], true)?.0;
        let mut local = Frame {
            pos: [pos[0], pos[1], pos[2]],
            quat: [1.0, 0.0, 0.0, 0.0],
        };
        if let Some(ft) = &fromto {
            if !matches!(
                kind,
                GeomType::Capsule | GeomType::Cylinder | GeomType::Ellipsoid | GeomType::Box
            ) {
                return Err(self.error(
                    &g.loc,
                    "geom",
                    "fromto requires capsule, cylinder, box or ellipsoid in geom",
                ));
            }
            if local.pos != [0.0; 3] {
                return Err(self.error(&g.loc, "geom", "both pos and fromto defined in geom"));
            }
            let mut d = [ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5]];
            size[1] = normalize(&mut d) / 2.0;
            if size[1] < EPS {
                return Err(self.error(&g.loc, "geom", "fromto points too close in geom"));
            }
            if matches!(kind, GeomType::Ellipsoid | GeomType::Box) {
                size[2] = size[1];
                size[1] = size[0];
            }
            local.pos = super::frames::fromto_midpoint(ft);
            local.quat = z_to_quat(&d);
        } else {
            local.quat = self.class_orientation(g, "geom", class)?;
        }
        Ok((size, local, fromto))
    }

    /// The mesh a geom names and, for a primitive fitted to it, the fitted size (`fitscale`
    /// applied) and the frame the compiler adds to the geom's.
    fn geom_mesh(
        &mut self,
        geom: &GeomRead<'d>,
        fromto: bool,
        size: &mut [f64; 3],
    ) -> SourceResult<GeomMesh> {
        let (v, g, kind, class) = (self.values, geom.element, geom.kind, geom.class);
        let mesh_attr = v.get(g, "geom", class, "mesh").map(|(a, _)| a);
        let mesh_index = match mesh_attr {
            Some(a) if matches!(kind, GeomType::Mesh | GeomType::Sdf) || kind.size_count() > 0 => {
                match self.mesh_index(&a.value) {
                    Some(i) => Some(i),
                    None => {
                        return Err(self.error(&a.loc, "geom", format!("mesh '{}' not found", a.value)));
                    }
                }
            }
            _ => None,
        };
        if mesh_index.is_some() && fromto {
            return Err(self.error(&g.loc, "geom", "fromto cannot be used with mesh geom"));
        }
        // The frame the compiler adds to the geom's: the mesh's inertial frame (and for a
        // fitted primitive the centre of the fitted box); known once the mesh is processed.
        let mut mesh_frame: Option<Frame> = None;
        if let Some(i) = mesh_index
            && !matches!(kind, GeomType::Mesh | GeomType::Sdf)
        {
            let m = self.mesh_mass(i)?;
            let fitscale = v.scalar(g, "geom", class, "fitscale", 1.0)?;
            let Some((fitted, center)) = fit(kind, &m, self.compiler.fitaabb, *size) else {
                return Err(self.error(
                    &g.loc,
                    "geom",
                    format!("invalid geom type in fitting mesh {}", self.meshes[i].name),
                ));
            };
            *size = fitted.map(|x| x * fitscale);
            let c = rotate(&center, &m.quat);
            mesh_frame = Some(Frame {
                pos: [c[0] + m.pos[0], c[1] + m.pos[1], c[2] + m.pos[2]],
                quat: m.quat,
            });
        }
        Ok(GeomMesh {
            index: mesh_index,
            frame: mesh_frame,
        })
    }

    /// A geom's sizes, checked as MuJoCo checks them.
    fn check_geom_size(&self, geom: &GeomRead<'d>, size: &[f64; 3]) -> SourceResult<()> {
        let (g, kind) = (geom.element, geom.kind);
        if kind == GeomType::Plane {
            if size[2] <= 0.0 {
                return Err(self.error(&g.loc, "geom", "plane size(3) must be positive"));
            }
        } else {
            for (i, s) in size.iter().enumerate().take(kind.size_count()) {
                if *s <= 0.0 {
                    return Err(self.error(&g.loc, "geom", format!("size {i} must be positive in geom")));
                }
            }
        }
        Ok(())
    }

    /// What a geom weighs (mass and principal moments) when it counts for its body's mass
    /// (`counted`: the mass comes from the geoms and its group is in `inertiagrouprange`); a
    /// mesh geom's also sets the frame the compiler adds to the geom's.
    fn weigh_geom(
        &mut self,
        geom: &GeomRead<'d>,
        size: &[f64; 3],
        counted: bool,
        mesh: &mut GeomMesh,
    ) -> SourceResult<Option<(f64, [f64; 3])>> {
        let (v, g, kind, class) = (self.values, geom.element, geom.kind, geom.class);
        let shell = if v.flag(g, "geom", class, "shellinertia", false)? {
            InertiaKind::Shell
        } else {
            InertiaKind::Volume
        };
        let mass_attr = v.optional(g, "geom", class, "mass")?;
        let density = v.scalar(g, "geom", class, "density", 1000.0)?;
        if matches!(kind, GeomType::Mesh | GeomType::Sdf) && shell == InertiaKind::Shell {
            return Err(self.error(
                &g.loc,
                "geom",
                "for mesh geoms, inertia should be specified in the mesh asset",
            ));
        }
        // Mass, before the frame moves the geom (MuJoCo's order; the sizes do not change).
        let mut weighed = None;
        if counted {
            match kind {
                GeomType::Sdf if mesh.index.is_none() => {
                    return Err(self.error(
                        &g.loc,
                        "mesh_inertia",
                        "mass and inertia from an sdf geom without a mesh (a plugin's signed distance field) are not computed by mbconv; give the body an <inertial> (or put the geom outside inertiagrouprange)",
                    ));
                }
                GeomType::Mesh | GeomType::Sdf => {
                    let Some(i) = mesh.index else {
                        return Err(self.error(&g.loc, "geom", "mesh geom must have valid meshid"));
                    };
                    let (m, moments) = self.mesh_geom_mass(g, i, mass_attr, density, &mut mesh.frame)?;
                    weighed = Some((m, moments));
                }
                _ => {
                    let (m, moments) = geom_mass(kind, size, shell, mass_attr, density)
                        .map_err(|err: MassError| self.error(&g.loc, "geom", err.to_string()))?;
                    weighed = Some((m, moments));
                }
            }
        }
        Ok(weighed)
    }

    /// A geom's IR geometry, and for a mesh moved by its asset's `refpos`/`refquat` the frame
    /// its shape sits at; `None`, with a finding, for a geom without an IR shape.
    fn geom_geometry(
        &mut self,
        geom: &GeomRead<'d>,
        size: &[f64; 3],
        mesh_index: Option<usize>,
        placed: Frame,
        shape_frame: &mut Frame,
        body_path: &str,
    ) -> SourceResult<Option<Geometry>> {
        let (g, kind, type_word, size) = (geom.element, geom.kind, geom.word, *size);
        let geometry = match kind {
            GeomType::Sphere => Geometry::Sphere { radius: size[0] },
            GeomType::Capsule => Geometry::Capsule {
                radius: size[0],
                length: 2.0 * size[1],
            },
            GeomType::Cylinder => Geometry::Cylinder {
                radius: size[0],
                length: 2.0 * size[1],
            },
            GeomType::Ellipsoid => Geometry::Ellipsoid { radii: size },
            GeomType::Box => Geometry::Box {
                size: [2.0 * size[0], 2.0 * size[1], 2.0 * size[2]],
            },
            GeomType::Plane => Geometry::Plane {
                normal: Vector3::z(),
                offset: 0.0,
            },
            // An sdf geom made from a mesh asset is that mesh (kept as `mjcf.type`).
            GeomType::Mesh | GeomType::Sdf if kind == GeomType::Mesh || mesh_index.is_some() => {
                let Some(i) = mesh_index else {
                    return Err(self.error(&g.loc, "geom", "mesh geom must have valid meshid"));
                };
                let asset = &self.meshes[i];
                let (file, t) = (asset.file.clone(), asset.transform);
                let (uri, resolved) = self.mesh_uri(&file);
                let mut mesh = MeshRef::new(uri);
                mesh.scale = t.scale;
                mesh.resolved_path = resolved.map(|p| p.to_string_lossy().into_owned());
                // The file's coordinates are kept: the shape sits at the written pose, moved
                // by the asset's refpos/refquat (which the compiler applies before scaling).
                if t.refpos != [0.0; 3] || t.refquat != [1.0, 0.0, 0.0, 0.0] {
                    let (frame, exact) = reference_frame(t.scale, t.refpos, t.refquat);
                    *shape_frame = placed.compose(&frame);
                    normalize(&mut shape_frame.quat);
                    if !exact {
                        self.finding(
                            "mesh_reference",
                            Severity::Warning,
                            Category::Approximated,
                            body_path,
                            Some(&g.loc),
                            format!("mesh '{}': refquat with an unequal scale turns the mesh before scaling it, which a scaled mesh shape cannot say; the shape is placed as if the scale were applied first", asset.name),
                        );
                    }
                }
                Geometry::Mesh(mesh)
            }
            GeomType::Hfield | GeomType::Sdf | GeomType::Mesh => {
                self.finding(
                    "geom_dropped",
                    Severity::Warning,
                    Category::Dropped,
                    body_path,
                    Some(&g.loc),
                    format!("a {type_word} geom has no IR shape; kept as an extra of the body"),
                );
                return Ok(None);
            }
        };
        Ok(Some(geometry))
    }

    /// A geom's colour (an rgba other than MuJoCo's default wins over the material's) and its
    /// material's name.
    fn geom_look(&self, geom: &GeomRead<'d>, shape: &mut Shape) -> SourceResult<()> {
        let (v, g, class) = (self.values, geom.element, geom.class);
        let rgba = v.vector(g, "geom", class, "rgba", &[0.5, 0.5, 0.5, 1.0], true)?.0;
        let material = v.get(g, "geom", class, "material").map(|(a, _)| a.value.clone());
        let colour = if rgba != [0.5, 0.5, 0.5, 1.0] {
            Some(rgba)
        } else {
            material
                .as_ref()
                .and_then(|m| self.materials.iter().find(|(n, _)| n == m))
                .map(|(_, c)| c.to_vec())
                .or(Some(rgba))
        };
        if let Some(c) = colour {
            shape.appearance = Some(Appearance {
                diffuse: Some([c[0], c[1], c[2]]),
                alpha: Some(c[3]),
                ..Appearance::default()
            });
        }
        if let Some(m) = material {
            shape.extras.insert("mjcf.material", Value::String(m));
        }
        Ok(())
    }

    /// What a geom says beyond its shape and look, kept as `mjcf.*` extras of the shape (a
    /// plane's size, its class and what it takes from its classes, other attributes).
    fn geom_extras(&self, geom: &GeomRead<'d>, size: &[f64; 3], shape: &mut Shape) {
        let (g, kind, class) = (geom.element, geom.kind, geom.class);
        if kind == GeomType::Plane {
            shape.extras.insert(
                "mjcf.size",
                Value::List(size.iter().map(|&x| Value::Float(x)).collect()),
            );
        }
        if let Some(c) = g.attr("class") {
            shape.extras.insert("mjcf.class", Value::String(c.value.clone()));
        }
        if let Some(origins) = self.class_origins(g, "geom", class) {
            shape.extras.insert("mjcf.from_class", origins);
        }
        for a in &g.attrs {
            match a.name.as_str() {
                "name" | "type" | "size" | "fromto" | "pos" | "quat" | "axisangle" | "xyaxes" | "zaxis"
                | "euler" | "rgba" | "material" | "mesh" | "class" => {}
                _ => shape
                    .extras
                    .insert(format!("mjcf.{}", a.name), Value::String(a.value.clone())),
            }
        }
    }

    /// False, with a finding, for the shape of a mesh given inline (`<mesh vertex=… face=…>`,
    /// no file): the IR's mesh shape names a file, so the shape is not carried (what it weighs
    /// is: the geom's mass counts as MuJoCo counts it).
    pub(super) fn keeps_shape(&mut self, shape: &Shape, g: &Element, body_path: &str) -> bool {
        let inline = matches!(&shape.geometry, Geometry::Mesh(m) if m.uri.is_empty());
        if inline {
            self.finding(
                "inline_mesh_dropped",
                Severity::Warning,
                Category::Dropped,
                body_path,
                Some(&g.loc),
                "a mesh given inline (vertex/face, no file) has no IR shape: the geom's shape is not carried (its mass is)".to_string(),
            );
        }
        !inline
    }
}

/// The size of a primitive fitted to a mesh, and the centre of the fitted box in the mesh's
/// principal frame (MuJoCo's `FitGeom`: the equivalent inertia box, or with the compiler's
/// `fitaabb` the axis-aligned bounding box); sizes the type does not use keep their values.
pub(super) fn fit(kind: GeomType, m: &MeshMass, aabb: bool, size: [f64; 3]) -> Option<([f64; 3], [f64; 3])> {
    let mut out = size;
    if !aabb {
        let b = m.boxsz;
        match kind {
            GeomType::Sphere => out[0] = (b[0] + b[1] + b[2]) / 3.0,
            GeomType::Capsule => {
                out[0] = (b[0] + b[1]) / 2.0;
                out[1] = (b[2] - out[0] / 2.0).max(0.0);
            }
            GeomType::Cylinder => {
                out[0] = (b[0] + b[1]) / 2.0;
                out[1] = b[2];
            }
            GeomType::Ellipsoid | GeomType::Box => out = b,
            _ => return None,
        }
        return Some((out, [0.0; 3]));
    }
    let a = m.aamm;
    let center = [(a[0] + a[3]) / 2.0, (a[1] + a[4]) / 2.0, (a[2] + a[5]) / 2.0];
    let half = [a[3] - center[0], a[4] - center[1], a[5] - center[2]];
    match kind {
        GeomType::Sphere => out[0] = half[0].max(half[1]).max(half[2]),
        GeomType::Capsule | GeomType::Cylinder => {
            out[0] = half[0].max(half[1]);
            out[1] = half[2];
            if kind == GeomType::Capsule {
                out[1] -= out[0];
            }
        }
        GeomType::Ellipsoid | GeomType::Box => out = half,
        _ => return None,
    }
    Some((out, center))
}

/// Where a mesh shape's file coordinates sit in the geom frame given the asset's `refpos` and
/// `refquat` (the compiler subtracts `refpos`, turns by the inverse of `refquat`, then scales);
/// false when an unequal scale after a turn makes that no rigid placement.
pub(super) fn reference_frame(scale: [f64; 3], refpos: [f64; 3], refquat: [f64; 4]) -> (Frame, bool) {
    let mut q = refquat;
    normalize(&mut q);
    let inverse = [q[0], -q[1], -q[2], -q[3]];
    let turned = rotate(&refpos, &inverse);
    let frame = Frame {
        pos: [
            -scale[0] * turned[0],
            -scale[1] * turned[1],
            -scale[2] * turned[2],
        ],
        quat: inverse,
    };
    let uniform = scale[0] == scale[1] && scale[1] == scale[2];
    (frame, uniform || q == [1.0, 0.0, 0.0, 0.0])
}

impl Reader<'_> {
    /// A mesh geom's mass and principal moments (MuJoCo's rules: `mass="0"` or zero density
    /// weigh nothing without the mesh; an explicit mass sets the density from the volume),
    /// and the mesh's inertial frame, which the compiler adds to the geom's.
    pub(super) fn mesh_geom_mass(
        &mut self,
        g: &Element,
        index: usize,
        mass_attr: Option<f64>,
        density: f64,
        mesh_frame: &mut Option<Frame>,
    ) -> SourceResult<(f64, [f64; 3])> {
        let needed = match mass_attr {
            Some(m) => m != 0.0,
            None => density != 0.0,
        };
        if !needed {
            return Ok((0.0, [0.0; 3]));
        }
        let m = self.mesh_mass(index)?;
        *mesh_frame = Some(Frame {
            pos: m.pos,
            quat: m.quat,
        });
        let (mass, density) = match mass_attr {
            Some(x) if m.volume > EPS => (x, x / m.volume),
            Some(_) => (0.0, density),
            None => (density * m.volume, density),
        };
        let moments = m.moments(mass);
        if mass < 0.0 || density < 0.0 || moments.iter().any(|&i| i < 0.0) {
            return Err(self.error(&g.loc, "geom", MassError::NegativeGeom.to_string()));
        }
        Ok((mass, moments))
    }
}
