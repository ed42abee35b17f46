//! glTexStorage* checks what the image calls it stands for check (GL 4.6
//! §8.19): cube faces are square and a cube map array's depth counts whole
//! cubes (a multiple of 6), else GL_INVALID_VALUE and no storage. With
//! immutable storage the base and max levels are clamped to its levels.
//!
//! `cargo nextest run -p frontend --test tex_storage_errors`

mod common;
use common::{expect_error, make_context, no_gl_error};
use mobilegl::gl::textures;

#[test]
fn tex_storage_refuses_non_square_cubes_and_partial_cube_arrays() {
    // SAFETY: EGL/GL calls on this thread with a current context.
    unsafe {
        make_context();
        let mut tex = [0u32; 3];
        textures::glGenTextures(3, tex.as_mut_ptr());

        textures::glBindTexture(glow::TEXTURE_CUBE_MAP_ARRAY, tex[0]);
        textures::glTexStorage3D(glow::TEXTURE_CUBE_MAP_ARRAY, 1, glow::RGBA8, 4, 4, 7);
        expect_error("cube map array, depth 7", glow::INVALID_VALUE);
        textures::glTexStorage3D(glow::TEXTURE_CUBE_MAP_ARRAY, 1, glow::RGBA8, 4, 8, 6);
        expect_error("cube map array, 4x8 faces", glow::INVALID_VALUE);
        // Neither made the storage immutable: a valid call still succeeds.
        textures::glTexStorage3D(glow::TEXTURE_CUBE_MAP_ARRAY, 1, glow::RGBA8, 4, 4, 12);
        no_gl_error("cube map array, two cubes");

        textures::glBindTexture(glow::TEXTURE_CUBE_MAP, tex[1]);
        textures::glTexStorage2D(glow::TEXTURE_CUBE_MAP, 1, glow::RGBA8, 8, 4);
        expect_error("cube map, 8x4 faces", glow::INVALID_VALUE);
        textures::glTexStorage2D(glow::TEXTURE_CUBE_MAP, 1, glow::RGBA8, 8, 8);
        no_gl_error("cube map, 8x8 faces");

        // ARB_texture_storage: levels clamp to the storage's n levels.
        let mut t2d = 0;
        textures::glGenTextures(1, &mut t2d);
        textures::glBindTexture(glow::TEXTURE_2D, t2d);
        textures::glTexStorage2D(glow::TEXTURE_2D, 3, glow::RGBA8, 256, 256);
        let level = |pname| {
            let mut v = -1;
            textures::glGetTexParameteriv(glow::TEXTURE_2D, pname, &mut v);
            v
        };
        textures::glTexParameteri(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, 4);
        assert_eq!(level(glow::TEXTURE_MAX_LEVEL), 2, "max level clamped");
        textures::glTexParameteri(glow::TEXTURE_2D, glow::TEXTURE_BASE_LEVEL, 7);
        assert_eq!(level(glow::TEXTURE_BASE_LEVEL), 2, "base level clamped");
        textures::glTexParameteri(glow::TEXTURE_2D, glow::TEXTURE_BASE_LEVEL, 1);
        textures::glTexParameteri(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, 0);
        assert_eq!(level(glow::TEXTURE_MAX_LEVEL), 1, "max level at least base");
        no_gl_error("level clamps");

        // 2D arrays have no such rule.
        textures::glBindTexture(glow::TEXTURE_2D_ARRAY, tex[2]);
        textures::glTexStorage3D(glow::TEXTURE_2D_ARRAY, 1, glow::RGBA8, 4, 8, 7);
        no_gl_error("2D array, 4x8x7");
    }
}
