/* cli_debug_view.c: the debug panels of `rill render --debug-view` and the viewer's F9
 * (rill/render/debug.h): the panel each name selects with the settings a tool uses for it, and
 * the material resolver's pick (the entity under a pixel, in any channel) described as overlay
 * text and as one JSON line for tools. */
#include "cmds.h"

#include <stdio.h>
#include <string.h>

#include "rill/app.h"
#include "rill/channels.h"

rill_render_debug_desc rill_cli_debug_desc(rill_render_panel panel, bool observe) {
    rill_render_debug_desc d = {.panel = panel};
    /* Culling: the camera's frustum frozen, so a flight (or the observer) shows what it keeps. */
    d.freeze_culling = panel == RILL_RENDER_PANEL_CULLING;
    d.observe =
        observe && (panel == RILL_RENDER_PANEL_CULLING || panel == RILL_RENDER_PANEL_CAMERAS);
    return d;
}

/* The camera's field of view with its default (rill_render_view: 0 = 0.8 rad). */
static float fov_of(const rill_render_view *v) {
    return v->fov_y > 0.0f ? v->fov_y : 0.8f;
}

bool rill_cli_debug_material(rill_content *c, rill_renderer *r, const rill_render_snapshot *snap,
                             float x, float y, float w, float h, char *text, size_t text_cap,
                             char *json, size_t json_cap) {
    rill_app *app = rill_content_app(c);
    rill_world *world = rill_app_world(app);
    const rill_app_terrain *terrain = rill_content_terrain(c);
    /* Any channel is pickable here: the resolver describes what is drawn, selectable or not. */
    rill_pick_desc d = {.channels = ~0ull,
                        .terrain = terrain ? rill_app_terrain_system(terrain) : NULL};
    rill_render_pick_source(r, &d);
    const rill_render_view *v = &snap->view;
    rill_pick_hit hit;
    bool got = rill_channels_screen_ray(v->world_from_view, v->orthographic, fov_of(v),
                                        v->ortho_height, x, y, w, h, d.origin, d.dir) &&
               rill_channels_pick(world, rill_app_assets(app), &d, &hit);
    if (!got) {
        snprintf(text, text_cap, "[material] pixel %.0f,%.0f: nothing drawn there\n", (double)x,
                 (double)y);
        snprintf(json, json_cap, "{\"pick\":[%.0f,%.0f],\"entity\":null}", (double)x, (double)y);
        return false;
    }
    const char *name = rill_channels_pick_name(world, hit.entity);
    uint32_t index = RILL_ENTITY_INDEX(hit.entity), gen = RILL_ENTITY_GENERATION(hit.entity);
    uint64_t mask = rill_channels_get(world, hit.entity);
    rill_render_assets *ra = rill_app_models_render_assets(rill_content_models(c));
    rill_render_instance_info info;
    bool described = rill_render_describe_instance(r, ra, snap, hit.entity, &info);
    size_t n = (size_t)snprintf(
        text, text_cap, "[material] %s (entity %u:%u) at %.1f m, channels 0x%llx\n",
        name ? name : "(unnamed)", index, gen, (double)hit.distance, (unsigned long long)mask);
    if (n < text_cap) {
        if (described) {
            rill_render_instance_info_text(&info, text + n, text_cap - n);
        } else {
            snprintf(text + n, text_cap - n,
                     "not drawn as an instance of its own this frame (a static batch draws it)\n");
        }
    }
    int k =
        snprintf(json, json_cap, "{\"pick\":[%.0f,%.0f],\"entity\":\"%u:%u\",\"name\":", (double)x,
                 (double)y, index, gen);
    size_t m = k > 0 ? (size_t)k : 0;
    if (m < json_cap) {
        /* Names come from scene files: escape what JSON cannot hold as it is. */
        char esc[256];
        size_t e = 0;
        for (const char *p = name; p && *p && e + 7 < sizeof(esc); p++) {
            unsigned char ch = (unsigned char)*p;
            if (ch == '"' || ch == '\\') {
                esc[e++] = '\\', esc[e++] = (char)ch;
            } else if (ch < 0x20) {
                e += (size_t)snprintf(esc + e, sizeof(esc) - e, "\\u%04x", ch);
            } else {
                esc[e++] = (char)ch;
            }
        }
        esc[e] = 0;
        k = name ? snprintf(json + m, json_cap - m, "\"%s\"", esc)
                 : snprintf(json + m, json_cap - m, "null");
        m += k > 0 ? (size_t)k : 0;
    }
    if (m < json_cap) {
        k = snprintf(json + m, json_cap - m,
                     ",\"distance\":%.3f,\"channels\":%llu,\"drawn\":", (double)hit.distance,
                     (unsigned long long)mask);
        m += k > 0 ? (size_t)k : 0;
    }
    if (m < json_cap) {
        if (described) {
            m += rill_render_instance_info_json(&info, json + m, json_cap - m);
        } else {
            m += (size_t)snprintf(json + m, json_cap - m, "null");
        }
    }
    if (m < json_cap) {
        snprintf(json + m, json_cap - m, "}");
    }
    return true;
}
