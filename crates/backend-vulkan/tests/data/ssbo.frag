#version 450
// A fragment shader writing storage block 0 (binding 0 of set 0, as the
// frontend emits it; the default block of the program is at binding 1).
layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0, std430) buffer Hits {
    uint count;
    uint px[];
};
void main() {
    uint i = uint(gl_FragCoord.y) * 8u + uint(gl_FragCoord.x);
    px[i] = i + 1u;
    atomicAdd(count, 1u);
    o_color = vec4(0.0, 1.0, 0.0, 1.0);
}
