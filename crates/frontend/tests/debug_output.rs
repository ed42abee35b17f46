//! Debug output (GL 4.3 §20, KHR_debug): the callback (which may call GL),
//! message control, debug groups, the message log, object labels; and the
//! `glInvalidate*` argument checks.
//!
//! `cargo nextest run -p frontend --test debug_output`

mod common;

use std::ffi::{c_char, c_void, CStr};
use std::sync::Mutex;

use common::{buffer_with, expect_error, make_context, no_gl_error};
use mobilegl::gl::{debug, state};

static SEEN: Mutex<Vec<(u32, u32, u32, String)>> = Mutex::new(Vec::new());

unsafe extern "C" fn callback(
    _source: u32,
    ty: u32,
    id: u32,
    severity: u32,
    _length: i32,
    message: *const c_char,
    user: *const c_void,
) {
    assert_eq!(user as usize, 0x1234);
    // SAFETY: GL hands a NUL-terminated message.
    let text = unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned();
    // A callback may call GL (messages are delivered outside the lock).
    // SAFETY: the context is current on this thread.
    let _ = unsafe { state::glIsEnabled(glow::DEBUG_OUTPUT) };
    SEEN.lock().unwrap().push((ty, id, severity, text));
}

fn take() -> Vec<(u32, u32, u32, String)> {
    std::mem::take(&mut *SEEN.lock().unwrap())
}

#[test]
fn callback_control_groups_log_labels_invalidation() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer passed outlives its call.
    unsafe {
        make_context();
        // Not a debug context: output starts disabled (GL 4.6 §20.2).
        assert_eq!(state::glIsEnabled(glow::DEBUG_OUTPUT), 0);
        debug::glDebugMessageCallback(Some(callback), 0x1234 as *const c_void);
        state::glEnable(glow::DEBUG_OUTPUT);
        let insert = |id: u32, severity: u32, text: &CStr| {
            debug::glDebugMessageInsert(
                glow::DEBUG_SOURCE_APPLICATION,
                glow::DEBUG_TYPE_MARKER,
                id,
                severity,
                -1,
                text.as_ptr(),
            )
        };
        insert(7, glow::DEBUG_SEVERITY_HIGH, c"hello");
        no_gl_error("insert");
        assert_eq!(
            take(),
            [(
                glow::DEBUG_TYPE_MARKER,
                7,
                glow::DEBUG_SEVERITY_HIGH,
                "hello".to_owned()
            )]
        );
        // Low severity is off by default; a rule turns it on.
        insert(8, glow::DEBUG_SEVERITY_LOW, c"quiet");
        assert!(take().is_empty());
        debug::glDebugMessageControl(
            glow::DONT_CARE,
            glow::DONT_CARE,
            glow::DEBUG_SEVERITY_LOW,
            0,
            std::ptr::null(),
            1,
        );
        insert(9, glow::DEBUG_SEVERITY_LOW, c"loud");
        assert_eq!(take().len(), 1);
        // GL errors reach the callback.
        state::glEnable(0x1234_5678);
        let seen = take();
        assert_eq!(seen.len(), 1);
        assert_eq!(
            (seen[0].0, seen[0].1),
            (glow::DEBUG_TYPE_ERROR, glow::INVALID_ENUM)
        );
        expect_error("bad enable", glow::INVALID_ENUM);
        take();
        // Groups: push/pop markers, depth, underflow.
        debug::glPushDebugGroup(glow::DEBUG_SOURCE_APPLICATION, 3, -1, c"pass".as_ptr());
        let mut depth = 0;
        mobilegl::gl::get::glGetIntegerv(glow::DEBUG_GROUP_STACK_DEPTH, &mut depth);
        assert_eq!(depth, 2);
        debug::glPopDebugGroup();
        let kinds: Vec<u32> = take().iter().map(|m| m.0).collect();
        assert_eq!(
            kinds,
            [glow::DEBUG_TYPE_PUSH_GROUP, glow::DEBUG_TYPE_POP_GROUP]
        );
        debug::glPopDebugGroup();
        expect_error("pop past the default group", glow::STACK_UNDERFLOW);
        take();
        debug::glDebugMessageInsert(
            glow::DEBUG_SOURCE_API,
            glow::DEBUG_TYPE_MARKER,
            1,
            glow::DEBUG_SEVERITY_HIGH,
            -1,
            c"x".as_ptr(),
        );
        expect_error("insert from the API source", glow::INVALID_ENUM);
        take();

        // Without a callback: the log.
        debug::glDebugMessageCallback(None, std::ptr::null());
        insert(11, glow::DEBUG_SEVERITY_MEDIUM, c"logged");
        let mut n = 0;
        mobilegl::gl::get::glGetIntegerv(glow::DEBUG_LOGGED_MESSAGES, &mut n);
        assert_eq!(n, 1);
        let (mut ids, mut lens) = ([0u32; 4], [0i32; 4]);
        let mut buf = [0 as c_char; 64];
        let got = debug::glGetDebugMessageLog(
            4,
            64,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            ids.as_mut_ptr(),
            std::ptr::null_mut(),
            lens.as_mut_ptr(),
            buf.as_mut_ptr(),
        );
        assert_eq!((got, ids[0], lens[0]), (1, 11, 7));
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_bytes(), b"logged");

        // Labels.
        let b = buffer_with(glow::ARRAY_BUFFER, &[0; 16]);
        debug::glObjectLabel(glow::BUFFER, b, -1, c"vertices".as_ptr());
        let mut len = 0;
        debug::glGetObjectLabel(glow::BUFFER, b, 64, &mut len, buf.as_mut_ptr());
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_bytes(), b"vertices");
        assert_eq!(len, 8);
        debug::glObjectLabel(glow::BUFFER, b + 100, -1, c"none".as_ptr());
        expect_error("label of a missing buffer", glow::INVALID_VALUE);
        debug::glObjectLabel(glow::TEXTURE_2D, b, -1, c"bad".as_ptr());
        expect_error("label of a bad namespace", glow::INVALID_ENUM);

        // Invalidation hints: checked, otherwise no effect.
        debug::glInvalidateBufferData(b);
        debug::glInvalidateBufferSubData(b, 4, 8);
        no_gl_error("valid invalidations");
        debug::glInvalidateBufferSubData(b, 8, 16);
        expect_error("invalidation past the end", glow::INVALID_VALUE);
        let att = [glow::COLOR];
        debug::glInvalidateFramebuffer(glow::FRAMEBUFFER, 1, att.as_ptr());
        no_gl_error("default framebuffer colour");
        debug::glInvalidateFramebuffer(glow::TEXTURE_2D, 1, att.as_ptr());
        expect_error("bad target", glow::INVALID_ENUM);
    }
}
