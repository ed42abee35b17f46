//! Arrays of structs whose members are all samplers (`struct S { sampler2D
//! tex[2]; }; uniform S s[2];`), flattened to one sampler array per leaf
//! member before glslang sees them.
//!
//! glslang's relaxed Vulkan rules move opaque struct members out into
//! one variable per constant access path and turn a non-constant index
//! (`s[n].tex[m]`, allowed with GL_ARB_gpu_shader5 / GLSL 4.00) into a
//! variable of its own that nothing binds, so every such lookup read unit
//! 0. Here each leaf becomes `uniform sampler2D mgl_os_..[N]` (N: all the
//! leaf's elements, row-major over every array on its path) and each use
//! `s[i].tex[j]` becomes `mgl_os_..[int(i) * 2 + int(j)]`. Reflection
//! lists the flat array under the GL names (`s[0].tex[0]` with 2
//! elements, `s[1].tex[0]` ...: [`OpaqueSplit`]), on the same
//! consecutive units.
//!
//! Left alone (glslang's handling stays): ES sources, structs with other
//! members, a struct variable that is not an array, array sizes that are
//! not literals, and any variable used other than as a complete path to
//! one sampler (passed whole to a function, say).

use super::{lex, Kind, Tok};

/// A flattened leaf: the sampler array `flat` stands for the GL uniforms
/// `rows` (in order), each `inner` consecutive elements of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpaqueSplit {
    pub flat: String,
    pub rows: Vec<String>,
    pub inner: u32,
}

#[derive(Debug, Clone)]
struct Member {
    ty: String,
    name: String,
    dims: Vec<u32>,
}

fn is_sampler_type(ty: &str) -> bool {
    ty.strip_prefix('i')
        .or_else(|| ty.strip_prefix('u'))
        .unwrap_or(ty)
        .starts_with("sampler")
}

/// One leaf of a struct variable: the member path (names and their array
/// sizes; the last is the sampler member) and the sampler type.
#[derive(Debug, Clone)]
struct Leaf {
    path: Vec<(String, Vec<u32>)>,
    ty: String,
}

fn leaves(structs: &[(String, Vec<Member>)], ty: &str, depth: u32) -> Option<Vec<Leaf>> {
    if depth > 8 {
        return None;
    }
    let (_, members) = structs.iter().find(|(n, _)| n == ty)?;
    let mut out = Vec::new();
    for m in members {
        if is_sampler_type(&m.ty) {
            if m.dims.len() > 1 {
                return None;
            }
            out.push(Leaf {
                path: vec![(m.name.clone(), m.dims.clone())],
                ty: m.ty.clone(),
            });
        } else {
            for mut l in leaves(structs, &m.ty, depth + 1)? {
                l.path.insert(0, (m.name.clone(), m.dims.clone()));
                out.push(l);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Literal array sizes `[2][3]` starting at sig index `k`: the sizes and
/// the index after them.
fn literal_dims<'a>(
    text: &dyn Fn(usize) -> &'a str,
    sig: &[usize],
    mut k: usize,
) -> Option<(Vec<u32>, usize)> {
    let mut dims = Vec::new();
    while sig.get(k).map(|&i| text(i)) == Some("[") {
        let n: u32 = sig
            .get(k + 1)
            .map(|&i| text(i))?
            .trim_end_matches(['u', 'U'])
            .parse()
            .ok()?;
        if n == 0 || sig.get(k + 2).map(|&i| text(i)) != Some("]") {
            return None;
        }
        dims.push(n);
        k += 3;
    }
    Some((dims, k))
}

/// The index expressions of `[e0][e1]...` (as many as `count`) starting at
/// sig index `k`: their source text and the sig index after them.
fn index_exprs(
    src: &str,
    toks: &[Tok],
    sig: &[usize],
    mut k: usize,
    count: usize,
) -> Option<(Vec<String>, usize)> {
    let text = |i: usize| &src[toks[i].start..toks[i].end];
    let mut out = Vec::new();
    for _ in 0..count {
        if sig.get(k).map(|&i| text(i)) != Some("[") {
            return None;
        }
        let mut depth = 0i32;
        let mut close = None;
        for (j, &i) in sig.iter().enumerate().skip(k) {
            match text(i) {
                "[" | "(" => depth += 1,
                "]" | ")" => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(j);
                        break;
                    }
                }
                ";" | "{" | "}" => return None,
                _ => {}
            }
        }
        let close = close?;
        if close == k + 1 || text(sig[close]) != "]" {
            return None;
        }
        out.push(src[toks[sig[k + 1]].start..toks[sig[close - 1]].end].to_owned());
        k = close + 1;
    }
    Some((out, k))
}

/// The flat name of a leaf: `mgl_os_` then each name with its length in
/// front (unambiguous, no `__`, the same in every stage).
fn flat_name(var: &str, leaf: &Leaf) -> String {
    let mut s = format!("mgl_os_{}{var}", var.len());
    for (n, _) in &leaf.path {
        s.push_str(&format!("_{}{n}", n.len()));
    }
    s
}

/// The pass (module note): the rewritten source and the flattened leaves,
/// or None when nothing is flattened.
pub(crate) fn flatten_struct_sampler_arrays(src: &str) -> Option<(String, Vec<OpaqueSplit>)> {
    if !src.contains("struct") || !src.contains("sampler") {
        return None;
    }
    let toks = lex(src);
    for t in &toks {
        let d = &src[t.start..t.end];
        if t.kind == Kind::Directive
            && (d.contains("struct")
                || d.contains("sampler")
                || (d
                    .trim_start_matches('#')
                    .trim_start()
                    .starts_with("version")
                    && d.split_whitespace().any(|w| w == "es")))
        {
            return None;
        }
    }
    let text = |i: usize| &src[toks[i].start..toks[i].end];
    let sig: Vec<usize> = (0..toks.len())
        .filter(|&i| !matches!(toks[i].kind, Kind::Space | Kind::Comment | Kind::Directive))
        .collect();
    // Struct definitions at global scope whose members parse.
    let mut structs: Vec<(String, Vec<Member>)> = Vec::new();
    let mut depth = 0i32;
    let mut k = 0usize;
    while k < sig.len() {
        let t = text(sig[k]);
        match t {
            "{" => depth += 1,
            "}" => depth -= 1,
            "struct" if depth == 0 => {
                if let Some((name, members, next)) = parse_struct(&text, &sig, k) {
                    structs.push((name, members));
                    k = next;
                    continue;
                }
            }
            _ => {}
        }
        k += 1;
    }
    if structs.is_empty() {
        return None;
    }
    // `uniform S name[N]...;` at global scope, S a struct of samplers only.
    struct Var {
        name: String,
        dims: Vec<u32>,
        leaves: Vec<Leaf>,
        /// Byte range of the declaration statement.
        decl: (usize, usize),
        /// sig index of the declared name.
        name_at: usize,
    }
    let mut vars: Vec<Var> = Vec::new();
    let mut depth = 0i32;
    let mut statement_start = 0usize;
    for k in 0..sig.len() {
        let t = text(sig[k]);
        match t {
            "{" => depth += 1,
            "}" => depth -= 1,
            _ => {}
        }
        if depth != 0 || !matches!(t, ";" | "{" | "}") {
            continue;
        }
        let start = statement_start;
        statement_start = k + 1;
        if t != ";" {
            continue;
        }
        let mut j = start;
        if sig.get(j).map(|&i| text(i)) != Some("uniform") {
            continue;
        }
        j += 1;
        while matches!(
            sig.get(j).map(|&i| text(i)),
            Some("lowp" | "mediump" | "highp")
        ) {
            j += 1;
        }
        let Some(ty) = sig.get(j).map(|&i| text(i)) else {
            continue;
        };
        let Some(leaves) = leaves(&structs, ty, 0) else {
            continue;
        };
        let Some(name) = sig
            .get(j + 1)
            .filter(|&&i| toks[i].kind == Kind::Ident)
            .map(|&i| text(i))
        else {
            continue;
        };
        let Some((dims, after)) = literal_dims(&text, &sig, j + 2) else {
            continue;
        };
        if dims.is_empty() || after != k {
            continue;
        }
        vars.push(Var {
            name: name.to_owned(),
            dims,
            leaves,
            decl: (toks[sig[start]].start, toks[sig[k]].end),
            name_at: j + 1,
        });
    }
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut splits = Vec::new();
    'vars: for v in &vars {
        if vars.iter().filter(|o| o.name == v.name).count() > 1 {
            continue;
        }
        let mut uses: Vec<(usize, usize, String)> = Vec::new();
        for k in 0..sig.len() {
            if k == v.name_at || toks[sig[k]].kind != Kind::Ident || text(sig[k]) != v.name {
                continue;
            }
            if k > 0 && text(sig[k - 1]) == "." {
                continue;
            }
            // The outer indices, then `.member[idx]` down to a sampler.
            let Some((mut idx, mut at)) = index_exprs(src, &toks, &sig, k + 1, v.dims.len()) else {
                continue 'vars;
            };
            let mut sizes: Vec<u32> = v.dims.clone();
            let mut candidates: Vec<&Leaf> = v.leaves.iter().collect();
            let mut level = 0usize;
            let leaf = loop {
                if sig.get(at).map(|&i| text(i)) != Some(".") {
                    continue 'vars;
                }
                let Some(member) = sig.get(at + 1).map(|&i| text(i)) else {
                    continue 'vars;
                };
                candidates.retain(|l| l.path.get(level).is_some_and(|(n, _)| n == member));
                let Some(first) = candidates.first() else {
                    continue 'vars;
                };
                let mdims = first.path[level].1.clone();
                let Some((more, next)) = index_exprs(src, &toks, &sig, at + 2, mdims.len()) else {
                    continue 'vars;
                };
                idx.extend(more);
                sizes.extend(mdims);
                at = next;
                level += 1;
                if first.path.len() == level {
                    break *first;
                }
            };
            if matches!(sig.get(at).map(|&i| text(i)), Some("." | "[")) {
                continue 'vars;
            }
            // Row-major index over every array on the path.
            let mut terms = Vec::new();
            for (n, e) in idx.iter().enumerate() {
                let stride: u32 = sizes[n + 1..].iter().product();
                terms.push(if stride == 1 {
                    format!("int({e})")
                } else {
                    format!("int({e}) * {stride}")
                });
            }
            let end = toks[sig[at - 1]].end;
            uses.push((
                toks[sig[k]].start,
                end,
                format!("{}[{}]", flat_name(&v.name, leaf), terms.join(" + ")),
            ));
        }
        // The declaration: one flat array per leaf, on one line.
        let mut decl = String::new();
        for leaf in &v.leaves {
            let mut sizes = v.dims.clone();
            for (_, d) in &leaf.path {
                sizes.extend(d);
            }
            let total: u32 = sizes.iter().product();
            let leaf_dims = leaf.path.last().map_or(&[][..], |(_, d)| d.as_slice());
            let inner: u32 = leaf_dims.iter().product();
            let flat = flat_name(&v.name, leaf);
            if !decl.is_empty() {
                decl.push(' ');
            }
            decl.push_str(&format!("uniform {} {flat}[{total}];", leaf.ty));
            // GL names: every index but the sampler member's own.
            let outer: Vec<u32> = sizes[..sizes.len() - leaf_dims.len()].to_vec();
            let rows_n: u32 = outer.iter().product();
            let mut rows = Vec::new();
            for r in 0..rows_n {
                let mut rem = r;
                let mut ix = vec![0u32; outer.len()];
                for d in (0..outer.len()).rev() {
                    ix[d] = rem % outer[d];
                    rem /= outer[d];
                }
                let mut name = v.name.clone();
                let mut d = 0usize;
                for _ in &v.dims {
                    name.push_str(&format!("[{}]", ix[d]));
                    d += 1;
                }
                for (seg, (n, segdims)) in leaf.path.iter().enumerate() {
                    name.push('.');
                    name.push_str(n);
                    if seg + 1 < leaf.path.len() {
                        for _ in segdims {
                            name.push_str(&format!("[{}]", ix[d]));
                            d += 1;
                        }
                    } else if !segdims.is_empty() {
                        name.push_str("[0]");
                    }
                }
                rows.push(name);
            }
            splits.push(OpaqueSplit {
                flat,
                rows,
                inner: inner.max(1),
            });
        }
        edits.push((v.decl.0, v.decl.1, decl));
        edits.extend(uses);
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|e| e.0);
    if edits.windows(2).any(|w| w[0].1 > w[1].0) {
        return None;
    }
    let mut out = String::with_capacity(src.len() + 256);
    let mut pos = 0usize;
    for (s, e, r) in &edits {
        out.push_str(&src[pos..*s]);
        out.push_str(r);
        pos = *e;
    }
    out.push_str(&src[pos..]);
    Some((out, splits))
}

/// `struct NAME { TYPE a[N], b; ... };` at sig index `k` (`struct`): the
/// name, members and the index after the `;`. None for anything else
/// (declarators after the brace, unsized or non-literal arrays ...).
fn parse_struct<'a>(
    text: &dyn Fn(usize) -> &'a str,
    sig: &[usize],
    k: usize,
) -> Option<(String, Vec<Member>, usize)> {
    let name = sig.get(k + 1).map(|&i| text(i))?;
    if sig.get(k + 2).map(|&i| text(i)) != Some("{") {
        return None;
    }
    let mut members = Vec::new();
    let mut j = k + 3;
    loop {
        match sig.get(j).map(|&i| text(i))? {
            "}" => break,
            "lowp" | "mediump" | "highp" => {
                j += 1;
                continue;
            }
            _ => {}
        }
        let ty = sig.get(j).map(|&i| text(i))?;
        if !ty.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return None;
        }
        j += 1;
        loop {
            let m = sig.get(j).map(|&i| text(i))?;
            if !m.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                return None;
            }
            let (dims, next) = literal_dims(text, sig, j + 1)?;
            members.push(Member {
                ty: ty.to_owned(),
                name: m.to_owned(),
                dims,
            });
            j = next;
            match sig.get(j).map(|&i| text(i))? {
                "," => j += 1,
                ";" => {
                    j += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    if sig.get(j + 1).map(|&i| text(i)) != Some(";") {
        return None;
    }
    Some((name.to_owned(), members, j + 2))
}
