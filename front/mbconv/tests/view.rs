//! The `mbconv view` page's data: the size rule, the ghost of a conversion, the items findings
//! name, and meshes from real models (the front-end itself is tested in a browser by
//! `front/mbconv-cli/tests/view_browser.rs`).

#![allow(clippy::unwrap_used)]

use mbconv::ir::model::geometry::{Geometry, Shape, ShapeRole};
use mbconv::viewer::data::GeometryData;
use mbconv::viewer::{View, page_data, via};
use mbconv::{Body, BodyRef, Joint, JointKind, Model};
use nalgebra::Vector3;

/// `n` links of 1 kg, 0.2 m long boxes, hanging by hinges alternating about y and z.
fn chain(n: usize) -> Model {
    let mut model = Model::new(format!("chain_{n}"));
    for i in 0..n {
        let mut link = Body::new(format!("link{i}"));
        link.inertial.com = Vector3::new(0.1, 0.0, 0.0);
        let mut bar = Shape::new(
            ShapeRole::Both,
            Geometry::Box {
                size: [0.2, 0.02, 0.02],
            },
        );
        bar.pose = mbconv::Pose::from_translation(Vector3::new(0.1, 0.0, 0.0));
        link.shapes.push(bar);
        model.bodies.push(link);
        let parent = if i == 0 {
            BodyRef::World
        } else {
            BodyRef::body(format!("link{}", i - 1))
        };
        let axis = if i % 2 == 0 { Vector3::y() } else { Vector3::z() };
        let mut joint = Joint::new(
            format!("joint{i}"),
            JointKind::Revolute { axis },
            parent,
            BodyRef::body(format!("link{i}")),
        );
        if i > 0 {
            joint.parent_frame = mbconv::Pose::from_translation(Vector3::new(0.2, 0.0, 0.0));
        }
        model.joints.push(joint);
    }
    model.joints[0].q0 = vec![0.3];
    model
}

/// The size rule of `docs/view.md`: a 100-body model simulated for 5 s, with one conversion
/// drawn over it, stays under 5 MB of data (meshes aside) with the front-end bundle.
#[test]
fn a_hundred_bodies_for_five_seconds_with_a_ghost_stay_under_five_megabytes() {
    let model = chain(100);
    let registry = mbconv::formats();
    let mut view = View::new(model.clone(), "chain_100", "mbir");
    view.settings.integrator = Some(mbconv::Integrator::Rk4);
    view.settings.dt = Some(2e-3);
    let mbir = registry.get("mbir").unwrap();
    view.conversions.push(via(
        &model,
        &registry,
        mbir,
        &view.settings,
        None,
        mbconv::viewer::FRAME_RATE,
    ));
    let data = page_data(&view);
    // A frame every 17 steps of 2 ms (at most 30 per second) from t = 0, and the last.
    let stride = mbconv::viewer::frame_stride(2e-3, mbconv::viewer::FRAME_RATE);
    assert_eq!(data.times.len(), 2500usize.div_ceil(stride) + 1);
    let json = serde_json::to_string(&data).unwrap();
    let bundle = mbconv::viewer::bundle().map_or(0, str::len);
    let total = json.len() + bundle;
    eprintln!(
        "100 bodies, 5 s, one ghost: data {} bytes, bundle {bundle} bytes",
        json.len()
    );
    assert!(total < 5_000_000, "{total} bytes");
    let ghost = &data.conversions[0];
    assert_eq!(ghost.verdict, Some("exact"));
    assert_eq!(ghost.scene.frames, data.times.len());
    assert_eq!(ghost.matching, (0..100).map(Some).collect::<Vec<_>>());
}

fn decoded(text: &str) -> Vec<f32> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD.decode(text).unwrap();
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A conversion that moves a body: the ghost parts from the original where the check says,
/// and the findings name items of the original.
#[test]
fn a_lossy_conversion_parts_where_the_check_says_and_its_findings_name_items() {
    let mut model = chain(3);
    // URDF has no joint springs on revolute joints' rest position other than zero? It has
    // none at all: the spring is dropped and the chain moves differently.
    model.joints[1].dofs = vec![mbconv::ir::model::joint::DofProperties {
        spring_stiffness: 50.0,
        ..Default::default()
    }];
    let registry = mbconv::formats();
    let mut view = View::new(model.clone(), "chain_3", "mbir");
    view.settings.duration = 1.0;
    let urdf = registry.get("urdf").unwrap();
    view.conversions.push(via(
        &model,
        &registry,
        urdf,
        &view.settings,
        None,
        mbconv::viewer::FRAME_RATE,
    ));
    let data = page_data(&view);
    let ghost = &data.conversions[0];
    assert_eq!(ghost.verdict, Some("explained"), "{}", ghost.message);
    let com = decoded(&ghost.error.com);
    assert_eq!(com.len(), data.times.len() * 3);
    let worst = ghost.worst.frame;
    let largest = com.iter().copied().fold(0.0f32, f32::max);
    let at_worst = com[worst * 3..worst * 3 + 3]
        .iter()
        .copied()
        .fold(0.0f32, f32::max);
    assert!(largest > 1e-3, "the spring moved the chain: {largest}");
    // The check's worst time is sampled finer than the page's frames.
    assert!(
        at_worst > 0.5 * largest,
        "{at_worst} at frame {worst}, largest {largest}"
    );
    let spring = ghost
        .findings
        .iter()
        .find(|f| {
            f.path
                .as_deref()
                .is_some_and(|p| p.starts_with("joints[\"joint1\"]"))
        })
        .unwrap_or_else(|| panic!("no finding on joint1: {:#?}", ghost.findings));
    assert_eq!(spring.item.as_deref(), Some("joints[\"joint1\"]"));
    assert_eq!(spring.scene, "original");
}

fn drawn(data: &mbconv::viewer::data::PageData) -> Vec<&GeometryData> {
    data.original
        .bodies
        .iter()
        .flat_map(|b| &b.shapes)
        .map(|s| &s.geometry)
        .collect()
}

/// A URDF robot's STL meshes (example-robot-data) are embedded, each file once.
#[test]
fn mesh_files_are_embedded_once() {
    let Some(urdf) = mbconv_test_support::corpus_file(
        "urdf/example-robot-data/robots/double_pendulum_description/urdf/double_pendulum.urdf",
    ) else {
        return;
    };
    let read = mbconv::read(&urdf).unwrap();
    let mut view = View::new(read.model, "double_pendulum", "urdf");
    view.base_dir = urdf.parent().map(std::path::Path::to_path_buf);
    view.settings.duration = 0.1;
    let data = page_data(&view);
    let meshes = drawn(&data)
        .into_iter()
        .filter(|g| matches!(g, GeometryData::Mesh { .. }))
        .count();
    assert!(meshes > 0, "notes: {:?}", data.notes);
    assert!(!data.meshes.is_empty() && data.meshes.len() <= meshes);
    assert!(
        data.meshes
            .values()
            .all(|m| ["stl", "obj", "dae"].contains(&m.format))
    );
    assert!(data.notes.is_empty(), "{:?}", data.notes);
}

/// A Choreonoid model's VRML meshes are drawn as the boxes around their points, with a note.
#[test]
fn vrml_meshes_are_drawn_as_boxes_with_a_note() {
    let Some(body) = mbconv_test_support::corpus_file("body/share/model/PA10/PA10.body") else {
        return;
    };
    let read = mbconv::read(&body).unwrap();
    let mut view = View::new(read.model, "PA10", "body");
    view.base_dir = body.parent().map(std::path::Path::to_path_buf);
    view.settings.duration = 0.0;
    let data = page_data(&view);
    let boxes: Vec<_> = drawn(&data)
        .into_iter()
        .filter_map(|g| match g {
            GeometryData::Bounds { min, max, .. } => Some((*min, *max)),
            _ => None,
        })
        .collect();
    assert!(!boxes.is_empty());
    assert!(
        boxes.iter().all(|(min, max)| (0..3).all(|a| max[a] > min[a])),
        "{boxes:?}"
    );
    assert!(data.notes.iter().any(|n| n.contains("VRML")), "{:?}", data.notes);
}

/// A converted model's meshes are drawn on its comparison page: the files the conversion
/// wrote (MJCF converts COLLADA and ASCII STL to binary STL beside its output) or referenced,
/// not references into the check's temporary folder, which is gone when the page is made.
#[test]
fn a_conversions_meshes_are_drawn_as_the_conversion_wrote_them() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/urdf/mesh_assets");
    let mut read = mbconv::ir::format::Options::default();
    read.set("package_path", dir.display().to_string());
    let urdf = dir.join("robot.urdf");
    let source = mbconv::ir::format::Source::from_path(&urdf).unwrap();
    let registry = mbconv::formats();
    let model = registry
        .read(registry.get("urdf").unwrap(), &source, &read)
        .unwrap()
        .model;
    let mut view = View::new(model.clone(), "mesh_assets", "urdf");
    view.base_dir = Some(dir.clone());
    view.settings.duration = 0.05;
    for (target, to_file) in [("mjcf", true), ("mjcf", false), ("sdf", true), ("urdf", true)] {
        view.settings.to_file = to_file;
        let comparison = via(
            &model,
            &registry,
            registry.get(target).unwrap(),
            &view.settings,
            None,
            mbconv::viewer::FRAME_RATE,
        );
        let converted = comparison.model.as_ref().unwrap();
        let mesh_shapes = converted
            .bodies
            .iter()
            .flat_map(|b| &b.shapes)
            .filter(|s| matches!(s.geometry, Geometry::Mesh(_)))
            .count();
        let mut page = view.clone();
        page.conversions = vec![comparison];
        let data = page_data(&page);
        let ghost: Vec<&GeometryData> = data.conversions[0]
            .scene
            .bodies
            .iter()
            .flat_map(|b| &b.shapes)
            .map(|s| &s.geometry)
            .collect();
        let meshes = ghost
            .iter()
            .filter(|g| matches!(g, GeometryData::Mesh { .. }))
            .count();
        // Written as to standard output, MJCF keeps only the meshes MuJoCo opens as they are
        // named (no folder to convert the others into): each is drawn all the same.
        let written = if to_file { 4 } else { mesh_shapes };
        assert_eq!(mesh_shapes, written, "{target} (to file: {to_file})");
        assert_eq!(
            meshes, written,
            "{target} (to file: {to_file}): {ghost:?}\nnotes: {:?}",
            data.notes
        );
        assert!(data.notes.is_empty(), "{target}: {:?}", data.notes);
    }
}
