#version 450
// A fragment shader storing into image unit 0 (binding 0 of set 0, as the
// frontend emits it; the program's default block is at binding 1), declared
// without a format (writeonly: shaderStorageImageWriteWithoutFormat).
layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform writeonly uimage2D u_marks;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    imageStore(u_marks, p, uvec4(uint(p.x + 8 * p.y) + 1u, 0u, 0u, 0u));
    o_color = vec4(0.0, 0.0, 1.0, 1.0);
}
