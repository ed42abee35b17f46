//! GLSL uniform initializers (`uniform vec4 c = vec4(0, 1, 0, 1);`, GLSL
//! 1.20 on): SPIR-V for Vulkan has no place for them (the uniforms live in
//! the default block), so the link evaluates each initializer here and the
//! program's default block starts with those values (GL 4.6 §7.6: "the
//! initial value of a uniform is its initializer, or zero").
//!
//! The evaluator takes the constant expressions initializers are written
//! with: literals, `const` variables declared before, constructors of
//! scalars, vectors, matrices, arrays and structs (GLSL's component rules:
//! a scalar fills a vector or a matrix's diagonal, otherwise components are
//! consumed in order, matrices column by column), unary minus and the four
//! arithmetic operators. An initializer it cannot evaluate is left out (the
//! uniform starts at zero) and logged.
//!
//! Owns: nothing but the parse of one preprocessed source. Never touches
//! the SPIR-V.

use std::collections::HashMap;

/// Component type of a basic value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Base {
    F,
    D,
    I,
    U,
    B,
}

/// An evaluated constant.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// Scalar, vector or matrix: `cols` columns of `rows` components,
    /// column-major.
    Num {
        base: Base,
        cols: u32,
        rows: u32,
        comps: Vec<f64>,
    },
    Array(Vec<Value>),
    Struct(Vec<(String, Value)>),
}

/// A declared type: a basic type or a struct, with array dimensions.
#[derive(Debug, Clone)]
struct Ty {
    name: String,
    dims: Vec<Option<usize>>,
}

/// One uniform's initial value, by the uniform's name in the source.
#[derive(Debug, Clone)]
pub(crate) struct Initializer {
    pub name: String,
    pub value: Value,
}

fn basic(name: &str) -> Option<(Base, u32, u32)> {
    let (base, rest) = match name {
        "float" => return Some((Base::F, 1, 1)),
        "double" => return Some((Base::D, 1, 1)),
        "int" => return Some((Base::I, 1, 1)),
        "uint" => return Some((Base::U, 1, 1)),
        "bool" => return Some((Base::B, 1, 1)),
        n if n.starts_with("dmat") => (Base::D, &n[4..]),
        n if n.starts_with("mat") => (Base::F, &n[3..]),
        n if n.starts_with("dvec") => return vector(Base::D, &n[4..]),
        n if n.starts_with("ivec") => return vector(Base::I, &n[4..]),
        n if n.starts_with("uvec") => return vector(Base::U, &n[4..]),
        n if n.starts_with("bvec") => return vector(Base::B, &n[4..]),
        n if n.starts_with("vec") => return vector(Base::F, &n[3..]),
        _ => return None,
    };
    let dim = |s: &str| match s {
        "2" => Some(2),
        "3" => Some(3),
        "4" => Some(4),
        _ => None,
    };
    match rest.split_once('x') {
        Some((c, r)) => Some((base, dim(c)?, dim(r)?)),
        None => {
            let n = dim(rest)?;
            Some((base, n, n))
        }
    }
}

fn vector(base: Base, n: &str) -> Option<(Base, u32, u32)> {
    match n {
        "2" => Some((base, 1, 2)),
        "3" => Some((base, 1, 3)),
        "4" => Some((base, 1, 4)),
        _ => None,
    }
}

fn convert(base: Base, v: f64) -> f64 {
    match base {
        Base::F => v as f32 as f64,
        Base::D => v,
        Base::I => (v as i64 as i32) as f64,
        Base::U => (v as i64 as u32) as f64,
        Base::B => {
            if v != 0.0 {
                1.0
            } else {
                0.0
            }
        }
    }
}

fn tokenize(src: &str) -> Vec<String> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'#' {
            // A directive (#version, #extension, #line): to the line end.
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(src[s..i].to_owned());
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let s = i;
            while i < b.len() {
                let d = b[i];
                let exp_sign = (d == b'+' || d == b'-') && i > s && matches!(b[i - 1], b'e' | b'E');
                if d.is_ascii_alphanumeric() || d == b'.' || exp_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(src[s..i].to_owned());
        } else {
            out.push((c as char).to_string());
            i += 1;
        }
    }
    out
}

fn number(tok: &str) -> Option<Value> {
    let lower = tok.to_ascii_lowercase();
    let is_float = lower.contains('.')
        || (lower.contains('e') && !lower.starts_with("0x"))
        || lower.ends_with('f');
    if is_float {
        let (t, base) = if let Some(t) = lower.strip_suffix("lf") {
            (t, Base::D)
        } else {
            (lower.trim_end_matches('f'), Base::F)
        };
        let v: f64 = t.parse().ok()?;
        return Some(Value::Num {
            base,
            cols: 1,
            rows: 1,
            comps: vec![convert(base, v)],
        });
    }
    let (t, base) = match lower.strip_suffix('u') {
        Some(t) => (t, Base::U),
        None => (lower.as_str(), Base::I),
    };
    let v = if let Some(h) = t.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()?
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()?
    } else {
        t.parse::<u64>().ok()?
    };
    Some(Value::Num {
        base,
        cols: 1,
        rows: 1,
        comps: vec![convert(base, v as u32 as i32 as f64)],
    })
}

/// Flatten a value's components in order (constructor arguments).
fn components(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::Num { comps, .. } => out.extend_from_slice(comps),
        Value::Array(e) => e.iter().for_each(|x| components(x, out)),
        Value::Struct(m) => m.iter().for_each(|(_, x)| components(x, out)),
    }
}

struct Parser<'a> {
    toks: &'a [String],
    at: usize,
    consts: &'a HashMap<String, Value>,
    structs: &'a HashMap<String, Vec<(String, Ty)>>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.at).map(String::as_str)
    }

    fn eat(&mut self, t: &str) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self) -> Option<Value> {
        let mut v = self.term()?;
        while let Some(op) = self.peek().filter(|t| *t == "+" || *t == "-") {
            let op = op.to_owned();
            self.at += 1;
            let r = self.term()?;
            v = arith(&v, &r, &op)?;
        }
        Some(v)
    }

    fn term(&mut self) -> Option<Value> {
        let mut v = self.unary()?;
        while let Some(op) = self.peek().filter(|t| *t == "*" || *t == "/") {
            let op = op.to_owned();
            self.at += 1;
            let r = self.unary()?;
            v = arith(&v, &r, &op)?;
        }
        Some(v)
    }

    fn unary(&mut self) -> Option<Value> {
        if self.eat("-") {
            let v = self.unary()?;
            let zero = Value::Num {
                base: match &v {
                    Value::Num { base, .. } => *base,
                    _ => return None,
                },
                cols: 1,
                rows: 1,
                comps: vec![0.0],
            };
            return arith(&zero, &v, "-");
        }
        if self.eat("+") {
            return self.unary();
        }
        self.primary()
    }

    fn primary(&mut self) -> Option<Value> {
        let t = self.peek()?.to_owned();
        self.at += 1;
        if t == "(" {
            let v = self.expr()?;
            return self.eat(")").then_some(v);
        }
        if t == "true" || t == "false" {
            return Some(Value::Num {
                base: Base::B,
                cols: 1,
                rows: 1,
                comps: vec![if t == "true" { 1.0 } else { 0.0 }],
            });
        }
        if t.as_bytes()[0].is_ascii_digit() || t.starts_with('.') {
            return number(&t);
        }
        // A type: constructor (possibly of an array type).
        if basic(&t).is_some() || self.structs.contains_key(&t) {
            let mut dims = Vec::new();
            while self.eat("[") {
                if self.eat("]") {
                    dims.push(None);
                } else {
                    let n = self.expr()?;
                    let Value::Num { comps, .. } = n else {
                        return None;
                    };
                    dims.push(Some(*comps.first()? as usize));
                    if !self.eat("]") {
                        return None;
                    }
                }
            }
            if !self.eat("(") {
                return None;
            }
            let mut args = Vec::new();
            if !self.eat(")") {
                loop {
                    args.push(self.expr()?);
                    if self.eat(")") {
                        break;
                    }
                    if !self.eat(",") {
                        return None;
                    }
                }
            }
            return construct(&Ty { name: t, dims }, args, self.structs);
        }
        self.consts.get(&t).cloned()
    }
}

fn arith(a: &Value, b: &Value, op: &str) -> Option<Value> {
    let (
        Value::Num {
            base,
            cols,
            rows,
            comps: ca,
        },
        Value::Num {
            base: bb,
            cols: cb,
            rows: rb,
            comps: cbv,
        },
    ) = (a, b)
    else {
        return None;
    };
    // Shapes GLSL defines componentwise: a scalar with anything, or two
    // operands of one shape that are not both matrices being multiplied
    // (linear algebra is not evaluated: the initializer is left out).
    let scalar = ca.len() == 1 || cbv.len() == 1;
    let same = (cols, rows) == (cb, rb);
    if !scalar && (!same || (op == "*" && *cols > 1)) {
        return None;
    }
    // Int op float converts (GLSL 1.20 implicit conversions); the wider
    // operand sets the shape (scalar op vector is componentwise).
    let base = if *base == Base::F || *bb == Base::F {
        Base::F
    } else if *base == Base::D || *bb == Base::D {
        Base::D
    } else {
        *base
    };
    let (cols, rows) = if ca.len() >= cbv.len() {
        (*cols, *rows)
    } else {
        (*cb, *rb)
    };
    let n = ca.len().max(cbv.len());
    let get = |v: &Vec<f64>, i: usize| {
        if v.len() == 1 {
            v[0]
        } else {
            v.get(i).copied().unwrap_or(0.0)
        }
    };
    let comps = (0..n)
        .map(|i| {
            let (x, y) = (get(ca, i), get(cbv, i));
            let r = match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                _ if matches!(base, Base::I | Base::U) => {
                    if y == 0.0 {
                        0.0
                    } else {
                        (x / y).trunc()
                    }
                }
                _ => x / y,
            };
            convert(base, r)
        })
        .collect();
    Some(Value::Num {
        base,
        cols,
        rows,
        comps,
    })
}

/// GLSL constructor semantics for `ty` over evaluated `args`.
fn construct(
    ty: &Ty,
    args: Vec<Value>,
    structs: &HashMap<String, Vec<(String, Ty)>>,
) -> Option<Value> {
    if let Some((outer, inner)) = ty.dims.split_first() {
        let elem = Ty {
            name: ty.name.clone(),
            dims: inner.to_vec(),
        };
        if outer.is_some_and(|n| n != args.len()) {
            return None;
        }
        return Some(Value::Array(
            args.into_iter()
                .map(|a| conform(&elem, a, structs))
                .collect::<Option<_>>()?,
        ));
    }
    if let Some(members) = structs.get(&ty.name) {
        if members.len() != args.len() {
            return None;
        }
        return Some(Value::Struct(
            members
                .iter()
                .zip(args)
                .map(|((n, t), a)| Some((n.clone(), conform(t, a, structs)?)))
                .collect::<Option<_>>()?,
        ));
    }
    let (base, cols, rows) = basic(&ty.name)?;
    let total = (cols * rows) as usize;
    let mut flat = Vec::new();
    for a in &args {
        components(a, &mut flat);
    }
    let comps: Vec<f64> = if cols > 1 && args.len() == 1 {
        match &args[0] {
            // Matrix from a scalar: the diagonal.
            Value::Num { comps: c, .. } if c.len() == 1 => (0..total)
                .map(|i| {
                    if i % rows as usize == i / rows as usize {
                        c[0]
                    } else {
                        0.0
                    }
                })
                .collect(),
            // Matrix from a matrix: the overlap, identity elsewhere.
            Value::Num {
                cols: sc,
                rows: sr,
                comps: c,
                ..
            } if *sc > 1 => (0..total)
                .map(|i| {
                    let (col, row) = (i / rows as usize, i % rows as usize);
                    if col < *sc as usize && row < *sr as usize {
                        c[col * *sr as usize + row]
                    } else if col == row {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect(),
            _ => flat.iter().copied().take(total).collect(),
        }
    } else if flat.len() == 1 {
        vec![flat[0]; total]
    } else {
        flat.iter().copied().take(total).collect()
    };
    if comps.len() != total {
        return None;
    }
    Some(Value::Num {
        base,
        cols,
        rows,
        comps: comps.into_iter().map(|v| convert(base, v)).collect(),
    })
}

/// A value given where type `ty` is expected (implicit conversions).
fn conform(ty: &Ty, v: Value, structs: &HashMap<String, Vec<(String, Ty)>>) -> Option<Value> {
    match (&v, basic(&ty.name)) {
        (Value::Num { .. }, Some(_)) if ty.dims.is_empty() => construct(ty, vec![v], structs),
        _ => Some(v),
    }
}

/// Parse `TYPE [dims] NAME [dims]` at `at`; returns (type, name, next).
fn declarator(toks: &[String], mut at: usize) -> Option<(Ty, String, usize)> {
    let name = toks.get(at)?.clone();
    at += 1;
    let mut dims = Vec::new();
    let read_dims = |at: &mut usize, dims: &mut Vec<Option<usize>>| -> Option<()> {
        while toks.get(*at).map(String::as_str) == Some("[") {
            *at += 1;
            if toks.get(*at).map(String::as_str) == Some("]") {
                dims.push(None);
            } else {
                let n = toks.get(*at)?.parse().ok()?;
                dims.push(Some(n));
                *at += 1;
            }
            if toks.get(*at).map(String::as_str) != Some("]") {
                return None;
            }
            *at += 1;
        }
        Some(())
    };
    read_dims(&mut at, &mut dims)?;
    let var = toks.get(at)?.clone();
    at += 1;
    let mut var_dims = Vec::new();
    read_dims(&mut at, &mut var_dims)?;
    // `T a[2]` and `T[2] a` both make an array; the variable's own
    // dimensions are the outer ones.
    var_dims.extend(dims);
    Some((
        Ty {
            name,
            dims: var_dims,
        },
        var,
        at,
    ))
}

const QUALIFIERS: &[&str] = &[
    "highp",
    "mediump",
    "lowp",
    "precise",
    "invariant",
    "flat",
    "smooth",
    "noperspective",
];

/// Every uniform initializer of one preprocessed source.
pub(crate) fn parse(src: &str) -> Vec<Initializer> {
    let toks = tokenize(src);
    let mut structs: HashMap<String, Vec<(String, Ty)>> = HashMap::new();
    let mut consts: HashMap<String, Value> = HashMap::new();
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].as_str();
        match t {
            "{" => {
                depth += 1;
                i += 1;
                continue;
            }
            "}" => {
                depth -= 1;
                i += 1;
                continue;
            }
            _ => {}
        }
        if depth != 0 {
            i += 1;
            continue;
        }
        if t == "struct" {
            if let Some(next) = parse_struct(&toks, i, &mut structs) {
                i = next;
                continue;
            }
        }
        // A statement at global scope: qualifiers, then a declarator.
        let start = i;
        let mut j = i;
        let mut storage = None;
        loop {
            match toks.get(j).map(String::as_str) {
                Some("layout") => {
                    // layout( ... )
                    let mut d = 0;
                    j += 1;
                    while let Some(x) = toks.get(j) {
                        if x == "(" {
                            d += 1;
                        } else if x == ")" {
                            d -= 1;
                            if d == 0 {
                                j += 1;
                                break;
                            }
                        }
                        j += 1;
                    }
                }
                Some(q @ ("uniform" | "const")) => {
                    storage = Some(q.to_owned());
                    j += 1;
                }
                Some(q) if QUALIFIERS.contains(&q) => j += 1,
                _ => break,
            }
        }
        // Skip to this statement's end either way.
        let mut end = j;
        let mut paren = 0;
        while let Some(x) = toks.get(end) {
            match x.as_str() {
                "(" | "[" => paren += 1,
                ")" | "]" => paren -= 1,
                "{" if paren == 0 => break,
                ";" if paren == 0 => break,
                _ => {}
            }
            end += 1;
        }
        if let (Some(storage), Some((ty, var, at))) = (storage, declarator(&toks, j)) {
            if toks.get(at).map(String::as_str) == Some("=") && at < end {
                let mut p = Parser {
                    toks: &toks[..end],
                    at: at + 1,
                    consts: &consts,
                    structs: &structs,
                };
                let value = p
                    .expr()
                    .filter(|_| p.at == end)
                    .and_then(|v| conform(&ty, v, &structs));
                match (value, storage.as_str()) {
                    (Some(v), "const") => {
                        consts.insert(var, v);
                    }
                    (Some(v), _) => out.push(Initializer {
                        name: var,
                        value: v,
                    }),
                    (None, "uniform") => tracing::warn!(
                        target: "mobilegl::shader",
                        "the initializer of uniform `{var}` is not a constant expression MobileGL evaluates; it starts at zero"
                    ),
                    _ => {}
                }
            }
        }
        i = if end > start { end + 1 } else { start + 1 };
    }
    out
}

/// `struct NAME { members };` at `at`: records it, returns the index after
/// its closing brace (a declarator after it is parsed by the caller).
fn parse_struct(
    toks: &[String],
    at: usize,
    structs: &mut HashMap<String, Vec<(String, Ty)>>,
) -> Option<usize> {
    let name = toks.get(at + 1)?.clone();
    if toks.get(at + 2).map(String::as_str) != Some("{") {
        return None;
    }
    let mut i = at + 3;
    let mut members = Vec::new();
    while toks.get(i).map(String::as_str) != Some("}") {
        while toks
            .get(i)
            .is_some_and(|t| QUALIFIERS.contains(&t.as_str()))
        {
            i += 1;
        }
        let (ty, var, mut next) = declarator(toks, i)?;
        members.push((var, ty.clone()));
        // `float a, b;`
        while toks.get(next).map(String::as_str) == Some(",") {
            let v = toks.get(next + 1)?.clone();
            members.push((
                v,
                Ty {
                    name: ty.name.clone(),
                    dims: Vec::new(),
                },
            ));
            next += 2;
        }
        if toks.get(next).map(String::as_str) != Some(";") {
            return None;
        }
        i = next + 1;
    }
    structs.insert(name, members);
    Some(i + 1)
}

/// The leaves of `v` under `path` (`s.m`, `a[1]`): (GL name, value).
pub(crate) fn leaves<'a>(path: String, v: &'a Value, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Num { .. } => out.push((path, v)),
        Value::Array(e) => {
            for (i, x) in e.iter().enumerate() {
                leaves(format!("{path}[{i}]"), x, out);
            }
        }
        Value::Struct(m) => {
            for (n, x) in m {
                leaves(format!("{path}.{n}"), x, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(v: &Value) -> &[f64] {
        match v {
            Value::Num { comps, .. } => comps,
            _ => panic!("{v:?}"),
        }
    }

    #[test]
    fn evaluates_piglit_shaped_initializers() {
        let src = "#version 120\n\
            struct S { float a; vec4 b[2]; };\n\
            const float cuf = float(5.5);\n\
            const vec2 cv = vec2(1.0, -2.0);\n\
            uniform float uf = cuf;\n\
            uniform vec2 uv = cv * 2.0;\n\
            uniform int i = -3;\n\
            uniform bvec2 bb = bvec2(false, true);\n\
            uniform mat2x3 m = mat2x3(1, 2, 3, 4, 5, 6);\n\
            uniform mat3 d = mat3(2.0);\n\
            uniform vec2[2] va = vec2[2](vec2(0.0, 1.0), vec2(2.0));\n\
            uniform S s = S(9.0, vec4[2](vec4(1, 2, 3, 4), vec4(5)));\n\
            uniform uint u = 7u;\n\
            uniform float plain;\n\
            void main() { float x = 1.0; }\n";
        let inits = parse(src);
        let get = |n: &str| &inits.iter().find(|i| i.name == n).unwrap().value;
        assert_eq!(num(get("uf")), &[5.5]);
        assert_eq!(num(get("uv")), &[2.0, -4.0]);
        assert_eq!(num(get("i")), &[-3.0]);
        assert_eq!(num(get("bb")), &[0.0, 1.0]);
        assert_eq!(num(get("m")), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(
            num(get("d")),
            &[2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0]
        );
        assert_eq!(num(get("u")), &[7.0]);
        let mut l = Vec::new();
        leaves("va".into(), get("va"), &mut l);
        leaves("s".into(), get("s"), &mut l);
        let names: Vec<&str> = l.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["va[0]", "va[1]", "s.a", "s.b[0]", "s.b[1]"]);
        assert_eq!(num(l[1].1), &[2.0, 2.0]);
        assert_eq!(num(l[4].1), &[5.0; 4]);
        assert!(inits.iter().all(|i| i.name != "plain" && i.name != "x"));
        // Matrix products are not evaluated: no initializer rather than a
        // wrong one.
        let m = parse("const mat2 a = mat2(1.0);\nuniform vec2 v = a * vec2(1.0, 2.0);\n");
        assert!(m.is_empty(), "{m:?}");
    }
}
