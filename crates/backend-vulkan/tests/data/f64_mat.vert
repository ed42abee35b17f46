#version 450
// Matrices and arrays of doubles: GL gives every column / element one
// attribute (the frontend's location + i), Vulkan a dvec3 two locations.
layout(location = 0) in vec2 a_pos;
layout(location = 1) in dmat2x3 a_m;
layout(location = 5) in dvec3 a_arr[2];
layout(location = 9) in dvec2 a_v2[2];
layout(location = 11) in double a_d;
layout(location = 0) out vec4 v_color;
const double K[4] = double[4](0.1lf, -3.5e200lf, 1.0e-300lf, 12345.678lf);
void main() {
    double k = K[gl_VertexIndex];
    bool ok = a_m[0] == dvec3(k, 2.0lf * k, 3.0lf)
        && a_m[1] == dvec3(4.0lf * k, 5.0lf, 6.0lf * k)
        && a_arr[0] == dvec3(-k, 7.0lf, -8.0lf)
        && a_arr[1] == dvec3(9.0lf, 10.0lf * k, -k)
        && a_v2[0] == dvec2(11.0lf, 0.5lf * k)
        && a_v2[1] == dvec2(-0.5lf * k, 12.0lf)
        && a_d == 16.0lf * k;
    v_color = ok ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
    gl_Position = vec4(a_pos, 0.0, 1.0);
}
