#version 450
// Frontend conventions: user block 0 (Params) at binding 0, storage blocks
// 0 and 1 at bindings 0 and 1 (separate namespaces), the default block
// (none here) would come after the user blocks.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0, std140) uniform Params {
    uint mul;
};
layout(set = 0, binding = 0, std430) buffer Out {
    uint data[];
} o;
layout(set = 0, binding = 1, std430) readonly buffer In {
    uint vals[];
} i;
void main() {
    uint g = gl_GlobalInvocationID.x;
    o.data[g] = i.vals[g] * mul + g;
}
