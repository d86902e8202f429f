//! The lowered model as Choreonoid Body format 2.0 YAML (snake_case keys, degrees): one link
//! per body with its joint from its parent, its mass properties, shapes and devices as
//! elements, then extra joints. Numbers a file wrote in a way the IR would not give back bit
//! for bit (degrees, rotation lists) are written from the `body.source.*` aids when these still
//! read back to the IR value.

use super::shapes::shape_element;
use crate::spec::{self, FORMAT};
use mbconv_ir::format::Exported;
use mbconv_ir::format::kit::aids;
use mbconv_ir::{
    ActuatorKind, BodyRef, ConstraintKind, Device, DeviceType, ExtraJointType, Extras, Joint, JointKind,
    Limits, Model, Pose, Report, Value,
};
use mbconv_yaml::emit::{self as yaml, Writer};
use nalgebra::UnitQuaternion;

/// Writes a lowered model, and the project `project` names beside it (then the entry to read
/// the whole model back).
pub(crate) fn emit(
    model: &Model,
    output: Option<&std::path::Path>,
    project: Option<&super::project::ProjectNames>,
) -> Exported {
    let mut w = Writer::default();
    w.entry(0, "format", "ChoreonoidBody");
    w.entry(0, "format_version", "2.0");
    w.entry(0, "angle_unit", "degree");
    w.entry(0, "name", &yaml::string(&model.name));
    let root = model
        .joints
        .iter()
        .find(|j| j.parent.is_world())
        .and_then(|j| j.child.name())
        .or_else(|| model.bodies.first().map(|b| b.name.as_str()));
    if let Some(root) = root {
        w.entry(0, "root_link", &yaml::string(root));
    }
    for (key, value) in model.extras.for_format(FORMAT) {
        if let Some(k) = own_key(key) {
            w.entry(0, k, &yaml::value(value));
        }
    }
    w.open(0, "links");
    // The first joint of which each body is the child, gathered once (linear, not a scan of
    // the joints per body).
    let mut joint_of_child = std::collections::HashMap::new();
    for j in &model.joints {
        if let Some(child) = j.child.name() {
            joint_of_child.entry(child).or_insert(j);
        }
    }
    for body in &model.bodies {
        let joint = joint_of_child.get(body.name.as_str()).copied();
        link(&mut w, model, body, joint, output);
    }
    if !model.constraints.is_empty() {
        w.open(0, "extra_joints");
        for c in &model.constraints {
            extra_joint(&mut w, c);
        }
    }
    let mut exported = Exported::text(w.finish(), Report::default());
    if let Some(names) = project {
        exported.companions.push(mbconv_ir::format::Companion {
            file_name: names.project.clone(),
            text: super::project::write(model, names),
        });
        exported.entry = Some(names.project.clone());
    }
    exported
}

/// The file key of a `body.<key>` extra, given without its `body.` prefix (aids under
/// `body.source.` and nested keys are not file keys).
fn own_key(key: &str) -> Option<&str> {
    (!key.starts_with("source.") && !key.contains('.')).then_some(key)
}

fn rotation(extras: &Extras, aid: &str, q: &UnitQuaternion<f64>) -> String {
    if let Some(list) = aids::kept(extras, FORMAT, aid)
        && list.len() % 4 == 0
        && !list.is_empty()
    {
        let groups: Vec<[f64; 4]> = list.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
        if spec::rotation_from_written(&groups, true).is_some_and(|r| same_rotation(&r, q)) {
            if groups.len() == 1 {
                return yaml::numbers(&groups[0]);
            }
            let items: Vec<String> = groups.iter().map(|g| yaml::numbers(g)).collect();
            return format!("[{}]", items.join(", "));
        }
    }
    yaml::numbers(&spec::written_rotation(q))
}

pub(super) fn same_rotation(a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> bool {
    let (a, b) = (a.quaternion(), b.quaternion());
    [a.w, a.i, a.j, a.k]
        .iter()
        .zip([b.w, b.i, b.j, b.k].iter())
        .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// An angle in degrees: the written one when it reads back to `radians`.
fn angle(extras: &Extras, aid: &str, radians: f64) -> f64 {
    if let Some([written]) = aids::kept_array::<1>(extras, FORMAT, aid)
        && spec::radians(written).to_bits() == radians.to_bits()
    {
        return written;
    }
    spec::degrees_exact(radians)
}

pub(super) fn pose_entries(w: &mut Writer, indent: usize, pose: &Pose, extras: &Extras, aid: &str) {
    if pose.translation != nalgebra::Vector3::zeros() {
        let t = pose.translation;
        w.entry(indent, "translation", &yaml::numbers(&[t.x, t.y, t.z]));
    }
    if pose.rotation != UnitQuaternion::identity() {
        w.entry(indent, "rotation", &rotation(extras, aid, &pose.rotation));
    }
}

fn link(
    w: &mut Writer,
    model: &Model,
    body: &mbconv_ir::Body,
    joint: Option<&Joint>,
    output: Option<&std::path::Path>,
) {
    w.item(1, "name", &yaml::string(&body.name));
    let i = 2;
    if let Some(j) = joint {
        if let BodyRef::Body(parent) = &j.parent {
            w.entry(i, "parent", &yaml::string(parent));
        }
        if j.name != body.name {
            w.entry(i, "joint_name", &yaml::string(&j.name));
        }
        pose_entries(w, i, &j.parent_frame, &body.extras, "rotation");
        joint_entries(w, i, j);
    } else {
        pose_entries(w, i, &body.pose, &body.extras, "rotation");
        w.entry(i, "joint_type", "free");
    }
    let m = &body.inertial;
    w.entry(i, "mass", &yaml::number(m.mass));
    w.entry(i, "center_of_mass", &yaml::numbers(&[m.com.x, m.com.y, m.com.z]));
    let inertia: Vec<f64> = m.inertia.0.iter().flatten().copied().collect();
    w.entry(i, "inertia", &yaml::numbers(&inertia));
    for (key, value) in body.extras.for_format(FORMAT) {
        if let Some(k) = own_key(key) {
            w.entry(i, &yaml::string(k), &yaml::value(value));
        }
    }
    let devices: Vec<&Device> = model
        .devices
        .iter()
        .filter(|d| d.body.name() == Some(body.name.as_str()))
        .collect();
    if body.shapes.is_empty() && devices.is_empty() {
        return;
    }
    w.open(i, "elements");
    for shape in &body.shapes {
        shape_element(w, i + 1, shape, output);
    }
    for device in devices {
        device_element(w, i + 1, device);
    }
}

fn joint_entries(w: &mut Writer, i: usize, j: &Joint) {
    let source_type = match j.extras.get(&aids::key(FORMAT, "joint_type")) {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let (ty, axis) = match &j.kind {
        JointKind::Fixed => ("fixed", None),
        JointKind::Revolute { axis } => ("revolute", Some(axis)),
        JointKind::Prismatic { axis } => (
            if source_type == Some("slide") {
                "slide"
            } else {
                "prismatic"
            },
            Some(axis),
        ),
        JointKind::Free => ("free", None),
        JointKind::PseudoContinuousTrack { axis } => ("pseudo_continuous_track", Some(axis)),
        // `lower` leaves no other kind.
        _ => ("fixed", None),
    };
    w.entry(i, "joint_type", ty);
    if let Some(a) = axis {
        // The IR's axis is a direction; Choreonoid uses the written one as it is (a prismatic
        // joint along [0, 2, 0] would move twice as far), so it is written with unit length.
        let a = if (a.norm() - 1.0).abs() > 1e-15 {
            a.normalize()
        } else {
            *a
        };
        w.entry(i, "joint_axis", &yaml::numbers(&[a.x, a.y, a.z]));
    }
    if let Some(id) = j.joint_id {
        w.entry(i, "joint_id", &id.to_string());
    }
    let track = matches!(j.kind, JointKind::PseudoContinuousTrack { .. });
    match j.actuator {
        Some(ActuatorKind::Force) => w.entry(i, "actuation_mode", "joint_effort"),
        Some(ActuatorKind::Position) => w.entry(i, "actuation_mode", "joint_displacement"),
        Some(ActuatorKind::Velocity) if !track => w.entry(i, "actuation_mode", "joint_velocity"),
        Some(ActuatorKind::LinkPosition) => w.entry(i, "actuation_mode", "link_position"),
        _ => {}
    }
    let revolute = matches!(j.kind, JointKind::Revolute { .. });
    if let Some(q) = j.q0.first()
        && q.to_bits() != 0
    {
        if revolute {
            w.entry(
                i,
                "joint_angle",
                &yaml::number(angle(&j.extras, "joint_angle", *q)),
            );
        } else {
            w.entry(i, "joint_displacement", &yaml::number(*q));
        }
    }
    if !matches!(j.kind, JointKind::Revolute { .. } | JointKind::Prismatic { .. })
        && let Some(Value::Float(q)) = j.extras.get(&format!("{FORMAT}.joint_angle"))
    {
        w.entry(
            i,
            "joint_angle",
            &yaml::number(angle(&j.extras, "joint_angle", *q)),
        );
    }
    let dof = j.dof(0);
    if !dof.position_limits.is_unlimited() {
        w.entry(
            i,
            "joint_range",
            &limits(&j.extras, "joint_range", dof.position_limits, revolute),
        );
    }
    if !dof.velocity_limits.is_unlimited() {
        w.entry(
            i,
            "joint_velocity_range",
            &limits(&j.extras, "velocity_range", dof.velocity_limits, revolute),
        );
    }
    if let Some(hi) = dof.effort_limits.upper {
        w.entry(i, "max_joint_effort", &yaml::number(hi));
    }
    if dof.rotor_inertia != 0.0 {
        w.entry(i, "rotor_inertia", &yaml::number(dof.rotor_inertia));
    }
    if dof.gear_ratio != 1.0 {
        w.entry(i, "gear_ratio", &yaml::number(dof.gear_ratio));
    }
}

fn limits(extras: &Extras, aid: &str, l: Limits, degrees: bool) -> String {
    let bounds = [l.lower, l.upper];
    let kept = aids::kept(extras, FORMAT, aid);
    let mut kept_iter = kept.iter().flatten();
    let parts: Vec<String> = bounds
        .iter()
        .map(|b| match b {
            None => "unlimited".to_owned(),
            Some(x) if degrees => {
                let written = kept_iter.next().copied();
                match written {
                    Some(wr) if spec::radians(wr).to_bits() == x.to_bits() => yaml::number(wr),
                    _ => yaml::number(spec::degrees_exact(*x)),
                }
            }
            Some(x) => yaml::number(*x),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

fn device_element(w: &mut Writer, i: usize, d: &Device) {
    let ty = match &d.device_type {
        DeviceType::ForceSensor => "ForceSensor",
        DeviceType::RateGyroSensor => "RateGyroSensor",
        DeviceType::AccelerationSensor => "AccelerationSensor",
        DeviceType::Imu => "IMU",
        DeviceType::Camera => match d.extras.get(&format!("{FORMAT}.source.type")) {
            Some(Value::String(s)) if s == "CameraDevice" => "CameraDevice",
            _ => "Camera",
        },
        DeviceType::RangeSensor => "RangeSensor",
        DeviceType::SpotLight => "SpotLight",
        DeviceType::PointLight => "PointLight",
        DeviceType::DirectionalLight => "DirectionalLight",
        DeviceType::Other(name) => name.as_str(),
    };
    w.item(i, "type", &yaml::string(ty));
    w.entry(i + 1, "name", &yaml::string(&d.name));
    if let Some(id) = d.id {
        w.entry(i + 1, "id", &id.to_string());
    }
    pose_entries(w, i + 1, &d.pose, &d.extras, "rotation");
    for (key, value) in d.parameters.iter() {
        let text = match value {
            Value::Float(x) if spec::DEVICE_ANGLE_KEYS.contains(&key) => {
                yaml::float(angle(&d.extras, key, *x))
            }
            other => yaml::value(other),
        };
        w.entry(i + 1, &yaml::string(key), &text);
    }
}

fn extra_joint(w: &mut Writer, c: &mbconv_ir::Constraint) {
    let ConstraintKind::ExtraJoint {
        joint_type,
        body1,
        frame1,
        body2,
        frame2,
        axis,
    } = &c.kind
    else {
        return;
    };
    w.item(1, "name", &yaml::string(&c.name));
    w.entry(2, "link1_name", &yaml::string(&body1.to_string()));
    w.entry(2, "link2_name", &yaml::string(&body2.to_string()));
    let ty = match joint_type {
        ExtraJointType::Fixed => "fixed",
        ExtraJointType::Hinge => "hinge",
        ExtraJointType::Ball => "ball",
        ExtraJointType::Piston => "piston",
    };
    w.entry(2, "joint_type", ty);
    w.entry(2, "joint_axis", &yaml::numbers(&[axis.x, axis.y, axis.z]));
    let t1 = frame1.translation;
    let t2 = frame2.translation;
    w.entry(2, "translation_in_link1", &yaml::numbers(&[t1.x, t1.y, t1.z]));
    w.entry(2, "translation_in_link2", &yaml::numbers(&[t2.x, t2.y, t2.z]));
    if frame1.rotation != UnitQuaternion::identity() {
        w.entry(
            2,
            "rotation_in_link1",
            &rotation(&c.extras, "rotation_in_link1", &frame1.rotation),
        );
    }
    if frame2.rotation != UnitQuaternion::identity() {
        w.entry(
            2,
            "rotation_in_link2",
            &rotation(&c.extras, "rotation_in_link2", &frame2.rotation),
        );
    }
}
