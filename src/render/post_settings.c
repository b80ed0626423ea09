/* post_settings.c: the ColorGrading, DepthOfField and MotionBlur settings components (routed to
 * cameras like Bloom) and the clamping of what reaches the GPU: a value that is not finite or out
 * of range is replaced, with one warning naming the entity, the component and the field. */
#include "post_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static const float f_zero3[3] = {0, 0, 0}, f_one3[3] = {1, 1, 1};
static const float f_one = 1.0f, f_ten = 10.0f, f_sensor = 0.01866f, f_coc = 64.0f,
                   f_shutter = 180.0f;
static const uint32_t u_samples = 8;

#define F32(st, f, lo, hi, def, text)                                                              \
    {                                                                                              \
        .name = #f, .type = RILL_FIELD_F32, .offset = offsetof(st, f),                             \
        .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = lo, .max = hi,                    \
        .default_value = def, .doc = text                                                          \
    }
#define VEC3(st, f, lo, hi, def, text)                                                             \
    {                                                                                              \
        .name = #f, .type = RILL_FIELD_VEC3, .offset = offsetof(st, f),                            \
        .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = lo, .max = hi,                    \
        .default_value = def, .doc = text                                                          \
    }

static const rill_field grading_fields[] = {
    F32(rill_render_color_grading, exposure, -16, 16, NULL, "EV added to the camera's exposure"),
    F32(rill_render_color_grading, temperature, -1, 1, NULL,
        "white balance: negative cooler (bluer), positive warmer"),
    F32(rill_render_color_grading, tint, -1, 1, NULL,
        "white balance: negative greener, positive more magenta"),
    F32(rill_render_color_grading, contrast, 0, 4, &f_one,
        "around middle grey (0.18); 1 unchanged"),
    F32(rill_render_color_grading, saturation, 0, 4, &f_one, "0 grey, 1 unchanged"),
    VEC3(rill_render_color_grading, lift, -1, 1, f_zero3,
         "raises the blacks (display-encoded colour): gain * (x + lift * (1 - x))"),
    VEC3(rill_render_color_grading, gamma, 0.01, 10, f_one3, "midtones: x^(1 / gamma)"),
    VEC3(rill_render_color_grading, gain, 0, 16, f_one3, "scales the whites"),
    {.name = "lut",
     .type = RILL_FIELD_ASSET_PATH,
     .offset = offsetof(rill_render_color_grading, lut),
     .doc = "Adobe/Resolve .cube 3D table applied after tonemapping (project path; empty: none)"},
};

static const rill_enum_item dof_modes[] = {{"Gaussian", RILL_DOF_GAUSSIAN},
                                           {"Bokeh", RILL_DOF_BOKEH}};
static const rill_field dof_fields[] = {
    {.name = "mode",
     .type = RILL_FIELD_ENUM,
     .offset = offsetof(rill_render_dof, mode),
     .enum_items = dof_modes,
     .enum_count = 2,
     .doc = "Gaussian (separable blur, default) or Bokeh (disc-shaped gather)"},
    F32(rill_render_dof, focal_distance, 0.01, 1e6, &f_ten, "metres in focus"),
    F32(rill_render_dof, aperture_f_stops, 0.01, 1000, &f_one, "f-number: lower is blurrier"),
    F32(rill_render_dof, sensor_height, 0.001, 1, &f_sensor,
        "metres (Super 35); with the camera's fov gives the focal length"),
    F32(rill_render_dof, max_circle_of_confusion, 0, 128, &f_coc,
        "largest blur diameter, pixels of the 3D image"),
};

static const rill_field motion_fields[] = {
    F32(rill_render_motion_blur, shutter_angle, 0, 360, &f_shutter,
        "degrees of a frame the shutter is open (360: the whole frame's motion)"),
    {.name = "samples",
     .type = RILL_FIELD_U32,
     .offset = offsetof(rill_render_motion_blur, samples),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 1,
     .max = 64,
     .default_value = &u_samples,
     .doc = "colour samples along each pixel's motion"},
};
#undef F32
#undef VEC3

static const float f_white[4] = {1, 1, 1, 1}, f_fade0 = 60.0f, f_fade1 = 80.0f;
static const rill_field decal_fields[] = {
    {.name = "base_color",
     .type = RILL_FIELD_COLOR,
     .offset = offsetof(rill_render_forward_decal, base_color),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 0,
     .max = 1,
     .default_value = f_white,
     .doc = "albedo laid on the surfaces in the box (linear); alpha = opacity"},
    {.name = "angle_fade_start",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_forward_decal, angle_fade_start),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 0,
     .max = 180,
     .default_value = &f_fade0,
     .doc = "degrees between a surface's normal and the box's +Y where the decal starts to fade"},
    {.name = "angle_fade_end",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_forward_decal, angle_fade_end),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 0,
     .max = 180,
     .default_value = &f_fade1,
     .doc = "degrees where it is gone"},
    {.name = "albedo",
     .type = RILL_FIELD_ASSET_PATH,
     .offset = offsetof(rill_render_forward_decal, albedo),
     .doc = "sRGB colour map times base_color; its alpha masks the whole decal (empty: none)"},
    {.name = "normal",
     .type = RILL_FIELD_ASSET_PATH,
     .offset = offsetof(rill_render_forward_decal, normal),
     .doc = "tangent-space normal map (u along +X, v along +Z; empty: none)"},
    {.name = "roughness",
     .type = RILL_FIELD_ASSET_PATH,
     .offset = offsetof(rill_render_forward_decal, roughness),
     .doc = "roughness in the green channel (a glTF metallic-roughness map or a grey image)"},
    {.name = "normal_strength",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_forward_decal, normal_strength),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 0,
     .max = 1,
     .default_value = &f_one,
     .doc = "how far the normal map replaces the surface's normal"},
    {.name = "roughness_strength",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_forward_decal, roughness_strength),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 0,
     .max = 1,
     .default_value = &f_one,
     .doc = "how far the roughness map replaces the surface's roughness"},
};

/* ForwardDecal: a spatial component (one per decal entity), not a routed setting. */
static rill_result register_decal(rill_world *w, rill_error *err) {
    static const rill_render_forward_decal decal_default = {.base_color = {1, 1, 1, 1},
                                                            .angle_fade_start = 60.0f,
                                                            .angle_fade_end = 80.0f,
                                                            .normal_strength = 1.0f,
                                                            .roughness_strength = 1.0f};
    rill_type_desc d = {.name = "ForwardDecal",
                        RILL_TYPE_LAYOUT(rill_render_forward_decal),
                        RILL_FIELDS(decal_fields),
                        .defaults = &decal_default,
                        .doc =
                            "a box (the entity's transform) painting colour, normal and roughness "
                            "maps onto the opaque and transparent surfaces inside it, projected "
                            "along its -Y"};
    return rill__render_type_ensure(w, &d, err).id ? RILL_OK : RILL_ERR_INVALID_ARGUMENT;
}

rill_result rill__post_register_components(rill_world *w, rill_render_components *out,
                                           rill_error *err) {
    RILL_TRY(register_decal(w, err));
    static const rill_render_color_grading grading_default = {
        .contrast = 1, .saturation = 1, .gamma = {1, 1, 1}, .gain = {1, 1, 1}};
    static const rill_render_dof dof_default = {RILL_DOF_GAUSSIAN, 10.0f, 1.0f, 0.01866f, 64.0f};
    static const rill_render_motion_blur motion_default = {180.0f, 8};
    const rill_type_desc d[3] = {
        {.name = "ColorGrading",
         RILL_TYPE_LAYOUT(rill_render_color_grading),
         RILL_FIELDS(grading_fields),
         .defaults = &grading_default,
         .doc = "exposure, white balance, contrast, saturation, lift/gamma/gain and a .cube "
                "table, routed to cameras"},
        {.name = "DepthOfField",
         RILL_TYPE_LAYOUT(rill_render_dof),
         RILL_FIELDS(dof_fields),
         .defaults = &dof_default,
         .doc = "depth of field (thin lens; Gaussian or bokeh blur), routed to cameras; off at "
                "Low"},
        {.name = "MotionBlur",
         RILL_TYPE_LAYOUT(rill_render_motion_blur),
         RILL_FIELDS(motion_fields),
         .defaults = &motion_default,
         .doc = "motion blur along camera and per-object motion vectors, routed to cameras; off "
                "at Low"},
    };
    return rill__render_settings_ensure(w, d, 3, out, NULL, err);
}

rill_entity rill__post_source(const rill_render_view *v, const char *type) {
    for (uint32_t i = 0; v && i < v->settings_count; i++) {
        if (v->settings[i].type && strcmp(v->settings[i].type, type) == 0) {
            return v->settings[i].source;
        }
    }
    return 0;
}

typedef rill__fix_src fix_src;

static void fix3(const fix_src *s, const char *field, float *v, float lo, float hi, float def) {
    for (int k = 0; k < 3; k++) {
        v[k] = rill__fix(s, field, v[k], lo, hi, def);
    }
}

void rill__post_fix_grading(rill_renderer *r, rill_entity src, rill_render_color_grading *g) {
    fix_src s = {&r->post->warned, "ColorGrading", src};
    g->exposure = rill__fix(&s, "exposure", g->exposure, -16, 16, 0);
    g->temperature = rill__fix(&s, "temperature", g->temperature, -1, 1, 0);
    g->tint = rill__fix(&s, "tint", g->tint, -1, 1, 0);
    g->contrast = rill__fix(&s, "contrast", g->contrast, 0, 4, 1);
    g->saturation = rill__fix(&s, "saturation", g->saturation, 0, 4, 1);
    fix3(&s, "lift", g->lift, -1, 1, 0);
    fix3(&s, "gamma", g->gamma, 0.01f, 10, 1);
    fix3(&s, "gain", g->gain, 0, 16, 1);
}

void rill__post_fix_dof(rill_renderer *r, rill_entity src, rill_render_dof *d) {
    fix_src s = {&r->post->warned, "DepthOfField", src};
    if ((unsigned)d->mode >= RILL_DOF_MODE_NUM) {
        rill__fix_warn(&s, "mode", (double)d->mode, 0.0);
        d->mode = RILL_DOF_GAUSSIAN;
    }
    d->focal_distance = rill__fix(&s, "focal_distance", d->focal_distance, 0.01f, 1e6f, 10);
    d->aperture_f_stops = rill__fix(&s, "aperture_f_stops", d->aperture_f_stops, 0.01f, 1000, 1);
    d->sensor_height = rill__fix(&s, "sensor_height", d->sensor_height, 0.001f, 1, 0.01866f);
    d->max_circle_of_confusion =
        rill__fix(&s, "max_circle_of_confusion", d->max_circle_of_confusion, 0, 128, 64);
}

void rill__post_fix_motion_blur(rill_renderer *r, rill_entity src, rill_render_motion_blur *m) {
    fix_src s = {&r->post->warned, "MotionBlur", src};
    m->shutter_angle = rill__fix(&s, "shutter_angle", m->shutter_angle, 0, 360, 180);
    if (m->samples < 1 || m->samples > 64) {
        uint32_t now = m->samples < 1 ? 1u : 64u;
        rill__fix_warn(&s, "samples", (double)m->samples, (double)now);
        m->samples = now;
    }
}
