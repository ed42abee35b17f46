#version 450
// Default block only (binding 0: no user blocks): xy offset/scale and z.
layout(location = 0) in vec2 a_pos;
layout(set = 0, binding = 0, std140) uniform DefaultUniforms {
    vec4 u_xform; // xy scale, zw offset
    vec4 u_color;
    float u_z;
};
void main() {
    gl_Position = vec4(a_pos * u_xform.xy + u_xform.zw, u_z, 1.0);
}
