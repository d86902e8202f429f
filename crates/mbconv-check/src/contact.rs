//! Whether the original's collidable shapes may touch during the run. mbconv's solver
//! simulates no contact, so a model whose shapes touch moves differently in a simulator that
//! does; the check says so (`not compared: contact`) instead of staying silent.
//!
//! The test is conservative: each collidable shape is bounded by a sphere (a plane by its
//! half-space), and two bodies may touch when a sphere of one overlaps a sphere (or plane) of
//! the other at some sample. Bodies joined directly by a joint are not tested when the model's
//! simulator never checks such a pair (DART, Choreonoid, MuJoCo, Drake); when it does
//! ([`Simulation::jointed_bodies_collide`](mbconv_ir::Simulation), Chrono), their shapes are
//! tested exactly (they overlap at the joint by design, so bounding spheres would always
//! touch) with [`mbconv_ir::contact::touching`]: the read-back model of a conversion to Chrono
//! is tested that way too ([`jointed_contact_notes`]). Pairs of bodies that never move are not
//! tested. A mesh shape is bounded by the bounding sphere of its file
//! ([`mbconv_mesh::TriangleMesh::bounding_sphere`]), scaled and placed as the shape is; a mesh
//! whose file is missing or unreadable is reported as undecided, with the reason.

use crate::motion::Motion;
use mbconv_ir::{FittedKind, Geometry, MeshRef, Model, Shape};
use nalgebra::Vector3;
use std::collections::HashMap;
use std::path::PathBuf;

/// What the contact test found, as the lines of `not_compared`.
pub(crate) fn contact_notes(model: &Model, motion: &Motion) -> Vec<String> {
    let mut files = MeshFiles::default();
    let mut undecided: Vec<String> = Vec::new();
    let mut bodies: Vec<Vec<Bound>> = Vec::new();
    for body in &model.bodies {
        let mut bounds = Vec::new();
        let mut reasons: Vec<String> = Vec::new();
        for shape in body.shapes.iter().filter(|s| is_collidable(s)) {
            match bound(shape, &mut files) {
                Ok(b) => bounds.push(b),
                Err(reason) => {
                    if !reasons.contains(&reason) {
                        reasons.push(reason);
                    }
                }
            }
        }
        if !reasons.is_empty() {
            undecided.push(format!("{:?} ({})", body.name, reasons.join("; ")));
        }
        bodies.push(bounds);
    }
    let mut notes = Vec::new();
    if !undecided.is_empty() {
        notes.push(format!(
            "contact: undecided for the collidable shapes of {} (mbconv's solver simulates no contact)",
            undecided.join(", ")
        ));
    }
    let moving: Vec<bool> = (0..model.bodies.len()).map(|i| moves(motion, i)).collect();
    let mut touching: Vec<(String, String)> = Vec::new();
    for i in 0..bodies.len() {
        for j in i + 1..bodies.len() {
            if bodies[i].is_empty()
                || bodies[j].is_empty()
                || !(moving[i] || moving[j])
                || adjacent(model, i, j)
            {
                continue;
            }
            if let Some(t) = first_touch(motion, i, j, &bodies[i], &bodies[j]) {
                touching.push((
                    format!("{:?} and {:?}", model.bodies[i].name, model.bodies[j].name),
                    format!("t = {} s", crate::render::seconds(t)),
                ));
            }
        }
    }
    match touching.as_slice() {
        [] => {}
        [(bodies, from)] => notes.push(format!(
            "contact: collidable shapes of {bodies} may touch from {from} (their bounding spheres overlap); mbconv's solver simulates no contact"
        )),
        pairs => notes.push(format!(
            "contact: the collidable shapes of {} pairs of bodies may touch (their bounding spheres overlap), and mbconv's solver simulates no contact: {}",
            pairs.len(),
            pair_list(pairs)
        )),
    }
    if model.simulation.jointed_bodies_collide {
        notes.extend(jointed_contact_notes(model, motion));
    }
    notes
}

/// `"a" and "b" from t = 0 s, "c" and "d" from t = 0.2 s`: every pair, in one list.
fn pair_list(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(bodies, from)| format!("{bodies} from {from}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// True when a joint joins bodies `i` and `j` directly.
fn adjacent(model: &Model, i: usize, j: usize) -> bool {
    let (a, b) = (&model.bodies[i].name, &model.bodies[j].name);
    model.joints.iter().any(|joint| {
        let (p, c) = (joint.parent.name(), joint.child.name());
        (p == Some(a) && c == Some(b)) || (p == Some(b) && c == Some(a))
    })
}

/// The pairs of bodies a joint links, each once as `(lower index, higher index)`, in order.
fn jointed_pairs(model: &Model) -> std::collections::BTreeSet<(usize, usize)> {
    let index = model.body_indices();
    let body = |r: &mbconv_ir::BodyRef| r.name().and_then(|n| index.get(n).copied());
    model
        .joints
        .iter()
        .filter_map(|joint| {
            let (p, c) = (body(&joint.parent)?, body(&joint.child)?);
            (p != c).then_some((p.min(c), p.max(c)))
        })
        .collect()
}

/// For a model whose simulator checks contact between jointed bodies: the pairs of jointed
/// bodies whose collidable shapes touch at some sample of `motion` (within
/// [`mbconv_ir::lower::TOUCH_GAP`]), or that mbconv cannot measure (mesh files), as lines of
/// `not_compared`. Pairs of which neither body moves are left out.
pub(crate) fn jointed_contact_notes(model: &Model, motion: &Motion) -> Vec<String> {
    let mut touching: Vec<(String, String)> = Vec::new();
    let mut undecided_pairs: Vec<String> = Vec::new();
    let moving: Vec<bool> = (0..model.bodies.len()).map(|i| moves(motion, i)).collect();
    for (i, j) in jointed_pairs(model) {
        if !(moving[i] || moving[j]) {
            continue;
        }
        let shapes = |k: usize| -> Vec<&Shape> {
            model.bodies[k]
                .shapes
                .iter()
                .filter(|s| is_collidable(s))
                .collect()
        };
        let (a, b) = (shapes(i), shapes(j));
        if a.is_empty() || b.is_empty() {
            continue;
        }
        let (first, second) = (&model.bodies[i].name, &model.bodies[j].name);
        let mut undecided = false;
        let touch = motion.poses.iter().zip(&motion.times).find_map(|(sample, t)| {
            let touching = a.iter().any(|x| {
                b.iter().any(|y| {
                    match mbconv_ir::contact::touching(
                        x,
                        &sample[i],
                        y,
                        &sample[j],
                        mbconv_ir::lower::TOUCH_GAP,
                    ) {
                        Some(touch) => touch,
                        None => {
                            undecided = true;
                            false
                        }
                    }
                })
            });
            touching.then_some(*t)
        });
        if let Some(t) = touch {
            touching.push((
                format!("{first:?} and {second:?}"),
                format!("t = {} s", crate::render::seconds(t)),
            ));
        } else if undecided {
            undecided_pairs.push(format!("{first:?} and {second:?}"));
        }
    }
    let mut notes = Vec::new();
    match touching.as_slice() {
        [] => {}
        [(bodies, from)] => notes.push(format!(
            "contact: collidable shapes of the jointed bodies {bodies} touch from {from}, and the simulator checks contact between jointed bodies; mbconv's solver simulates no contact"
        )),
        pairs => notes.push(format!(
            "contact: the collidable shapes of {} pairs of jointed bodies touch, the simulator checks contact between jointed bodies, and mbconv's solver simulates no contact: {}",
            pairs.len(),
            pair_list(pairs)
        )),
    }
    match undecided_pairs.as_slice() {
        [] => {}
        [pair] => notes.push(format!(
            "contact: undecided between the jointed bodies {pair}, whose simulator checks contact between jointed bodies (mbconv bounds mesh shapes by spheres only, and jointed bodies' spheres overlap at the joint by design)"
        )),
        pairs => notes.push(format!(
            "contact: undecided between {} pairs of jointed bodies, whose simulator checks contact between jointed bodies (mbconv bounds mesh shapes by spheres only, and jointed bodies' spheres overlap at the joint by design): {}",
            pairs.len(),
            pairs.join(", ")
        )),
    }
    notes
}

/// A shape's bound in its body's frame.
#[derive(Clone, Copy, Debug)]
enum Bound {
    Sphere { center: Vector3<f64>, radius: f64 },
    HalfSpace { normal: Vector3<f64>, offset: f64 },
}

fn is_collidable(shape: &Shape) -> bool {
    shape.collidable && shape.role.is_collision()
}

/// The bounding sphere of each mesh file read so far (in the file's coordinates), or why it
/// could not be read; each file is read once.
#[derive(Default)]
struct MeshFiles {
    spheres: HashMap<PathBuf, Result<mbconv_mesh::Sphere, String>>,
}

impl MeshFiles {
    /// Where `mesh` lies on this machine: the path its reader resolved, else the reference as a
    /// local path; `None` for a URI of a scheme no reader resolved (`package://` whose package
    /// was not found, `model://`, `http://`).
    fn path(mesh: &MeshRef) -> Option<PathBuf> {
        if let Some(resolved) = &mesh.resolved_path {
            return Some(PathBuf::from(resolved));
        }
        let uri = mesh.uri.strip_prefix("file://").unwrap_or(&mesh.uri);
        (!uri.contains("://")).then(|| PathBuf::from(uri))
    }

    /// The sphere bounding `mesh` in its shape's frame: the file's sphere scaled by the
    /// reference's scale (a sphere of the largest factor holds the scaled mesh).
    fn sphere(&mut self, mesh: &MeshRef) -> Result<(Vector3<f64>, f64), String> {
        let Some(path) = Self::path(mesh) else {
            return Err(format!("{}: not found (no reader resolved it)", mesh.uri));
        };
        let sphere = self
            .spheres
            .entry(path.clone())
            .or_insert_with(|| match mbconv_mesh::read(&path) {
                Ok(m) => m
                    .bounding_sphere()
                    .ok_or_else(|| format!("{}: the file has no vertices", mesh.uri)),
                Err(e) => Err(e.to_string()),
            })
            .clone()?;
        let s = Vector3::from(mesh.scale);
        let center = Vector3::from(sphere.center).component_mul(&s);
        Ok((center, sphere.radius * s.abs().max()))
    }
}

/// A collidable shape's bound in its body's frame, or why there is none.
fn bound(shape: &Shape, files: &mut MeshFiles) -> Result<Bound, String> {
    let center = shape.pose.translation;
    let sphere = |radius: f64| Ok(Bound::Sphere { center, radius });
    let mesh_sphere = |files: &mut MeshFiles, mesh: &MeshRef| {
        let (c, radius) = files.sphere(mesh)?;
        Ok(Bound::Sphere {
            center: center + shape.pose.rotation * c,
            radius,
        })
    };
    match &shape.geometry {
        Geometry::Box { size } => sphere(0.5 * Vector3::from(*size).norm()),
        Geometry::Sphere { radius } => sphere(*radius),
        Geometry::Ellipsoid { radii } => sphere(radii.iter().fold(0.0, |m: f64, r| m.max(r.abs()))),
        Geometry::Cylinder { radius, length } | Geometry::Cone { radius, length } => {
            sphere(radius.hypot(0.5 * length))
        }
        Geometry::Capsule { radius, length } => sphere(radius + 0.5 * length),
        Geometry::Pyramid {
            base_width,
            base_depth,
            height,
        } => sphere(Vector3::new(0.5 * base_width, 0.5 * base_depth, *height).norm()),
        Geometry::Plane { normal, offset } => {
            let n = shape.pose.rotation * normal.normalize();
            Ok(Bound::HalfSpace {
                normal: n,
                offset: offset + n.dot(&center),
            })
        }
        Geometry::MultiSphere { spheres } => {
            let radius = spheres
                .iter()
                .map(|s| s.center.norm() + s.radius)
                .fold(0.0, f64::max);
            sphere(radius)
        }
        Geometry::TriangleMesh { vertices, .. } => Ok(points_bound(center, shape, vertices.iter().copied())),
        Geometry::IndexedFaceSet(set) => Ok(points_bound(center, shape, set.coordinate.iter().copied())),
        // A mesh and its convex hull lie in any sphere holding the mesh's vertices.
        Geometry::Mesh(mesh)
        | Geometry::ConvexHull(mesh)
        | Geometry::FittedPrimitive {
            mesh,
            primitive: FittedKind::ConvexHull,
        } => mesh_sphere(files, mesh),
        Geometry::FittedPrimitive { mesh, .. } => Err(format!(
            "{}: a sphere or ellipsoid the simulator fits to the mesh, which mbconv does not compute",
            mesh.uri
        )),
        Geometry::Extrusion(_) => Err("an extrusion, whose extent mbconv does not compute".into()),
        Geometry::ElevationGrid(_) => Err("an elevation grid, whose extent mbconv does not compute".into()),
    }
}

fn points_bound(center: Vector3<f64>, shape: &Shape, points: impl Iterator<Item = [f64; 3]>) -> Bound {
    let radius = points
        .map(|p| (shape.pose.rotation * Vector3::from(p)).norm())
        .fold(0.0, f64::max);
    Bound::Sphere { center, radius }
}

fn moves(motion: &Motion, i: usize) -> bool {
    let Some(first) = motion.poses.first() else {
        return false;
    };
    motion
        .poses
        .iter()
        .any(|sample| sample[i].distance(&first[i]) > 0.0)
}

fn first_touch(motion: &Motion, i: usize, j: usize, a: &[Bound], b: &[Bound]) -> Option<f64> {
    motion.poses.iter().zip(&motion.times).find_map(|(sample, t)| {
        let (pa, pb) = (&sample[i], &sample[j]);
        let touching = a.iter().any(|x| b.iter().any(|y| overlap(pa, x, pb, y)));
        touching.then_some(*t)
    })
}

fn overlap(pa: &mbconv_ir::Pose, a: &Bound, pb: &mbconv_ir::Pose, b: &Bound) -> bool {
    match (world(pa, a), world(pb, b)) {
        (
            Bound::Sphere {
                center: c1,
                radius: r1,
            },
            Bound::Sphere {
                center: c2,
                radius: r2,
            },
        ) => (c1 - c2).norm() < r1 + r2,
        (Bound::Sphere { center, radius }, Bound::HalfSpace { normal, offset })
        | (Bound::HalfSpace { normal, offset }, Bound::Sphere { center, radius }) => {
            normal.dot(&center) - offset < radius
        }
        (Bound::HalfSpace { .. }, Bound::HalfSpace { .. }) => false,
    }
}

fn world(pose: &mbconv_ir::Pose, bound: &Bound) -> Bound {
    match *bound {
        Bound::Sphere { center, radius } => Bound::Sphere {
            center: pose.translation + pose.rotation * center,
            radius,
        },
        Bound::HalfSpace { normal, offset } => {
            let n = pose.rotation * normal;
            Bound::HalfSpace {
                normal: n,
                offset: offset + n.dot(&pose.translation),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::motion::SimulationSettings;
    use mbconv_ir::{Body, Pose, ShapeRole};

    fn ball(name: &str, z: f64, fixed: bool) -> Body {
        let mut b = Body::new(name);
        b.pose = Pose::from_translation(Vector3::new(0.0, 0.0, z));
        b.fixed = fixed;
        let mut shape = Shape::new(ShapeRole::Collision, Geometry::Sphere { radius: 0.1 });
        shape.collidable = true;
        b.shapes.push(shape);
        b
    }

    #[test]
    fn a_falling_ball_touches_the_one_below_and_says_when() {
        let mut m = Model::new("m");
        m.bodies.push(ball("floor", 0.0, true));
        m.bodies.push(ball("drop", 0.5, false));
        let motion = Motion::simulate(
            &m,
            &SimulationSettings::new(1.0, 1e-2, mbconv_solver::Integrator::Rk4),
        )
        .unwrap();
        let notes = contact_notes(&m, &motion);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("\"floor\" and \"drop\""), "{}", notes[0]);
        // The drop to within 0.2 m takes sqrt(2·0.3/9.81) = 0.247 s.
        assert!(notes[0].contains("t = 0.25 s"), "{}", notes[0]);
    }

    #[test]
    fn several_pairs_make_one_note_that_names_every_pair() {
        // Three balls side by side, each overlapping its neighbour, falling onto a fixed one.
        let mut m = Model::new("m");
        m.bodies.push(ball("floor", 0.0, true));
        for (i, x) in [-0.15, 0.0, 0.15].into_iter().enumerate() {
            let mut drop = ball(&format!("drop{i}"), 0.5, false);
            drop.pose.translation.x = x;
            m.bodies.push(drop);
        }
        let motion = Motion::simulate(
            &m,
            &SimulationSettings::new(1.0, 1e-2, mbconv_solver::Integrator::Rk4),
        )
        .unwrap();
        let notes = contact_notes(&m, &motion);
        assert_eq!(notes.len(), 1, "one note, not one per pair: {notes:?}");
        let note = &notes[0];
        assert!(
            note.starts_with("contact: the collidable shapes of 5 pairs of bodies may touch"),
            "{note}"
        );
        assert!(
            note.contains("\"drop0\" and \"drop1\" from t = 0 s, ")
                && note.contains("\"floor\" and \"drop1\" from t = 0.25 s"),
            "{note}"
        );
    }

    /// A body whose one collidable shape is the unit-cube mesh file `file` of
    /// `fixtures/meshes`, scaled by `scale`.
    fn cube_mesh(name: &str, z: f64, file: &str, scale: [f64; 3]) -> Body {
        let mut b = Body::new(name);
        b.pose = Pose::from_translation(Vector3::new(0.0, 0.0, z));
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/meshes")
            .join(file);
        let mut mesh = MeshRef::new(format!("meshes/{file}"));
        mesh.resolved_path = Some(path.display().to_string());
        mesh.scale = scale;
        let mut shape = Shape::new(ShapeRole::Collision, Geometry::Mesh(mesh));
        shape.collidable = true;
        b.shapes.push(shape);
        b
    }

    #[test]
    fn a_mesh_is_bounded_by_its_file_sphere_and_a_missing_file_is_undecided() {
        // The unit cube [0, 1]³ scaled by 0.2: its sphere (centre (0.1, 0.1, 0.1) from the
        // body's origin, radius 0.1·√3) falls onto the ball of radius 0.1 at the origin.
        let mut m = Model::new("m");
        m.bodies.push(ball("floor", 0.0, true));
        m.bodies.push(cube_mesh("drop", 0.5, "cube_binary.stl", [0.2; 3]));
        let settings = SimulationSettings::new(1.0, 1e-2, mbconv_solver::Integrator::Rk4);
        let motion = Motion::simulate(&m, &settings).unwrap();
        let notes = contact_notes(&m, &motion);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("\"floor\" and \"drop\" may touch"),
            "{}",
            notes[0]
        );
        // Far apart: nothing to say, and nothing undecided.
        m.bodies[1].pose.translation.z = 100.0;
        let motion = Motion::simulate(
            &m,
            &SimulationSettings::new(0.5, 1e-2, mbconv_solver::Integrator::Rk4),
        )
        .unwrap();
        assert!(contact_notes(&m, &motion).is_empty());
        // A missing file: undecided, naming the body and the file.
        m.bodies[1] = cube_mesh("lost", 100.0, "no_such_mesh.stl", [1.0; 3]);
        let motion = Motion::simulate(
            &m,
            &SimulationSettings::new(0.5, 1e-2, mbconv_solver::Integrator::Rk4),
        )
        .unwrap();
        let notes = contact_notes(&m, &motion);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with(
                "contact: undecided for the collidable shapes of \"lost\" (cannot read the mesh file"
            ) && notes[0].contains("no_such_mesh.stl"),
            "{}",
            notes[0]
        );
    }

    #[test]
    fn a_scaled_mesh_sphere_is_placed_by_the_shape_pose() {
        let mut files = MeshFiles::default();
        let body = cube_mesh("b", 0.0, "cube.obj", [2.0, 1.0, -1.0]);
        let mut shape = body.shapes[0].clone();
        shape.pose = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
        let Ok(Bound::Sphere { center, radius }) = bound(&shape, &mut files) else {
            panic!("a sphere");
        };
        // The file's sphere: centre (0.5, 0.5, 0.5), radius √3/2; scaled: centre (1, 0.5, -0.5),
        // radius √3 (the largest factor, 2).
        assert!((center - Vector3::new(1.0, 0.5, 0.5)).norm() < 1e-12, "{center}");
        assert!((radius - 3f64.sqrt()).abs() < 1e-12, "{radius}");
    }

    #[test]
    fn apart_bodies_and_fixed_pairs_say_nothing() {
        let mut m = Model::new("m");
        m.bodies.push(ball("a", 0.0, true));
        m.bodies.push(ball("b", 0.15, true));
        m.bodies.push(ball("c", 100.0, false));
        let motion = Motion::simulate(
            &m,
            &SimulationSettings::new(0.5, 1e-2, mbconv_solver::Integrator::Rk4),
        )
        .unwrap();
        assert!(contact_notes(&m, &motion).is_empty());
    }
}
