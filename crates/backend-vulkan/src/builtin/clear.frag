#version 450
// Built-in masked clear: the clear colour on every draw buffer (the
// pipeline's colour write masks apply GL's glColorMask).
layout(push_constant) uniform PC {
    vec4 color;
    float z;
} pc;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
layout(location = 4) out vec4 o4;
layout(location = 5) out vec4 o5;
layout(location = 6) out vec4 o6;
layout(location = 7) out vec4 o7;
void main() {
    o0 = pc.color; o1 = pc.color; o2 = pc.color; o3 = pc.color;
    o4 = pc.color; o5 = pc.color; o6 = pc.color; o7 = pc.color;
}
