#version 450
// Built-in masked clear: one triangle covering the viewport at a fixed depth.
layout(push_constant) uniform PC {
    vec4 color;
    float z;
} pc;
void main() {
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    gl_Position = vec4(p * 2.0 - 1.0, pc.z, 1.0);
}
