//! Numbers as urdfdom reads them: `strToDouble`, a libstdc++ `istringstream >> double` that
//! must consume the whole value (a vector is split at white space first). Each row is a
//! spelling and what urdfdom (Pinocchio's, probed with `buildModelFromXML` on the same file)
//! makes of it; mbconv gives the same value or refuses with a located error.

#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_urdf::UrdfFormat;

/// A pendulum whose COM x is `x` and whose joint's upper limit and effort are `upper`.
fn urdf(x: &str, upper: &str) -> String {
    format!(
        r#"<robot name="r">
  <link name="base"/>
  <link name="l">
    <inertial>
      <origin xyz="{x} 0 0.5"/>
      <mass value="2"/>
      <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <joint name="j" type="revolute">
    <parent link="base"/>
    <child link="l"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1" upper="{upper}" effort="{upper}" velocity="1"/>
  </joint>
</robot>
"#
    )
}

fn read(text: &str) -> Result<Imported, String> {
    UrdfFormat
        .read(&Source::from_string("s.urdf", text), &Options::default())
        .map_err(|e| e.to_string())
}

/// Spellings and urdfdom's value (`None`: urdfdom refuses the file).
const SPELLINGS: &[(&str, Option<f64>)] = &[
    ("2", Some(2.0)),
    ("+2", Some(2.0)),
    ("2.", Some(2.0)),
    (".5", Some(0.5)),
    ("1e5", Some(1e5)),
    ("1E-3", Some(1e-3)),
    ("007", Some(7.0)),
    ("1e-400", Some(0.0)),
    ("1e-310", Some(1e-310)),
    ("0x10", None),
    ("1e400", None),
    ("inf", None),
    ("-inf", None),
    ("Infinity", None),
    ("nan", None),
    (".inf", None),
    ("1_000", None),
    ("0.t", None),
    ("1e", None),
    ("x", None),
];

#[test]
fn coordinates_read_as_urdfdom_reads_them() {
    for (spelling, want) in SPELLINGS {
        match (read(&urdf(spelling, "3")), want) {
            (Ok(imported), Some(x)) => {
                let body = imported.model.bodies.iter().find(|b| b.name == "l").unwrap();
                assert_eq!(body.inertial.com.x.to_bits(), x.to_bits(), "{spelling}");
            }
            (Err(e), None) => assert!(e.starts_with("s.urdf:5:20: "), "{spelling}: {e}"),
            (got, want) => panic!("{spelling}: read {:?}, urdfdom {want:?}", got.map(|_| ())),
        }
    }
}

#[test]
fn limits_read_as_urdfdom_reads_them() {
    for (spelling, want) in SPELLINGS {
        match (read(&urdf("0", spelling)), want) {
            (Ok(imported), Some(x)) => {
                let dof = &imported.model.joints[0].dofs[0];
                assert_eq!(
                    dof.position_limits.upper.map(f64::to_bits),
                    Some(x.to_bits()),
                    "{spelling}"
                );
                assert_eq!(
                    dof.effort_limits.upper.map(f64::to_bits),
                    Some(x.to_bits()),
                    "{spelling}"
                );
            }
            (Err(e), None) => assert!(e.starts_with("s.urdf:14:30: "), "{spelling}: {e}"),
            (got, want) => panic!("{spelling}: read {:?}, urdfdom {want:?}", got.map(|_| ())),
        }
    }
}

#[test]
fn an_overflow_says_so() {
    let e = read(&urdf("1e400", "3")).unwrap_err();
    assert_eq!(
        e,
        "s.urdf:5:20: \"1e400\" in `xyz` of <origin> is out of the range of a double (URDF refuses it)"
    );
    let e = read(&urdf("0", "inf")).unwrap_err();
    assert_eq!(
        e,
        "s.urdf:14:30: expected a number in `upper` of <limit>, found \"inf\""
    );
}
