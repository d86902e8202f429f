//! Every format read from the fixtures in `fixtures/meshes` (each the unit cube [0, 1]³, see its
//! README), the cube's volume, centre and inertia, a scaled and moved mesh's extents, the
//! errors that name the file, and every mesh file of the shared corpus read (skipped when the
//! corpus is absent).
#![allow(clippy::unwrap_used)]

use mbconv_mesh::{MeshError, MeshFormat, TriangleMesh};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    mbconv_test_support::corpus::fixtures_root()
        .join("meshes")
        .join(name)
}

fn read(name: &str) -> TriangleMesh {
    mbconv_mesh::read(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Asserts the mesh is the closed unit cube [0, 1]³ with outward faces.
fn assert_unit_cube(name: &str, mesh: &TriangleMesh) {
    let aabb = mesh.aabb().unwrap();
    assert_eq!((aabb.min, aabb.max), ([0.0; 3], [1.0; 3]), "{name}");
    assert_eq!(mesh.faces.len(), 12, "{name}");
    let solid = mesh.solid();
    assert_eq!(solid.volume, 1.0, "{name}");
    assert_eq!(solid.center, [0.5; 3], "{name}");
    for i in 0..3 {
        for j in 0..3 {
            let expected = if i == j { 1.0 / 6.0 } else { 0.0 };
            assert!(
                (solid.inertia[i][j] - expected).abs() <= 1e-16,
                "{name}: inertia {:?}",
                solid.inertia
            );
        }
    }
}

#[test]
fn every_format_reads_the_unit_cube() {
    for name in [
        "cube_binary.stl",
        "cube_ascii.stl",
        "cube.obj",
        "cube.ply",
        "cube_binary.ply",
        "cube.gltf",
        "cube.glb",
    ] {
        let mesh = read(name);
        assert_unit_cube(name, &mesh);
    }
    // STL vertices are merged (8 corners), OBJ keeps each object's own (8 + 8).
    assert_eq!(read("cube_binary.stl").vertices.len(), 8);
    assert_eq!(read("cube_ascii.stl").vertices.len(), 8);
    assert_eq!(read("cube.obj").vertices.len(), 16);
    assert_eq!(
        mbconv_mesh::obj::objects(&std::fs::read(fixture("cube.obj")).unwrap())
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_binary_stl_whose_header_starts_with_solid_is_read_as_binary() {
    let bytes = std::fs::read(fixture("cube_binary.stl")).unwrap();
    assert!(bytes.starts_with(b"solid"));
    assert!(mbconv_mesh::stl::is_binary(&bytes));
    assert!(!mbconv_mesh::stl::is_binary(
        &std::fs::read(fixture("cube_ascii.stl")).unwrap()
    ));
}

#[test]
fn collada_units_and_node_transforms_are_applied() {
    let mesh = read("cube.dae");
    let aabb = mesh.aabb().unwrap();
    let close = |a: [f64; 3], b: [f64; 3]| (0..3).all(|k| (a[k] - b[k]).abs() < 1e-12);
    assert!(
        close(aabb.min, [0.0, 0.0, 2.0]) && close(aabb.max, [2.0, 1.0, 3.0]),
        "{aabb:?}"
    );
    let solid = mesh.solid();
    assert!((solid.volume - 2.0).abs() < 1e-12, "{}", solid.volume);
    assert!(close(solid.center, [1.0, 0.5, 2.5]), "{:?}", solid.center);
}

#[test]
fn a_unit_cube_has_the_exact_volume_centre_and_inertia() {
    let cube = TriangleMesh::cuboid([0.5; 3]);
    let solid = cube.solid();
    assert_eq!(solid.volume, 1.0);
    assert_eq!(solid.center, [0.0; 3]);
    assert_eq!(solid.inertia[0][0], 1.0 / 6.0);
    assert_eq!(solid.inertia[1][1], 1.0 / 6.0);
    assert_eq!(solid.inertia[2][2], 1.0 / 6.0);
    assert_eq!(solid.inertia[0][1], 0.0);
    // Turned inside out: the signed volume is negative.
    let inverted = cube.scaled([-1.0, 1.0, 1.0], [0.0; 3]);
    assert_eq!(
        inverted.solid().volume,
        1.0,
        "a left-handed scale keeps the faces outward"
    );
    let mut inside_out = cube.clone();
    for f in &mut inside_out.faces {
        f.swap(1, 2);
    }
    assert_eq!(inside_out.solid().volume, -1.0);
    // A box 1 x 2 x 3 far from the origin: m (b² + c²) / 12 and its centre.
    let far = TriangleMesh::cuboid([0.5, 1.0, 1.5]).scaled([1.0; 3], [1e3, -2e3, 5e2]);
    let s = far.solid();
    assert!((s.volume - 6.0).abs() < 1e-9);
    assert!((s.center[0] - 1e3).abs() < 1e-9 && (s.center[1] + 2e3).abs() < 1e-9);
    let expected = [
        6.0 * (4.0 + 9.0) / 12.0,
        6.0 * (1.0 + 9.0) / 12.0,
        6.0 * (1.0 + 4.0) / 12.0,
    ];
    for (k, e) in expected.iter().enumerate() {
        assert!((s.inertia[k][k] - e).abs() < 1e-9, "{:?}", s.inertia);
    }
}

#[test]
fn a_scaled_and_moved_mesh_has_the_moved_extents_and_sphere() {
    let mesh = read("cube_binary.stl").scaled([2.0, 3.0, 0.5], [1.0, -1.0, 10.0]);
    let aabb = mesh.aabb().unwrap();
    assert_eq!(aabb.min, [1.0, -1.0, 10.0]);
    assert_eq!(aabb.max, [3.0, 2.0, 10.5]);
    assert_eq!(aabb.size(), [2.0, 3.0, 0.5]);
    let sphere = mesh.bounding_sphere().unwrap();
    assert_eq!(sphere.center, [2.0, 0.5, 10.25]);
    assert_eq!(sphere.radius, (1.0f64 + 2.25 + 0.0625).sqrt());
    assert!(TriangleMesh::default().aabb().is_none());
}

#[test]
fn the_hull_of_a_mesh_encloses_its_volume() {
    let mut mesh = read("cube.obj");
    mesh.vertices.push([0.5, 0.5, 0.5]);
    let faces = mbconv_mesh::convex_hull(&mesh.vertices).unwrap();
    let hull = TriangleMesh {
        vertices: mesh.vertices.clone(),
        faces,
    };
    assert!((hull.solid().volume - 1.0).abs() < 1e-12);
    assert!(mbconv_mesh::convex_hull(&mesh.vertices[..3]).is_err());
}

#[test]
fn a_missing_or_bad_file_is_an_error_naming_it() {
    let missing = Path::new("/nonexistent/meshes/part.stl");
    let err = mbconv_mesh::read(missing).unwrap_err();
    assert!(matches!(err, MeshError::Io { .. }));
    assert!(err.to_string().contains("/nonexistent/meshes/part.stl"), "{err}");
    let err = mbconv_mesh::read(Path::new("part.wrl")).unwrap_err();
    assert!(matches!(err, MeshError::UnknownFormat { .. }), "{err}");
    let err = mbconv_mesh::decode(b"not a mesh", MeshFormat::Collada, Path::new("bad.dae")).unwrap_err();
    assert!(
        err.to_string().starts_with("bad.dae is not a valid COLLADA mesh"),
        "{err}"
    );
    let err = mbconv_mesh::decode(
        b"ply\nformat ascii 1.0\nend",
        MeshFormat::Ply,
        Path::new("bad.ply"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("bad.ply"), "{err}");
    let err = mbconv_mesh::decode(b"{}", MeshFormat::Gltf, Path::new("bad.gltf")).unwrap_err();
    assert!(err.to_string().contains("bad.gltf"), "{err}");
}

/// Every STL, OBJ and COLLADA file of the shared corpus reads into a non-empty mesh.
#[test]
fn every_corpus_mesh_reads() {
    let Some(root) = mbconv_test_support::corpus::corpus("") else {
        return;
    };
    let mut count = 0;
    let mut failures = Vec::new();
    for ext in ["stl", "STL", "obj", "dae", "DAE"] {
        for path in mbconv_test_support::corpus::files_with_extension(&root, ext) {
            count += 1;
            match mbconv_mesh::read(&path) {
                Ok(mesh) if !mesh.vertices.is_empty() => {}
                Ok(_) => failures.push(format!("{}: no vertices", path.display())),
                Err(e) => failures.push(e.to_string()),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
