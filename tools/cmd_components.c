/* cmd_components.c: `rill components [NAME] [--markdown]` prints every component the engine
 * registers (rill_app_register_components), grouped by module, with each field's type, default,
 * range and enum values, straight from the reflection registry. docs/components.md is the
 * --markdown output; a test keeps the two equal. */
#include "cmds.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f, "usage: rill components [NAME] [--markdown]\n"
               "  NAME        print only this component (e.g. PointLight)\n"
               "  --markdown  print the reference as Markdown (docs/components.md is this output)\n"
               "Lists every component the engine registers, by module, with each field's type,\n"
               "default, range and enum values, from the reflection registry.\n");
}

/* "vec3", "f32[4]", "enum". */
static void type_text(const rill_field *f, char *buf, size_t cap) {
    uint32_t n = rill_field_count(f);
    if (n > 1) {
        snprintf(buf, cap, "%s[%u]", rill_field_type_name(f->type), n);
    } else {
        snprintf(buf, cap, "%s", rill_field_type_name(f->type));
    }
}

/* "[0, 1]", ">= 0", "<= 10" or "". */
static void range_text(const rill_field *f, char *buf, size_t cap) {
    bool lo = f->flags & RILL_FIELD_HAS_MIN, hi = f->flags & RILL_FIELD_HAS_MAX;
    if (lo && hi) {
        snprintf(buf, cap, "[%g, %g]", f->min, f->max);
    } else if (lo) {
        snprintf(buf, cap, ">= %g", f->min);
    } else if (hi) {
        snprintf(buf, cap, "<= %g", f->max);
    } else {
        buf[0] = 0;
    }
}

/* Enum names, runtime-only, and the doc line, joined with "; ". */
static void notes_text(const rill_field *f, rill_strbuf *sb) {
    if (f->type == RILL_FIELD_ENUM && f->enum_count) {
        rill_strbuf_printf(sb, "one of");
        for (uint32_t i = 0; i < f->enum_count; i++) {
            rill_strbuf_printf(sb, "%s %s", i ? "," : "", f->enum_items[i].name);
        }
    }
    if (f->flags & RILL_FIELD_NO_SERIALIZE) {
        rill_strbuf_printf(sb, "%sruntime only (not saved)", sb->len ? "; " : "");
    }
    if (f->doc && f->doc[0]) {
        rill_strbuf_printf(sb, "%s%s", sb->len ? "; " : "", f->doc);
    }
}

static const char *type_flags_text(const rill_type_desc *t) {
    if (t->flags & RILL_TYPE_MANAGED) {
        return "maintained by the world (not added by hand, not saved)";
    }
    if (t->flags & RILL_TYPE_NO_SERIALIZE) {
        return "runtime only (not saved in scene files)";
    }
    return NULL;
}

static void print_component(const rill_type_desc *t, const char *module, bool md, void *obj) {
    memset(obj, 0, t->size);
    rill_type_apply_defaults(t, obj);
    const char *flags = type_flags_text(t);
    if (md) {
        printf("### %s\n\n", t->name);
        if (t->doc && t->doc[0]) {
            printf("%s\n\n", t->doc);
        }
        if (flags) {
            printf("Note: %s.\n\n", flags);
        }
        if (!t->field_count) {
            printf("No fields (a marker).\n\n");
            return;
        }
        printf("| field | type | default | range | notes |\n| --- | --- | --- | --- | --- |\n");
    } else {
        printf("%s (%s)%s%s%s%s\n", t->name, module, t->doc && t->doc[0] ? ": " : "",
               t->doc ? t->doc : "", flags ? "; " : "", flags ? flags : "");
    }
    for (uint32_t i = 0; i < t->field_count; i++) {
        const rill_field *f = &t->fields[i];
        char type[32], range[64];
        type_text(f, type, sizeof(type));
        range_text(f, range, sizeof(range));
        rill_strbuf def = {0}, notes = {0};
        rill_field_format(f, obj, &def);
        notes_text(f, &notes);
        const char *d = def.data ? def.data : "";
        const char *n = notes.data ? notes.data : "";
        if (md) {
            printf("| `%s` | %s | `%s` | %s | %s |\n", f->name, type, d, range, n);
        } else {
            printf("  %-18s %-10s = %s%s%s%s%s\n", f->name, type, d, range[0] ? "  " : "", range,
                   n[0] ? "  " : "", n);
        }
        rill_strbuf_free(&def);
        rill_strbuf_free(&notes);
    }
    printf("\n");
}

/* The name of component id i of the world ctx (ids start at 1: 0 has none). */
static const char *component_name_at(const void *ctx, uint32_t i) {
    return i ? rill_world_component_type((rill_world *)ctx, (rill_component){i})->name : NULL;
}

int rill_cmd_components(int argc, char **argv) {
    const char *only = NULL;
    bool md = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--markdown") == 0) {
            md = true;
        } else if (argv[i][0] == '-' || only) {
            fprintf(stderr, "rill components: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            only = argv[i];
        }
    }
    rill_world *w = rill_world_create(NULL, NULL);
    if (!w) {
        fprintf(stderr, "rill components: out of memory\n");
        return 1;
    }
    rill_app_component_group groups[RILL_APP_COMPONENT_GROUPS];
    uint32_t ngroups = 0;
    rill_error err = {0};
    int rc = 1;
    void *obj = NULL;
    if (rill_app_register_components(w, groups, &ngroups, &err) != RILL_OK) {
        fprintf(stderr, "rill components: %s\n", err.msg);
        goto done;
    }
    size_t biggest = 16;
    for (uint32_t id = 1; id <= rill_world_component_count(w); id++) {
        biggest =
            RILL_MAX(biggest, (size_t)rill_world_component_type(w, (rill_component){id})->size);
    }
    obj = rill_calloc(1, biggest);
    if (!obj) {
        fprintf(stderr, "rill components: out of memory\n");
        goto done;
    }
    if (only) {
        rill_component c = rill_world_find_component(w, only);
        if (!c.id) {
            const char *near = rill_suggest_name(only, strlen(only), component_name_at, w,
                                                 rill_world_component_count(w) + 1u);
            fprintf(stderr, "rill components: no component '%s'%s%s%s (run `rill components`)\n",
                    only, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            goto done;
        }
        const char *module = "";
        for (uint32_t g = 0; g < ngroups; g++) {
            if (c.id >= groups[g].first.id && c.id < groups[g].first.id + groups[g].count) {
                module = groups[g].module;
            }
        }
        print_component(rill_world_component_type(w, c), module, md, obj);
        rc = 0;
        goto done;
    }
    if (md) {
        printf(
            "# Components\n\n"
            "Every component the engine registers, by module, from the reflection registry.\n"
            "This page is the output of `rill components --markdown` (the `cli_components_doc`\n"
            "test fails when the two differ: regenerate it with\n"
            "`rill components --markdown > docs/components.md`). Scene files (.rsn) write\n"
            "components by these names and fields; a missing field takes its default, and a\n"
            "value outside its range is clamped with a warning (`rill scene check` reports it).\n"
            "A quat field (a rotation) takes `(x, y, z, w)` or Euler angles in degrees,\n"
            "`euler(pitch, yaw, roll)`; cameras and lights face their -Z axis. Types:\n"
            "docs/formats/rsn.md, docs/scenes.md.\n\n");
    }
    for (uint32_t g = 0; g < ngroups; g++) {
        if (md) {
            printf("## %s\n\n", groups[g].module);
        }
        for (uint32_t i = 0; i < groups[g].count; i++) {
            print_component(rill_world_component_type(w, (rill_component){groups[g].first.id + i}),
                            groups[g].module, md, obj);
        }
    }
    rc = 0;
done:
    rill_free(obj);
    rill_world_destroy(w);
    return rc;
}
