//! `gl_InstanceID` counts from 0 in a draw with a base instance (GL 4.6
//! §11.1.3.9, ARB_base_instance): the base instance offsets instanced
//! attributes only. Vulkan's `InstanceIndex` counts from the first
//! instance, so that backend subtracts `BaseInstance`.

use crate::common::{self, link_program, no_gl_error};
use mobilegl::gl::{draw, shaders, state, vertex};

const VS: &str = "#version 330 core
void main() {
    // Instance i lands on pixel i of a 4x1 target.
    gl_Position = vec4(-0.75 + 0.5 * float(gl_InstanceID), 0.0, 0.0, 1.0);
}
";
const FS: &str = "#version 330 core
out vec4 o;
void main() { o = vec4(1.0); }
";

pub unsafe fn check_instance_id_from_zero() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context();
        common::bind_rgba8_framebuffer(4, 1);
        state::glViewport(0, 0, 4, 1);
        state::glClearColor(0.0, 0.0, 0.0, 0.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        shaders::glUseProgram(link_program(VS, FS));
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        // One point, two instances, base instance 2: instances 0 and 1.
        draw::glDrawArraysInstancedBaseInstance(glow::POINTS, 0, 1, 2, 2);
        no_gl_error("base-instance draw");
        let lit: Vec<bool> = (0..4).map(|x| common::pixel(x, 0)[0] == 255).collect();
        assert_eq!(
            lit,
            [true, true, false, false],
            "gl_InstanceID must be 0 and 1, not 2 and 3"
        );
    }
}
