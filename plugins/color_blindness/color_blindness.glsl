layout(set = 0, binding = 2) uniform Settings {
    uint mode;
    float strength;
} settings;

// Simulation matrices of Machado, Oliveira and Fernandes (2009) at severity 1, on linear RGB,
// written column by column (GLSL's order: the paper's rows are read down the columns).
const mat3 cvd[3] = mat3[](
    mat3(0.152286, 0.114503, -0.003882, 1.052583, 0.786281, -0.048116, -0.204868, 0.099216, 1.051998),
    mat3(0.367322, 0.280085, -0.011820, 0.860646, 0.672501, 0.042940, -0.227968, 0.047413, 0.968881),
    mat3(1.255528, -0.078411, 0.004733, -0.076749, 0.930809, 0.691367, -0.178779, 0.147602, 0.303900));

vec4 rill_effect(vec2 uv, vec4 color) {
    vec3 lin = pow(clamp(color.rgb, 0.0, 1.0), vec3(2.2));
    vec3 sim = clamp(cvd[min(settings.mode, 2u)] * lin, 0.0, 1.0);
    return vec4(mix(color.rgb, pow(sim, vec3(1.0 / 2.2)), settings.strength), 1.0);
}
