#![allow(clippy::unwrap_used)]

use super::gjk::{self, End, Placed};
use super::support::Convex;
use super::{separation, touching};
use crate::model::geometry::{Geometry, IndexedFaceSet, MeshRef, Shape, ShapeRole, SphereItem};
use crate::pose::Pose;
use nalgebra::{UnitQuaternion, Vector3};
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2, FRAC_PI_4};

fn shape(geometry: Geometry) -> Shape {
    Shape::new(ShapeRole::Collision, geometry)
}
fn sphere(radius: f64) -> Shape {
    shape(Geometry::Sphere { radius })
}
fn cube(x: f64, y: f64, z: f64) -> Shape {
    shape(Geometry::Box { size: [x, y, z] })
}
fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::from_translation(Vector3::new(x, y, z))
}
fn turned(axis: Vector3<f64>, angle: f64) -> UnitQuaternion<f64> {
    UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle)
}
fn ground() -> Shape {
    shape(Geometry::Plane {
        normal: Vector3::z(),
        offset: 0.0,
    })
}
/// `separation` is `expected` to 1e-9 relative (1e-12 absolute at 0).
#[track_caller]
fn distance_is(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, expected: f64) {
    let d = separation(a, pa, b, pb).unwrap();
    assert!(
        (d - expected).abs() <= 1e-9 * expected.abs().max(1e-3),
        "separation {d:e}, expected {expected:e}"
    );
    // Symmetric.
    let e = separation(b, pb, a, pa).unwrap();
    assert!(
        (e - d).abs() <= 1e-9 * expected.abs().max(1e-3),
        "{e:e} one way, {d:e} the other"
    );
}
fn id() -> Pose {
    Pose::identity()
}

#[test]
fn spheres_apart_touching_overlapping() {
    let c1 = Vector3::new(0.3, -0.2, 1.0);
    let c2 = Vector3::new(2.1, 0.7, -0.4);
    let expected = (c1 - c2).norm() - 0.4 - 0.7;
    distance_is(
        &sphere(0.4),
        &Pose::from_translation(c1),
        &sphere(0.7),
        &Pose::from_translation(c2),
        expected,
    );
    assert_eq!(
        separation(&sphere(1.0), &id(), &sphere(1.0), &at(1.5, 0.0, 0.0)),
        Some(0.0)
    );
    assert_eq!(separation(&sphere(1.0), &id(), &sphere(1.0), &id()), Some(0.0));
    distance_is(&sphere(1.0), &id(), &sphere(1.0), &at(0.0, 2.0, 0.0), 0.0);
}

#[test]
fn sphere_box_face_edge_corner() {
    let b = cube(2.0, 4.0, 6.0); // half extents 1, 2, 3
    let r = 0.25;
    distance_is(&b, &id(), &sphere(r), &at(1.5, 0.3, -0.7), 0.5 - r);
    distance_is(&b, &id(), &sphere(r), &at(0.2, -2.75, 1.0), 0.75 - r);
    let edge = Vector3::new(1.3, 2.4, 0.5);
    distance_is(
        &b,
        &id(),
        &sphere(r),
        &Pose::from_translation(edge),
        0.3f64.hypot(0.4) - r,
    );
    let corner = Vector3::new(-1.2, 2.3, -3.6);
    distance_is(
        &b,
        &id(),
        &sphere(r),
        &Pose::from_translation(corner),
        Vector3::new(0.2, 0.3, 0.6).norm() - r,
    );
    assert_eq!(separation(&b, &id(), &sphere(r), &at(0.9, 1.9, 2.9)), Some(0.0));
}

#[test]
fn rotated_boxes() {
    // The second cube turned 45° about z shows an edge at √2/2 from its centre.
    let c = cube(1.0, 1.0, 1.0);
    let turned45 = Pose::new(Vector3::new(2.0, 0.1, 0.2), turned(Vector3::z(), FRAC_PI_4));
    distance_is(&c, &id(), &c, &turned45, 2.0 - 0.5 - FRAC_1_SQRT_2);
    // Turned about x instead: a face-parallel edge along x, at √2/2 above its centre.
    let over = Pose::new(Vector3::new(0.3, 0.2, 1.5), turned(Vector3::x(), FRAC_PI_4));
    distance_is(&c, &id(), &c, &over, 1.5 - 0.5 - FRAC_1_SQRT_2);
    // Both turned 30° about z, face to face along their common x axis.
    let q = turned(Vector3::z(), std::f64::consts::FRAC_PI_6);
    let along = q * Vector3::new(1.25, 0.0, 0.0);
    distance_is(&c, &Pose::from_rotation(q), &c, &Pose::new(along, q), 0.25);
    // Face to face and just touching.
    distance_is(&c, &id(), &c, &at(1.0, 0.3, -0.2), 0.0);
}

#[test]
fn whole_scene_moved_keeps_distances() {
    // One rigid motion applied to both bodies changes nothing, even far from the origin.
    let m = Pose::new(
        Vector3::new(1.0e3, -2.0e3, 5.0e2),
        turned(Vector3::new(1.0, 2.0, -0.5), 1.1),
    );
    let a = cube(1.0, 2.0, 0.5);
    let b = shape(Geometry::Cylinder {
        radius: 0.3,
        length: 1.0,
    });
    let pb = Pose::new(Vector3::new(1.2, 0.2, 0.1), turned(Vector3::y(), FRAC_PI_2));
    // The cylinder lies along x: its end face at 1.2 - 0.5 = 0.7 from the box face at 0.5.
    distance_is(&a, &id(), &b, &pb, 0.2);
    distance_is(&a, &m, &b, &(m * pb), 0.2);
}

#[test]
fn cylinder_and_sphere() {
    let cyl = shape(Geometry::Cylinder {
        radius: 0.5,
        length: 2.0,
    });
    distance_is(&cyl, &id(), &sphere(0.2), &at(0.1, 0.2, 1.7), 0.5);
    distance_is(&cyl, &id(), &sphere(0.2), &at(0.0, -1.4, 0.6), 0.7);
    // Beyond the rim: to the circle edge.
    let p = Vector3::new(0.9 * 0.6, 0.9 * 0.8, 1.3);
    distance_is(
        &cyl,
        &id(),
        &sphere(0.2),
        &Pose::from_translation(p),
        0.4f64.hypot(0.3) - 0.2,
    );
    // A cylinder of zero length is a disc.
    let disc = shape(Geometry::Cylinder {
        radius: 0.5,
        length: 0.0,
    });
    distance_is(&disc, &id(), &sphere(0.1), &at(0.2, 0.0, 0.6), 0.5);
}

#[test]
fn capsule_and_sphere() {
    let cap = shape(Geometry::Capsule {
        radius: 0.3,
        length: 1.0,
    });
    distance_is(
        &cap,
        &id(),
        &sphere(0.2),
        &at(0.0, 0.0, 1.5),
        1.5 - 0.5 - 0.3 - 0.2,
    );
    distance_is(&cap, &id(), &sphere(0.2), &at(0.8, 0.6, 0.4), 1.0 - 0.3 - 0.2);
    let p = Vector3::new(0.3, -0.4, -1.7);
    distance_is(
        &cap,
        &id(),
        &sphere(0.2),
        &Pose::from_translation(p),
        0.3f64.hypot(0.4).hypot(1.2) - 0.5,
    );
}

#[test]
fn cone_apex_side_and_plane() {
    let cone = shape(Geometry::Cone {
        radius: 1.0,
        length: 2.0,
    });
    // Apex up at +1: 0.5 above the ground, upside down at height 1.5.
    let down = Pose::new(
        Vector3::new(0.3, -0.2, 1.5),
        turned(Vector3::x(), std::f64::consts::PI),
    );
    distance_is(&cone, &down, &ground(), &id(), 0.5);
    // Upright on the ground, base at -1: at height 1 it stands on it.
    distance_is(&cone, &at(0.0, 0.0, 1.0), &ground(), &id(), 0.0);
    // A sphere off the slant (from (1, -1) to (0, 1) in x-z), along its outward normal.
    let n = Vector3::new(2.0, 0.0, 1.0) / 5f64.sqrt();
    let c = Vector3::new(0.5, 0.0, 0.0) + n * 2.0;
    distance_is(&cone, &id(), &sphere(0.5), &Pose::from_translation(c), 1.5);
    // Past the apex.
    distance_is(&cone, &id(), &sphere(0.5), &at(0.0, 0.0, 2.0), 0.5);
}

#[test]
fn box_on_plane_turned() {
    let b = cube(1.0, 2.0, 3.0);
    // Turned 45° about x: the lowest corner at 1·sin45 + 1.5·cos45 below the centre.
    let body = Pose::new(Vector3::new(0.4, 0.5, 2.0), turned(Vector3::x(), FRAC_PI_4));
    distance_is(&b, &body, &ground(), &id(), 2.0 - 2.5 * FRAC_1_SQRT_2);
    // A plane with a normal of length 2 and offset 0.5 (along the unit normal), on a body
    // lifted by 0.25: the surface at z = 0.75.
    let raised = shape(Geometry::Plane {
        normal: Vector3::new(0.0, 0.0, 2.0),
        offset: 0.5,
    });
    let higher = Pose::new(Vector3::new(0.4, 0.5, 3.0), body.rotation);
    distance_is(
        &raised,
        &at(7.0, 3.0, 0.25),
        &b,
        &higher,
        3.0 - 2.5 * FRAC_1_SQRT_2 - 0.75,
    );
    // The plane turned to face +x: solid at x ≤ 0.
    let wall = Pose::from_rotation(turned(Vector3::y(), FRAC_PI_2));
    distance_is(&ground(), &wall, &b, &at(3.0, 0.0, 0.0), 2.5);
    distance_is(&ground(), &wall, &b, &at(-3.0, 0.0, 0.0), 0.0);
}

#[test]
fn ellipsoid_pyramid_multisphere_against_plane() {
    let e = shape(Geometry::Ellipsoid {
        radii: [1.0, 2.0, 3.0],
    });
    let q = turned(Vector3::new(0.3, -1.0, 0.4), 0.7);
    // Lowest point of the ellipsoid below its centre: |D Rᵀ ẑ|.
    let reach = Vector3::new(1.0, 2.0, 3.0)
        .component_mul(&q.inverse_transform_vector(&Vector3::z()))
        .norm();
    distance_is(
        &e,
        &Pose::new(Vector3::new(0.0, 0.0, 4.0), q),
        &ground(),
        &id(),
        4.0 - reach,
    );
    let pyramid = shape(Geometry::Pyramid {
        base_width: 1.0,
        base_depth: 2.0,
        height: 3.0,
    });
    // Base at -1.5, apex at +1.5 about the shape origin.
    distance_is(&pyramid, &at(0.0, 0.0, 2.0), &ground(), &id(), 0.5);
    let down = Pose::new(
        Vector3::new(0.0, 0.0, 2.0),
        turned(Vector3::y(), std::f64::consts::PI),
    );
    distance_is(&pyramid, &down, &ground(), &id(), 0.5);
    distance_is(&pyramid, &id(), &sphere(0.5), &at(0.0, 0.0, 2.5), 0.5);
    let spheres = shape(Geometry::MultiSphere {
        spheres: vec![
            SphereItem {
                radius: 0.5,
                center: Vector3::new(0.0, 0.0, 1.0),
            },
            SphereItem {
                radius: 0.25,
                center: Vector3::new(0.0, 0.0, -1.0),
            },
        ],
    });
    distance_is(&spheres, &at(0.0, 0.0, 2.0), &ground(), &id(), 0.75);
    // The hull, not just the spheres: a sphere beside the waist. The hull's side is the line
    // x cos φ - z sin φ = 0.375 (x-z plane), sin φ = (0.5 - 0.25) / 2.
    let cos = (1.0f64 - 0.125 * 0.125).sqrt();
    distance_is(
        &spheres,
        &id(),
        &sphere(0.1),
        &at(0.5, 0.0, 0.0),
        0.5 * cos - 0.375 - 0.1,
    );
}

#[test]
fn tetrahedron_mesh_and_sphere() {
    let vertices = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mesh = shape(Geometry::TriangleMesh {
        vertices: vertices.clone(),
        triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    });
    let set = shape(Geometry::IndexedFaceSet(IndexedFaceSet {
        coordinate: vertices,
        coord_index: vec![0, 2, 1, -1, 0, 1, 3, -1, 0, 3, 2, -1, 1, 2, 3, -1],
        tex_coord: Vec::new(),
        tex_coord_index: Vec::new(),
        crease_angle: None,
    }));
    for m in [&mesh, &set] {
        // Off the slanted face x + y + z = 1.
        distance_is(
            m,
            &id(),
            &sphere(0.1),
            &at(1.0, 1.0, 1.0),
            2.0 / 3f64.sqrt() - 0.1,
        );
        distance_is(m, &id(), &sphere(0.1), &at(-1.0, -1.0, -1.0), 3f64.sqrt() - 0.1);
        distance_is(m, &id(), &sphere(0.1), &at(0.4, 0.3, -0.5), 0.4);
        assert_eq!(separation(m, &id(), &sphere(0.01), &at(0.2, 0.2, 0.2)), Some(0.0));
    }
}

#[test]
fn shape_poses_compose_with_body_poses() {
    // Body a turned 90° about z at (1, 0, 0); its sphere 1 along the body x: at (1, 1, 0).
    let mut a = sphere(0.5);
    a.pose = at(1.0, 0.0, 0.0);
    let body_a = Pose::new(Vector3::new(1.0, 0.0, 0.0), turned(Vector3::z(), FRAC_PI_2));
    // Body b at (1, 4, 0); its box turned 45° about z in the body, 0.5 below the body in y
    // (body b turned 180° about x, so body -y is world +y... after the turn: +0.5).
    let mut b = cube(1.0, 1.0, 1.0);
    b.pose = Pose::new(Vector3::new(0.0, -0.5, 0.0), turned(Vector3::z(), FRAC_PI_4));
    let body_b = Pose::new(
        Vector3::new(1.0, 4.0, 0.0),
        turned(Vector3::x(), std::f64::consts::PI),
    );
    // Box centre at (1, 4.5, 0), a vertical edge pointing at the sphere, √2/2 from it.
    distance_is(&a, &body_a, &b, &body_b, 3.5 - 0.5 - FRAC_1_SQRT_2);
}

#[test]
fn touching_with_gap() {
    let c = cube(1.0, 1.0, 1.0);
    let p = at(0.0, 0.0, 1.0 + 1e-6);
    assert_eq!(touching(&c, &id(), &c, &p, 1e-9), Some(false));
    assert_eq!(touching(&c, &id(), &c, &p, 1e-5), Some(true));
    assert_eq!(touching(&c, &id(), &c, &at(0.0, 0.0, 1.0), 1e-9), Some(true));
    assert_eq!(touching(&c, &id(), &c, &at(0.0, 0.0, 0.9), 0.0), Some(true));
    assert_eq!(
        touching(&ground(), &id(), &c, &at(0.0, 0.0, 0.5 + 1e-7), 1e-9),
        Some(false)
    );
    assert_eq!(touching(&ground(), &id(), &ground(), &id(), 1.0), None);
}

#[test]
fn undecided() {
    let ball = sphere(1.0);
    let mesh = shape(Geometry::Mesh(MeshRef::new("part.stl")));
    assert_eq!(separation(&mesh, &id(), &ball, &at(5.0, 0.0, 0.0)), None);
    assert_eq!(separation(&ground(), &id(), &mesh, &at(0.0, 0.0, 5.0)), None);
    assert_eq!(separation(&ground(), &id(), &ground(), &at(0.0, 0.0, 5.0)), None);
    assert_eq!(separation(&sphere(-1.0), &id(), &ball, &at(5.0, 0.0, 0.0)), None);
    assert_eq!(
        separation(&cube(1.0, f64::NAN, 1.0), &id(), &ball, &at(5.0, 0.0, 0.0)),
        None
    );
    assert_eq!(
        separation(&cube(1.0, f64::INFINITY, 1.0), &id(), &ball, &at(5.0, 0.0, 0.0)),
        None
    );
    assert_eq!(separation(&ball, &id(), &ball, &at(f64::NAN, 0.0, 0.0)), None);
    let flat = shape(Geometry::Plane {
        normal: Vector3::zeros(),
        offset: 0.0,
    });
    assert_eq!(separation(&flat, &id(), &ball, &at(0.0, 0.0, 5.0)), None);
    let no_faces = shape(Geometry::TriangleMesh {
        vertices: vec![[0.0; 3]],
        triangles: Vec::new(),
    });
    assert_eq!(separation(&no_faces, &id(), &ball, &at(0.0, 0.0, 5.0)), None);
    let out_of_range = shape(Geometry::TriangleMesh {
        vertices: vec![[0.0; 3]],
        triangles: vec![[0, 0, 1]],
    });
    assert_eq!(separation(&out_of_range, &id(), &ball, &at(0.0, 0.0, 5.0)), None);
    assert_eq!(
        separation(
            &shape(Geometry::MultiSphere { spheres: Vec::new() }),
            &id(),
            &ball,
            &id()
        ),
        None
    );
}

#[test]
fn flat_box_and_point_sphere() {
    let sheet = cube(2.0, 2.0, 0.0);
    let point = sphere(0.0);
    distance_is(&sheet, &id(), &point, &at(0.3, -0.2, 0.3), 0.3);
    distance_is(&sheet, &id(), &point, &at(2.0, 0.0, 0.0), 1.0);
    distance_is(&sheet, &id(), &point, &at(0.5, 0.5, 0.0), 0.0);
    distance_is(&point, &id(), &point, &at(0.3, 0.4, 0.0), 0.5);
    distance_is(&point, &at(1.0, 1.0, 1.0), &point, &at(1.0, 1.0, 1.0), 0.0);
    // Two sheets crossing edge on, and a sheet resting on a box.
    let upright = Pose::new(Vector3::new(0.0, 0.0, 1.0), turned(Vector3::x(), FRAC_PI_2));
    distance_is(&sheet, &id(), &sheet, &upright, 0.0);
    distance_is(&sheet, &at(0.0, 0.0, 1.5), &cube(1.0, 1.0, 1.0), &id(), 1.0);
    distance_is(&sheet, &id(), &ground(), &at(0.0, 0.0, -0.5), 0.5);
    let needle = shape(Geometry::Cylinder {
        radius: 0.0,
        length: 2.0,
    });
    distance_is(&needle, &at(0.0, 3.0, 0.0), &sheet, &id(), 2.0);
}

/// Curved and flat pairs in many placements: no run reaches the cap, and the runs that stall
/// in floating point do so with bounds that agree to 1e-8 of the distance.
#[test]
fn iterations_measured() {
    let shapes = [
        Convex::of(&Geometry::Cylinder {
            radius: 0.3,
            length: 1.0,
        })
        .unwrap(),
        Convex::of(&Geometry::Cone {
            radius: 0.4,
            length: 0.8,
        })
        .unwrap(),
        Convex::of(&Geometry::Capsule {
            radius: 0.2,
            length: 0.6,
        })
        .unwrap(),
        Convex::of(&Geometry::Ellipsoid {
            radii: [0.2, 0.5, 0.3],
        })
        .unwrap(),
        Convex::of(&Geometry::Box {
            size: [0.4, 0.7, 0.2],
        })
        .unwrap(),
        Convex::of(&Geometry::Pyramid {
            base_width: 0.5,
            base_depth: 0.3,
            height: 0.6,
        })
        .unwrap(),
    ];
    let mut seed = 12345u64;
    let mut random = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let (mut runs, mut worst, mut worst_gap) = (0, 0, 0.0f64);
    let mut ends = std::collections::BTreeMap::new();
    for a in &shapes {
        for b in &shapes {
            for _ in 0..300 {
                let axis = Vector3::new(random() - 0.5, random() - 0.5, random() - 0.5);
                let t = Vector3::new(random() - 0.5, random() - 0.5, random() - 0.5) * 2.5;
                let pa = Placed {
                    convex: a,
                    rotation: turned(Vector3::new(random(), random() - 0.5, 1.0), 6.0 * random()),
                    translation: Vector3::zeros(),
                };
                let pb = Placed {
                    convex: b,
                    rotation: turned(axis, 6.0 * random()),
                    translation: t,
                };
                let o = gjk::distance(&pa, &pb);
                assert_ne!(o.end, End::Capped, "{o:?}");
                assert!(o.lower >= 0.0 && o.lower <= o.upper, "{o:?}");
                if o.end == End::Stalled {
                    worst_gap = worst_gap.max((o.upper - o.lower) / o.upper);
                }
                *ends.entry(format!("{:?}", o.end)).or_insert(0) += 1;
                worst = worst.max(o.iterations);
                runs += 1;
            }
        }
    }
    eprintln!(
        "{runs} runs: {ends:?}; at most {worst} iterations; stalled with (upper - lower)/upper ≤ {worst_gap:e}"
    );
    assert!(worst_gap <= 1e-8);
}

#[test]
fn stays_below_a_sampled_surface_distance() {
    // A cylinder and a cone at an angle: GJK's answer is at most the smallest distance between
    // points sampled on both surfaces, and close to it.
    let cyl = Geometry::Cylinder {
        radius: 0.3,
        length: 1.0,
    };
    let cone = Geometry::Cone {
        radius: 0.4,
        length: 0.8,
    };
    let pa = Pose::identity();
    let pb = Pose::new(
        Vector3::new(0.9, 0.3, 0.4),
        turned(Vector3::new(1.0, 1.0, 0.0), 1.0),
    );
    let d = separation(&shape(cyl), &pa, &shape(cone), &pb).unwrap();
    let mut cyl_points = Vec::new();
    let mut cone_points = Vec::new();
    let n = 120;
    for i in 0..n {
        let phi = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
        for j in 0..=n {
            let s = j as f64 / n as f64;
            cyl_points.push(Vector3::new(0.3 * phi.cos(), 0.3 * phi.sin(), s - 0.5));
            cyl_points.push(Vector3::new(0.3 * s * phi.cos(), 0.3 * s * phi.sin(), 0.5));
            cyl_points.push(Vector3::new(0.3 * s * phi.cos(), 0.3 * s * phi.sin(), -0.5));
            let r = 0.4 * (1.0 - s);
            cone_points.push(pb.transform_point(&Vector3::new(r * phi.cos(), r * phi.sin(), 0.8 * s - 0.4)));
            cone_points.push(pb.transform_point(&Vector3::new(
                0.4 * s * phi.cos(),
                0.4 * s * phi.sin(),
                -0.4,
            )));
        }
    }
    let mut sampled = f64::INFINITY;
    for p in &cyl_points {
        for q in &cone_points {
            sampled = sampled.min((p - q).norm());
        }
    }
    eprintln!("GJK {d}, sampled {sampled}");
    assert!(
        d > 0.0 && d <= sampled + 1e-12 && sampled - d < 0.01,
        "GJK {d}, sampled {sampled}"
    );
}
