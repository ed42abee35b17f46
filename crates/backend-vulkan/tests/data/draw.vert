#version 450
// Frontend conventions: everything in set 0; user block i at binding i
// (none used here), the default block at binding = number of user blocks.
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_color; // disabled array: attribute default
layout(location = 0) out vec2 v_uv;
layout(location = 1) out vec4 v_color;
layout(set = 0, binding = 1, std140) uniform DefaultUniforms {
    vec4 u_xform;
    vec4 u_color;
};
void main() {
    v_uv = a_pos;
    v_color = a_color;
    gl_Position = vec4(a_pos * u_xform.xy + u_xform.zw, 0.0, 1.0);
}
