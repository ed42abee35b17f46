//! The GL entry points the benchmark uses, every one resolved through the
//! EGL provider's `eglGetProcAddress` (the bench links no GL library).

#![allow(non_snake_case)]

use std::ffi::{c_char, c_void, CStr};

pub type GLenum = u32;
pub type GLuint = u32;
pub type GLint = i32;
pub type GLsizei = i32;
pub type GLfloat = f32;
pub type GLboolean = u8;
pub type GLbitfield = u32;
pub type GLintptr = isize;
pub type GLsizeiptr = isize;

pub const NO_ERROR: GLenum = 0;
pub const TRIANGLES: GLenum = 0x0004;
pub const TRIANGLE_STRIP: GLenum = 0x0005;
pub const UNSIGNED_BYTE: GLenum = 0x1401;
pub const UNSIGNED_SHORT: GLenum = 0x1403;
pub const FLOAT: GLenum = 0x1406;
pub const RGBA: GLenum = 0x1908;
pub const RGBA8: GLenum = 0x8058;
pub const COLOR_BUFFER_BIT: GLbitfield = 0x0000_4000;
pub const BLEND: GLenum = 0x0BE2;
pub const ZERO: GLenum = 0;
pub const ONE: GLenum = 1;
pub const VENDOR: GLenum = 0x1F00;
pub const RENDERER: GLenum = 0x1F01;
pub const VERSION: GLenum = 0x1F02;
pub const UNPACK_ROW_LENGTH: GLenum = 0x0CF2;
pub const UNPACK_SKIP_ROWS: GLenum = 0x0CF3;
pub const UNPACK_SKIP_PIXELS: GLenum = 0x0CF4;
pub const UNPACK_ALIGNMENT: GLenum = 0x0CF5;
pub const PACK_ROW_LENGTH: GLenum = 0x0D02;
pub const PACK_ALIGNMENT: GLenum = 0x0D05;
pub const TEXTURE_2D: GLenum = 0x0DE1;
pub const TEXTURE0: GLenum = 0x84C0;
pub const TEXTURE_MAG_FILTER: GLenum = 0x2800;
pub const TEXTURE_MIN_FILTER: GLenum = 0x2801;
pub const NEAREST: GLint = 0x2600;
pub const ARRAY_BUFFER: GLenum = 0x8892;
pub const ELEMENT_ARRAY_BUFFER: GLenum = 0x8893;
pub const UNIFORM_BUFFER: GLenum = 0x8A11;
pub const UNIFORM_BUFFER_OFFSET_ALIGNMENT: GLenum = 0x8A34;
pub const STATIC_DRAW: GLenum = 0x88E4;
pub const STREAM_DRAW: GLenum = 0x88E0;
pub const FRAGMENT_SHADER: GLenum = 0x8B30;
pub const VERTEX_SHADER: GLenum = 0x8B31;
pub const COMPILE_STATUS: GLenum = 0x8B81;
pub const LINK_STATUS: GLenum = 0x8B82;
pub const FRAMEBUFFER: GLenum = 0x8D40;
pub const RENDERBUFFER: GLenum = 0x8D41;
pub const COLOR_ATTACHMENT0: GLenum = 0x8CE0;
pub const FRAMEBUFFER_COMPLETE: GLenum = 0x8CD5;
pub const INVALID_INDEX: GLuint = 0xFFFF_FFFF;

macro_rules! gl_table {
    ($($name:ident : fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// Resolved GL entry points.
        pub struct Gl {
            $(pub $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
        }

        impl Gl {
            /// Resolve every entry point with `get` (`eglGetProcAddress`).
            /// A missing one is an error naming it.
            pub fn load(get: &dyn Fn(&CStr) -> *const c_void) -> Result<Gl, String> {
                let mut missing = Vec::new();
                $(
                    let $name = {
                        let name = CStr::from_bytes_with_nul(
                            concat!(stringify!($name), "\0").as_bytes(),
                        )
                        .map_err(|e| e.to_string())?;
                        let p = get(name);
                        if p.is_null() {
                            missing.push(stringify!($name));
                        }
                        p
                    };
                )*
                if !missing.is_empty() {
                    return Err(format!(
                        "eglGetProcAddress returned NULL for: {}",
                        missing.join(", ")
                    ));
                }
                // SAFETY: each pointer is non-null (checked above) and was
                // returned by eglGetProcAddress for the GL function of that
                // name, whose C signature is the one declared here.
                unsafe {
                    Ok(Gl {
                        $($name: std::mem::transmute::<
                            *const c_void,
                            unsafe extern "C" fn($($arg),*) $(-> $ret)?,
                        >($name),)*
                    })
                }
            }
        }
    };
}

gl_table! {
    glGetError: fn() -> GLenum;
    glGetString: fn(GLenum) -> *const u8;
    glGetIntegerv: fn(GLenum, *mut GLint);
    glEnable: fn(GLenum);
    glDisable: fn(GLenum);
    glViewport: fn(GLint, GLint, GLsizei, GLsizei);
    glClearColor: fn(GLfloat, GLfloat, GLfloat, GLfloat);
    glClear: fn(GLbitfield);
    glBlendFuncSeparate: fn(GLenum, GLenum, GLenum, GLenum);
    glPixelStorei: fn(GLenum, GLint);
    glReadPixels: fn(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, *mut c_void);
    glFinish: fn();
    glGenFramebuffers: fn(GLsizei, *mut GLuint);
    glBindFramebuffer: fn(GLenum, GLuint);
    glFramebufferRenderbuffer: fn(GLenum, GLenum, GLenum, GLuint);
    glCheckFramebufferStatus: fn(GLenum) -> GLenum;
    glGenRenderbuffers: fn(GLsizei, *mut GLuint);
    glBindRenderbuffer: fn(GLenum, GLuint);
    glRenderbufferStorage: fn(GLenum, GLenum, GLsizei, GLsizei);
    glGenBuffers: fn(GLsizei, *mut GLuint);
    glBindBuffer: fn(GLenum, GLuint);
    glBindBufferRange: fn(GLenum, GLuint, GLuint, GLintptr, GLsizeiptr);
    glBufferData: fn(GLenum, GLsizeiptr, *const c_void, GLenum);
    glGenVertexArrays: fn(GLsizei, *mut GLuint);
    glBindVertexArray: fn(GLuint);
    glEnableVertexAttribArray: fn(GLuint);
    glVertexAttribPointer: fn(GLuint, GLint, GLenum, GLboolean, GLsizei, *const c_void);
    glDrawArrays: fn(GLenum, GLint, GLsizei);
    glDrawElements: fn(GLenum, GLsizei, GLenum, *const c_void);
    glDrawElementsBaseVertex: fn(GLenum, GLsizei, GLenum, *const c_void, GLint);
    glMultiDrawElementsBaseVertex:
        fn(GLenum, *const GLsizei, GLenum, *const *const c_void, GLsizei, *const GLint);
    glCreateShader: fn(GLenum) -> GLuint;
    glDeleteShader: fn(GLuint);
    glShaderSource: fn(GLuint, GLsizei, *const *const c_char, *const GLint);
    glCompileShader: fn(GLuint);
    glGetShaderiv: fn(GLuint, GLenum, *mut GLint);
    glGetShaderInfoLog: fn(GLuint, GLsizei, *mut GLsizei, *mut c_char);
    glCreateProgram: fn() -> GLuint;
    glAttachShader: fn(GLuint, GLuint);
    glBindAttribLocation: fn(GLuint, GLuint, *const c_char);
    glLinkProgram: fn(GLuint);
    glGetProgramiv: fn(GLuint, GLenum, *mut GLint);
    glGetProgramInfoLog: fn(GLuint, GLsizei, *mut GLsizei, *mut c_char);
    glUseProgram: fn(GLuint);
    glGetUniformLocation: fn(GLuint, *const c_char) -> GLint;
    glUniform1i: fn(GLint, GLint);
    glUniform3f: fn(GLint, GLfloat, GLfloat, GLfloat);
    glUniform3fv: fn(GLint, GLsizei, *const GLfloat);
    glGetUniformBlockIndex: fn(GLuint, *const c_char) -> GLuint;
    glUniformBlockBinding: fn(GLuint, GLuint, GLuint);
    glGenTextures: fn(GLsizei, *mut GLuint);
    glBindTexture: fn(GLenum, GLuint);
    glActiveTexture: fn(GLenum);
    glTexParameteri: fn(GLenum, GLenum, GLint);
    glTexImage2D: fn(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum, *const c_void);
    glTexSubImage2D: fn(GLenum, GLint, GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, *const c_void);
}

impl Gl {
    /// `glGetString` as an owned string ("(null)" when NULL).
    pub fn string(&self, name: GLenum) -> String {
        // SAFETY: a current context exists (the caller made one current);
        // glGetString returns NULL or a NUL-terminated static string.
        unsafe {
            let p = (self.glGetString)(name);
            if p.is_null() {
                "(null)".into()
            } else {
                CStr::from_ptr(p.cast()).to_string_lossy().into_owned()
            }
        }
    }

    /// Drain the error queue; `Err` names the first error and `what`.
    pub fn check_error(&self, what: &str) -> Result<(), String> {
        // SAFETY: plain GL query on the current context.
        let first = unsafe { (self.glGetError)() };
        if first == NO_ERROR {
            return Ok(());
        }
        // Drain, bounded (a lost context may answer errors forever).
        for _ in 0..16 {
            // SAFETY: as above.
            if unsafe { (self.glGetError)() } == NO_ERROR {
                break;
            }
        }
        Err(format!("{what}: glGetError() = 0x{first:04x}"))
    }

    pub fn integer(&self, name: GLenum) -> GLint {
        let mut v = 0;
        // SAFETY: `v` is a valid GLint out-pointer for a scalar query.
        unsafe { (self.glGetIntegerv)(name, &mut v) };
        v
    }
}
