/* test_fx.c: a plugin built three ways for the hot-reload tests (TEST_FX_VARIANT):
 * 1 = TestFx scales the colour by `gain`; 2 = the same settings layout, the colour inverted
 * (a library swap must show it); 3 = a changed layout (a second field), which a reload refuses. */
#include "rill/plugin.h"

#define TEST_FX_STR2(x) #x
#define TEST_FX_STR(x) TEST_FX_STR2(x)
#define TEST_FX_NAME "1." TEST_FX_STR(TEST_FX_VARIANT)

#if TEST_FX_VARIANT == 1
#define BODY "vec4 rill_effect(vec2 uv, vec4 c) { return vec4(c.rgb * settings.gain, 1.0); }\n"
#else
#define BODY "vec4 rill_effect(vec2 uv, vec4 c) { return vec4(1.0 - c.rgb, 1.0); }\n"
#endif

static const rill_plugin_field fields[] = {
    {"gain", RILL_PLUGIN_FIELD_F32, 0, {0.5f, 0, 0, 0}, 1, 0.0f, 4.0f, "colour scale"},
#if TEST_FX_VARIANT == 3
    {"bias", RILL_PLUGIN_FIELD_F32, 4, {0.0f, 0, 0, 0}, 0, 0.0f, 0.0f, "added"},
#endif
};

static const rill_plugin_api api = {RILL_PLUGIN_ABI_MAJOR,
                                    RILL_PLUGIN_ABI_MINOR,
                                    sizeof(rill_plugin_api),
                                    "test_fx",
                                    TEST_FX_NAME,
                                    NULL};

RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);

const rill_plugin_api *rill_plugin_entry(const rill_host_api *host) {
    rill_plugin_effect_desc d = {
        sizeof(d),
        "TestFx",
        "layout(set = 0, binding = 2) uniform Settings { float gain; } settings;\n" BODY,
        NULL,
        16,
        fields,
        sizeof(fields) / sizeof(fields[0]),
        RILL_PLUGIN_PHASE_LDR_POST,
        10};
    host->add_post_process(host->host, &d);
    return &api;
}
