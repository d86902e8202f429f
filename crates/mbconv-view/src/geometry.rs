//! The IR's geometries in the page's few primitives: primitives as they are, inline meshes as
//! triangles, mesh files embedded (STL, OBJ, DAE) or drawn as their bounding boxes.

use crate::data::GeometryData;
use crate::encode::{f32_base64, u32_base64};
use crate::meshes::MeshStore;
use mbconv_ir::model::geometry::{ElevationGrid, Extrusion, Geometry, IndexedFaceSet};

/// The shapes one IR geometry draws as (a multi-sphere is several spheres, with offsets).
pub(crate) fn page_geometries(geometry: &Geometry, meshes: &mut MeshStore) -> Vec<([f64; 3], GeometryData)> {
    let centred = |g: GeometryData| vec![([0.0; 3], g)];
    match geometry {
        Geometry::Box { size } => centred(GeometryData::Box { size: *size }),
        Geometry::Sphere { radius } => centred(GeometryData::Sphere { radius: *radius }),
        Geometry::Ellipsoid { radii } => centred(GeometryData::Ellipsoid { radii: *radii }),
        Geometry::Cylinder { radius, length } => centred(GeometryData::Cylinder {
            radius: *radius,
            length: *length,
        }),
        Geometry::Capsule { radius, length } => centred(GeometryData::Capsule {
            radius: *radius,
            length: *length,
        }),
        Geometry::Cone { radius, length } => centred(GeometryData::Cone {
            radius: *radius,
            length: *length,
        }),
        Geometry::Pyramid {
            base_width,
            base_depth,
            height,
        } => centred(pyramid(*base_width, *base_depth, *height)),
        Geometry::Plane { normal, offset } => centred(GeometryData::Plane {
            normal: [normal.x, normal.y, normal.z],
            offset: *offset,
        }),
        Geometry::MultiSphere { spheres } => spheres
            .iter()
            .map(|s| {
                (
                    [s.center.x, s.center.y, s.center.z],
                    GeometryData::Sphere { radius: s.radius },
                )
            })
            .collect(),
        Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh) | Geometry::FittedPrimitive { mesh, .. } => {
            centred(meshes.geometry(mesh))
        }
        Geometry::TriangleMesh { vertices, triangles } => {
            centred(triangles_data(vertices, triangles.iter().flatten().copied()))
        }
        Geometry::IndexedFaceSet(faces) => centred(face_set(faces)),
        Geometry::ElevationGrid(grid) => centred(elevation_grid(grid)),
        Geometry::Extrusion(extrusion) => centred(extrusion_bounds(extrusion)),
    }
}

fn triangles_data(vertices: &[[f64; 3]], indices: impl IntoIterator<Item = u32>) -> GeometryData {
    GeometryData::Triangles {
        vertices: f32_base64(vertices.iter().flatten().copied()),
        indices: u32_base64(indices),
    }
}

/// DART's pyramid: a `width × depth` base centred at `-height/2`, the apex at `+height/2`.
fn pyramid(width: f64, depth: f64, height: f64) -> GeometryData {
    let (w, d, h) = (width / 2.0, depth / 2.0, height / 2.0);
    let vertices = [[-w, -d, -h], [w, -d, -h], [w, d, -h], [-w, d, -h], [0.0, 0.0, h]];
    let triangles = [0, 2, 1, 0, 3, 2, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4];
    triangles_data(&vertices, triangles)
}

/// VRML faces (`-1` ends a face) fanned into triangles; indices out of range are skipped.
fn face_set(faces: &IndexedFaceSet) -> GeometryData {
    let count = faces.coordinate.len() as i64;
    let mut indices = Vec::new();
    for face in faces.coord_index.split(|&i| i < 0) {
        if face.iter().any(|&i| i >= count) {
            continue;
        }
        for k in 1..face.len().saturating_sub(1) {
            indices.extend([face[0] as u32, face[k] as u32, face[k + 1] as u32]);
        }
    }
    triangles_data(&faces.coordinate, indices)
}

/// VRML's elevation grid: heights along y over the x–z grid, two triangles per cell.
fn elevation_grid(grid: &ElevationGrid) -> GeometryData {
    let (nx, nz) = (grid.x_dimension as usize, grid.z_dimension as usize);
    let mut vertices = Vec::with_capacity(nx * nz);
    for z in 0..nz {
        for x in 0..nx {
            let height = grid.height.get(z * nx + x).copied().unwrap_or(0.0);
            vertices.push([x as f64 * grid.x_spacing, height, z as f64 * grid.z_spacing]);
        }
    }
    let mut indices = Vec::new();
    for z in 0..nz.saturating_sub(1) {
        for x in 0..nx.saturating_sub(1) {
            let i = (z * nx + x) as u32;
            let (right, below) = (i + 1, i + nx as u32);
            indices.extend([i, below, right, right, below, below + 1]);
        }
    }
    triangles_data(&vertices, indices)
}

/// An extrusion as the box around its swept cross-section (spine offsets plus the largest
/// scaled cross-section radius): the page does not sweep.
fn extrusion_bounds(extrusion: &Extrusion) -> GeometryData {
    let largest_scale = extrusion
        .scale
        .iter()
        .flat_map(|s| [s[0].abs(), s[1].abs()])
        .fold(1.0_f64, f64::max);
    let reach = extrusion
        .cross_section
        .iter()
        .map(|p| p[0].hypot(p[1]))
        .fold(0.0_f64, f64::max)
        * largest_scale;
    let mut min = [f64::INFINITY; 3];
    let mut max = [f64::NEG_INFINITY; 3];
    for point in &extrusion.spine {
        for axis in 0..3 {
            min[axis] = min[axis].min(point[axis] - reach);
            max[axis] = max[axis].max(point[axis] + reach);
        }
    }
    if extrusion.spine.is_empty() {
        (min, max) = ([0.0; 3], [0.0; 3]);
    }
    GeometryData::Bounds {
        min,
        max,
        note: "an extrusion, drawn as the box around its swept cross-section".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use base64::Engine;

    fn indices(g: &GeometryData) -> Vec<u32> {
        let GeometryData::Triangles { indices, .. } = g else {
            panic!("not triangles: {g:?}")
        };
        let bytes = base64::engine::general_purpose::STANDARD.decode(indices).unwrap();
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn faces_are_fanned_and_bad_faces_skipped() {
        let faces = IndexedFaceSet {
            coordinate: vec![[0.0; 3], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
            coord_index: vec![0, 1, 2, 3, -1, 0, 9, 1, -1],
            tex_coord: vec![],
            tex_coord_index: vec![],
            crease_angle: None,
        };
        assert_eq!(indices(&face_set(&faces)), [0, 1, 2, 0, 2, 3]);
    }

    #[test]
    fn an_elevation_grid_has_two_triangles_per_cell() {
        let grid = ElevationGrid {
            x_dimension: 3,
            z_dimension: 2,
            x_spacing: 1.0,
            z_spacing: 1.0,
            height: vec![0.0; 6],
            ccw: true,
            crease_angle: None,
        };
        assert_eq!(indices(&elevation_grid(&grid)).len(), 2 * 2 * 3);
    }

    #[test]
    fn a_multi_sphere_is_several_spheres() {
        use mbconv_ir::model::geometry::SphereItem;
        let spheres = Geometry::MultiSphere {
            spheres: vec![
                SphereItem {
                    radius: 0.1,
                    center: nalgebra::Vector3::new(1.0, 0.0, 0.0),
                },
                SphereItem {
                    radius: 0.2,
                    center: nalgebra::Vector3::zeros(),
                },
            ],
        };
        let drawn = page_geometries(&spheres, &mut MeshStore::new(None));
        assert_eq!(drawn.len(), 2);
        assert_eq!(drawn[0], ([1.0, 0.0, 0.0], GeometryData::Sphere { radius: 0.1 }));
    }
}
