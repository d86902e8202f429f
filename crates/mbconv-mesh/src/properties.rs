//! What a mesh's geometry gives: extents, a bounding sphere, and the mass properties of the
//! solid it encloses and of its surface as a thin shell (unit density), by the divergence
//! theorem over its triangles (signed tetrahedra from a reference point near the mesh, so a
//! mesh far from its origin loses no precision).

use crate::TriangleMesh;

/// An axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// The smallest coordinates.
    pub min: [f64; 3],
    /// The largest coordinates.
    pub max: [f64; 3],
}

impl Aabb {
    /// The box's centre.
    ///
    /// ```
    /// let b = mbconv_mesh::Aabb { min: [0.0; 3], max: [2.0, 4.0, 6.0] };
    /// assert_eq!(b.center(), [1.0, 2.0, 3.0]);
    /// ```
    pub fn center(&self) -> [f64; 3] {
        std::array::from_fn(|k| 0.5 * (self.min[k] + self.max[k]))
    }

    /// The box's side lengths.
    ///
    /// ```
    /// let b = mbconv_mesh::Aabb { min: [-1.0; 3], max: [1.0, 2.0, 3.0] };
    /// assert_eq!(b.size(), [2.0, 3.0, 4.0]);
    /// ```
    pub fn size(&self) -> [f64; 3] {
        std::array::from_fn(|k| self.max[k] - self.min[k])
    }
}

/// A sphere.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    /// Its centre.
    pub center: [f64; 3],
    /// Its radius.
    pub radius: f64,
}

/// Volume (or area), centre and inertia of a body of unit density.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    /// Volume of a solid, area of a shell (so the mass at unit density).
    pub volume: f64,
    /// The centre of volume (of area for a shell): the centre of mass at uniform density.
    pub center: [f64; 3],
    /// The inertia tensor about `center` at unit density (multiply by the density).
    pub inertia: [[f64; 3]; 3],
}

fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl TriangleMesh {
    /// The box around every vertex, `None` for a mesh without vertices.
    ///
    /// ```
    /// let cube = mbconv_mesh::TriangleMesh::cuboid([1.0, 2.0, 3.0]);
    /// assert_eq!(cube.aabb().unwrap().size(), [2.0, 4.0, 6.0]);
    /// ```
    pub fn aabb(&self) -> Option<Aabb> {
        let first = *self.vertices.first()?;
        Some(self.vertices.iter().fold(
            Aabb {
                min: first,
                max: first,
            },
            |b, v| Aabb {
                min: std::array::from_fn(|k| b.min[k].min(v[k])),
                max: std::array::from_fn(|k| b.max[k].max(v[k])),
            },
        ))
    }

    /// A sphere holding every vertex: centred on the box around them, as large as the farthest
    /// vertex from there (at most √3/2 times the box's largest side from the smallest sphere).
    /// `None` for a mesh without vertices.
    ///
    /// ```
    /// let s = mbconv_mesh::TriangleMesh::cuboid([1.0; 3]).bounding_sphere().unwrap();
    /// assert_eq!((s.center, s.radius), ([0.0; 3], 3f64.sqrt()));
    /// ```
    pub fn bounding_sphere(&self) -> Option<Sphere> {
        let center = self.aabb()?.center();
        let radius = self
            .vertices
            .iter()
            .map(|v| dot(&sub(v, &center), &sub(v, &center)))
            .fold(0.0, f64::max)
            .sqrt();
        Some(Sphere { center, radius })
    }

    /// The solid the faces enclose, at unit density: signed volume (negative when the faces
    /// turn inwards), centre of volume and inertia about it. The faces should be closed and
    /// consistently oriented; an open mesh gives the figures of the cone its faces span from
    /// the box's centre.
    ///
    /// ```
    /// let solid = mbconv_mesh::TriangleMesh::cuboid([0.5; 3]).solid();
    /// assert!((solid.volume - 1.0).abs() < 1e-15);
    /// assert!((solid.inertia[0][0] - 1.0 / 6.0).abs() < 1e-15);
    /// ```
    pub fn solid(&self) -> MassProperties {
        self.integrate(false)
    }

    /// The surface as a thin shell of unit areal density: area, centre of area and inertia
    /// about it (MuJoCo's `inertia="shell"` takes a mesh's mass so).
    ///
    /// ```
    /// let shell = mbconv_mesh::TriangleMesh::cuboid([0.5; 3]).shell();
    /// assert!((shell.volume - 6.0).abs() < 1e-15);
    /// // Six unit plates: 2·(1/6) + 4·(1/12 + 1/4) about a face-parallel axis.
    /// assert!((shell.inertia[2][2] - (2.0 / 6.0 + 4.0 * (1.0 / 12.0 + 0.25))).abs() < 1e-14);
    /// ```
    pub fn shell(&self) -> MassProperties {
        self.integrate(true)
    }

    fn integrate(&self, shell: bool) -> MassProperties {
        let origin = self.aabb().map_or([0.0; 3], |b| b.center());
        // Sums of the weights, the weighted first moments and the weighted second moments
        // (covariance about `origin`), each weight left unscaled until the end.
        let mut w_sum = 0.0;
        let mut first = [0.0; 3];
        let mut second = [[0.0; 3]; 3];
        for f in &self.faces {
            let [a, b, c] = f.map(|i| sub(&self.vertices[i], &origin));
            let (weight, points): (f64, Vec<[f64; 3]>) = if shell {
                let n = cross(&sub(&b, &a), &sub(&c, &a));
                (dot(&n, &n).sqrt(), vec![a, b, c])
            } else {
                (dot(&a, &cross(&b, &c)), vec![[0.0; 3], a, b, c])
            };
            let k = points.len() as f64;
            let s: [f64; 3] = std::array::from_fn(|i| points.iter().map(|p| p[i]).sum());
            w_sum += weight;
            for i in 0..3 {
                first[i] += weight * s[i] / k;
                for j in 0..3 {
                    let pp: f64 = points.iter().map(|p| p[i] * p[j]).sum();
                    second[i][j] += weight * (pp + s[i] * s[j]);
                }
            }
        }
        // A tetrahedron's weight is six times its volume and its covariance sum is over 20 of
        // volume (120 of the weight); a triangle's weight is twice its area and its covariance
        // is over 12 of area (24 of the weight).
        let (measure_scale, second_scale) = if shell {
            (0.5, 1.0 / 24.0)
        } else {
            (1.0 / 6.0, 1.0 / 120.0)
        };
        let volume = w_sum * measure_scale;
        let centre_local: [f64; 3] = if w_sum != 0.0 {
            std::array::from_fn(|i| first[i] / w_sum)
        } else {
            [0.0; 3]
        };
        let cov: [[f64; 3]; 3] = std::array::from_fn(|i| {
            std::array::from_fn(|j| second[i][j] * second_scale - volume * centre_local[i] * centre_local[j])
        });
        let inertia = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                if i == j {
                    cov[(i + 1) % 3][(i + 1) % 3] + cov[(i + 2) % 3][(i + 2) % 3]
                } else {
                    -cov[i][j]
                }
            })
        });
        MassProperties {
            volume,
            center: std::array::from_fn(|i| centre_local[i] + origin[i]),
            inertia,
        }
    }
}
