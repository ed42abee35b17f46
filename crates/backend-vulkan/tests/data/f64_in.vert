#version 450
// 64-bit vertex inputs (glVertexAttribLPointer) at the locations the
// frontend gives them (a dvec3/dvec4 takes two): each vertex compares what
// it reads with the values the test put in the buffer for it.
layout(location = 0) in vec2 a_pos;
layout(location = 1) in dvec3 a_v3;
layout(location = 3) in dvec4 a_v4;
layout(location = 5) in double a_d;
layout(location = 0) out vec4 v_color;
const double K[4] = double[4](0.1lf, -3.5e200lf, 1.0e-300lf, 12345.678lf);
void main() {
    double k = K[gl_VertexIndex];
    bool ok = a_v3 == dvec3(k, -k, 2.0lf * k)
        && a_v4 == dvec4(4.0lf * k, -2.0lf * k, 0.5lf * k, 8.0lf * k)
        && a_d == -0.25lf * k;
    v_color = ok ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
    gl_Position = vec4(a_pos, 0.0, 1.0);
}
