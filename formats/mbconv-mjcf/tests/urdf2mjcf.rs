//! `mbconv urdf2mjcf` on the URDF corpus against MuJoCo's own URDF import, from two sets of
//! golden data (no simulator runs here): MuJoCo's reading of each corpus URDF
//! (`formats/mbconv-urdf/tests/golden/read`, `cargo xtask golden urdf`: MuJoCo welds the root,
//! fuses fixed links into their parent and records which links each body holds) and MuJoCo's
//! reading of the MJCF mbconv writes from the same file (`tests/golden/written_all`, `cargo
//! xtask golden mjcf-written`, whose test checks that the text is still the one judged). Both
//! trajectories are MuJoCo's (contact off, RK4, dt 1e-4, 1 s). Each body of MuJoCo's URDF
//! import is compared with the links it holds in mbconv's MJCF (their mass and their joint
//! centre of mass every 0.1 s); the links fused into the world are static in both. Where a
//! soft constraint of MuJoCo's acted in either trajectory (a joint limit reached, an equality
//! such as a mimic joint), the model is counted but not compared. The differences measured are
//! in "urdf2mjcf against MuJoCo's own URDF import" in `docs/formats/mjcf.md`.
#![allow(clippy::unwrap_used)]

use mbconv_test_support::written_golden::{golden_json_files, relative_deviation};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Agreement asked for on masses (kg) and centres of mass (m), relative to max(1, |MuJoCo's
/// URDF value|): the same simulator on the same physics, written two ways.
const TOLERANCE: f64 = 1e-6;

fn vector(v: &Value) -> [f64; 3] {
    let a = v.as_array().unwrap();
    [0, 1, 2].map(|i| a[i].as_f64().unwrap())
}

/// What comparing one corpus URDF found.
enum Outcome {
    /// MuJoCo refuses the URDF itself.
    UrdfRefused,
    /// MuJoCo refuses mbconv's MJCF of it.
    MjcfRefused,
    /// A soft constraint acted in one of the trajectories.
    Soft,
    /// Compared: the worst relative deviation of masses and centres of mass.
    Compared(f64),
}

fn compare(name: &str, urdf: &Value, mjcf: &Value) -> Outcome {
    if urdf["loads"].as_bool() != Some(true) {
        return Outcome::UrdfRefused;
    }
    if mjcf["loads"].as_bool() != Some(true) {
        return Outcome::MjcfRefused;
    }
    let (ut, mt) = (&urdf["trajectory"], &mjcf["trajectory"]);
    if ut["limit_reached"].as_bool() == Some(true)
        || ut["equality_constraints"].as_u64() != Some(0)
        || ut["frictionloss"].as_bool() == Some(true)
        || !mt["active"].as_array().unwrap().is_empty()
    {
        return Outcome::Soft;
    }
    let index: BTreeMap<&str, usize> = mjcf["bodies"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(k, n)| (n.as_str().unwrap(), k))
        .collect();
    let mass = |k: usize| mjcf["mass"][k].as_f64().unwrap();
    let mut worst = 0.0_f64;
    let (us, ms) = (
        ut["samples"].as_array().unwrap(),
        mt["samples"].as_array().unwrap(),
    );
    assert_eq!(us.len(), ms.len(), "{name}: samples");
    for (b, body) in urdf["bodies"].as_array().unwrap().iter().enumerate() {
        let links: Vec<usize> = body["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let l = l.as_str().unwrap();
                *index
                    .get(l)
                    .unwrap_or_else(|| panic!("{name}: link {l} is no body of mbconv's MJCF"))
            })
            .collect();
        let total: f64 = links.iter().map(|&k| mass(k)).sum();
        let theirs = body["mass"].as_f64().unwrap();
        let dev = relative_deviation(&[total], &[theirs]);
        assert!(
            dev <= TOLERANCE,
            "{name}: body {}: mass {total} in mbconv's MJCF, {theirs} in MuJoCo's URDF import",
            body["name"]
        );
        worst = worst.max(dev);
        if total == 0.0 {
            continue;
        }
        for (u, m) in us.iter().zip(ms) {
            let mut com = [0.0; 3];
            for &k in &links {
                let c = vector(&m["com"][k]);
                (0..3).for_each(|i| com[i] += mass(k) * c[i] / total);
            }
            let dev = relative_deviation(&com, &vector(&u["com"][b]));
            assert!(
                dev <= TOLERANCE,
                "{name}: body {} at t = {}: centre of mass {dev:e} m from MuJoCo's URDF import",
                body["name"],
                u["t"]
            );
            worst = worst.max(dev);
        }
    }
    Outcome::Compared(worst)
}

#[test]
fn urdf2mjcf_moves_in_mujoco_as_mujocos_own_urdf_import() {
    // The URDF fixtures are compared too (`fixtures__urdf__*` in `tests/golden/written_all`).
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = golden_json_files(&here.join("../mbconv-urdf/tests/golden/read"));
    let written: BTreeMap<String, Value> = golden_json_files(&here.join("tests/golden/written_all"))
        .into_iter()
        .collect();
    let (mut compared, mut soft, mut urdf_refused, mut mjcf_refused) = (0, 0, 0, 0);
    let mut worst = (0.0_f64, String::new());
    for (name, golden) in &read {
        let file = golden["file"].as_str().unwrap().replace('/', "__");
        let (kind, _) = name.split_once("__").unwrap(); // `corpus` or `fixtures`
        let key = format!("{kind}__urdf__{file}");
        let mjcf = &written
            .get(&key)
            .unwrap_or_else(|| panic!("{name}: no {key} in tests/golden/written_all"))["mujoco"];
        match compare(name, &golden["mujoco"], mjcf) {
            Outcome::UrdfRefused => urdf_refused += 1,
            Outcome::MjcfRefused => mjcf_refused += 1,
            Outcome::Soft => soft += 1,
            Outcome::Compared(dev) => {
                compared += 1;
                if dev > worst.0 {
                    worst = (dev, name.clone());
                }
            }
        }
    }
    eprintln!(
        "{compared} URDF files (corpus and fixtures) move alike (worst relative deviation {:e}, {}); {soft} with \
         soft constraints; MuJoCo refuses {urdf_refused} URDF files and {mjcf_refused} MJCF \
         files of them",
        worst.0, worst.1
    );
    assert!(compared >= 15, "only {compared} compared");
}
