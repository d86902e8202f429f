//! Mass properties: `PhysicsMassAPI`'s mass, centre of mass and inertia (`diagonalInertia`
//! in the frame `principalAxes` turns to), each in stage units. What the body does not state
//! comes from its colliders as UsdPhysics states it: their volume times the density (the
//! body's `physics:density`, or 1000 kg/m³), the centre of their volumes, their inertia
//! scaled to the mass.

use super::{Importer, exact, exact3};
use crate::raw::quat;
use crate::spec::{DEFAULT_DENSITY, EXACT_INERTIA, EXACT_INERTIA_ROTATION, api, attr};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::path;
use mbconv_ir::{Category, Geometry, Inertia, Shape};
use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};
use openusd::sdf::Value;

/// The volume, centre and inertia per unit density (about the centre, in the body frame) of
/// the colliders among `shapes` whose solid the IR knows.
fn solids(shapes: &[Shape]) -> (f64, Vector3<f64>, Matrix3<f64>) {
    let mut parts = Vec::new();
    for s in shapes.iter().filter(|s| s.role.is_collision()) {
        let pi = std::f64::consts::PI;
        let (v, d): (f64, Vector3<f64>) = match &s.geometry {
            Geometry::Box { size: [a, b, c] } => {
                let v = a * b * c;
                (
                    v,
                    Vector3::new(b * b + c * c, a * a + c * c, a * a + b * b) * v / 12.0,
                )
            }
            Geometry::Sphere { radius: r } => {
                let v = 4.0 / 3.0 * pi * r.powi(3);
                (v, Vector3::repeat(0.4 * v * r * r))
            }
            Geometry::Ellipsoid { radii: [a, b, c] } => {
                let v = 4.0 / 3.0 * pi * a * b * c;
                (
                    v,
                    Vector3::new(b * b + c * c, a * a + c * c, a * a + b * b) * v / 5.0,
                )
            }
            Geometry::Cylinder { radius: r, length: h } => {
                let v = pi * r * r * h;
                let across = v * (3.0 * r * r + h * h) / 12.0;
                (v, Vector3::new(across, across, 0.5 * v * r * r))
            }
            Geometry::Capsule { radius: r, length: h } => {
                let vc = pi * r * r * h;
                let vs = 4.0 / 3.0 * pi * r.powi(3);
                let axial = 0.5 * vc * r * r + 0.4 * vs * r * r;
                let across =
                    vc * (3.0 * r * r + h * h) / 12.0 + vs * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0);
                (vc + vs, Vector3::new(across, across, axial))
            }
            _ => continue,
        };
        let r = s.pose.rotation.to_rotation_matrix().into_inner();
        parts.push((
            v,
            s.pose.translation,
            r * Matrix3::from_diagonal(&d) * r.transpose(),
        ));
    }
    let volume: f64 = parts.iter().map(|p| p.0).sum();
    if volume == 0.0 {
        return (0.0, Vector3::zeros(), Matrix3::zeros());
    }
    let centre = parts.iter().map(|p| p.1 * p.0).sum::<Vector3<f64>>() / volume;
    let mut inertia = Matrix3::zeros();
    for (v, c, i) in parts {
        let d = c - centre;
        inertia += i + v * (Matrix3::identity() * d.dot(&d) - d * d.transpose());
    }
    (volume, centre, inertia)
}

impl Importer<'_> {
    /// The mass properties of body `b` from prim `i`.
    pub(super) fn mass_properties(&mut self, i: usize, b: usize) -> SourceResult<()> {
        let p = &self.stage.prims[i];
        let at = path::item("bodies", &self.model.bodies[b].name);
        let has_api = p.has_api(api::MASS);
        let (l, m) = (self.length, self.mass);
        if let Some((x, _)) = exact(p, attr::MASS)
            && !(x.is_finite() && x >= 0.0)
        {
            return Err(self.error(
                "mass",
                &p.path,
                format!("physics:mass is {x}; a mass is a finite number, 0 or more"),
            ));
        }
        // A negative principal moment is read as stated, as OpenUSD and Newton read it; the
        // model's validation warns that no rigid body has it (`inertia.not_psd`).
        if let Some((d, _)) = exact3(p, attr::DIAGONAL_INERTIA)
            && d.iter().any(|x| !x.is_finite())
        {
            return Err(self.error(
                "inertia",
                &p.path,
                format!("physics:diagonalInertia is {d:?}; principal moments are finite numbers"),
            ));
        }
        let si = |(v, si): (f64, bool), unit: f64| if si { v } else { v * unit };
        // Zero is "not stated" to UsdPhysics, except in the writer's double.
        let mass = exact(p, attr::MASS)
            .filter(|(x, kept)| *kept || *x > 0.0)
            .map(|x| si(x, m));
        let density = exact(p, attr::DENSITY)
            .map(|x| si(x, m / (l * l * l)))
            .filter(|x| *x > 0.0);
        let com = exact3(p, attr::CENTER_OF_MASS)
            .filter(|(c, _)| c.iter().all(|x| x.is_finite()))
            .map(|(c, exact)| {
                let scale = self.world[i].scale;
                if exact {
                    Vector3::from(c)
                } else {
                    Vector3::from(c).component_mul(&scale) * l
                }
            });
        let stated = self.stated_inertia(i);
        let (volume, centre, unit_inertia) = solids(&self.model.bodies[b].shapes);
        let path = p.path.clone();
        let mass_stated = mass.is_some();
        let mass = match mass {
            Some(mass) => mass,
            None if volume > 0.0 => {
                let rho = density.unwrap_or(DEFAULT_DENSITY);
                self.note("mass_from_shapes", Category::Defaulted, &at, &path, format!("no physics:mass: the colliders' volume ({volume:.6} m³) times the density ({rho} kg/m³)"));
                volume * rho
            }
            None => {
                let why = if has_api {
                    "PhysicsMassAPI states no mass"
                } else {
                    "no PhysicsMassAPI"
                };
                self.note(
                    "default_mass",
                    Category::Defaulted,
                    &at,
                    &path,
                    format!("{why} and no collider with a volume: 1 kg with unit inertia, as PhysX assumes"),
                );
                1.0
            }
        };
        let body = &mut self.model.bodies[b];
        body.inertial.mass = mass;
        body.inertial.com = com.unwrap_or(if volume > 0.0 { centre } else { Vector3::zeros() });
        match stated {
            Some((inertia, rotation)) => {
                body.inertial.inertia = inertia;
                body.inertial.inertia_rotation = rotation;
            }
            None if volume > 0.0 => {
                body.inertial.inertia = Inertia::from_matrix(&(unit_inertia * (mass / volume)));
                self.note(
                    "inertia_from_shapes",
                    Category::Defaulted,
                    &at,
                    &path,
                    "no physics:diagonalInertia: the colliders' inertia for the body's mass",
                );
            }
            None if mass_stated => {
                // The colliders' inertia for the body's mass, and there is no collider: a
                // point mass (as ROS descriptions state their sensor frames, and as the
                // writer writes such a body).
                body.inertial.inertia = Inertia([[0.0; 3]; 3]);
                body.inertial.inertia_rotation = UnitQuaternion::identity();
                self.note(
                    "point_mass",
                    Category::Defaulted,
                    &at,
                    &path,
                    "physics:mass is stated but no inertia (physics:diagonalInertia unauthored or (0, 0, 0)) and there is no collider with a volume to compute one from: a point mass (zero inertia)",
                );
            }
            None => {}
        }
        Ok(())
    }

    /// The inertia the prim states: `mbconv:inertia` when the writer kept it, otherwise
    /// `diagonalInertia` in the `principalAxes` frame (unauthored or all zero: not stated).
    fn stated_inertia(&self, i: usize) -> Option<(Inertia, UnitQuaternion<f64>)> {
        let p = &self.stage.prims[i];
        if let Some(Value::DoubleVec(v)) = p.attribute(EXACT_INERTIA)
            && v.len() == 9
        {
            let rotation = p
                .attribute(EXACT_INERTIA_ROTATION)
                .and_then(quat)
                .and_then(unit)
                .unwrap_or_else(UnitQuaternion::identity);
            let m = [[v[0], v[1], v[2]], [v[3], v[4], v[5]], [v[6], v[7], v[8]]];
            return Some((Inertia(m), rotation));
        }
        let (d, _) = exact3(p, attr::DIAGONAL_INERTIA)?;
        if d == [0.0; 3] {
            return None;
        }
        let unit_of_inertia = self.mass * self.length * self.length;
        let d = d.map(|x| x * unit_of_inertia);
        let rotation = p
            .attribute(attr::PRINCIPAL_AXES)
            .and_then(quat)
            .and_then(unit)
            .unwrap_or_else(UnitQuaternion::identity);
        Some((Inertia::from_moments_products(d, [0.0; 3]), rotation))
    }
}

/// A quaternion as a rotation: as written when it is unit to the last bits of a double (a
/// double the writer wrote from the IR's rotation, which the IR never renormalises),
/// normalised otherwise (a float, or a hand-written quaternion); `None` for a zero or not
/// finite quaternion, which is no rotation.
pub(super) fn unit([w, x, y, z]: [f64; 4]) -> Option<UnitQuaternion<f64>> {
    let q = Quaternion::new(w, x, y, z);
    let norm = q.norm();
    if !(norm.is_finite() && norm > 0.0) {
        return None;
    }
    Some(if (norm - 1.0).abs() <= 4.0 * f64::EPSILON {
        UnitQuaternion::new_unchecked(q)
    } else {
        UnitQuaternion::new_normalize(q)
    })
}
