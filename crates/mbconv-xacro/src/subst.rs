//! Substitution arguments, `$(...)`: `arg`, `env`, `optenv`, `find`, `dirname`, `cwd` and
//! `eval`, resolved as xacro's `substitution_args` module resolves them (the whole text
//! scanned for `$(...)` spans, each replaced wherever it occurs; `find` packages through the
//! package path).

use crate::builtins;
use crate::expr::{EResult, Env, EvalError, fail};
use crate::scope::Scope;
use crate::value::{Value, parse_float};
use std::collections::BTreeMap;

/// What a substitution needs from the expander.
pub(crate) trait Context {
    fn arg(&self, name: &str) -> Option<String>;
    fn env(&self, name: &str) -> Option<String>;
    fn find(&mut self, package: &str) -> EResult<String>;
    fn cwd(&self) -> String;
    /// Every argument by name (`$(eval)` names them directly).
    fn args(&self) -> BTreeMap<String, String>;
}

/// The `$(...)` spans of `text`, as the reference's state machine collects them.
fn collect(text: &str) -> EResult<Vec<String>> {
    #[derive(PartialEq)]
    enum S {
        Out,
        Dollar,
        Lp,
        In,
    }
    let mut state = S::Out;
    let mut buf = String::new();
    let mut out = Vec::new();
    for c in text.chars() {
        match c {
            '$' => match state {
                S::Out => state = S::Dollar,
                S::Dollar => {}
                _ => {
                    return fail(format!(
                        "Dollar signs \"$\" cannot be inside of substitution args [{text}]"
                    ));
                }
            },
            '(' => {
                if state == S::Dollar {
                    state = S::Lp;
                } else if state != S::Out {
                    return fail(format!(
                        "Invalid left parenthesis \"(\" in substitution args [{text}]"
                    ));
                }
            }
            ')' => {
                if state == S::In {
                    out.push(std::mem::take(&mut buf));
                }
                state = S::Out;
            }
            _ => {
                if state == S::Dollar {
                    state = S::Out;
                } else if state == S::Lp {
                    state = S::In;
                }
            }
        }
        if state == S::In {
            buf.push(c);
        }
    }
    Ok(out)
}

const VALID: &str = "['find', 'env', 'optenv', 'dirname', 'arg']";

/// Resolves the text of one `$(...)` (`text` is the whole `$(...)`, its inside already
/// evaluated).
pub(crate) fn resolve(text: &str, ctx: &mut dyn Context) -> EResult<String> {
    if text == "$(cwd)" {
        return Ok(ctx.cwd());
    }
    if let Some(inner) = text.strip_prefix("$(eval ").and_then(|t| t.strip_suffix(')')) {
        return eval(inner, ctx);
    }
    let mut resolved = text.to_owned();
    for pass in 0..2 {
        for a in collect(&resolved.clone())? {
            let words: Vec<&str> = a.split(' ').filter(|w| !w.is_empty()).collect();
            let Some(command) = words.first() else {
                return fail(format!("IndexError: empty substitution argument $({a})"));
            };
            if !["find", "env", "optenv", "dirname", "arg"].contains(command) {
                return fail(format!(
                    "Unknown substitution command [{a}]. Valid commands are {VALID}"
                ));
            }
            if pass == 1 && *command != "find" {
                continue;
            }
            let args = &words[1..];
            let value = match *command {
                "env" => {
                    if args.len() != 1 {
                        return fail(format!("$(env var) command only accepts one argument [{a}]"));
                    }
                    ctx.env(args[0])
                        .ok_or_else(|| EvalError(format!("environment variable '{}' is not set", args[0])))?
                }
                "optenv" => {
                    if args.is_empty() {
                        return fail(format!(
                            "$(optenv var) must specify an environment variable [{a}]"
                        ));
                    }
                    ctx.env(args[0]).unwrap_or_else(|| args[1..].join(" "))
                }
                "dirname" => {
                    return fail(
                        "Cannot substitute $(dirname), no file/directory information available \
                         (xacro 2.1 gives $(dirname) no file)",
                    );
                }
                "arg" => {
                    if args.len() != 1 {
                        return fail(if args.is_empty() {
                            format!("$(arg var) must specify a variable name [{a}]")
                        } else {
                            format!("$(arg var) may only specify one arg [{a}]")
                        });
                    }
                    ctx.arg(args[0])
                        .ok_or_else(|| EvalError(format!("Undefined substitution argument {}", args[0])))?
                }
                _ => {
                    if args.len() != 1 {
                        return fail(format!("$(find pkg) accepts exactly one argument [{a}]"));
                    }
                    ctx.find(args[0])?
                }
            };
            resolved = resolved.replace(&format!("$({a})"), &value);
        }
    }
    Ok(resolved)
}

/// roslaunch's `convert_value(value, 'auto')`.
fn auto(value: &str) -> Value {
    let number = if value.contains('.') {
        parse_float(value).map(Value::Float)
    } else {
        crate::value::parse_int_value(value).ok().flatten()
    };
    if let Some(n) = number {
        return n;
    }
    match value.to_lowercase().trim() {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => Value::str(value),
    }
}

struct EvalEnv<'c> {
    ctx: &'c mut dyn Context,
    args: BTreeMap<String, String>,
}

impl Env for EvalEnv<'_> {
    fn lookup(&mut self, name: &str) -> EResult<Value> {
        match name {
            "true" | "True" => return Ok(Value::Bool(true)),
            "false" | "False" => return Ok(Value::Bool(false)),
            "arg" | "env" | "optenv" | "find" | "dirname" => {
                return Ok(Value::Func(crate::value::Builtin::Named(match name {
                    "arg" => "xacro.$arg",
                    "env" => "xacro.$env",
                    "optenv" => "xacro.$optenv",
                    "find" => "xacro.$find",
                    _ => "xacro.$dirname",
                })));
            }
            _ => {}
        }
        if let Some(v) = builtins::namespace_member("math", name) {
            return Ok(v);
        }
        if let Some(v) = self.args.get(name) {
            return Ok(auto(v));
        }
        if let Some(v) = builtins::namespace_member("python", name) {
            return Ok(v);
        }
        fail(format!("name '{name}' is not defined"))
    }

    fn call_xacro(&mut self, name: &str, args: Vec<Value>, _kwargs: Vec<(String, Value)>) -> EResult<Value> {
        let text = |i: usize| args.get(i).map(Value::to_py_str).unwrap_or_default();
        match name {
            "$arg" => match self.ctx.arg(&text(0)) {
                Some(v) => Ok(auto(&v)),
                None => fail(format!("Undefined substitution argument {}", text(0))),
            },
            "$env" => self
                .ctx
                .env(&text(0))
                .map(|v| Value::str(&v))
                .ok_or_else(|| EvalError(format!("environment variable '{}' is not set", text(0)))),
            "$optenv" => Ok(Value::str(&self.ctx.env(&text(0)).unwrap_or_else(|| text(1)))),
            "$find" => Ok(Value::str(&self.ctx.find(&text(0))?)),
            _ => fail("Cannot substitute $(dirname), no file/directory information available"),
        }
    }

    fn namespace_attr(&mut self, ns: &Scope, name: &str) -> EResult<Value> {
        match ns.0.kind {
            crate::scope::Kind::Builtin(kind) => builtins::namespace_member(kind, name)
                .ok_or_else(|| EvalError(format!("module '{kind}' has no attribute '{name}'"))),
            _ => fail(format!("name '{name}' is not defined")),
        }
    }
}

/// `$(eval expr)`: Python with the arguments as names (numbers and booleans converted), the
/// `math` module and Python's built-ins; xacro's properties are not visible.
fn eval(expr: &str, ctx: &mut dyn Context) -> EResult<String> {
    if expr.contains("__") {
        return fail("$(eval ...) may not contain double underscore expressions");
    }
    let args = ctx.args();
    let mut env = EvalEnv { ctx, args };
    let v = crate::expr::evaluate(expr, &mut env)?;
    builtins::printed(&v)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    struct Ctx;
    impl Context for Ctx {
        fn arg(&self, name: &str) -> Option<String> {
            match name {
                "a" => Some("1.5".into()),
                _ => None,
            }
        }
        fn args(&self) -> BTreeMap<String, String> {
            BTreeMap::from([("a".to_owned(), "1.5".to_owned())])
        }
        fn env(&self, _: &str) -> Option<String> {
            None
        }
        fn find(&mut self, p: &str) -> EResult<String> {
            Ok(format!("/pk/{p}"))
        }
        fn cwd(&self) -> String {
            "/cwd".into()
        }
    }

    #[test]
    fn substitutions_resolve_as_roslaunch_does() {
        assert_eq!(resolve("$(arg a)", &mut Ctx).unwrap(), "1.5");
        assert_eq!(resolve("$(optenv NOPE x y)", &mut Ctx).unwrap(), "x y");
        assert_eq!(resolve("$(find p)", &mut Ctx).unwrap(), "/pk/p");
        assert_eq!(resolve("$(eval a * 2)", &mut Ctx).unwrap(), "3.0");
        assert_eq!(resolve("$(eval arg('a') + 1)", &mut Ctx).unwrap(), "2.5");
        assert!(resolve("$(arg b)", &mut Ctx).is_err());
        assert!(resolve("$(foo b)", &mut Ctx).is_err());
    }
}
