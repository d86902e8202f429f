//! COLLADA (`.dae`): the smallest reader that gives a robot mesh's triangles, over `roxmltree`
//! (`docs/meshes.md` says why no COLLADA crate). It reads the geometries' `<triangles>`,
//! `<polylist>`, `<polygons>`, `<trifans>` and `<tristrips>` (their `VERTEX` input, through
//! `<vertices>` to the `POSITION` source), places each `<instance_geometry>` of the scene by
//! its nodes' `<matrix>`, `<translate>`, `<rotate>` and `<scale>` (through `<instance_node>`
//! too), and scales everything by `<unit meter>`. The `<up_axis>` is not applied, as RViz and
//! MoveIt leave it (most ROS packages write `Z_UP` and mean the coordinates as they are). A file
//! without a scene gives every geometry unmoved. Materials, normals and texture coordinates are
//! not read.

use crate::TriangleMesh;
use roxmltree::{Document, Node};
use std::collections::HashMap;

type Matrix = [[f64; 4]; 4];

const IDENTITY: Matrix = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

fn multiply(a: &Matrix, b: &Matrix) -> Matrix {
    std::array::from_fn(|i| std::array::from_fn(|j| (0..4).map(|k| a[i][k] * b[k][j]).sum()))
}

fn apply(m: &Matrix, p: &[f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3])
}

fn numbers(node: Node) -> Result<Vec<f64>, String> {
    node.text()
        .unwrap_or("")
        .split_ascii_whitespace()
        .map(|w| {
            w.parse::<f64>()
                .map_err(|_| format!("<{}>: {w:?} is not a number", node.tag_name().name()))
        })
        .collect()
}

fn indices(node: Node) -> Result<Vec<usize>, String> {
    node.text()
        .unwrap_or("")
        .split_ascii_whitespace()
        .map(|w| {
            w.parse::<usize>()
                .map_err(|_| format!("<p>: {w:?} is not an index"))
        })
        .collect()
}

fn children<'a, 'i>(node: Node<'a, 'i>, name: &'static str) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(move |c| c.tag_name().name() == name)
}

fn child<'a, 'i>(node: Node<'a, 'i>, name: &'static str) -> Option<Node<'a, 'i>> {
    children(node, name).next()
}

/// `#id` -> `id`.
fn local(url: &str) -> &str {
    url.strip_prefix('#').unwrap_or(url)
}

/// Decodes a COLLADA document.
///
/// ```
/// let dae = r##"<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
///   <asset><unit meter="0.01"/><up_axis>Z_UP</up_axis></asset>
///   <library_geometries><geometry id="g"><mesh>
///     <source id="p"><float_array id="pa" count="9">0 0 0 100 0 0 0 100 0</float_array>
///       <technique_common><accessor source="#pa" count="3" stride="3"/></technique_common></source>
///     <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
///     <triangles count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>
///   </mesh></geometry></library_geometries>
///   <library_visual_scenes><visual_scene id="s"><node><translate>0 0 500</translate>
///     <instance_geometry url="#g"/></node></visual_scene></library_visual_scenes>
///   <scene><instance_visual_scene url="#s"/></scene>
/// </COLLADA>"##;
/// let mesh = mbconv_mesh::dae::decode(dae.as_bytes()).unwrap();
/// assert_eq!(mesh.vertices, [[0.0, 0.0, 5.0], [1.0, 0.0, 5.0], [0.0, 1.0, 5.0]]);
/// ```
pub fn decode(bytes: &[u8]) -> Result<TriangleMesh, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))?;
    let doc = Document::parse(text).map_err(|e| e.to_string())?;
    let root = doc.root_element();
    if root.tag_name().name() != "COLLADA" {
        return Err(format!(
            "the root element is <{}>, not <COLLADA>",
            root.tag_name().name()
        ));
    }
    let ids: HashMap<&str, Node> = root
        .descendants()
        .filter_map(|n| n.attribute("id").map(|id| (id, n)))
        .collect();
    let meter = child(root, "asset")
        .and_then(|a| child(a, "unit"))
        .and_then(|u| u.attribute("meter"))
        .map_or(Ok(1.0), |m| {
            m.trim()
                .parse::<f64>()
                .map_err(|_| format!("<unit meter={m:?}> is not a number"))
        })?;
    let mut reader = Reader {
        ids,
        geometries: HashMap::new(),
        out: TriangleMesh::default(),
    };
    let scene = child(root, "scene")
        .and_then(|s| child(s, "instance_visual_scene"))
        .and_then(|i| i.attribute("url"))
        .and_then(|url| reader.ids.get(local(url)).copied())
        .or_else(|| child(root, "library_visual_scenes").and_then(|l| children(l, "visual_scene").next()));
    match scene {
        Some(scene) => {
            for node in children(scene, "node") {
                reader.node(node, &IDENTITY, 0)?;
            }
        }
        None => {
            let geometries: Vec<Node> = children(root, "library_geometries")
                .flat_map(|l| children(l, "geometry"))
                .collect();
            for g in geometries {
                reader.instance(g, &IDENTITY)?;
            }
        }
    }
    let mut mesh = reader.out;
    if meter != 1.0 {
        for v in &mut mesh.vertices {
            *v = v.map(|x| x * meter);
        }
    }
    Ok(mesh)
}

struct Reader<'a, 'i> {
    ids: HashMap<&'a str, Node<'a, 'i>>,
    /// Each geometry's triangles, read once.
    geometries: HashMap<&'a str, TriangleMesh>,
    out: TriangleMesh,
}

impl<'a, 'i> Reader<'a, 'i> {
    fn node(&mut self, node: Node<'a, 'i>, parent: &Matrix, depth: usize) -> Result<(), String> {
        if depth > 64 {
            return Err("nodes nested more than 64 deep (a cycle of <instance_node>?)".into());
        }
        let mut m = *parent;
        for t in node.children().filter(Node::is_element) {
            let local = match t.tag_name().name() {
                "matrix" => {
                    let n = numbers(t)?;
                    if n.len() != 16 {
                        return Err(format!("<matrix> has {} numbers, not 16", n.len()));
                    }
                    std::array::from_fn(|i| std::array::from_fn(|j| n[4 * i + j]))
                }
                "translate" => {
                    let n = numbers(t)?;
                    let [x, y, z] = three(&n, "translate")?;
                    let mut m = IDENTITY;
                    (m[0][3], m[1][3], m[2][3]) = (x, y, z);
                    m
                }
                "scale" => {
                    let [x, y, z] = three(&numbers(t)?, "scale")?;
                    let mut m = IDENTITY;
                    (m[0][0], m[1][1], m[2][2]) = (x, y, z);
                    m
                }
                "rotate" => {
                    let n = numbers(t)?;
                    if n.len() != 4 {
                        return Err(format!("<rotate> has {} numbers, not 4", n.len()));
                    }
                    rotation([n[0], n[1], n[2]], n[3].to_radians())
                }
                _ => continue,
            };
            m = multiply(&m, &local);
        }
        for c in node.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "instance_geometry" => {
                    let url = c.attribute("url").unwrap_or("");
                    let Some(&g) = self.ids.get(local(url)) else {
                        return Err(format!("<instance_geometry url={url:?}> names no element"));
                    };
                    self.instance(g, &m)?;
                }
                "instance_node" => {
                    let url = c.attribute("url").unwrap_or("");
                    let Some(&n) = self.ids.get(local(url)) else {
                        return Err(format!("<instance_node url={url:?}> names no element"));
                    };
                    self.node(n, &m, depth + 1)?;
                }
                "node" => self.node(c, &m, depth + 1)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// Appends geometry `g` moved by `m`.
    fn instance(&mut self, g: Node<'a, 'i>, m: &Matrix) -> Result<(), String> {
        let id = g.attribute("id").unwrap_or("");
        if !self.geometries.contains_key(id) {
            let mesh = match child(g, "mesh") {
                Some(mesh) => self.geometry(mesh)?,
                None => TriangleMesh::default(),
            };
            self.geometries.insert(id, mesh);
        }
        let mesh = &self.geometries[id];
        let offset = self.out.vertices.len();
        self.out
            .vertices
            .extend(mesh.vertices.iter().map(|v| apply(m, v)));
        let flip = determinant(m) < 0.0;
        self.out.faces.extend(mesh.faces.iter().map(|f| {
            let f = f.map(|i| i + offset);
            if flip { [f[0], f[2], f[1]] } else { f }
        }));
        Ok(())
    }

    /// The positions of a `<source>` (its accessor's first three values of each stride).
    fn positions(&self, source: &str) -> Result<Vec<[f64; 3]>, String> {
        let Some(&node) = self.ids.get(local(source)) else {
            return Err(format!("the source {source:?} names no element"));
        };
        let source = match node.tag_name().name() {
            "vertices" => {
                let input = children(node, "input")
                    .find(|i| i.attribute("semantic") == Some("POSITION"))
                    .ok_or("a <vertices> has no POSITION input")?;
                let url = input.attribute("source").unwrap_or("");
                *self
                    .ids
                    .get(local(url))
                    .ok_or_else(|| format!("the POSITION source {url:?} names no element"))?
            }
            _ => node,
        };
        let array = child(source, "float_array").ok_or("a position source has no <float_array>")?;
        let values = numbers(array)?;
        let accessor = child(source, "technique_common").and_then(|t| child(t, "accessor"));
        let attr = |name: &str, default: usize| -> Result<usize, String> {
            accessor.and_then(|a| a.attribute(name)).map_or(Ok(default), |v| {
                v.parse().map_err(|_| format!("accessor {name}={v:?}"))
            })
        };
        let stride = attr("stride", 3)?.max(3);
        let start = attr("offset", 0)?;
        let count = attr("count", values.len().saturating_sub(start) / stride)?;
        (0..count)
            .map(|i| {
                let at = start + i * stride;
                values
                    .get(at..at + 3)
                    .map(|p| [p[0], p[1], p[2]])
                    .ok_or_else(|| "a position accessor runs past its array".to_string())
            })
            .collect()
    }

    /// A `<mesh>`'s triangles over its position source.
    fn geometry(&self, mesh: Node<'a, 'i>) -> Result<TriangleMesh, String> {
        let mut out = TriangleMesh::default();
        let mut sources: HashMap<&str, usize> = HashMap::new();
        for prim in mesh.children().filter(Node::is_element) {
            let kind = prim.tag_name().name();
            if !matches!(
                kind,
                "triangles" | "polylist" | "polygons" | "trifans" | "tristrips"
            ) {
                continue;
            }
            let inputs: Vec<Node> = children(prim, "input").collect();
            let Some(vertex) = inputs.iter().find(|i| i.attribute("semantic") == Some("VERTEX")) else {
                continue;
            };
            let parse_offset = |i: &Node| -> Result<usize, String> {
                i.attribute("offset")
                    .map_or(Ok(0), |o| o.parse().map_err(|_| format!("input offset {o:?}")))
            };
            let stride = inputs
                .iter()
                .map(parse_offset)
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .max()
                .unwrap_or(0)
                + 1;
            let at = parse_offset(vertex)?;
            let url = vertex.attribute("source").unwrap_or("");
            let base = match sources.get(url) {
                Some(&b) => b,
                None => {
                    let b = out.vertices.len();
                    out.vertices.extend(self.positions(url)?);
                    sources.insert(url, b);
                    b
                }
            };
            let n = out.vertices.len();
            let corner = |p: &[usize], k: usize| -> Result<usize, String> {
                let i = p
                    .get(k * stride + at)
                    .copied()
                    .ok_or("a <p> ends inside a corner")?
                    + base;
                if i >= n {
                    return Err(format!("a <p> names vertex {} of {}", i - base, n - base));
                }
                Ok(i)
            };
            let lists: Vec<Vec<usize>> = children(prim, "p").map(indices).collect::<Result<_, _>>()?;
            match kind {
                "triangles" => {
                    for p in &lists {
                        for t in 0..p.len() / (3 * stride) {
                            out.faces
                                .push([corner(p, 3 * t)?, corner(p, 3 * t + 1)?, corner(p, 3 * t + 2)?]);
                        }
                    }
                }
                "polylist" => {
                    let counts = match child(prim, "vcount") {
                        Some(v) => indices(v)?,
                        None => Vec::new(),
                    };
                    let p = lists.first().map(Vec::as_slice).unwrap_or(&[]);
                    let mut k = 0;
                    for c in counts {
                        let corners = (k..k + c).map(|j| corner(p, j)).collect::<Result<Vec<_>, _>>()?;
                        crate::triangulate(&corners, &out.vertices, &mut out.faces);
                        k += c;
                    }
                }
                "polygons" | "trifans" => {
                    for p in &lists {
                        let corners = (0..p.len() / stride)
                            .map(|j| corner(p, j))
                            .collect::<Result<Vec<_>, _>>()?;
                        if kind == "polygons" {
                            crate::triangulate(&corners, &out.vertices, &mut out.faces);
                        } else {
                            for pair in corners.get(1..).unwrap_or(&[]).windows(2) {
                                out.faces.push([corners[0], pair[0], pair[1]]);
                            }
                        }
                    }
                }
                _ => {
                    for p in &lists {
                        let corners = (0..p.len() / stride)
                            .map(|j| corner(p, j))
                            .collect::<Result<Vec<_>, _>>()?;
                        for (j, w) in corners.windows(3).enumerate() {
                            out.faces.push(if j % 2 == 0 {
                                [w[0], w[1], w[2]]
                            } else {
                                [w[1], w[0], w[2]]
                            });
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

fn three(n: &[f64], what: &str) -> Result<[f64; 3], String> {
    match *n {
        [x, y, z] => Ok([x, y, z]),
        _ => Err(format!("<{what}> has {} numbers, not 3", n.len())),
    }
}

/// The rotation by `angle` about `axis` (normalised; a zero axis gives no rotation).
fn rotation(axis: [f64; 3], angle: f64) -> Matrix {
    let len = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    if len == 0.0 {
        return IDENTITY;
    }
    let [x, y, z] = axis.map(|a| a / len);
    let (s, c) = angle.sin_cos();
    let t = 1.0 - c;
    [
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y, 0.0],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x, 0.0],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

fn determinant(m: &Matrix) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}
