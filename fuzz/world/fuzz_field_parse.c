/* fuzz_field_parse.c: libFuzzer target for rill_field_parse(_ex), the text reader of reflected
 * field values (scene files feed it untrusted text). The first input byte picks a field of the
 * tests' every_field struct (tests/every_field.h: every type, arrays, bounds; low bits) and whether
 * to parse the way the scene reader does, with clamping, entity references and asset hooks (high
 * bit); the rest is the text. A successful parse is formatted and parsed again, and must give the
 * same text (the round trip the scene writer relies on). */
#include "every_field.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_warn(void *user, size_t pos, const char *msg) {
    if (pos > *(const size_t *)user || msg == NULL) {
        __builtin_trap();
    }
}

/* Reference &id is the entity with index id; written back the same way. */
static bool on_ref(void *user, uint32_t id, uint32_t elem, size_t pos, rill_entity *out) {
    if (pos > *(const size_t *)user || id == 0 || elem > 1) {
        __builtin_trap();
    }
    *out = RILL_ENTITY_MAKE(id, 1);
    return true;
}

static bool on_ref_format(void *user, rill_entity e, uint64_t *out_id) {
    (void)user;
    *out_id = RILL_ENTITY_INDEX(e);
    return true;
}

static const char *on_asset(void *user, const char *path, size_t pos) {
    if (pos > *(const size_t *)user || path == NULL) {
        __builtin_trap();
    }
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) {
        return 0;
    }
    const rill_type_desc type = every_field_type("Every");
    const rill_field *f = &type.fields[(data[0] & 0x7f) % type.field_count];
    size_t len = size - 1;
    const rill_field_text scene = {.flags = RILL_FIELD_TEXT_CLAMP | RILL_FIELD_TEXT_ASSET_AT,
                                   .user = &len,
                                   .warn = on_warn,
                                   .entity_ref = on_ref,
                                   .ref_format = on_ref_format,
                                   .asset_path = on_asset};
    const rill_field_text *opt = (data[0] & 0x80) ? &scene : NULL;
    every_field a, b;
    rill_type_apply_defaults(&type, &a);
    size_t used = 0;
    rill_error err = {0};
    rill_result r = rill_field_parse_ex(f, &a, (const char *)data + 1, len, opt, &used, &err);
    if (used > len) {
        __builtin_trap();
    }
    if (r != RILL_OK) {
        return 0;
    }
    rill_strbuf sb = {0};
    if (!rill_field_format_ex(f, &a, opt, &sb)) {
        __builtin_trap();
    }
    rill_type_apply_defaults(&type, &b);
    len = sb.len;
    if (rill_field_parse_ex(f, &b, sb.data, sb.len, opt, &used, &err) != RILL_OK ||
        used != sb.len) {
        __builtin_trap();
    }
    /* NaN never equals itself; compare the text forms instead of the values then. */
    rill_strbuf sb2 = {0};
    rill_field_format_ex(f, &b, opt, &sb2);
    if (sb.len != sb2.len || memcmp(sb.data, sb2.data, sb.len) != 0) {
        __builtin_trap();
    }
    rill_strbuf_free(&sb);
    rill_strbuf_free(&sb2);
    return 0;
}
