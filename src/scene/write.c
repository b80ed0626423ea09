/* write.c: the canonical .rsn writer (world -> text). See docs/formats/rsn.md, "Canonical form":
 * the reader and this writer agree so that reading and writing a canonical file gives the same
 * bytes, which keeps scene files stable under version control.
 */
#include "scene_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One component of an entity, ready to be sorted by name. */
typedef struct wcomp {
    const char *name;
    uint32_t name_len;
    const rill_type_desc *type; /* NULL: a verbatim block */
    const void *data;
    const char *raw;
    uint32_t raw_len;
} wcomp;

static int wcomp_cmp(const void *a, const void *b) {
    const wcomp *x = a, *y = b;
    uint32_t n = RILL_MIN(x->name_len, y->name_len);
    int c = memcmp(x->name, y->name, n);
    if (c != 0) {
        return c;
    }
    return (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

typedef struct writer {
    rill_world *world;
    rill_strbuf *sb;
    rill_map ids; /* entity -> file id */
    bool ok;
} writer;

static void put(writer *w, const char *s, size_t n) {
    w->ok = w->ok && rill_strbuf_append(w->sb, s, n);
}
static void puts_(writer *w, const char *s) {
    put(w, s, strlen(s));
}

/* Entity fields are written as references to the file's ids (&N; none for an entity outside the
 * written set). */
static bool write_ref(void *user, rill_entity e, uint64_t *out_id) {
    const writer *w = user;
    return rill_map_get(&w->ids, e, out_id);
}

static void write_component(writer *w, const wcomp *c) {
    if (!c->type) {
        puts_(w, "    ");
        put(w, c->raw, c->raw_len);
        puts_(w, "\n");
        return;
    }
    const rill_type_desc *ty = c->type;
    /* Values in reflection's text form, the syntax the reader parses, with .rsn's asset paths
     * (@"...") and entity references. */
    const rill_field_text opt = {
        .flags = RILL_FIELD_TEXT_ASSET_AT, .user = w, .ref_format = write_ref};
    puts_(w, "    ");
    puts_(w, ty->name);
    uint32_t written = 0;
    for (uint32_t k = 0; k < ty->field_count; k++) {
        const rill_field *f = &ty->fields[k];
        if (f->flags & RILL_FIELD_NO_SERIALIZE) {
            continue;
        }
        if (f->type <= RILL_FIELD_NONE || f->type >= RILL_FIELD_TYPE_NUM) {
            continue;
        }
        puts_(w, written ? "        " : " {\n        ");
        written++;
        puts_(w, f->name);
        puts_(w, ": ");
        w->ok = w->ok && rill_field_format_ex(f, c->data, &opt, w->sb);
        puts_(w, "\n");
    }
    puts_(w, written ? "    }\n" : " {}\n");
}

rill_result rill_scene_write(rill_world *world, const rill_entity *roots, uint32_t count,
                             const rill_scene_write_desc *desc, rill_strbuf *out, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_scene_write", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    if (!world || !out || (!roots && count)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_scene_write: %s",
                              !world ? "no world"
                              : !out ? "no output"
                                     : "no roots");
    }
    rill_scene_components sc = rill_scene_register(world);
    bool include_content = desc && desc->include_instance_content;
    writer w = {.world = world, .sb = out, .ok = true};
    RILL_ARRAY(rill_entity) order = {0};
    RILL_ARRAY(rill_entity) stack = {0};
    RILL_ARRAY(rill_component) comps = {0};
    RILL_ARRAY(wcomp) items = {0};
    /* Depth-first preorder: push children in reverse so the first child pops first. */
    for (uint32_t r = 0; r < count && w.ok; r++) {
        if (!rill_world_is_alive(world, roots[r]) || rill_map_get(&w.ids, roots[r], NULL)) {
            continue;
        }
        w.ok = rill_array_push(&stack, roots[r]);
        while (w.ok && stack.len) {
            rill_entity e = rill_array_pop(&stack);
            if (rill_map_get(&w.ids, e, NULL)) {
                continue;
            }
            w.ok = rill_array_push(&order, e) && rill_map_set(&w.ids, e, order.len);
            if (!include_content && sc.instance.id && rill_world_has(world, e, sc.instance)) {
                continue;
            }
            uint32_t nc = rill_world_child_count(world, e);
            rill_entity *slot = nc ? rill_array_push_n(&stack, nc) : NULL;
            if (nc && !slot) {
                w.ok = false;
                break;
            }
            uint32_t i = nc;
            for (rill_entity c = rill_world_first_child(world, e); c && i;
                 c = rill_world_next_sibling(world, c)) {
                slot[--i] = c;
            }
            /* A child list shorter than its count would leave holes: drop them. */
            if (i) {
                memmove(slot, slot + i, (nc - i) * sizeof *slot);
                stack.len -= i;
            }
        }
    }
    char buf[96];
    puts_(&w, "rsn 1\n");
    rill_component name_comp = rill_world_builtin(world)->name;
    for (uint32_t i = 0; i < order.len && w.ok; i++) {
        rill_entity e = order.data[i];
        int n = snprintf(buf, sizeof buf, "\nentity %u", i + 1u);
        put(&w, buf, (size_t)n);
        uint64_t pid;
        rill_entity parent = rill_world_get_parent(world, e);
        if (parent && rill_map_get(&w.ids, parent, &pid)) {
            n = snprintf(buf, sizeof buf, " parent %" PRIu64, pid);
            put(&w, buf, (size_t)n);
        }
        const char *name = rill_world_get_name(world, e);
        if (name) {
            put(&w, " ", 1);
            w.ok = w.ok && rill_text_quote(out, name, strlen(name));
        }
        puts_(&w, " {\n");
        uint32_t nc = rill_world_entity_components(world, e, comps.data, comps.cap);
        if (nc > comps.cap) {
            if (!rill_array_reserve(&comps, nc)) {
                w.ok = false;
                break;
            }
            nc = rill_world_entity_components(world, e, comps.data, comps.cap);
        }
        rill_array_clear(&items);
        for (uint32_t k = 0; k < nc && w.ok; k++) {
            rill_component c = comps.data[k];
            const rill_type_desc *ty = rill_world_component_type(world, c);
            const void *data = rill_world_get(world, e, c);
            if (!ty || !data || c.id == name_comp.id) {
                continue;
            }
            if (c.id == sc.unknown.id) {
                /* Verbatim blocks, separated by 0x01; each one's name is its first word. */
                const char *s = ((const rill_scene_unknown *)data)->blocks;
                while (s && *s && w.ok) {
                    const char *end = strchr(s, '\x01');
                    uint32_t len = end ? (uint32_t)(end - s) : (uint32_t)strlen(s);
                    uint32_t nl = 0;
                    while (nl < len && s[nl] != ' ' && s[nl] != '{' && s[nl] != '\t' &&
                           s[nl] != '\n' && s[nl] != '\r' && s[nl] != '#') {
                        nl++;
                    }
                    wcomp wc = {.name = s, .name_len = nl, .raw = s, .raw_len = len};
                    w.ok = rill_array_push(&items, wc);
                    s = end ? end + 1 : s + len;
                }
                continue;
            }
            if (ty->flags & (RILL_TYPE_NO_SERIALIZE | RILL_TYPE_MANAGED)) {
                continue;
            }
            wcomp wc = {
                .name = ty->name, .name_len = (uint32_t)strlen(ty->name), .type = ty, .data = data};
            w.ok = rill_array_push(&items, wc);
        }
        if (items.len > 1) {
            qsort(items.data, items.len, sizeof *items.data, wcomp_cmp);
        }
        for (uint32_t k = 0; k < items.len && w.ok; k++) {
            write_component(&w, &items.data[k]);
        }
        puts_(&w, "}\n");
    }
    bool ok = w.ok;
    rill_array_free(&order);
    rill_array_free(&stack);
    rill_array_free(&comps);
    rill_array_free(&items);
    rill_map_free(&w.ids);
    if (!ok) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_scene_write: out of memory");
    }
    return RILL_OK;
}

rill_result rill_scene_save(rill_world *world, const rill_entity *roots, uint32_t count,
                            const rill_scene_write_desc *desc, const char *os_path,
                            rill_error *err) {
    if (!os_path) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_scene_save: no path");
    }
    rill_strbuf sb = {0};
    rill_result r = rill_scene_write(world, roots, count, desc, &sb, err);
    if (r == RILL_OK) {
        r = rill_file_write_all(os_path, sb.data, sb.len, err);
    }
    rill_strbuf_free(&sb);
    return r;
}
