#version 450
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0, std140) uniform DefaultUniforms {
    vec4 u_xform;
    vec4 u_color;
    float u_z;
};
void main() {
    o_color = u_color;
}
