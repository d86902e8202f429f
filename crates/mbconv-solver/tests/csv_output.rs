//! The CSV a [`Trajectory`] writes is CSV: any body name (commas, quotes, spaces, line breaks,
//! as real DART files name bodies) reads back with a CSV reader into the same columns, and every
//! number parses back to the same bits.
#![allow(clippy::unwrap_used)]

use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model as Ir, Pose};
use mbconv_solver::{Integrator, Sample, SimulateOptions, Trajectory};
use nalgebra::Vector3;

/// Names a CSV writer must quote, and one it must not.
const NAMES: [&str; 5] = [
    "sphere skeleton - cog offset (0.05, 0.0, 0.0)/sphere link 1",
    "a \"quoted\" link",
    "two\nlines",
    "carriage\r\nreturn, and \"all\" of it",
    "plain",
];

fn read_back(text: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text);
    let header = reader.headers().unwrap().iter().map(str::to_owned).collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect();
    (header, rows)
}

fn expected_header(names: &[&str], energy: bool) -> Vec<String> {
    let mut h = vec!["t".to_owned()];
    for n in names {
        for c in ["x", "y", "z", "qw", "qx", "qy", "qz"] {
            h.push(format!("{n}.{c}"));
        }
    }
    if energy {
        h.extend(["kinetic".to_owned(), "potential".to_owned()]);
    }
    h
}

fn bits(field: &str) -> u64 {
    field.parse::<f64>().unwrap().to_bits()
}

#[test]
fn any_body_name_and_any_float_reads_back() {
    // Numbers whose shortest spelling is long, tiny, huge, negative zero or subnormal.
    let awkward = [
        0.1 + 0.2,
        -0.0,
        f64::MIN_POSITIVE,
        5e-324,
        1e300,
        -1.7976931348623157e308,
        std::f64::consts::PI,
        1.0 / 3.0,
        123456789.00000001,
        -2.5e-17,
    ];
    let names: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    let mut trajectory = Trajectory::new(names.clone(), true);
    let mut expected = Vec::new();
    for k in 0..4 {
        let value =
            |i: usize| awkward[(k * 7 + i) % awkward.len()] * if i.is_multiple_of(2) { 1.0 } else { -1.0 };
        let poses: Vec<[f64; 7]> = (0..names.len())
            .map(|b| std::array::from_fn(|c| value(b * 7 + c)))
            .collect();
        let sample = Sample {
            t: k as f64 * 0.1,
            poses: &poses,
            kinetic: Some(value(3)),
            potential: Some(value(5)),
        };
        trajectory.push(&sample);
        let mut row = vec![sample.t];
        row.extend(poses.iter().flatten());
        row.extend([value(3), value(5)]);
        expected.push(row);
    }
    let mut text = Vec::new();
    trajectory.write_csv(&mut text).unwrap();
    let (header, rows) = read_back(&text);
    assert_eq!(header, expected_header(&NAMES, true));
    assert_eq!(rows.len(), expected.len());
    for (row, want) in rows.iter().zip(&expected) {
        assert_eq!(row.len(), header.len());
        let got: Vec<u64> = row.iter().map(|f| bits(f)).collect();
        let want: Vec<u64> = want.iter().map(|x| x.to_bits()).collect();
        assert_eq!(got, want);
    }
}

#[test]
fn a_simulated_trajectory_with_awkward_names_reads_back() {
    let mut ir = Ir::new("chain");
    for (i, name) in NAMES.iter().enumerate() {
        let mut body = Body::new(*name);
        body.inertial.mass = 1.0 + i as f64;
        body.inertial.com = Vector3::new(0.3, 0.0, 0.0);
        body.pose = Pose::from_translation(Vector3::new(0.6 * i as f64, 0.0, 0.0));
        ir.bodies.push(body);
        let parent = if i == 0 {
            BodyRef::World
        } else {
            BodyRef::body(NAMES[i - 1])
        };
        let mut joint = Joint::new(
            format!("joint, {i}"),
            JointKind::Revolute { axis: Vector3::y() },
            parent,
            BodyRef::body(*name),
        );
        joint.parent_frame = Pose::from_translation(Vector3::new(if i == 0 { 0.0 } else { 0.6 }, 0.0, 0.0));
        ir.joints.push(joint);
    }
    let options = SimulateOptions {
        duration: 0.01,
        dt: 1e-3,
        integrator: Integrator::Rk4,
        energy: false,
        ..SimulateOptions::default()
    };
    let (trajectory, _) = Trajectory::record(&ir, &options).unwrap();
    let mut text = Vec::new();
    trajectory.write_csv(&mut text).unwrap();
    let (header, rows) = read_back(&text);
    assert_eq!(header, expected_header(&NAMES, false));
    assert_eq!(rows.len(), trajectory.t.len());
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(bits(&row[0]), trajectory.t[k].to_bits());
        let poses: Vec<u64> = row[1..].iter().map(|f| bits(f)).collect();
        let want: Vec<u64> = trajectory.poses[k]
            .iter()
            .flatten()
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(poses, want, "sample {k}");
    }
    // The bodies move, so the values compared are not all the initial ones.
    assert_ne!(rows[0][1..], rows[rows.len() - 1][1..]);
}

#[test]
fn plain_names_write_plain_csv() {
    let mut trajectory = Trajectory::new(vec!["link1".into()], false);
    trajectory.push(&Sample {
        t: 0.0,
        poses: &[[0.5, 0.0, -1.0, 1.0, 0.0, 0.0, 0.0]],
        kinetic: None,
        potential: None,
    });
    let mut text = Vec::new();
    trajectory.write_csv(&mut text).unwrap();
    assert_eq!(
        String::from_utf8(text).unwrap(),
        "t,link1.x,link1.y,link1.z,link1.qw,link1.qx,link1.qy,link1.qz\n0,0.5,0,-1,1,0,0,0\n"
    );
}
