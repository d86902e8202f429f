//! `<include>`: the model of another file, found through the model roots or beside the
//! including file, read as a nested model with the include's overrides.

use super::{Kind, MAX_INCLUDE_DEPTH, Reader};
use crate::raw::{self, SDF};
use mbconv_ir::format::Source;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::Category;
use mbconv_xml::{Node, child, text};
use std::path::{Path, PathBuf};

impl Reader<'_> {
    /// `<include>`: the model of another file, as a nested model of `scope`, with the
    /// include's name, pose, `static` and `placement_frame` overriding the file's.
    pub(super) fn include(
        &mut self,
        file: usize,
        scope: usize,
        node: Node,
        prefix: &str,
        parent_static: bool,
        depth: usize,
    ) -> SourceResult<()> {
        let source = self.files[file].clone();
        let at = self.loc(file, node);
        let uri_node = SDF.required_child(&source, node, "uri")?;
        let uri = text(uri_node);
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(self.err(
                at,
                "include",
                format!(
                    "<include> nested deeper than {MAX_INCLUDE_DEPTH} levels (a file that includes itself?)"
                ),
            ));
        }
        let path = self.resolve_uri(&uri, source.base_dir()).ok_or_else(|| {
            self.err(
                self.loc(file, uri_node),
                "include",
                format!("cannot find {uri:?}: model:// URIs are searched in the model_path setting, GZ_SIM_RESOURCE_PATH and SDF_PATH, other URIs relative to this file"),
            )
        })?;
        let text = std::fs::read_to_string(&path).map_err(|e| {
            self.err(
                self.loc(file, uri_node),
                "include",
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        let included = Source::from_string(path.display().to_string(), text)
            .with_path(path.display().to_string(), Some(path.clone()));
        let index = self.files.len();
        self.files.push(std::rc::Rc::new(included));
        let world = self.build_file(index, depth + 1)?;
        // The included file's model is the only frame of the world that build_file made.
        let (file_name, def) = self.scopes[world].frames[0].clone();
        let name = match child(node, "name") {
            Some(n) => mbconv_xml::text(n),
            None => file_name,
        };
        let Kind::Model(inner) = def.kind else {
            // A static model without links (see `model`): a plain frame.
            let pose = match child(node, "pose") {
                Some(_) => self.pose_of(file, node)?,
                None => (def.pose, None),
            };
            return self.add_frame(scope, &name, def.kind, pose, at);
        };
        self.rename_scope(inner, &format!("{prefix}{name}::"));
        if let Some(s) = child(node, "static") {
            if SDF.boolean(&source, s)? {
                self.make_static(inner);
            }
        } else if parent_static {
            self.make_static(inner);
        }
        if let Some(p) = child(node, "placement_frame") {
            self.scopes[inner].placement = Some((mbconv_xml::text(p), self.loc(file, p)));
        }
        let pose = match child(node, "pose") {
            Some(_) => self.pose_of(file, node)?,
            None => (def.pose, None),
        };
        self.add_frame(scope, &name, Kind::Model(inner), pose, at)?;
        self.note(
            "include",
            Category::Note,
            "model",
            at,
            format!("included {uri:?} from {} as model {name:?}", path.display()),
        );
        Ok(())
    }

    /// The models nested in `scope`, in order.
    fn nested_models(&self, scope: usize) -> Vec<usize> {
        self.scopes[scope]
            .frames
            .iter()
            .filter_map(|(_, f)| {
                if let Kind::Model(m) = f.kind {
                    Some(m)
                } else {
                    None
                }
            })
            .collect()
    }

    /// Gives `scope` (and its nested models) the IR prefix `prefix`, renaming their links.
    fn rename_scope(&mut self, scope: usize, prefix: &str) {
        let old = self.scopes[scope].prefix.clone();
        let nested = self.nested_models(scope);
        self.scopes[scope].prefix = prefix.to_owned();
        for (name, link) in &mut self.scopes[scope].links {
            link.body.name = format!("{prefix}{name}");
        }
        for m in nested {
            let rest = self.scopes[m]
                .prefix
                .strip_prefix(&old)
                .unwrap_or_default()
                .to_owned();
            self.rename_scope(m, &format!("{prefix}{rest}"));
        }
    }

    /// Makes `scope` and its nested models static.
    fn make_static(&mut self, scope: usize) {
        self.scopes[scope].is_static = true;
        let nested = self.nested_models(scope);
        for m in nested {
            self.make_static(m);
        }
    }

    /// The file a `<uri>` names: `model://NAME/rest` under a model root, `file://` and
    /// relative paths against `base`; a directory gives its `model.config`'s newest `<sdf>`
    /// file, else its `model.sdf`.
    fn resolve_uri(&self, uri: &str, base: Option<&Path>) -> Option<PathBuf> {
        let candidates: Vec<PathBuf> = if let Some(rest) = uri.strip_prefix("model://") {
            self.roots.iter().map(|r| r.join(rest)).collect()
        } else if let Some(rest) = uri.strip_prefix("file://") {
            vec![PathBuf::from(rest)]
        } else if uri.contains("://") {
            return None;
        } else {
            let p = PathBuf::from(uri);
            if p.is_absolute() {
                vec![p]
            } else {
                // Relative to the file, then (as libsdformat's find-file callbacks do) under
                // each model root.
                let mut all = vec![base.map_or_else(|| p.clone(), |b| b.join(&p))];
                all.extend(self.roots.iter().map(|r| r.join(&p)));
                all
            }
        };
        candidates.into_iter().find_map(|c| raw::model_file(&c))
    }
}
