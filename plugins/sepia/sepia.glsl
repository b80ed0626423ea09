layout(set = 0, binding = 2) uniform Settings {
    float strength;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    vec3 s = vec3(dot(color.rgb, vec3(0.393, 0.769, 0.189)), dot(color.rgb, vec3(0.349, 0.686, 0.168)),
                  dot(color.rgb, vec3(0.272, 0.534, 0.131)));
    return vec4(mix(color.rgb, min(s, vec3(1.0)), settings.strength), 1.0);
}
