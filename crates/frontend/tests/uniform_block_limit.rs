//! A uniform block larger than `GL_MAX_UNIFORM_BLOCK_SIZE` fails the link
//! (GL 4.6 §7.6.2), here rather than in the driver after the frontend has
//! reported success; a block of exactly the limit links.
//!
//! `cargo nextest run -p frontend --test uniform_block_limit`

mod common;
use common::{make_context, try_link_stages};
use mobilegl::gl::get;

const VS: &str = "#version 330 core
void main() { gl_Position = vec4(0.0); }
";

fn fs(vec4s: i32) -> String {
    format!(
        "#version 330 core
layout(std140) uniform ubo {{ vec4 v[{vec4s}]; }};
uniform int i;
out vec4 o;
void main() {{ o = v[i]; }}
"
    )
}

#[test]
fn uniform_block_over_the_limit_fails_the_link() {
    // SAFETY: GL calls on this thread with a current context; the pointer
    // covers one GLint.
    unsafe {
        make_context();
        let mut max = 0;
        get::glGetIntegerv(glow::MAX_UNIFORM_BLOCK_SIZE, &mut max);
        assert!(max >= 16384, "GL_MAX_UNIFORM_BLOCK_SIZE {max}");
        let at_limit = fs(max / 16);
        let (_, ok) = try_link_stages(&[
            (glow::VERTEX_SHADER, VS),
            (glow::FRAGMENT_SHADER, &at_limit),
        ]);
        assert!(ok, "a block of exactly the limit links");
        let over = fs(max / 16 + 1);
        let (_, ok) = try_link_stages(&[(glow::VERTEX_SHADER, VS), (glow::FRAGMENT_SHADER, &over)]);
        assert!(!ok, "a block over the limit must not link");
    }
}
