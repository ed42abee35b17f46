//! Debug output (GL 4.3 §20, `GL_KHR_debug`): the message callback and
//! log, message control, debug groups and object labels; also the
//! invalidation hints of GL 4.3 §17.4.4 / §6.5 / §8.20 (`glInvalidate*`).
//!
//! Owns per-context debug state only; nothing reaches the backend.
//! Messages (GL errors this frontend raises, the application's own, debug
//! group markers) are queued while the world lock is held and handed to the
//! application's callback by `context::with_gl_inner` after it is released,
//! so a callback that calls GL does not deadlock. Without a callback they go
//! to the message log (`glGetDebugMessageLog`).

use std::collections::HashMap;
use std::ffi::{c_char, c_void};

use super::{cstr_len, gl_err, put, slice};
use crate::context::{with_gl, Gl};

/// `GLDEBUGPROC`.
pub type DebugProc = unsafe extern "C" fn(
    source: u32,
    ty: u32,
    id: u32,
    severity: u32,
    length: i32,
    message: *const c_char,
    user: *const c_void,
);

/// GL 4.3 table 23.77 limits (at least their minimums).
pub const MAX_DEBUG_MESSAGE_LENGTH: usize = 1024;
pub const MAX_DEBUG_LOGGED_MESSAGES: usize = 64;
pub const MAX_DEBUG_GROUP_STACK_DEPTH: usize = 64;
pub const MAX_LABEL_LENGTH: usize = 256;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub source: u32,
    pub ty: u32,
    pub id: u32,
    pub severity: u32,
    pub text: String,
}

/// One `glDebugMessageControl` rule; later rules win.
#[derive(Debug, Clone)]
struct Rule {
    source: u32,
    ty: u32,
    severity: u32,
    ids: Vec<u32>,
    enabled: bool,
}

/// Per-context debug state.
#[derive(Debug)]
pub struct DebugState {
    pub output: bool,
    pub synchronous: bool,
    pub callback: Option<DebugProc>,
    pub user: usize,
    /// Queued for the callback (delivered after the GL call).
    pub pending: Vec<Message>,
    /// The log, without a callback.
    pub log: Vec<Message>,
    /// Debug groups: (source, id, message); the rules in effect when each
    /// group was pushed (GL 4.6 §20.6: popping restores them).
    groups: Vec<(Message, Vec<Rule>)>,
    rules: Vec<Rule>,
    /// (namespace, name) → label.
    labels: HashMap<(u32, u64), String>,
}

impl Default for DebugState {
    /// Output off: GL 4.6 §20.2 enables it initially only in debug
    /// contexts (`GlState::new` turns it on there).
    fn default() -> Self {
        DebugState {
            output: false,
            synchronous: false,
            callback: None,
            user: 0,
            pending: Vec::new(),
            log: Vec::new(),
            groups: Vec::new(),
            rules: Vec::new(),
            labels: HashMap::new(),
        }
    }
}

impl DebugState {
    /// Output on in a debug context only (GL 4.6 §20.2).
    pub fn new(debug_context: bool) -> Self {
        DebugState {
            output: debug_context,
            ..Default::default()
        }
    }

    fn enabled(&self, m: &Message) -> bool {
        let mut on = m.severity != glow::DEBUG_SEVERITY_LOW;
        for r in &self.rules {
            let any = |want: u32, got: u32| want == glow::DONT_CARE || want == got;
            if any(r.source, m.source)
                && any(r.ty, m.ty)
                && any(r.severity, m.severity)
                && (r.ids.is_empty() || r.ids.contains(&m.id))
            {
                on = r.enabled;
            }
        }
        on
    }

    /// Queue `m` for the callback or the log, if output and its filter
    /// allow it.
    pub fn emit(&mut self, m: Message) {
        if !self.output || !self.enabled(&m) {
            return;
        }
        if self.callback.is_some() {
            self.pending.push(m);
        } else if self.log.len() < MAX_DEBUG_LOGGED_MESSAGES {
            self.log.push(m);
        }
    }

    /// A GL error this frontend raised (nothing is built while output is
    /// off, the usual case).
    pub fn error(&mut self, e: u32) {
        if !self.output {
            return;
        }
        let name = match e {
            glow::INVALID_ENUM => "GL_INVALID_ENUM",
            glow::INVALID_VALUE => "GL_INVALID_VALUE",
            glow::INVALID_OPERATION => "GL_INVALID_OPERATION",
            glow::INVALID_FRAMEBUFFER_OPERATION => "GL_INVALID_FRAMEBUFFER_OPERATION",
            glow::OUT_OF_MEMORY => "GL_OUT_OF_MEMORY",
            glow::STACK_OVERFLOW => "GL_STACK_OVERFLOW",
            glow::STACK_UNDERFLOW => "GL_STACK_UNDERFLOW",
            glow::CONTEXT_LOST => "GL_CONTEXT_LOST",
            _ => "GL error",
        };
        self.emit(Message {
            source: glow::DEBUG_SOURCE_API,
            ty: glow::DEBUG_TYPE_ERROR,
            id: e,
            severity: glow::DEBUG_SEVERITY_HIGH,
            text: format!("{name} (0x{e:04X}) raised by MobileGL"),
        });
    }

    pub fn group_depth(&self) -> usize {
        self.groups.len() + 1
    }
}

fn valid_source(s: u32, dont_care: bool) -> bool {
    matches!(
        s,
        glow::DEBUG_SOURCE_API
            | glow::DEBUG_SOURCE_WINDOW_SYSTEM
            | glow::DEBUG_SOURCE_SHADER_COMPILER
            | glow::DEBUG_SOURCE_THIRD_PARTY
            | glow::DEBUG_SOURCE_APPLICATION
            | glow::DEBUG_SOURCE_OTHER
    ) || (dont_care && s == glow::DONT_CARE)
}

fn valid_type(t: u32, dont_care: bool) -> bool {
    matches!(
        t,
        glow::DEBUG_TYPE_ERROR
            | glow::DEBUG_TYPE_DEPRECATED_BEHAVIOR
            | glow::DEBUG_TYPE_UNDEFINED_BEHAVIOR
            | glow::DEBUG_TYPE_PORTABILITY
            | glow::DEBUG_TYPE_PERFORMANCE
            | glow::DEBUG_TYPE_MARKER
            | glow::DEBUG_TYPE_PUSH_GROUP
            | glow::DEBUG_TYPE_POP_GROUP
            | glow::DEBUG_TYPE_OTHER
    ) || (dont_care && t == glow::DONT_CARE)
}

fn valid_severity(s: u32, dont_care: bool) -> bool {
    matches!(
        s,
        glow::DEBUG_SEVERITY_HIGH
            | glow::DEBUG_SEVERITY_MEDIUM
            | glow::DEBUG_SEVERITY_LOW
            | glow::DEBUG_SEVERITY_NOTIFICATION
    ) || (dont_care && s == glow::DONT_CARE)
}

/// The text of a (`length`, `buf`) message argument: NUL-terminated when
/// `length` is negative; Err(INVALID_VALUE) past `max` bytes.
///
/// # Safety
/// `buf` is NULL or points at `length` bytes (or a NUL-terminated string).
unsafe fn message_text(length: i32, buf: *const c_char, max: usize) -> Result<String, u32> {
    if buf.is_null() {
        return Ok(String::new());
    }
    // SAFETY: per the caller's contract.
    let text = unsafe { cstr_len(buf, length) };
    if text.len() >= max {
        return Err(glow::INVALID_VALUE);
    }
    Ok(text)
}

#[no_mangle]
pub unsafe extern "C" fn glDebugMessageCallback(callback: Option<DebugProc>, user: *const c_void) {
    with_gl(|gl| {
        gl.st.debug_out.callback = callback;
        gl.st.debug_out.user = user as usize;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDebugMessageControl(
    source: u32,
    ty: u32,
    severity: u32,
    count: i32,
    ids: *const u32,
    enabled: u8,
) {
    // SAFETY: GL promises `count` ids (none when count is 0).
    let ids = unsafe { slice(ids, count) }.to_vec();
    with_gl(|gl| {
        if !valid_source(source, true) || !valid_type(ty, true) || !valid_severity(severity, true) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if count < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        // GL 4.6 §20.4: ids name messages of one source and type only.
        if count > 0
            && (source == glow::DONT_CARE || ty == glow::DONT_CARE || severity != glow::DONT_CARE)
        {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        gl.st.debug_out.rules.push(Rule {
            source,
            ty,
            severity,
            ids,
            enabled: enabled != 0,
        });
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDebugMessageInsert(
    source: u32,
    ty: u32,
    id: u32,
    severity: u32,
    length: i32,
    buf: *const c_char,
) {
    // SAFETY: the application's message.
    let text = unsafe { message_text(length, buf, MAX_DEBUG_MESSAGE_LENGTH) };
    with_gl(|gl| {
        if !matches!(
            source,
            glow::DEBUG_SOURCE_APPLICATION | glow::DEBUG_SOURCE_THIRD_PARTY
        ) || !valid_type(ty, false)
            || !valid_severity(severity, false)
        {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let text = match text {
            Ok(t) => t,
            Err(e) => gl_err!(gl, e),
        };
        gl.st.debug_out.emit(Message {
            source,
            ty,
            id,
            severity,
            text,
        });
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glGetDebugMessageLog(
    count: u32,
    buf_size: i32,
    sources: *mut u32,
    types: *mut u32,
    ids: *mut u32,
    severities: *mut u32,
    lengths: *mut i32,
    message_log: *mut c_char,
) -> u32 {
    let taken = with_gl(|gl| {
        if buf_size < 0 && !message_log.is_null() {
            gl.st.set_error(glow::INVALID_VALUE);
            return Vec::new();
        }
        // Messages are taken while they fit in `message_log` (GL 4.6 §20.9).
        let log = &mut gl.st.debug_out.log;
        let mut room = if message_log.is_null() {
            usize::MAX
        } else {
            buf_size as usize
        };
        let mut n = 0usize;
        while n < count as usize && n < log.len() {
            let need = log[n].text.len() + 1;
            if need > room {
                break;
            }
            room -= need;
            n += 1;
        }
        log.drain(..n).collect::<Vec<_>>()
    });
    let mut at = 0usize;
    for (i, m) in taken.iter().enumerate() {
        // SAFETY: GL promises `count` entries in each array given and
        // `buf_size` bytes of `message_log` (checked above).
        unsafe {
            if !sources.is_null() {
                put(sources.add(i), m.source);
            }
            if !types.is_null() {
                put(types.add(i), m.ty);
            }
            if !ids.is_null() {
                put(ids.add(i), m.id);
            }
            if !severities.is_null() {
                put(severities.add(i), m.severity);
            }
            if !lengths.is_null() {
                put(lengths.add(i), m.text.len() as i32 + 1);
            }
            if !message_log.is_null() {
                let dst = message_log.add(at).cast::<u8>();
                std::ptr::copy_nonoverlapping(m.text.as_ptr(), dst, m.text.len());
                *dst.add(m.text.len()) = 0;
            }
        }
        at += m.text.len() + 1;
    }
    taken.len() as u32
}

#[no_mangle]
pub unsafe extern "C" fn glPushDebugGroup(
    source: u32,
    id: u32,
    length: i32,
    message: *const c_char,
) {
    // SAFETY: the application's message.
    let text = unsafe { message_text(length, message, MAX_DEBUG_MESSAGE_LENGTH) };
    with_gl(|gl| {
        if !matches!(
            source,
            glow::DEBUG_SOURCE_APPLICATION | glow::DEBUG_SOURCE_THIRD_PARTY
        ) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let text = match text {
            Ok(t) => t,
            Err(e) => gl_err!(gl, e),
        };
        let d = &mut gl.st.debug_out;
        if d.group_depth() >= MAX_DEBUG_GROUP_STACK_DEPTH {
            gl_err!(gl, glow::STACK_OVERFLOW);
        }
        let m = Message {
            source,
            ty: glow::DEBUG_TYPE_PUSH_GROUP,
            id,
            severity: glow::DEBUG_SEVERITY_NOTIFICATION,
            text,
        };
        d.emit(m.clone());
        let rules = d.rules.clone();
        d.groups.push((m, rules));
    })
}

#[no_mangle]
pub unsafe extern "C" fn glPopDebugGroup() {
    with_gl(|gl| {
        let d = &mut gl.st.debug_out;
        let Some((m, rules)) = d.groups.pop() else {
            gl_err!(gl, glow::STACK_UNDERFLOW);
        };
        d.rules = rules;
        d.emit(Message {
            ty: glow::DEBUG_TYPE_POP_GROUP,
            ..m
        });
    })
}

/// Whether `name` is an object of namespace `identifier` (GL 4.6 §20.8);
/// Err(INVALID_ENUM) for an unknown namespace.
fn object_exists(gl: &Gl, identifier: u32, name: u32) -> Result<bool, u32> {
    use crate::context::ShaderOrProgram;
    Ok(match identifier {
        glow::BUFFER => matches!(gl.sh.buffers.get(&name), Some(Some(_))),
        glow::TEXTURE => matches!(gl.sh.textures.get(&name), Some(Some(_))),
        glow::SHADER => matches!(
            gl.sh.shader_objects.get(&name),
            Some(ShaderOrProgram::Shader(_))
        ),
        glow::PROGRAM => matches!(
            gl.sh.shader_objects.get(&name),
            Some(ShaderOrProgram::Program(_))
        ),
        glow::VERTEX_ARRAY => matches!(gl.st.vaos.get(&name), Some(Some(_))),
        glow::RENDERBUFFER => matches!(gl.sh.renderbuffers.get(&name), Some(Some(_))),
        glow::FRAMEBUFFER => matches!(gl.st.fbos.get(&name), Some(Some(_))),
        glow::SAMPLER => gl.sh.samplers.contains_key(&name),
        // Names we track loosely: any non-zero one is taken as existing.
        glow::QUERY | glow::PROGRAM_PIPELINE | glow::TRANSFORM_FEEDBACK => name != 0,
        _ => return Err(glow::INVALID_ENUM),
    })
}

#[no_mangle]
pub unsafe extern "C" fn glObjectLabel(
    identifier: u32,
    name: u32,
    length: i32,
    label: *const c_char,
) {
    // SAFETY: the application's label.
    let text = unsafe { message_text(length, label, MAX_LABEL_LENGTH) };
    with_gl(|gl| {
        match object_exists(gl, identifier, name) {
            Ok(true) => {}
            Ok(false) => gl_err!(gl, glow::INVALID_VALUE),
            Err(e) => gl_err!(gl, e),
        }
        let text = match text {
            Ok(t) => t,
            Err(e) => gl_err!(gl, e),
        };
        let key = (identifier, u64::from(name));
        if label.is_null() {
            gl.st.debug_out.labels.remove(&key);
        } else {
            gl.st.debug_out.labels.insert(key, text);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glObjectPtrLabel(ptr: *const c_void, length: i32, label: *const c_char) {
    // SAFETY: the application's label.
    let text = unsafe { message_text(length, label, MAX_LABEL_LENGTH) };
    with_gl(|gl| {
        // Sync objects are the only pointer-named objects.
        if !gl.sh.syncs.contains_key(&(ptr as usize)) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        let text = match text {
            Ok(t) => t,
            Err(e) => gl_err!(gl, e),
        };
        let key = (glow::SYNC_FENCE, ptr as u64);
        if label.is_null() {
            gl.st.debug_out.labels.remove(&key);
        } else {
            gl.st.debug_out.labels.insert(key, text);
        }
    })
}

/// Copy `label` out as `glGetObjectLabel` does.
///
/// # Safety
/// `out` holds `buf_size` bytes when not NULL; `length` is NULL or writable.
unsafe fn write_label(label: &str, buf_size: i32, length: *mut i32, out: *mut c_char) {
    let n = if out.is_null() {
        label.len()
    } else {
        label.len().min((buf_size.max(1) - 1) as usize)
    };
    // SAFETY: per the caller's contract.
    unsafe {
        if !out.is_null() && buf_size > 0 {
            std::ptr::copy_nonoverlapping(label.as_ptr(), out.cast::<u8>(), n);
            *out.add(n) = 0;
        }
        put(length, n as i32);
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetObjectLabel(
    identifier: u32,
    name: u32,
    buf_size: i32,
    length: *mut i32,
    label: *mut c_char,
) {
    let text = with_gl(|gl| {
        if buf_size < 0 {
            gl.st.set_error(glow::INVALID_VALUE);
            return None;
        }
        match object_exists(gl, identifier, name) {
            Ok(true) => {}
            Ok(false) => {
                gl.st.set_error(glow::INVALID_VALUE);
                return None;
            }
            Err(e) => {
                gl.st.set_error(e);
                return None;
            }
        }
        Some(
            gl.st
                .debug_out
                .labels
                .get(&(identifier, u64::from(name)))
                .cloned()
                .unwrap_or_default(),
        )
    });
    if let Some(t) = text {
        // SAFETY: the application's buffer of `buf_size` bytes.
        unsafe { write_label(&t, buf_size, length, label) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetObjectPtrLabel(
    ptr: *const c_void,
    buf_size: i32,
    length: *mut i32,
    label: *mut c_char,
) {
    let text = with_gl(|gl| {
        if buf_size < 0 || !gl.sh.syncs.contains_key(&(ptr as usize)) {
            gl.st.set_error(glow::INVALID_VALUE);
            return None;
        }
        Some(
            gl.st
                .debug_out
                .labels
                .get(&(glow::SYNC_FENCE, ptr as u64))
                .cloned()
                .unwrap_or_default(),
        )
    });
    if let Some(t) = text {
        // SAFETY: the application's buffer of `buf_size` bytes.
        unsafe { write_label(&t, buf_size, length, label) };
    }
}

/// Hand queued messages to the callback (after the world lock is released:
/// the callback may call GL).
pub fn deliver(callback: DebugProc, user: usize, messages: Vec<Message>) {
    for m in messages {
        let text = std::ffi::CString::new(m.text.replace('\0', " ")).unwrap_or_default();
        // SAFETY: the application registered `callback` with this signature;
        // the message is NUL-terminated and outlives the call.
        unsafe {
            callback(
                m.source,
                m.ty,
                m.id,
                m.severity,
                text.as_bytes().len() as i32,
                text.as_ptr(),
                user as *const c_void,
            )
        };
    }
}

// ----------------------------------------------------------- invalidation

/// `glInvalidate*`: contents become undefined, which leaving them as they
/// are satisfies; only the arguments are checked (GL 4.6 §6.5, §8.20,
/// §17.4.4).
#[no_mangle]
pub unsafe extern "C" fn glInvalidateBufferData(buffer: u32) {
    with_gl(|gl| {
        if !matches!(gl.sh.buffers.get(&buffer), Some(Some(_))) {
            gl.st.set_error(glow::INVALID_VALUE);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glInvalidateBufferSubData(buffer: u32, offset: isize, length: isize) {
    with_gl(|gl| {
        let Some(Some(b)) = gl.sh.buffers.get(&buffer) else {
            gl_err!(gl, glow::INVALID_VALUE);
        };
        let end = (offset as i64).checked_add(length as i64);
        if offset < 0 || length < 0 || end.is_none_or(|e| e as u64 > b.size) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glInvalidateTexImage(texture: u32, level: i32) {
    with_gl(|gl| {
        if level < 0 || !matches!(gl.sh.textures.get(&texture), Some(Some(_))) {
            gl.st.set_error(glow::INVALID_VALUE);
        }
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glInvalidateTexSubImage(
    texture: u32,
    level: i32,
    x: i32,
    y: i32,
    z: i32,
    w: i32,
    h: i32,
    d: i32,
) {
    with_gl(|gl| {
        if level < 0
            || [x, y, z, w, h, d].iter().any(|&v| v < 0)
            || !matches!(gl.sh.textures.get(&texture), Some(Some(_)))
        {
            gl.st.set_error(glow::INVALID_VALUE);
        }
    })
}

pub(super) fn check_invalidate_framebuffer(
    gl: &mut Gl,
    target: u32,
    attachments: &[u32],
) -> Result<(), u32> {
    if !matches!(
        target,
        glow::FRAMEBUFFER | glow::DRAW_FRAMEBUFFER | glow::READ_FRAMEBUFFER
    ) {
        return Err(glow::INVALID_ENUM);
    }
    let fbo = if target == glow::READ_FRAMEBUFFER {
        gl.st.read_fbo
    } else {
        gl.st.draw_fbo
    };
    let max = crate::context::MAX_DRAW_BUFFERS as u32;
    for &a in attachments {
        let ok = if fbo == 0 {
            matches!(a, glow::COLOR | glow::DEPTH | glow::STENCIL)
        } else if (glow::COLOR_ATTACHMENT0..glow::COLOR_ATTACHMENT0 + 32).contains(&a) {
            if a >= glow::COLOR_ATTACHMENT0 + max {
                return Err(glow::INVALID_OPERATION);
            }
            true
        } else {
            matches!(
                a,
                glow::DEPTH_ATTACHMENT | glow::STENCIL_ATTACHMENT | glow::DEPTH_STENCIL_ATTACHMENT
            )
        };
        if !ok {
            return Err(glow::INVALID_ENUM);
        }
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn glInvalidateFramebuffer(target: u32, count: i32, attachments: *const u32) {
    // SAFETY: GL promises `count` attachments.
    let list = unsafe { slice(attachments, count) }.to_vec();
    with_gl(|gl| {
        if count < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if let Err(e) = check_invalidate_framebuffer(gl, target, &list) {
            gl.st.set_error(e);
        }
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glInvalidateSubFramebuffer(
    target: u32,
    count: i32,
    attachments: *const u32,
    _x: i32,
    _y: i32,
    width: i32,
    height: i32,
) {
    // SAFETY: GL promises `count` attachments.
    let list = unsafe { slice(attachments, count) }.to_vec();
    with_gl(|gl| {
        if count < 0 || width < 0 || height < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if let Err(e) = check_invalidate_framebuffer(gl, target, &list) {
            gl.st.set_error(e);
        }
    })
}

/// `glGetPointerv`: the debug callback and its user pointer (the only
/// pointer state of a core context).
#[no_mangle]
pub unsafe extern "C" fn glGetPointerv(pname: u32, params: *mut *mut c_void) {
    let v = with_gl(|gl| match pname {
        glow::DEBUG_CALLBACK_FUNCTION => Some(gl.st.debug_out.callback.map_or(0, |f| f as usize)),
        glow::DEBUG_CALLBACK_USER_PARAM => Some(gl.st.debug_out.user),
        p if super::legacy_arrays::array_pointer(gl, p).is_some() => {
            super::legacy_arrays::array_pointer(gl, p)
        }
        _ => {
            gl.st.set_error(glow::INVALID_ENUM);
            None
        }
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable pointer.
        unsafe { put(params, v as *mut c_void) };
    }
}
