#version 450
// Frontend conventions: everything in set 0. No user blocks, so the default
// block is at binding 0; image unit 0 is also binding 0 (separate
// namespaces), so the backend moves the image to its own set.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, std140) uniform DefaultUniforms {
    vec4 u_fill;
};
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D u_img;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    // Texel (x, y) = (16x, 16y, u_fill.z, u_fill.w) in unorm8.
    imageStore(u_img, p, vec4(float(p.x * 16) / 255.0, float(p.y * 16) / 255.0, u_fill.z, u_fill.w));
}
