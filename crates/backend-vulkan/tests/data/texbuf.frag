#version 450
// A samplerBuffer at texture-unit slot 0 (set 0 binding 0 as the frontend
// emits it; the backend moves it to set 1 as a uniform texel buffer):
// column i of the quad shows texel i of 4.
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform samplerBuffer u_texels;
void main() {
    o_color = texelFetch(u_texels, int(v_uv.x * 4.0));
}
