#version 450
// Reads the instance index twice (gl_InstanceIndex is what the frontend
// compiles gl_InstanceID to): spirv::subtract_base_instance redirects both.
layout(location = 0) out vec4 v_color;
void main() {
    float i = float(gl_InstanceIndex);
    v_color = vec4(i, float(gl_InstanceIndex + 1), 0.0, 1.0);
    gl_Position = vec4(-0.75 + 0.5 * i, 0.0, 0.0, 1.0);
}
