//! Bodies and frames: mass properties, named frames, geometry kept verbatim.

use super::assembly::check_name;
use super::fields::Reader;
use crate::raw::Node;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::path;
use mbconv_ir::{Body, Category, Extras, Frame, FrameKind, Inertia, Inertial};
use nalgebra::Vector3;

const BODY_KEYS: &[&str] = &[
    "name",
    "center_of_mass",
    "mass",
    "moment_of_inertia",
    "inertia",
    "frames",
    "active",
];

const INERTIA_KEYS: [&str; 6] = ["Ixx", "Iyy", "Izz", "Ixy", "Iyz", "Izx"];

/// A body as Shift gives it, under its IR name (the body frame is placed later).
pub(crate) fn read_body(reader: &mut Reader, node: &Node, ir_name: &str) -> SourceResult<Body> {
    let ir_path = path::item("bodies", ir_name);
    let mut body = Body::new(ir_name);
    reader.session.record(ir_path.clone(), reader.span(node));
    if let Some(active) = node.get("active") {
        body.enabled = reader.bool(active, "active")?;
    }
    body.inertial = read_inertial(reader, node, &ir_path)?;
    body.frames = read_frames(reader, node.get("frames"), &ir_path)?;
    reader.keep_unknown(node, BODY_KEYS, &mut body.extras);
    Ok(body)
}

/// `center_of_mass`, `mass` + `moment_of_inertia{}` or `inertia{mass, …}`; Shift's defaults
/// (mass 1, unit moments) where missing, each reported.
fn read_inertial(reader: &mut Reader, node: &Node, ir_path: &str) -> SourceResult<Inertial> {
    let units = reader.units;
    let com = match node.get("center_of_mass") {
        Some(c) => reader.vec3(c, "center_of_mass")? * units.length,
        None => Vector3::zeros(),
    };
    let table = node.get("inertia").or_else(|| node.get("moment_of_inertia"));
    let mass_node = node.get("mass").or_else(|| table.and_then(|t| t.get("mass")));
    let mass = match mass_node {
        Some(m) => reader.number(m, "mass")? * units.mass,
        None => {
            reader.finding(
                "default",
                Category::Defaulted,
                ir_path,
                node,
                "no mass: Shift's default 1 kg applies",
            );
            1.0
        }
    };
    let scale = units.mass * units.length * units.length;
    let mut values = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    match table {
        Some(t) => {
            for (value, key) in values.iter_mut().zip(INERTIA_KEYS) {
                if let Some(v) = t.get(key) {
                    *value = reader.number(v, key)? * scale;
                } else if key.len() == 3 && key.as_bytes()[1] == key.as_bytes()[2] {
                    reader.finding(
                        "default",
                        Category::Defaulted,
                        ir_path,
                        t,
                        format!("no {key}: Shift's default 1 applies"),
                    );
                    *value = scale;
                }
            }
        }
        None => {
            reader.finding(
                "default",
                Category::Defaulted,
                ir_path,
                node,
                "no inertia: Shift's default Ixx = Iyy = Izz = 1 applies",
            );
            values = [scale, scale, scale, 0.0, 0.0, 0.0];
        }
    }
    // Products are tensor entries (no sign flip): Ixy = I[0][1], Iyz = I[1][2], Izx = I[2][0].
    Ok(Inertial {
        mass,
        com,
        inertia: Inertia::from_moments_products(
            [values[0], values[1], values[2]],
            [values[3], values[5], values[4]],
        ),
        ..Inertial::default()
    })
}

/// A `frames` list (missing or `null`: none).
pub(crate) fn read_frames(
    reader: &mut Reader,
    node: Option<&Node>,
    owner_path: &str,
) -> SourceResult<Vec<Frame>> {
    let mut frames: Vec<Frame> = Vec::new();
    for item in reader.list(node, "frames")? {
        let name_node = item
            .get("name")
            .ok_or_else(|| reader.error(item, "missing", "a frame needs a `name`"))?;
        let name = check_name(reader, name_node, "frame")?;
        if frames.iter().any(|f| f.name == name) {
            return Err(reader.error(
                name_node,
                "duplicate",
                format!("a second frame {name:?} on the same body"),
            ));
        }
        let frame_path = format!("{owner_path}.frames[{name:?}]");
        let mut extras = Extras::default();
        let pose = reader.pose(item, &frame_path, &mut extras, "R")?;
        reader.keep_unknown(item, &["name", "R", "T"], &mut extras);
        reader.session.record(frame_path, reader.span(item));
        frames.push(Frame {
            name: name.to_owned(),
            pose,
            kind: FrameKind::Frame,
            extras,
        });
    }
    Ok(frames)
}
