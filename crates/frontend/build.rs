//! Generates the exported GL / GLX entry points and the GetProcAddress tables
//! from the Khronos registry (`khronos_api`), minus the entry points that
//! `crates/mgpipe/catalogue/coverage.toml` says are implemented by hand in
//! `crate::gl`.
//!
//! Outputs (in `OUT_DIR`):
//! - `gl_exports.rs`: one stub per unimplemented GL command (core ones
//!   `#[no_mangle]`-exported, extension-only ones reachable only through
//!   GetProcAddress), the sorted `GL_PROCS` table, `EGL_PROCS`, and
//!   `GL_FINISH` (the implemented `glFinish`, if any);
//! - `glx_exports.rs`: GLX 1.0–1.4 stubs and the sorted `GLX_PROCS` table.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A registry command: C prototype split into a Rust return type and params.
#[derive(Clone, Debug)]
struct Command {
    ret: String,
    params: Vec<(String, String)>,
    alias: Option<String>,
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");

    let coverage_path = manifest.join("../mgpipe/catalogue/coverage.toml");
    let implemented = match read_coverage(&coverage_path) {
        Ok(set) => set,
        Err(msg) => fail(&msg),
    };

    let gl = match generate_gl(&implemented) {
        Ok(s) => s,
        Err(msg) => fail(&msg),
    };
    write(&out_dir.join("gl_exports.rs"), &gl);

    let glx = match generate_glx() {
        Ok(s) => s,
        Err(msg) => fail(&msg),
    };
    write(&out_dir.join("glx_exports.rs"), &glx);
}

fn fail(msg: &str) -> ! {
    eprintln!("error: frontend build.rs: {msg}");
    std::process::exit(1);
}

fn write(path: &Path, text: &str) {
    if let Err(e) = std::fs::write(path, text) {
        fail(&format!("cannot write {}: {e}", path.display()));
    }
}

/// Names under `[entry_points]` in coverage.toml: implemented in `crate::gl`.
fn read_coverage(path: &Path) -> Result<BTreeSet<String>, String> {
    if !path.exists() {
        // Watch the folder so that creating the file re-runs this script.
        if let Some(dir) = path.parent() {
            println!("cargo:rerun-if-changed={}", dir.display());
        }
        println!(
            "cargo:warning=coverage.toml not found at {}: every GL entry point is generated as an unimplemented stub",
            path.display()
        );
        return Ok(BTreeSet::new());
    }
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("{} is not valid TOML: {e}", path.display()))?;
    let Some(entry_points) = table.get("entry_points") else {
        return Ok(BTreeSet::new());
    };
    let entry_points = entry_points
        .as_table()
        .ok_or_else(|| format!("{}: [entry_points] must be a table", path.display()))?;
    Ok(entry_points.keys().cloned().collect())
}

// ---------------------------------------------------------------------------
// Registry parsing
// ---------------------------------------------------------------------------

fn parse_doc(bytes: &'static [u8], what: &str) -> Result<roxmltree::Document<'static>, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("{what} is not UTF-8: {e}"))?;
    roxmltree::Document::parse(text).map_err(|e| format!("cannot parse {what}: {e}"))
}

fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, tag: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children().find(|c| c.has_tag_name(tag))
}

/// Parse every `<commands><command>` into name → Command.
fn parse_commands(
    doc: &roxmltree::Document<'_>,
    map_type: fn(&str) -> Option<String>,
) -> Result<BTreeMap<String, Command>, String> {
    let mut out = BTreeMap::new();
    for cmds in doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("commands"))
    {
        for cmd in cmds.children().filter(|n| n.has_tag_name("command")) {
            let proto = child(cmd, "proto").ok_or("command without <proto>")?;
            let (name, ret) = parse_decl(proto, map_type)?;
            let mut params = Vec::new();
            for p in cmd.children().filter(|n| n.has_tag_name("param")) {
                params.push(parse_decl(p, map_type)?);
            }
            let alias = child(cmd, "alias")
                .and_then(|a| a.attribute("name"))
                .map(str::to_owned);
            let ret = if ret == "()" { String::new() } else { ret };
            out.insert(name, Command { ret, params, alias });
        }
    }
    Ok(out)
}

/// Parse a `<proto>` or `<param>`: returns (name, Rust type). A C type is
/// `const? base (* const?)*` with an optional `[N]` after the name.
fn parse_decl(
    node: roxmltree::Node<'_, '_>,
    map_type: fn(&str) -> Option<String>,
) -> Result<(String, String), String> {
    let mut before = String::new();
    let mut name = None;
    let mut after = String::new();
    for c in node.children() {
        if c.has_tag_name("name") {
            name = c.text().map(str::to_owned);
        } else if name.is_none() {
            if let Some(t) = c.text() {
                before.push(' ');
                before.push_str(t);
                before.push(' ');
            }
        } else if let Some(t) = c.text() {
            after.push_str(t);
        }
    }
    let name = name.ok_or("declaration without <name>")?;
    // Tokens: words and '*'.
    let spaced = before.replace('*', " * ");
    let mut base_words: Vec<&str> = Vec::new();
    let mut base_const = false;
    let mut stars: Vec<bool> = Vec::new(); // const-after-star flags
    for tok in spaced.split_whitespace() {
        match tok {
            "const" => {
                if let Some(last) = stars.last_mut() {
                    *last = true;
                } else {
                    base_const = true;
                }
            }
            "*" => stars.push(false),
            "struct" => {}
            w => base_words.push(w),
        }
    }
    let base = base_words.join(" ");
    let mut ty = map_type(&base)
        .ok_or_else(|| format!("unknown C type `{base}` in declaration of `{name}`"))?;
    // The pointee of the first pointer level is const when the base is; the
    // pointee of each later level is const when the previous `*` is.
    let mut pointee_const = base_const;
    for &star_const in &stars {
        ty = format!("*{} {}", if pointee_const { "const" } else { "mut" }, ty);
        pointee_const = star_const;
    }
    if after.contains('[') {
        // An array parameter decays to a pointer.
        ty = format!("*{} {}", if base_const { "const" } else { "mut" }, ty);
    }
    if stars.is_empty() && !after.contains('[') && (base == "void" || base == "GLvoid") {
        ty = "()".to_owned();
    }
    Ok((name, ty))
}

fn map_gl_type(c: &str) -> Option<String> {
    let t = match c {
        "void" | "GLvoid" => "c_void",
        "GLenum" | "GLuint" | "GLbitfield" | "GLhandleARB" | "unsigned int" => "u32",
        "GLint" | "GLsizei" | "GLfixed" | "GLclampx" | "int" => "i32",
        "GLboolean" | "GLubyte" | "unsigned char" => "u8",
        "GLbyte" | "GLchar" | "GLcharARB" | "char" => "c_char",
        "GLshort" => "i16",
        "GLushort" | "GLhalfNV" | "GLhalf" => "u16",
        "GLfloat" | "GLclampf" | "float" => "f32",
        "GLdouble" | "GLclampd" | "double" => "f64",
        "GLintptr" | "GLsizeiptr" | "GLintptrARB" | "GLsizeiptrARB" | "GLvdpauSurfaceNV" => "isize",
        "GLint64" | "GLint64EXT" | "int64_t" => "i64",
        "GLuint64" | "GLuint64EXT" | "uint64_t" => "u64",
        "int32_t" => "i32",
        "GLsync"
        | "GLeglImageOES"
        | "GLeglClientBufferEXT"
        | "struct _cl_context"
        | "_cl_context"
        | "_cl_event" => "*mut c_void",
        "GLDEBUGPROC" | "GLDEBUGPROCARB" | "GLDEBUGPROCKHR" | "GLDEBUGPROCAMD"
        | "GLVULKANPROCNV" => "*const c_void",
        _ => return None,
    };
    Some(t.to_owned())
}

fn map_glx_type(c: &str) -> Option<String> {
    if let Some(t) = map_gl_type(c) {
        return Some(t);
    }
    let t = match c {
        // Opaque pointer typedefs.
        "GLXContext" | "GLXFBConfig" | "GLXFBConfigSGIX" => "*mut c_void",
        // Opaque structs only ever seen through pointers.
        "Display"
        | "XVisualInfo"
        | "DMparams"
        | "DMbuffer"
        | "VLServer"
        | "VLPath"
        | "VLNode"
        | "GLXHyperpipeNetworkSGIX"
        | "GLXHyperpipeConfigSGIX" => "c_void",
        "GLXDrawable"
        | "GLXPixmap"
        | "GLXWindow"
        | "GLXPbuffer"
        | "GLXPbufferSGIX"
        | "Window"
        | "Pixmap"
        | "Font"
        | "Colormap"
        | "GLXContextID"
        | "GLXVideoSourceSGIX"
        | "GLXVideoCaptureDeviceNV"
        | "unsigned long" => "c_ulong",
        "long" => "c_long",
        "Bool" | "Status" => "c_int",
        "GLXVideoDeviceNV" => "u32",
        "__GLXextFuncPtr" => "Option<unsafe extern \"C\" fn()>",
        _ => return None,
    };
    Some(t.to_owned())
}

fn default_value(ty: &str) -> &'static str {
    if ty.starts_with("*mut") {
        "core::ptr::null_mut()"
    } else if ty.starts_with("*const") {
        "core::ptr::null()"
    } else if ty.starts_with("Option") {
        "None"
    } else if ty == "f32" || ty == "f64" {
        "0.0"
    } else {
        "0"
    }
}

/// Commands required by `<feature>` elements whose `api` is `api`, or by
/// extensions whose `supported` list shares a word with `supported`.
fn feature_commands(doc: &roxmltree::Document<'_>, api: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("feature"))
    {
        if f.attribute("api") != Some(api) {
            continue;
        }
        // Every require, whatever its profile: legacy entry points removed
        // from the core profile must still load.
        for r in f.children().filter(|n| n.has_tag_name("require")) {
            for c in r.children().filter(|n| n.has_tag_name("command")) {
                if let Some(name) = c.attribute("name") {
                    out.insert(name.to_owned());
                }
            }
        }
    }
    out
}

fn extension_commands(doc: &roxmltree::Document<'_>, apis: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let matches = |list: &str| list.split('|').any(|w| apis.contains(&w));
    for exts in doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("extensions"))
    {
        for e in exts.children().filter(|n| n.has_tag_name("extension")) {
            if !e.attribute("supported").is_some_and(matches) {
                continue;
            }
            for r in e.children().filter(|n| n.has_tag_name("require")) {
                if let Some(api) = r.attribute("api") {
                    if !matches(api) {
                        continue;
                    }
                }
                for c in r.children().filter(|n| n.has_tag_name("command")) {
                    if let Some(name) = c.attribute("name") {
                        out.insert(name.to_owned());
                    }
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Emission
// ---------------------------------------------------------------------------

fn emit_stub(out: &mut String, name: &str, cmd: &Command, exported: bool, hit_fn: &str) {
    let params: Vec<String> = cmd
        .params
        .iter()
        .map(|(n, t)| format!("_{n}: {t}"))
        .collect();
    let ret = if cmd.ret.is_empty() {
        String::new()
    } else {
        format!(" -> {}", cmd.ret)
    };
    let body = if cmd.ret.is_empty() {
        format!("{hit_fn}(\"{name}\");")
    } else {
        format!("{hit_fn}(\"{name}\");\n    {}", default_value(&cmd.ret))
    };
    if exported {
        out.push_str("#[no_mangle]\n");
    }
    let _ = writeln!(
        out,
        "/// Unimplemented entry point (generated).\n/// # Safety\n/// Never dereferences its arguments.\npub unsafe extern \"C\" fn {name}({}){ret} {{\n    {body}\n}}\n",
        params.join(", ")
    );
}

fn emit_table(out: &mut String, table_name: &str, entries: &BTreeMap<String, String>) {
    let _ = writeln!(out, "/// Sorted by name (byte order) for binary search.");
    let _ = writeln!(
        out,
        "pub static {table_name}: [ProcEntry; {}] = [",
        entries.len()
    );
    for (name, path) in entries {
        let _ = writeln!(out, "    ProcEntry(b\"{name}\", {path} as *const c_void),");
    }
    let _ = writeln!(out, "];\n");
}

fn generate_gl(implemented: &BTreeSet<String>) -> Result<String, String> {
    let doc = parse_doc(khronos_api::GL_XML, "gl.xml")?;
    let commands = parse_commands(&doc, map_gl_type)?;
    let core = feature_commands(&doc, "gl");
    let ext: BTreeSet<String> = extension_commands(&doc, &["gl", "glcore"])
        .into_iter()
        .filter(|n| !core.contains(n))
        .collect();

    let unknown: Vec<&String> = implemented
        .iter()
        .filter(|n| !core.contains(*n) && !ext.contains(*n))
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "crates/mgpipe/catalogue/coverage.toml [entry_points] names functions that are not desktop GL commands of the Khronos registry: {}",
            unknown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }

    let mut out = String::new();
    out.push_str(
        "// @generated by crates/frontend/build.rs from the Khronos registry. Do not edit.\n\n",
    );

    let mut table: BTreeMap<String, String> = BTreeMap::new();
    let mut n_core_stub = 0usize;
    let mut n_ext_stub = 0usize;
    for name in &core {
        let cmd = commands
            .get(name)
            .ok_or_else(|| format!("gl.xml: feature command {name} has no <command>"))?;
        if implemented.contains(name) {
            table.insert(name.clone(), format!("crate::gl::{name}"));
        } else {
            emit_stub(&mut out, name, cmd, true, "stub_hit");
            table.insert(name.clone(), name.clone());
            n_core_stub += 1;
        }
    }
    // Extension commands: implemented → crate::gl; alias of a core (or
    // implemented) command → that function; otherwise their own stub.
    let mut n_ext_alias = 0usize;
    for name in &ext {
        let cmd = commands
            .get(name)
            .ok_or_else(|| format!("gl.xml: extension command {name} has no <command>"))?;
        if implemented.contains(name) {
            table.insert(name.clone(), format!("crate::gl::{name}"));
            continue;
        }
        // Follow the alias chain (a vendor name may alias an ARB name that
        // aliases the core one) to the first implemented or core command.
        let mut target = None;
        let mut next = cmd.alias.clone();
        for _ in 0..4 {
            let Some(a) = next.take() else { break };
            if implemented.contains(&a) {
                target = Some(format!("crate::gl::{a}"));
                break;
            }
            if core.contains(&a) {
                target = Some(a);
                break;
            }
            next = commands.get(&a).and_then(|c| c.alias.clone());
        }
        if let Some(t) = target {
            table.insert(name.clone(), t);
            n_ext_alias += 1;
        } else {
            emit_stub(&mut out, name, cmd, false, "stub_hit");
            table.insert(name.clone(), name.clone());
            n_ext_stub += 1;
        }
    }
    // OpenGL ES extension commands (`gles2` only, so absent above) whose
    // name is a core command's plus a vendor suffix with the same
    // parameters: what an ES context's extension list promises
    // (glBufferStorageEXT → glBufferStorage). Resolved through
    // eglGetProcAddress only, as the others.
    let es_only: BTreeSet<String> = extension_commands(&doc, &["gles2"])
        .into_iter()
        .filter(|n| !core.contains(n) && !ext.contains(n))
        .collect();
    for name in &es_only {
        let Some(base) = ["EXT", "OES", "KHR"]
            .iter()
            .find_map(|sfx| name.strip_suffix(sfx))
        else {
            continue;
        };
        let (Some(cmd), Some(core_cmd)) = (commands.get(name), commands.get(base)) else {
            continue;
        };
        if !core.contains(base)
            || cmd
                .params
                .iter()
                .map(|p| &p.1)
                .ne(core_cmd.params.iter().map(|p| &p.1))
            || cmd.ret != core_cmd.ret
        {
            continue;
        }
        let target = if implemented.contains(base) {
            format!("crate::gl::{base}")
        } else {
            base.to_owned()
        };
        table.insert(name.clone(), target);
        n_ext_alias += 1;
    }

    let _ = writeln!(
        out,
        "/// Registry counts: core commands (exported), of which implemented in crate::gl,\n/// generated core stubs, extension-only commands, extension aliases of core\n/// commands, generated extension stubs.\npub const COUNTS: RegistryCounts = RegistryCounts {{ core: {}, implemented: {}, core_stubs: {n_core_stub}, extension: {}, extension_aliases: {n_ext_alias}, extension_stubs: {n_ext_stub} }};\n",
        core.len(),
        implemented.len(),
        ext.len(),
    );
    emit_table(&mut out, "GL_PROCS", &table);

    // glFinish for eglWaitClient/eglWaitGL, only when implemented by hand
    // (calling the stub would raise a GL error the app never caused).
    let finish = if implemented.contains("glFinish") {
        "Some(crate::gl::glFinish)"
    } else {
        "None"
    };
    let _ = writeln!(out, "/// The implemented `glFinish`, if any.\npub(crate) const GL_FINISH: Option<unsafe extern \"C\" fn()> = {finish};\n");

    // EGL: every EGL 1.0–1.5 command plus the extension commands we
    // advertise, all implemented by hand in crate::egl.
    let egl = parse_doc(khronos_api::EGL_XML, "egl.xml")?;
    let mut egl_names = feature_commands(&egl, "egl");
    for extra in [
        "eglGetPlatformDisplayEXT",
        "eglCreatePlatformWindowSurfaceEXT",
        "eglCreatePlatformPixmapSurfaceEXT",
        "eglCreateSyncKHR",
        "eglDestroySyncKHR",
        "eglClientWaitSyncKHR",
        "eglGetSyncAttribKHR",
        "eglWaitSyncKHR",
    ] {
        egl_names.insert(extra.to_owned());
    }
    let egl_table: BTreeMap<String, String> = egl_names
        .into_iter()
        .map(|n| (n.clone(), format!("crate::egl::{n}")))
        .collect();
    emit_table(&mut out, "EGL_PROCS", &egl_table);
    Ok(out)
}

fn generate_glx() -> Result<String, String> {
    let doc = parse_doc(khronos_api::GLX_XML, "glx.xml")?;
    let commands = parse_commands(&doc, map_glx_type)?;
    let core = feature_commands(&doc, "glx");
    // Hand-written in src/glx.rs.
    let by_hand = ["glXGetProcAddress", "glXGetProcAddressARB"];
    let mut out = String::new();
    out.push_str(
        "// @generated by crates/frontend/build.rs from the Khronos registry. Do not edit.\n\n",
    );
    let mut table = BTreeMap::new();
    for name in &core {
        let cmd = commands
            .get(name)
            .ok_or_else(|| format!("glx.xml: feature command {name} has no <command>"))?;
        if !by_hand.contains(&name.as_str()) {
            emit_stub(&mut out, name, cmd, true, "glx_stub_hit");
        }
        table.insert(name.clone(), name.clone());
    }
    for name in by_hand {
        table.insert(name.to_owned(), name.to_owned());
    }
    emit_table(&mut out, "GLX_PROCS", &table);
    Ok(out)
}
