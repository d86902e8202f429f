//! DART's arbitrary plane of a planar joint, as both directions need it.

use nalgebra::Vector3;

/// DART's arbitrary plane: `t1 = a1/|a1|`, `n = (a1 × a2)/|a1 × a2|`, `t2 = n × t1` (measured
/// with dartpy 6.20: the second axis is made perpendicular to the first). `None` when an axis
/// is zero or the two are parallel.
pub(crate) fn orthonormal_plane(
    a1: &Vector3<f64>,
    a2: &Vector3<f64>,
) -> Option<(Vector3<f64>, Vector3<f64>)> {
    let n1 = a1.norm();
    let normal = a1.cross(a2);
    let nn = normal.norm();
    if !(n1.is_finite() && nn.is_finite()) || n1 == 0.0 || nn == 0.0 {
        return None;
    }
    let t1 = a1 / n1;
    let t2 = (normal / nn).cross(&t1);
    Some((t1, t2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_axis_is_made_perpendicular() {
        let Some((t1, t2)) = orthonormal_plane(&Vector3::new(2.0, 0.0, 0.0), &Vector3::new(1.0, 1.0, 0.0))
        else {
            panic!("the axes span a plane");
        };
        assert_eq!(t1, Vector3::x());
        assert!((t2 - Vector3::y()).norm() < 1e-15);
        assert!(orthonormal_plane(&Vector3::x(), &Vector3::x()).is_none());
    }
}
