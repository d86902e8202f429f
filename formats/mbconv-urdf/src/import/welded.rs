//! Fixed links whose own inertia is unphysical (a negative principal moment) but which are
//! welded to a body whose composite with them is physical: their inertial is read into that
//! body, as Pinocchio reads every fixed link (urdfdom checks no inertia).

use super::tree::{Parent, Tree};
use super::{JointEntry, LinkEntry, Reader};
use mbconv_ir::report::{Category, path};
use mbconv_ir::validate::{inertia_scale, inertial_tolerance, principal_moments};
use mbconv_ir::{Body, Inertia, Inertial, JointKind};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};

impl Reader<'_> {
    /// Moves the inertial of each fixed link whose tensor has a negative principal moment into
    /// the first body up its chain of fixed joints with which its composite is physical, with
    /// a warning; leaves it as written (validation warns, with its size) when there is none.
    pub(super) fn weld_unphysical_inertias(
        &mut self,
        links: &[LinkEntry],
        tree: &Tree,
        joints: &[JointEntry],
        bodies: &mut [Body],
    ) {
        let welded_to_parent = |i: usize| match tree[i] {
            (Parent::Link(p), Some(j)) if joints[j].joint.kind == JointKind::Fixed => Some(p),
            _ => None,
        };
        // The validation's tolerance, relative to the model as read.
        let scale = bodies
            .iter()
            .map(|b| inertia_scale(&b.inertial))
            .fold(0.0, f64::max);
        for i in 0..bodies.len() {
            if welded_to_parent(i).is_none() || physical(&bodies[i].inertial, scale) {
                continue;
            }
            // The first body up the chain of fixed joints whose composite with the link is
            // physical.
            let mut candidate = welded_to_parent(i);
            let mut found = None;
            while let Some(a) = candidate {
                let relative = bodies[a].pose.inverse() * bodies[i].pose;
                let sum = composite(
                    &bodies[a].inertial,
                    &bodies[i].inertial,
                    relative.rotation,
                    relative.translation,
                );
                if physical(&sum, scale) {
                    found = Some((a, sum));
                    break;
                }
                candidate = welded_to_parent(a);
            }
            let Some((top, composite)) = found else {
                continue;
            };
            let moments = principal_moments(&bodies[i].inertial.inertia_in_body_axes()).unwrap_or_default();
            let (name, into) = (bodies[i].name.clone(), bodies[top].name.clone());
            bodies[top].inertial = composite;
            bodies[i].inertial = Inertial {
                mass: 0.0,
                inertia: Inertia::zero(),
                ..Inertial::default()
            };
            self.warn(
                "inertia_welded",
                Category::Approximated,
                &path::field(&path::item("bodies", &name), "inertial"),
                links[i].node,
                format!(
                    "the inertia of link {name:?} has a negative principal moment ({:e}); the link is welded to {into:?} by fixed joints and their composite is physical, so its inertial is read into {into:?} (the motion is the same; Pinocchio merges fixed links alike)",
                    moments[0]
                ),
            );
        }
    }
}

/// True when `inertial`'s tensor has no principal moment below minus the validation's
/// tolerance in a model of inertia scale `scale`.
fn physical(inertial: &Inertial, scale: f64) -> bool {
    principal_moments(&inertial.inertia_in_body_axes())
        .is_some_and(|p| p[0] >= -inertial_tolerance(inertial, scale))
}

/// The inertial of `base` with `part` added, `part`'s body frame at `rotation`, `offset` in
/// `base`'s body frame; the tensor about the new centre of mass, in body axes.
fn composite(
    base: &Inertial,
    part: &Inertial,
    rotation: UnitQuaternion<f64>,
    offset: Vector3<f64>,
) -> Inertial {
    let r = rotation.to_rotation_matrix().into_inner();
    let part_com = rotation * part.com + offset;
    let part_tensor = r * part.inertia_in_body_axes() * r.transpose();
    let mass = base.mass + part.mass;
    let com = if mass > 0.0 {
        (base.com * base.mass + part_com * part.mass) / mass
    } else {
        base.com
    };
    // The tensor of a point mass `m` at `d` from the centre of mass.
    let shifted = |m: f64, d: Vector3<f64>| (Matrix3::identity() * d.norm_squared() - d * d.transpose()) * m;
    let tensor = base.inertia_in_body_axes()
        + shifted(base.mass, base.com - com)
        + part_tensor
        + shifted(part.mass, part_com - com);
    Inertial {
        mass,
        com,
        inertia: Inertia::from_matrix(&tensor),
        inertia_rotation: UnitQuaternion::identity(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_composite_adds_the_parallel_axis_terms() {
        let point = |mass: f64| Inertial {
            mass,
            com: Vector3::zeros(),
            inertia: Inertia::zero(),
            inertia_rotation: UnitQuaternion::identity(),
        };
        let c = composite(
            &point(1.0),
            &point(1.0),
            UnitQuaternion::identity(),
            Vector3::new(2.0, 0.0, 0.0),
        );
        assert_eq!(c.mass, 2.0);
        assert_eq!(c.com, Vector3::new(1.0, 0.0, 0.0));
        assert_eq!(
            c.inertia.matrix(),
            Matrix3::from_diagonal(&Vector3::new(0.0, 2.0, 2.0))
        );
    }
}
