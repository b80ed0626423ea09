/* reflect_text.c: the text form of reflected field values, the one value syntax that .rsn files,
 * the CLI's field=value settings and tests share (docs/formats/rsn.md, "Grammar" and "Meaning of
 * values"). rill_field_parse(_ex) reads it, rill_field_format(_ex) writes it.
 *
 * The text is hostile: every read is bounded by len, nothing is assumed NUL-terminated, arrays
 * and tuples never write past the field, and a failure leaves the object untouched. */
#include "world_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* >>format */

static bool fmt_string(rill_strbuf *out, const char *s) {
    return rill_text_quote(out, s ? s : "", s ? strlen(s) : 0);
}

static uint32_t vector_lanes(rill_field_type t) {
    return (uint32_t)(rill_field_type_size(t) / sizeof(float));
}

static bool format_entity_ref(const rill_field_text *opt, const void *elem, rill_strbuf *out) {
    rill_entity e;
    uint64_t id;
    memcpy(&e, elem, sizeof e);
    if (e != RILL_ENTITY_NULL && opt->ref_format(opt->user, e, &id)) {
        return rill_strbuf_printf(out, "&%llu", (unsigned long long)id);
    }
    return rill_strbuf_append(out, "none", 4);
}

static bool format_element(const rill_field *f, const void *elem, const rill_field_text *opt,
                           rill_strbuf *out) {
    char buf[64];
    switch (f->type) {
    case RILL_FIELD_BOOL:
        return rill_strbuf_printf(out, "%s", *(const bool *)elem ? "true" : "false");
    case RILL_FIELD_I32:
        return rill_strbuf_printf(out, "%d", (int)*(const int32_t *)elem);
    case RILL_FIELD_U32:
        return rill_strbuf_printf(out, "%u", (unsigned)*(const uint32_t *)elem);
    case RILL_FIELD_I64:
        return rill_strbuf_printf(out, "%lld", (long long)*(const int64_t *)elem);
    case RILL_FIELD_ENTITY:
        if (opt && opt->ref_format) {
            return format_entity_ref(opt, elem, out);
        }
        return rill_strbuf_printf(out, "%llu", (unsigned long long)*(const uint64_t *)elem);
    case RILL_FIELD_U64:
        return rill_strbuf_printf(out, "%llu", (unsigned long long)*(const uint64_t *)elem);
    case RILL_FIELD_F32:
        rill_num_format_f32(*(const float *)elem, buf, sizeof buf);
        return rill_strbuf_printf(out, "%s", buf);
    case RILL_FIELD_F64:
        rill_num_format_f64(*(const double *)elem, buf, sizeof buf);
        return rill_strbuf_printf(out, "%s", buf);
    case RILL_FIELD_VEC2:
    case RILL_FIELD_VEC3:
    case RILL_FIELD_VEC4:
    case RILL_FIELD_QUAT:
    case RILL_FIELD_COLOR: {
        bool ok = rill_strbuf_append(out, "(", 1);
        for (uint32_t k = 0; ok && k < vector_lanes(f->type); k++) {
            rill_num_format_f32(((const float *)elem)[k], buf, sizeof buf);
            ok = rill_strbuf_printf(out, k ? ", %s" : "%s", buf);
        }
        return ok && rill_strbuf_append(out, ")", 1);
    }
    case RILL_FIELD_ASSET_PATH:
        if (opt && (opt->flags & RILL_FIELD_TEXT_ASSET_AT) && !rill_strbuf_append(out, "@", 1)) {
            return false;
        }
        return fmt_string(out, *(const char *const *)elem);
    case RILL_FIELD_STRING:
        return fmt_string(out, *(const char *const *)elem);
    case RILL_FIELD_ENUM: {
        int32_t v = *(const int32_t *)elem;
        const char *name = rill_field_enum_name(f, v);
        return name ? rill_strbuf_printf(out, "%s", name) : rill_strbuf_printf(out, "%d", (int)v);
    }
    default:
        return rill_strbuf_append(out, "?", 1);
    }
}

bool rill_field_format_element(const rill_field *field, const void *elem, rill_strbuf *out) {
    return format_element(field, elem, NULL, out);
}

bool rill_field_format_ex(const rill_field *field, const void *obj, const rill_field_text *opt,
                          rill_strbuf *out) {
    size_t es = rill_field_type_size(field ? field->type : RILL_FIELD_NONE);
    if (field == NULL || obj == NULL || out == NULL || es == 0) {
        return false;
    }
    const char *base = (const char *)obj + field->offset;
    if (field->count <= 1) {
        return format_element(field, base, opt, out);
    }
    bool ok = rill_strbuf_append(out, "[", 1);
    for (uint32_t k = 0; ok && k < field->count; k++) {
        if (k) {
            ok = rill_strbuf_append(out, ", ", 2);
        }
        ok = ok && format_element(field, base + k * es, opt, out);
    }
    return ok && rill_strbuf_append(out, "]", 1);
}

bool rill_field_format(const rill_field *field, const void *obj, rill_strbuf *out) {
    return rill_field_format_ex(field, obj, NULL, out);
}

/* >>cursor */

typedef struct cursor {
    const char *s;
    size_t len;
    size_t pos;
    const rill_field_text *opt; /* never NULL */
    const rill_field *f;
    rill_result code;
    size_t fail_pos;
    char msg[256];
} cursor;

static bool fail_at(cursor *c, size_t pos, const char *fmt, ...) RILL_PRINTF(3, 4);
static bool fail_at(cursor *c, size_t pos, const char *fmt, ...) {
    if (c->code != RILL_OK) {
        return false;
    }
    c->code = RILL_ERR_PARSE;
    c->fail_pos = pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    return false;
}

static bool fail_oom(cursor *c) {
    fail_at(c, c->pos, "out of memory");
    c->code = RILL_ERR_OUT_OF_MEMORY;
    return false;
}

static void warn_at(cursor *c, size_t pos, const char *fmt, ...) RILL_PRINTF(3, 4);
static void warn_at(cursor *c, size_t pos, const char *fmt, ...) {
    if (!c->opt->warn) {
        return;
    }
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->opt->warn(c->opt->user, pos, msg);
}

static inline char peek(const cursor *c, size_t ahead) {
    return c->pos + ahead < c->len ? c->s[c->pos + ahead] : '\0';
}

/* Whitespace and '#' comments (to the end of the line), as between .rsn tokens. */
static inline void skip_ws(cursor *c) {
    /* Most values start right at the cursor: one test decides. */
    if (c->pos < c->len && (unsigned char)c->s[c->pos] > ' ' && c->s[c->pos] != '#') {
        return;
    }
    while (c->pos < c->len) {
        char ch = c->s[c->pos];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
            c->pos++;
        } else if (ch == '#') {
            while (c->pos < c->len && c->s[c->pos] != '\n') {
                c->pos++;
            }
        } else {
            break;
        }
    }
}

static inline bool eat(cursor *c, char ch) {
    skip_ws(c);
    if (peek(c, 0) == ch) {
        c->pos++;
        return true;
    }
    return false;
}

static inline bool is_ident_start(char ch) {
    return (unsigned)((ch | 0x20) - 'a') < 26u || ch == '_';
}

static inline bool is_ident_char(char ch) {
    return is_ident_start(ch) || (unsigned)(ch - '0') < 10u || ch == '.';
}

static inline bool is_number_start(char ch) {
    return (unsigned)(ch - '0') < 10u || ch == '-' || ch == '+' || ch == '.';
}

/* Length of the identifier at the cursor (0 when there is none). */
static size_t ident_len(const cursor *c) {
    if (!is_ident_start(peek(c, 0))) {
        return 0;
    }
    size_t n = 1;
    while (is_ident_char(peek(c, n))) {
        n++;
    }
    return n;
}

static bool ident_is(const cursor *c, size_t n, const char *word) {
    return strlen(word) == n && memcmp(c->s + c->pos, word, n) == 0;
}

/* Length of the number token at the cursor, 0 when there is none: a run of digits, letters, '.'
 * and '_' after a digit, sign or '.', with a sign only first or right after a decimal exponent
 * letter; or the words inf and nan. The number syntax (rill_num_parse_*) judges its form. */
static size_t number_len(const cursor *c) {
    const char *s = c->s + c->pos, *end = c->s + c->len, *p = s + 1;
    if (s == end || !is_number_start(*s)) {
        size_t n = ident_len(c);
        return ident_is(c, n, "inf") || ident_is(c, n, "nan") ? n : 0;
    }
    bool hex = p < end && (*p | 0x20) == 'x';
    while (p < end) {
        if (is_ident_char(*p) || ((*p == '-' || *p == '+') && (p[-1] | 0x20) == 'e' && !hex)) {
            p++;
        } else {
            break;
        }
    }
    return (size_t)(p - s);
}

/* What the value at the cursor is, for "expected X, found Y" messages. */
static const char *found(const cursor *c) {
    switch (peek(c, 0)) {
    case '"':
        return "a string";
    case '@':
        return "an asset path";
    case '&':
        return "an entity reference";
    case '(':
        return "a tuple";
    case '[':
        return "an array";
    default:
        break;
    }
    size_t n = ident_len(c);
    if (n) {
        return ident_is(c, n, "true") || ident_is(c, n, "false") ? "a bool"
               : ident_is(c, n, "none")                          ? "'none'"
               : number_len(c)                                   ? "a number"
                                                                 : "a name";
    }
    return c->pos >= c->len ? "nothing" : is_number_start(peek(c, 0)) ? "a number" : "a value";
}

/* >>numbers */

/* The storage range of an integer type, narrowed to the field's bounds when clamping. */
static void int_range(const cursor *c, long double *lo, long double *hi) {
    const rill_field *f = c->f;
    switch (f->type) {
    case RILL_FIELD_I32:
        *lo = INT32_MIN;
        *hi = INT32_MAX;
        break;
    case RILL_FIELD_U32:
        *lo = 0;
        *hi = UINT32_MAX;
        break;
    case RILL_FIELD_I64:
        *lo = (long double)INT64_MIN;
        *hi = (long double)INT64_MAX;
        break;
    default:
        *lo = 0;
        *hi = (long double)UINT64_MAX;
        break;
    }
    if (!(c->opt->flags & RILL_FIELD_TEXT_CLAMP)) {
        return;
    }
    if (f->flags & RILL_FIELD_HAS_MIN && (long double)f->min > *lo) {
        *lo = ceill(f->min);
    }
    if (f->flags & RILL_FIELD_HAS_MAX && (long double)f->max < *hi) {
        *hi = floorl(f->max);
    }
}

/* Stores integer x (inside the type's range) into dst; when not clamped, 64-bit values are
 * rebuilt from the magnitude, since long double may not hold every u64. */
static void store_int(rill_field_type t, void *dst, long double x, bool clamped, bool neg,
                      uint64_t mag) {
    switch (t) {
    case RILL_FIELD_I32: {
        int32_t y = (int32_t)x;
        memcpy(dst, &y, 4);
        break;
    }
    case RILL_FIELD_U32: {
        uint32_t y = (uint32_t)x;
        memcpy(dst, &y, 4);
        break;
    }
    case RILL_FIELD_I64: {
        int64_t y;
        if (!clamped) {
            y = neg ? (int64_t)(0u - mag) : (int64_t)mag;
        } else {
            y = x <= (long double)INT64_MIN   ? INT64_MIN
                : x >= (long double)INT64_MAX ? INT64_MAX
                                              : (int64_t)x;
        }
        memcpy(dst, &y, 8);
        break;
    }
    default: {
        uint64_t y = !clamped ? mag : (x >= (long double)UINT64_MAX ? UINT64_MAX : (uint64_t)x);
        memcpy(dst, &y, 8);
        break;
    }
    }
}

/* An integer of the field's type: out of range fails, or with RILL_FIELD_TEXT_CLAMP is clamped to
 * the type and the field's bounds with a warning. */
static bool parse_int(cursor *c, void *dst) {
    size_t at = c->pos, n = number_len(c);
    const char *s = c->s + at;
    if (n == 0) {
        return fail_at(c, at, "expected an integer, found %s", found(c));
    }
    bool neg, over;
    uint64_t mag;
    if (!rill_num_parse_int(s, n, &neg, &mag, &over)) {
        return fail_at(c, at, "'%.*s' is not an integer", (int)RILL_MIN(n, 40u), s);
    }
    long double lo, hi;
    int_range(c, &lo, &hi);
    long double x = neg ? -(long double)mag : (long double)mag;
    bool clamped = over || x < lo || x > hi;
    if (clamped && !(c->opt->flags & RILL_FIELD_TEXT_CLAMP)) {
        return fail_at(c, at, "value %.*s out of range", (int)RILL_MIN(n, 40u), s);
    }
    x = x < lo ? lo : x > hi ? hi : x;
    if (clamped) {
        warn_at(c, at, "value %.*s out of range, clamped to %.0Lf", (int)RILL_MIN(n, 40u), s, x);
    }
    store_int(c->f->type, dst, x, clamped, neg, mag);
    c->pos += n;
    return true;
}

/* True when a number token that parsed to infinity was written as a finite decimal: "1e999" (or
 * "1e39" for a 32-bit float) overflowed. Only the tokens inf/+inf/-inf mean infinity. */
static bool overflowed(const char *s, size_t len, double x) {
    if (!isinf(x)) {
        return false;
    }
    if (len > 0 && (s[0] == '-' || s[0] == '+')) {
        s++;
        len--;
    }
    return !(len == 3 && memcmp(s, "inf", 3) == 0);
}

/* With RILL_FIELD_TEXT_CLAMP, clamps a numeric lane to the field's bounds (NaN to the min),
 * warning when it changes. */
static double clamp_lane(cursor *c, size_t at, size_t n, double x) {
    const rill_field *f = c->f;
    if (!(c->opt->flags & RILL_FIELD_TEXT_CLAMP) ||
        !(f->flags & (RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX))) {
        return x;
    }
    double y = x;
    if ((f->flags & RILL_FIELD_HAS_MIN) && !(y >= f->min)) {
        y = f->min;
    }
    if ((f->flags & RILL_FIELD_HAS_MAX) && y > f->max) {
        y = f->max;
    }
    if (y != x || (isnan(x) && !isnan(y))) {
        warn_at(c, at, "value %.*s out of range, clamped to %g", (int)RILL_MIN(n, 40u), c->s + at,
                y);
    }
    return y;
}

/* One float lane (an f32/f64 field or a vector component), rounded once to its type. */
static bool parse_float(cursor *c, bool f64, void *dst) {
    size_t at = c->pos, n = number_len(c);
    const char *s = c->s + at;
    if (n == 0) {
        return fail_at(c, at, "expected a number, found %s", found(c));
    }
    double d = 0.0;
    float x = 0.0f;
    bool ok = f64 ? rill_num_parse_f64(s, n, &d) : rill_num_parse_f32(s, n, &x);
    if (!ok) {
        return fail_at(c, at, "'%.*s' is not a number", (int)RILL_MIN(n, 40u), s);
    }
    if (!f64) {
        d = (double)x;
    }
    if (overflowed(s, n, d)) {
        return fail_at(c, at, "number too large for a %s float (write inf for infinity)",
                       f64 ? "64-bit" : "32-bit");
    }
    double y = clamp_lane(c, at, n, d);
    if (f64) {
        memcpy(dst, &y, 8);
    } else {
        if (y != d && !(isnan(y) && isnan(d))) {
            x = (float)y;
        }
        memcpy(dst, &x, 4);
    }
    c->pos += n;
    return true;
}

/* >>strings */

/* Scans the string literal at the cursor (on '"'): its content is s[*start, *end) and *escapes
 * says whether it needs decoding. The rules are .rsn's: one line, escapes \" \\ \n \r \t \0 \xHH,
 * no other byte below 0x20 but tab. */
static bool scan_string(cursor *c, size_t *start, size_t *end, bool *escapes) {
    size_t at = c->pos, j = at + 1;
    *escapes = false;
    for (;;) {
        if (j >= c->len || c->s[j] == '\n') {
            return fail_at(c, at, "unterminated string");
        }
        unsigned char d = (unsigned char)c->s[j];
        if (d == '"') {
            break;
        }
        if (d == '\\') {
            char e = j + 1 < c->len ? c->s[j + 1] : '\0';
            bool hex = e == 'x' && j + 3 < c->len && rill_hex_digit(c->s[j + 2]) >= 0 &&
                       rill_hex_digit(c->s[j + 3]) >= 0;
            if (!hex && !strchr("\"\\nrt0", e ? e : 'q')) {
                return fail_at(c, j, "invalid escape in string");
            }
            *escapes = true;
            j += hex ? 4 : 2;
            continue;
        }
        if (d < 0x20 && d != '\t') {
            return fail_at(c, j, "control byte 0x%02x in string", d);
        }
        j++;
    }
    *start = at + 1;
    *end = j;
    c->pos = j + 1;
    return true;
}

/* Decodes a scanned string's escapes into dst (room for end - start bytes); returns the length. */
static size_t unescape(const char *s, size_t start, size_t end, char *dst) {
    size_t n = 0;
    for (size_t i = start; i < end; i++) {
        char ch = s[i];
        if (ch == '\\') {
            char e = s[++i];
            ch = e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e == '0' ? '\0' : e;
            if (e == 'x') {
                ch = (char)(rill_hex_digit(s[i + 1]) * 16 + rill_hex_digit(s[i + 2]));
                i += 2;
            }
        }
        dst[n++] = ch;
    }
    return n;
}

/* The interned string at the cursor; NULL for "" (an unset string field). */
static bool read_string(cursor *c, const char **out) {
    size_t start = 0, end = 0;
    bool escapes = false;
    if (!scan_string(c, &start, &end, &escapes)) {
        return false;
    }
    if (start == end) {
        *out = NULL;
        return true;
    }
    if (!escapes) {
        *out = rill_intern_n(c->s + start, end - start);
        return *out != NULL || fail_oom(c);
    }
    char small[256];
    char *buf =
        end - start <= sizeof small ? small : rill_malloc_tagged(end - start, RILL_MEM_WORLD);
    if (buf == NULL) {
        return fail_oom(c);
    }
    *out = rill_intern_n(buf, unescape(c->s, start, end, buf));
    if (buf != small) {
        rill_free(buf);
    }
    return *out != NULL || fail_oom(c);
}

/* A string or asset path: "..." or @"..."; asset paths go through the caller's asset_path hook. */
static bool parse_string(cursor *c, void *dst) {
    size_t at = c->pos;
    bool asset = c->f->type == RILL_FIELD_ASSET_PATH;
    if (peek(c, 0) == '@') {
        c->pos++;
        skip_ws(c);
    }
    if (peek(c, 0) != '"') {
        c->pos = at;
        return fail_at(c, at, "expected %s, found %s",
                       asset ? "an asset path @\"...\"" : "a string", found(c));
    }
    const char *s;
    if (!read_string(c, &s)) {
        return false;
    }
    if (asset && s && c->opt->asset_path) {
        s = c->opt->asset_path(c->opt->user, s, at);
    }
    memcpy(dst, &s, sizeof s);
    return true;
}

/* >>entities and enums */

/* &id (a file-local id resolved by the caller's entity_ref hook) or none. */
static bool parse_entity_ref(cursor *c, uint32_t elem, void *dst) {
    size_t at = c->pos;
    rill_entity e = RILL_ENTITY_NULL;
    if (ident_is(c, ident_len(c), "none")) {
        c->pos += 4;
        memcpy(dst, &e, sizeof e);
        return true;
    }
    if (!eat(c, '&')) {
        return fail_at(c, at, "expected &id or none, found %s", found(c));
    }
    skip_ws(c);
    size_t n = 0;
    uint64_t id = 0;
    while (n < 11 && peek(c, n) >= '0' && peek(c, n) <= '9') {
        id = id * 10u + (uint64_t)(peek(c, n) - '0');
        n++;
    }
    if (n == 0 || n > 10 || is_ident_char(peek(c, n)) || id == 0 || id > UINT32_MAX) {
        return fail_at(c, c->pos, "an entity id after '&' must be an integer from 1 to 4294967295");
    }
    c->pos += n;
    if (!c->opt->entity_ref(c->opt->user, (uint32_t)id, elem, at, &e)) {
        return fail_oom(c);
    }
    memcpy(dst, &e, sizeof e);
    return true;
}

/* An enum value by name, or as an integer in the i32 range. */
static bool parse_enum(cursor *c, void *dst) {
    size_t at = c->pos, n = ident_len(c);
    int32_t v;
    if (n) {
        if (!rill__field_enum_lookup(c->f, c->s + at, n, &v)) {
            return fail_at(c, at, "'%.*s' is not a value of this enum", (int)RILL_MIN(n, 60u),
                           c->s + at);
        }
        c->pos += n;
    } else if ((n = number_len(c)) != 0) {
        bool neg, over;
        uint64_t mag;
        if (!rill_num_parse_int(c->s + at, n, &neg, &mag, &over) || over ||
            mag > (neg ? 2147483648u : 2147483647u)) {
            return fail_at(c, at, "expected an enum name");
        }
        v = neg ? (int32_t)(0 - (int64_t)mag) : (int32_t)mag;
        c->pos += n;
    } else {
        return fail_at(c, at, "expected an enum name, found %s", found(c));
    }
    memcpy(dst, &v, sizeof v);
    return true;
}

/* >>values */

/* "(x, y, ...)" with exactly `lanes` numbers (a trailing comma is allowed). */
static bool parse_tuple(cursor *c, uint32_t lanes, void *dst) {
    size_t at = c->pos;
    if (!eat(c, '(')) {
        return fail_at(c, at, "expected a tuple of %u numbers, found %s", lanes, found(c));
    }
    float tmp[4];
    for (uint32_t k = 0; k < lanes; k++) {
        if (k && !eat(c, ',')) {
            return peek(c, 0) == ')'
                       ? fail_at(c, at,
                                 "expected a tuple of %u numbers, found a tuple of "
                                 "another size",
                                 lanes)
                       : fail_at(c, c->pos, "expected ',' or ')', found %s", found(c));
        }
        skip_ws(c);
        if (peek(c, 0) == ')') {
            return fail_at(c, at, "expected a tuple of %u numbers, found a tuple of another size",
                           lanes);
        }
        if (!parse_float(c, false, &tmp[k])) {
            return false;
        }
    }
    eat(c, ',');
    if (!eat(c, ')')) {
        return fail_at(c, at, "expected a tuple of %u numbers, found a tuple of another size",
                       lanes);
    }
    memcpy(dst, tmp, sizeof(float) * lanes);
    return true;
}

/* A rotation: a quaternion "(x, y, z, w)", or "euler(pitch, yaw, roll)" in degrees about X, Y
 * and Z, applied roll first, then pitch, then yaw (q = yaw * pitch * roll): euler(0, 90, 0)
 * turns -Z (where a camera looks) to -X. Stored as the unit quaternion. */
static bool parse_rotation(cursor *c, void *dst) {
    size_t n = ident_len(c);
    if (!ident_is(c, n, "euler")) {
        return parse_tuple(c, 4, dst);
    }
    c->pos += n;
    skip_ws(c);
    float deg[3];
    if (!parse_tuple(c, 3, deg)) {
        return false;
    }
    double h[3], sn[3], cs[3];
    for (int k = 0; k < 3; k++) {
        h[k] = (double)deg[k] * (3.14159265358979323846 / 360.0); /* half angle, radians */
        sn[k] = sin(h[k]);
        cs[k] = cos(h[k]);
    }
    /* yaw (Y) * pitch (X) */
    double yx[4] = {cs[1] * sn[0], sn[1] * cs[0], -sn[1] * sn[0], cs[1] * cs[0]};
    /* ... * roll (Z) */
    double q[4] = {yx[0] * cs[2] + yx[1] * sn[2], yx[1] * cs[2] - yx[0] * sn[2],
                   yx[2] * cs[2] + yx[3] * sn[2], yx[3] * cs[2] - yx[2] * sn[2]};
    float out[4];
    for (int k = 0; k < 4; k++) {
        out[k] = (float)q[k];
        if (!isfinite(out[k])) {
            return fail_at(c, c->pos, "euler angles must be finite numbers");
        }
    }
    memcpy(dst, out, sizeof out);
    return true;
}

static bool parse_element(cursor *c, uint32_t elem, void *dst) {
    skip_ws(c);
    switch (c->f->type) {
    case RILL_FIELD_BOOL: {
        size_t n = ident_len(c);
        if (!ident_is(c, n, "true") && !ident_is(c, n, "false")) {
            return fail_at(c, c->pos, "expected true or false, found %s", found(c));
        }
        *(bool *)dst = n == 4;
        c->pos += n;
        return true;
    }
    case RILL_FIELD_I32:
    case RILL_FIELD_U32:
    case RILL_FIELD_I64:
    case RILL_FIELD_U64:
        return parse_int(c, dst);
    case RILL_FIELD_F32:
    case RILL_FIELD_F64:
        return parse_float(c, c->f->type == RILL_FIELD_F64, dst);
    case RILL_FIELD_QUAT:
        return parse_rotation(c, dst);
    case RILL_FIELD_VEC2:
    case RILL_FIELD_VEC3:
    case RILL_FIELD_VEC4:
    case RILL_FIELD_COLOR:
        return parse_tuple(c, vector_lanes(c->f->type), dst);
    case RILL_FIELD_STRING:
    case RILL_FIELD_ASSET_PATH:
        return parse_string(c, dst);
    case RILL_FIELD_ENTITY:
        return c->opt->entity_ref ? parse_entity_ref(c, elem, dst) : parse_int(c, dst);
    case RILL_FIELD_ENUM:
        return parse_enum(c, dst);
    default:
        return fail_at(c, c->pos, "field has no text form");
    }
}

/* The values of the list that opens at s[at] ('['), counted lexically (strings skipped, nesting
 * followed) for the "array has N values" message. */
static uint32_t count_items(const cursor *c, size_t at) {
    uint32_t items = 0, depth = 0;
    bool pending = false;
    for (size_t i = at + 1; i < c->len; i++) {
        char ch = c->s[i];
        if (ch == '"') {
            while (++i < c->len && c->s[i] != '"' && c->s[i] != '\n') {
                i += c->s[i] == '\\';
            }
            pending = true;
        } else if (ch == '#') {
            while (i + 1 < c->len && c->s[i + 1] != '\n') {
                i++;
            }
        } else if (ch == '(' || ch == '[') {
            depth++;
            pending = true;
        } else if ((ch == ')' || ch == ']') && depth > 0) {
            depth--;
        } else if (ch == ']' || ch == ')') {
            break;
        } else if (ch == ',' && depth == 0) {
            items += pending;
            pending = false;
        } else if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
            pending = true;
        }
    }
    return items + pending;
}

/* "[a, b, ...]" with at most count values (a trailing comma is allowed); the elements not
 * listed keep their values. */
static bool parse_array(cursor *c, uint8_t *dst, size_t es) {
    uint32_t count = c->f->count;
    size_t at = c->pos;
    if (!eat(c, '[')) {
        return fail_at(c, at, "expected an array [...] of %u, found %s", count, found(c));
    }
    for (uint32_t k = 0;; k++) {
        if (eat(c, ']')) {
            return true;
        }
        if (k == count) {
            return fail_at(c, at, "array has %u values, the field holds %u", count_items(c, at),
                           count);
        }
        if (!parse_element(c, k, dst + k * es)) {
            return false;
        }
        if (!eat(c, ',') && peek(c, 0) != ']') {
            return fail_at(c, c->pos, "expected ',' or ']', found %s", found(c));
        }
    }
}

/* Parses an array into a scratch copy of the field so a failure leaves the object untouched. */
static rill_result parse_field(cursor *c, void *obj) {
    if (c->f->count <= 1) {
        /* Element parsers store only once the whole element has been read. */
        return parse_element(c, 0, (char *)obj + c->f->offset) ? RILL_OK : c->code;
    }
    size_t es = rill_field_type_size(c->f->type);
    size_t bytes = es * rill_field_count(c->f);
    uint8_t small[256];
    uint8_t *scratch = bytes <= sizeof small ? small : rill_malloc_tagged(bytes, RILL_MEM_WORLD);
    if (scratch == NULL) {
        fail_oom(c);
        return c->code;
    }
    memcpy(scratch, (char *)obj + c->f->offset, bytes);
    bool ok = parse_array(c, scratch, es);
    if (ok) {
        memcpy((char *)obj + c->f->offset, scratch, bytes);
    }
    if (scratch != small) {
        rill_free(scratch);
    }
    return ok ? RILL_OK : c->code;
}

rill_result rill_field_parse_ex(const rill_field *field, void *obj, const char *text, size_t len,
                                const rill_field_text *opt, size_t *out_pos, rill_error *err) {
    static const rill_field_text plain = {0};
    if (field == NULL || obj == NULL || (text == NULL && len > 0) ||
        rill_field_type_size(field->type) == 0) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_field_parse: bad arguments");
    }
    /* Set member by member: the message buffer is written only on failure. */
    cursor c;
    c.s = text ? text : "";
    c.len = len;
    c.pos = 0;
    c.opt = opt ? opt : &plain;
    c.f = field;
    c.code = RILL_OK;
    c.fail_pos = 0;
    rill_result r = parse_field(&c, obj);
    if (out_pos) {
        *out_pos = r == RILL_OK ? c.pos : c.fail_pos;
    }
    return r == RILL_OK ? RILL_OK : rill_error_set(err, r, "%s", c.msg);
}

rill_result rill_field_parse(const rill_field *field, void *obj, const char *text, size_t len,
                             size_t *out_consumed, rill_error *err) {
    size_t pos = 0;
    rill_error e = {0};
    rill_result r = rill_field_parse_ex(field, obj, text, len, NULL, &pos, &e);
    if (r == RILL_ERR_INVALID_ARGUMENT) {
        return rill_error_set(err, r, "%s", e.msg);
    }
    if (r != RILL_OK) {
        return rill_error_set(err, r, "offset %zu: %s", pos, e.msg);
    }
    if (out_consumed) {
        *out_consumed = pos;
    }
    return RILL_OK;
}
