//! glGenerateMipmap on a base level that is not colour-renderable and
//! filterable (GL 4.6 §8.14.4): integer, depth and depth/stencil formats
//! are GL_INVALID_OPERATION; a normalised colour format is fine.
//!
//! `cargo nextest run -p frontend --test generate_mipmap_errors`

mod common;
use common::{expect_error, make_context, no_gl_error};
use mobilegl::gl::textures;

#[test]
fn generate_mipmap_refuses_integer_and_depth_formats() {
    let cases = [
        (glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE, None),
        (glow::RGBA16F, glow::RGBA, glow::FLOAT, None),
        (
            glow::RGBA8UI,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_BYTE,
            Some(glow::INVALID_OPERATION),
        ),
        (
            glow::R32I,
            glow::RED_INTEGER,
            glow::INT,
            Some(glow::INVALID_OPERATION),
        ),
        (
            glow::DEPTH_COMPONENT24,
            glow::DEPTH_COMPONENT,
            glow::UNSIGNED_INT,
            Some(glow::INVALID_OPERATION),
        ),
        (
            glow::DEPTH24_STENCIL8,
            glow::DEPTH_STENCIL,
            glow::UNSIGNED_INT_24_8,
            Some(glow::INVALID_OPERATION),
        ),
    ];
    // SAFETY: GL calls on this thread with a current context; no pixel
    // data is read (null pointers).
    unsafe {
        make_context();
        for (internal, format, ty, want) in cases {
            let mut tex = 0;
            textures::glGenTextures(1, &mut tex);
            textures::glBindTexture(glow::TEXTURE_2D, tex);
            textures::glTexImage2D(
                glow::TEXTURE_2D,
                0,
                internal as i32,
                16,
                16,
                0,
                format,
                ty,
                std::ptr::null(),
            );
            no_gl_error(&format!("glTexImage2D {internal:#x}"));
            textures::glGenerateMipmap(glow::TEXTURE_2D);
            match want {
                None => no_gl_error(&format!("glGenerateMipmap {internal:#x}")),
                Some(e) => expect_error(&format!("glGenerateMipmap {internal:#x}"), e),
            }
            textures::glDeleteTextures(1, &tex);
        }
    }
}
