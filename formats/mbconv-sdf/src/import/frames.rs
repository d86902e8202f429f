//! The frame graph of a scope: what each frame is relative to, its pose in the model frame,
//! the link it is attached to, the canonical link; unknown frames and cycles are errors.

use super::{FrameDef, Kind, Loc, MODEL_FRAME, Reader};
use mbconv_ir::Pose;
use mbconv_ir::format::kit::SourceResult;
use std::collections::BTreeMap;

impl Reader<'_> {
    /// The frame `name` of `scope` is relative to when its pose says nothing.
    fn default_base(&self, scope: usize, def: &FrameDef) -> String {
        let s = &self.scopes[scope];
        let model = if s.is_world { "world" } else { MODEL_FRAME };
        match &def.kind {
            Kind::Joint { child } => child.clone(),
            Kind::Frame { attached_to } => attached_to.clone().unwrap_or_else(|| model.to_owned()),
            _ => model.to_owned(),
        }
    }

    fn is_scope_frame(&self, scope: usize, name: &str) -> bool {
        name == MODEL_FRAME || (self.scopes[scope].is_world && name == "world")
    }

    fn lookup(
        &self,
        scope: usize,
        name: &str,
        at: Loc,
        stack: &[(usize, String)],
    ) -> SourceResult<&FrameDef> {
        match self.scopes[scope].index.get(name) {
            Some(&i) => Ok(&self.scopes[scope].frames[i].1),
            None => {
                let from = stack
                    .last()
                    .map(|(_, n)| format!(" (from frame {n:?})"))
                    .unwrap_or_default();
                Err(self.err(at, "frame", format!("unknown frame {name:?}{from}")))
            }
        }
    }

    fn cycle(&self, at: Loc, stack: &[(usize, String)], name: &str) -> Box<mbconv_ir::format::SourceError> {
        let start = stack.iter().position(|(_, n)| n == name).unwrap_or(0);
        let chain: Vec<&str> = stack[start..]
            .iter()
            .map(|(_, n)| n.as_str())
            .chain([name])
            .collect();
        self.err(
            at,
            "frame_cycle",
            format!("the frame graph has a cycle: {}", chain.join(" -> ")),
        )
    }

    /// The pose of frame `name` in the frame of scope `scope` (its model frame, or the world).
    pub(super) fn pose_in(
        &self,
        scope: usize,
        name: &str,
        at: Loc,
        stack: &mut Vec<(usize, String)>,
    ) -> SourceResult<Pose> {
        if self.is_scope_frame(scope, name) {
            return Ok(Pose::identity());
        }
        if let Some((head, rest)) = name.split_once("::")
            && !self.scopes[scope].index.contains_key(name)
        {
            let def = self.lookup(scope, head, at, stack)?;
            let Kind::Model(inner) = def.kind else {
                return Err(self.err(at, "frame", format!("{head:?} in {name:?} is not a nested model")));
            };
            let outer = self.pose_in(scope, head, at, stack)?;
            return Ok(outer * self.pose_in(inner, rest, at, stack)?);
        }
        if stack.iter().any(|(s, n)| *s == scope && n == name) {
            return Err(self.cycle(at, stack, name));
        }
        let def = self.lookup(scope, name, at, stack)?.clone();
        stack.push((scope, name.to_owned()));
        let base = def
            .relative_to
            .clone()
            .unwrap_or_else(|| self.default_base(scope, &def));
        let base_pose = self.pose_in(scope, &base, def.at, stack)?;
        let mut pose = base_pose * def.pose;
        if let Kind::Model(inner) = def.kind
            && let Some((placement, p_at)) = self.scopes[inner].placement.clone()
        {
            // The pose places the placement frame; the model frame follows.
            let in_model = self.pose_in(inner, &placement, p_at, stack)?;
            pose = pose * in_model.inverse();
        }
        stack.pop();
        Ok(pose)
    }

    /// The link frame `name` of `scope` is attached to, as (scope, link index); `None` for the
    /// world.
    pub(super) fn attached(
        &self,
        scope: usize,
        name: &str,
        at: Loc,
        stack: &mut Vec<(usize, String)>,
    ) -> SourceResult<Option<(usize, usize)>> {
        if self.scopes[scope].is_world && (name == "world" || name == MODEL_FRAME) {
            return Ok(None);
        }
        if name == MODEL_FRAME {
            return self.canonical(scope, at, stack).map(Some);
        }
        if let Some((head, rest)) = name.split_once("::")
            && !self.scopes[scope].index.contains_key(name)
        {
            let def = self.lookup(scope, head, at, stack)?;
            let Kind::Model(inner) = def.kind else {
                return Err(self.err(at, "frame", format!("{head:?} in {name:?} is not a nested model")));
            };
            return self.attached(inner, rest, at, stack);
        }
        if stack.iter().any(|(s, n)| *s == scope && n == name) {
            return Err(self.cycle(at, stack, name));
        }
        let def = self.lookup(scope, name, at, stack)?.clone();
        stack.push((scope, name.to_owned()));
        let result = match &def.kind {
            Kind::Link(i) => Some((scope, *i)),
            Kind::Joint { child } => self.attached(scope, child, def.at, stack)?,
            Kind::Frame { attached_to } => {
                let to = attached_to.clone().unwrap_or_else(|| MODEL_FRAME.to_owned());
                self.attached(scope, &to, def.at, stack)?
            }
            Kind::Model(inner) => Some(self.canonical(*inner, def.at, stack)?),
        };
        stack.pop();
        Ok(result)
    }

    /// The canonical link of a model: `@canonical_link`, else its first link, else the
    /// canonical link of its first nested model.
    pub(super) fn canonical(
        &self,
        scope: usize,
        at: Loc,
        stack: &mut Vec<(usize, String)>,
    ) -> SourceResult<(usize, usize)> {
        let s = &self.scopes[scope];
        if let Some((name, c_at)) = &s.canonical {
            return match self.attached(scope, name, *c_at, stack)? {
                Some(found) if self.is_link_name(scope, name) => Ok(found),
                _ => Err(self.err(
                    *c_at,
                    "canonical_link",
                    format!("canonical_link {name:?} is not a link of this model"),
                )),
            };
        }
        if !s.links.is_empty() {
            return Ok((scope, 0));
        }
        for (_, def) in &s.frames {
            if let Kind::Model(inner) = def.kind {
                return self.canonical(inner, at, stack);
            }
        }
        Err(self.err(at, "empty_model", "the model has no link"))
    }

    fn is_link_name(&self, scope: usize, name: &str) -> bool {
        match name.split_once("::") {
            Some((head, rest)) => match self.scopes[scope]
                .index
                .get(head)
                .map(|&i| &self.scopes[scope].frames[i].1.kind)
            {
                Some(Kind::Model(inner)) => self.is_link_name(*inner, rest),
                _ => false,
            },
            None => self.scopes[scope]
                .index
                .get(name)
                .is_some_and(|&i| matches!(self.scopes[scope].frames[i].1.kind, Kind::Link(_))),
        }
    }

    /// The world pose of every scope's frame, outermost first.
    pub(super) fn scope_poses(&self, world: usize) -> SourceResult<BTreeMap<usize, (Pose, bool)>> {
        let mut out = BTreeMap::new();
        out.insert(world, (Pose::identity(), false));
        let mut todo = vec![world];
        while let Some(s) = todo.pop() {
            let (pose, _) = out[&s];
            for (name, def) in &self.scopes[s].frames {
                if let Kind::Model(inner) = def.kind {
                    let local = self.pose_in(s, name, def.at, &mut Vec::new())?;
                    out.insert(inner, (pose * local, self.scopes[inner].is_static));
                    todo.push(inner);
                }
            }
        }
        Ok(out)
    }
}
