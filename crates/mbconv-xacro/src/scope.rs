//! Symbol and macro tables, nested as xacro nests them: the global symbols at the root, the
//! document's table under them, a table per macro call (dynamically scoped: under the
//! caller's), and a namespace per `<xacro:include ns="...">`. Properties are kept as text
//! until first used (lazy evaluation) unless evaluated at once.

use crate::value::Value;
use crate::xml::{Element, Loc};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// What a symbol table holds under a name.
#[derive(Clone, Debug)]
pub(crate) enum Entry {
    /// A value.
    Value(Value),
    /// Text to evaluate at first use, in the table that holds it.
    Lazy(String, Loc),
}

/// The kind of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The document's table or a macro call's.
    Table,
    /// A namespace of an include with `ns`.
    Namespace,
    /// A built-in namespace (`python`, `math`, `xacro`) or the global symbols (`globals`).
    Builtin(&'static str),
}

/// A symbol table.
#[derive(Debug)]
pub(crate) struct ScopeData {
    pub kind: Kind,
    pub vars: RefCell<HashMap<String, Entry>>,
    pub parent: Option<Scope>,
    /// The names being evaluated lazily (to refuse circular definitions).
    pub resolving: RefCell<Vec<String>>,
}

/// A shared symbol table.
#[derive(Clone, Debug)]
pub(crate) struct Scope(pub Rc<ScopeData>);

impl Scope {
    fn make(kind: Kind, parent: Option<Scope>) -> Scope {
        Scope(Rc::new(ScopeData {
            kind,
            vars: RefCell::new(HashMap::new()),
            parent,
            resolving: RefCell::new(Vec::new()),
        }))
    }
    /// The global symbols.
    pub fn globals() -> Scope {
        Scope::make(Kind::Builtin("globals"), None)
    }
    /// A built-in namespace.
    pub fn builtin(kind: &'static str) -> Scope {
        Scope::make(Kind::Builtin(kind), None)
    }
    /// A table under `parent`.
    pub fn child(parent: &Scope) -> Scope {
        Scope::make(Kind::Table, Some(parent.clone()))
    }
    /// A namespace under `parent`.
    pub fn namespace(parent: &Scope) -> Scope {
        Scope::make(Kind::Namespace, Some(parent.clone()))
    }
    /// True for the global symbols.
    pub fn is_root(&self) -> bool {
        self.0.kind == Kind::Builtin("globals")
    }
    pub fn parent(&self) -> Option<&Scope> {
        self.0.parent.as_ref()
    }
    /// The table right under the global symbols (`scope="global"`).
    pub fn top(&self) -> Scope {
        let mut p = self.clone();
        while let Some(parent) = p.parent() {
            if parent.is_root() {
                return p;
            }
            p = parent.clone();
        }
        p
    }
    /// Whether this table itself holds `name`.
    pub fn holds(&self, name: &str) -> bool {
        self.0.vars.borrow().contains_key(name)
    }
    /// Python's `name in table`: here or in any table above, the global symbols included.
    pub fn contains(&self, name: &str) -> bool {
        let mut p = Some(self);
        while let Some(s) = p {
            if s.is_root() {
                return crate::builtins::global(name).is_some() || s.holds(name);
            }
            if s.holds(name) {
                return true;
            }
            p = s.parent();
        }
        false
    }
    pub fn set(&self, name: &str, entry: Entry) {
        self.0.vars.borrow_mut().insert(name.to_owned(), entry);
    }
    pub fn get_entry(&self, name: &str) -> Option<Entry> {
        self.0.vars.borrow().get(name).cloned()
    }
    /// Removes `name` from this table and every table above it up to the global symbols.
    pub fn remove(&self, name: &str) {
        let mut p = Some(self);
        while let Some(s) = p {
            if s.is_root() {
                break;
            }
            s.0.vars.borrow_mut().remove(name);
            p = s.parent();
        }
    }
}

/// The symbol tables an expansion links in cycles (a table holds the namespace of an
/// include, whose parent is that table): their symbols are dropped with the registry, so
/// that the tables are freed (reference counting alone never frees a cycle).
#[derive(Debug, Default)]
pub(crate) struct Registry(Vec<Scope>);

impl Registry {
    /// Remembers `scope`, to empty it when the expansion ends.
    pub fn keep(&mut self, scope: &Scope) {
        if !self.0.iter().any(|s| Rc::ptr_eq(&s.0, &scope.0)) {
            self.0.push(scope.clone());
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        for scope in self.0.drain(..) {
            // Taken out before being dropped: dropping a value may drop another table.
            let vars = std::mem::take(&mut *scope.0.vars.borrow_mut());
            drop(vars);
        }
    }
}

/// A macro definition.
#[derive(Debug)]
pub(crate) struct Macro {
    pub name: String,
    /// The `<xacro:macro>` element.
    pub body: Element,
    /// Parameter names in order (`*block`, `**block` included).
    pub params: Vec<String>,
    /// Per parameter with a default: the name to forward (`^`) and the default text.
    pub defaults: HashMap<String, (Option<String>, Option<String>)>,
}

/// What a macro table holds under a name.
#[derive(Clone, Debug)]
pub(crate) enum MacroEntry {
    Macro(Rc<Macro>),
    Namespace(Macros),
}

/// A macro table.
#[derive(Debug)]
pub(crate) struct MacrosData {
    pub map: RefCell<HashMap<String, MacroEntry>>,
    pub parent: Option<Macros>,
}

/// A shared macro table.
#[derive(Clone, Debug)]
pub(crate) struct Macros(pub Rc<MacrosData>);

impl Macros {
    pub fn new(parent: Option<&Macros>) -> Macros {
        Macros(Rc::new(MacrosData {
            map: RefCell::new(HashMap::new()),
            parent: parent.cloned(),
        }))
    }
    /// The entry under `name` here or above.
    pub fn get(&self, name: &str) -> Option<MacroEntry> {
        let mut p = Some(self);
        while let Some(m) = p {
            if let Some(e) = m.0.map.borrow().get(name) {
                return Some(e.clone());
            }
            p = m.0.parent.as_ref();
        }
        None
    }
    pub fn set(&self, name: &str, entry: MacroEntry) {
        self.0.map.borrow_mut().insert(name.to_owned(), entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_holding_its_own_namespace_is_freed_with_the_registry() {
        let table = Scope::child(&Scope::globals());
        let ns = Scope::namespace(&table);
        table.set("ns", Entry::Value(Value::Namespace(ns.clone())));
        ns.set("x", Entry::Value(Value::Int(1)));
        let (weak_table, weak_ns) = (Rc::downgrade(&table.0), Rc::downgrade(&ns.0));
        let mut registry = Registry::default();
        registry.keep(&table);
        registry.keep(&ns);
        drop((table, ns));
        assert!(weak_table.upgrade().is_some(), "the cycle holds the tables");
        drop(registry);
        assert!(weak_table.upgrade().is_none() && weak_ns.upgrade().is_none());
    }
}
