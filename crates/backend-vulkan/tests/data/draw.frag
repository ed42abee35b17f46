#version 450
layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(location = 0) out vec4 o_color;
// User block 0 at binding 0, the default block at binding 1, and the
// sampler at texture-unit slot 0 -- also binding 0 of set 0, as the
// frontend emits it (separate namespaces); the backend moves it to set 1.
layout(set = 0, binding = 0, std140) uniform Params {
    vec4 tint;
};
layout(set = 0, binding = 1, std140) uniform DefaultUniforms {
    vec4 u_xform;
    vec4 u_color;
};
layout(set = 0, binding = 0) uniform sampler2D u_tex;
void main() {
    o_color = texture(u_tex, v_uv) * tint * u_color * v_color;
}
