/* cube.c: the .cube 3D colour table reader (rill/formats/cube.h): keywords, then N^3 entries, every
 * size checked before allocation, every error naming the file and the line. */
#include "rill/formats/cube.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The reader's place in the text and what it has read so far. */
typedef struct cube_reader {
    const char *name;
    rill_error *err;
    uint32_t line;
    bool title, size, dmin, dmax; /* keywords seen */
    uint64_t filled;              /* entries read */
    rill_cube_lut *lut;
} cube_reader;

/* One line without its end and comment: [s, s + n). */
typedef struct cube_line {
    const char *s;
    size_t n;
} cube_line;

static rill_result fail(const cube_reader *rd, const char *what, const char *detail) {
    return rill_error_set(rd->err, RILL_ERR_PARSE, "%s:%u: %s%s", rd->name, rd->line, what,
                          detail ? detail : "");
}

static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The next whitespace-separated token of ln after *at, or an empty one at the end. */
static cube_line next_token(cube_line ln, size_t *at) {
    size_t i = *at;
    while (i < ln.n && is_space(ln.s[i])) {
        i++;
    }
    size_t start = i;
    while (i < ln.n && !is_space(ln.s[i])) {
        i++;
    }
    *at = i;
    return (cube_line){ln.s + start, i - start};
}

static bool token_is(cube_line t, const char *word) {
    return t.n == strlen(word) && memcmp(t.s, word, t.n) == 0;
}

/* A finite number within +-limit from token t. */
static bool parse_limited(cube_line t, double limit, double *out) {
    char buf[64];
    if (t.n == 0 || t.n >= sizeof(buf)) {
        return false;
    }
    memcpy(buf, t.s, t.n);
    buf[t.n] = '\0';
    char *end = NULL;
    double v = strtod(buf, &end);
    if (end != buf + t.n || !isfinite(v) || fabs(v) > limit) {
        return false;
    }
    *out = v;
    return true;
}

static bool parse_number(cube_line t, float *out) {
    double v;
    if (!parse_limited(t, RILL_CUBE_MAX_VALUE, &v)) {
        return false;
    }
    *out = (float)v;
    return true;
}

/* Exactly `n` numbers from ln after *at into out (nothing may follow). */
static rill_result read_numbers(const cube_reader *rd, cube_line ln, size_t at, float *out,
                                uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        cube_line t = next_token(ln, &at);
        if (t.n == 0) {
            return rill_error_set(rd->err, RILL_ERR_PARSE, "%s:%u: expected %u numbers, found %u",
                                  rd->name, rd->line, n, i);
        }
        if (!parse_number(t, &out[i])) {
            return rill_error_set(
                rd->err, RILL_ERR_PARSE, "%s:%u: '%.*s' is not a finite number (|v| <= %g)",
                rd->name, rd->line, (int)(t.n < 40 ? t.n : 40), t.s, (double)RILL_CUBE_MAX_VALUE);
        }
    }
    if (next_token(ln, &at).n != 0) {
        return rill_error_set(rd->err, RILL_ERR_PARSE, "%s:%u: more than %u numbers on the line",
                              rd->name, rd->line, n);
    }
    return RILL_OK;
}

/* TITLE "text": the quoted text (a '#' inside it is text, not a comment). */
static rill_result read_title(cube_reader *rd, cube_line raw, size_t at) {
    if (rd->title) {
        return fail(rd, "TITLE given twice", NULL);
    }
    rd->title = true;
    while (at < raw.n && is_space(raw.s[at])) {
        at++;
    }
    if (at >= raw.n || raw.s[at] != '"') {
        return fail(rd, "TITLE needs a quoted text", NULL);
    }
    const char *q = memchr(raw.s + at + 1, '"', raw.n - at - 1);
    if (!q) {
        return fail(rd, "TITLE's quote is not closed", NULL);
    }
    size_t n = (size_t)(q - (raw.s + at + 1));
    if (n >= sizeof(rd->lut->title)) {
        n = sizeof(rd->lut->title) - 1;
    }
    memcpy(rd->lut->title, raw.s + at + 1, n);
    rd->lut->title[n] = '\0';
    return RILL_OK;
}

/* LUT_3D_SIZE N: checked, then the entries are allocated. */
static rill_result read_size(cube_reader *rd, cube_line ln, size_t at) {
    if (rd->size) {
        return fail(rd, "LUT_3D_SIZE given twice", NULL);
    }
    cube_line t = next_token(ln, &at);
    double v = 0.0;
    if (!parse_limited(t, 1e300, &v) || next_token(ln, &at).n != 0) {
        return fail(rd, "LUT_3D_SIZE needs one number", NULL);
    }
    if (v != floor(v) || v < 2.0 || v > (double)RILL_CUBE_MAX_SIZE) {
        return rill_error_set(rd->err, RILL_ERR_LIMIT,
                              "%s:%u: LUT_3D_SIZE %g is not a whole number "
                              "in 2..%u",
                              rd->name, rd->line, (double)v, RILL_CUBE_MAX_SIZE);
    }
    uint32_t n = (uint32_t)v;
    rd->lut->size = n;
    rd->lut->rgb = rill_malloc_tagged((size_t)n * n * n * 3u * sizeof(float), RILL_MEM_FORMATS);
    if (!rd->lut->rgb) {
        return rill_error_set(rd->err, RILL_ERR_OUT_OF_MEMORY,
                              "%s:%u: out of memory for %u^3 "
                              "entries",
                              rd->name, rd->line, n);
    }
    rd->size = true;
    return RILL_OK;
}

/* DOMAIN_MIN, DOMAIN_MAX or LUT_3D_INPUT_RANGE. */
static rill_result read_domain(cube_reader *rd, cube_line ln, size_t at, cube_line kw) {
    bool range = token_is(kw, "LUT_3D_INPUT_RANGE");
    bool is_min = token_is(kw, "DOMAIN_MIN");
    if ((range && (rd->dmin || rd->dmax)) || (is_min && rd->dmin) ||
        (!is_min && !range && rd->dmax)) {
        return rill_error_set(rd->err, RILL_ERR_PARSE, "%s:%u: %.*s repeats the domain", rd->name,
                              rd->line, (int)kw.n, kw.s);
    }
    if (range) {
        float v[2];
        RILL_TRY(read_numbers(rd, ln, at, v, 2));
        for (int k = 0; k < 3; k++) {
            rd->lut->domain_min[k] = v[0];
            rd->lut->domain_max[k] = v[1];
        }
        rd->dmin = rd->dmax = true;
        return RILL_OK;
    }
    RILL_TRY(read_numbers(rd, ln, at, is_min ? rd->lut->domain_min : rd->lut->domain_max, 3));
    *(is_min ? &rd->dmin : &rd->dmax) = true;
    return RILL_OK;
}

static rill_result read_keyword(cube_reader *rd, cube_line raw, cube_line ln, cube_line kw,
                                size_t at) {
    if (rd->filled) {
        return rill_error_set(rd->err, RILL_ERR_PARSE, "%s:%u: keyword %.*s after the table",
                              rd->name, rd->line, (int)(kw.n < 40 ? kw.n : 40), kw.s);
    }
    if (token_is(kw, "TITLE")) {
        return read_title(rd, raw, (size_t)(kw.s + kw.n - raw.s));
    }
    if (token_is(kw, "LUT_3D_SIZE")) {
        return read_size(rd, ln, at);
    }
    if (token_is(kw, "DOMAIN_MIN") || token_is(kw, "DOMAIN_MAX") ||
        token_is(kw, "LUT_3D_INPUT_RANGE")) {
        return read_domain(rd, ln, at, kw);
    }
    if (token_is(kw, "LUT_1D_SIZE") || token_is(kw, "LUT_1D_INPUT_RANGE")) {
        return fail(rd, "1D tables (LUT_1D_SIZE) are not supported; use a 3D table", NULL);
    }
    return rill_error_set(rd->err, RILL_ERR_PARSE, "%s:%u: unknown keyword '%.*s'", rd->name,
                          rd->line, (int)(kw.n < 40 ? kw.n : 40), kw.s);
}

static rill_result read_entry(cube_reader *rd, cube_line ln) {
    if (!rd->size) {
        return fail(rd, "table entry before LUT_3D_SIZE", NULL);
    }
    uint64_t n = (uint64_t)rd->lut->size * rd->lut->size * rd->lut->size;
    if (rd->filled >= n) {
        return rill_error_set(rd->err, RILL_ERR_PARSE,
                              "%s:%u: more than %llu entries (LUT_3D_SIZE "
                              "%u)",
                              rd->name, rd->line, (unsigned long long)n, rd->lut->size);
    }
    RILL_TRY(read_numbers(rd, ln, 0, rd->lut->rgb + rd->filled * 3u, 3));
    rd->filled++;
    return RILL_OK;
}

static bool starts_entry(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
}

/* One line (its end already cut off). */
static rill_result read_line(cube_reader *rd, cube_line raw) {
    if (raw.n > RILL_CUBE_MAX_LINE) {
        return rill_error_set(rd->err, RILL_ERR_LIMIT, "%s:%u: line longer than %u bytes", rd->name,
                              rd->line, RILL_CUBE_MAX_LINE);
    }
    if (memchr(raw.s, '\0', raw.n)) {
        return fail(rd, "NUL byte (not a text file)", NULL);
    }
    size_t at = 0;
    cube_line first = next_token(raw, &at);
    if (first.n == 0 || first.s[0] == '#') {
        return RILL_OK;
    }
    if (token_is(first, "TITLE")) {
        return read_keyword(rd, raw, raw, first, at);
    }
    const char *hash = memchr(raw.s, '#', raw.n);
    cube_line ln = {raw.s, hash ? (size_t)(hash - raw.s) : raw.n};
    if (starts_entry(first.s[0])) {
        return read_entry(rd, ln);
    }
    return read_keyword(rd, raw, ln, first, at);
}

static rill_result finish(cube_reader *rd) {
    rill_cube_lut *lut = rd->lut;
    if (!rd->size) {
        return fail(rd, "no LUT_3D_SIZE (not a 3D .cube table)", NULL);
    }
    uint64_t n = (uint64_t)lut->size * lut->size * lut->size;
    if (rd->filled != n) {
        return rill_error_set(rd->err, RILL_ERR_PARSE,
                              "%s:%u: %llu entries; LUT_3D_SIZE %u needs "
                              "%llu (truncated?)",
                              rd->name, rd->line, (unsigned long long)rd->filled, lut->size,
                              (unsigned long long)n);
    }
    for (int k = 0; k < 3; k++) {
        if (!(lut->domain_max[k] > lut->domain_min[k])) {
            return fail(rd, "DOMAIN_MAX must be above DOMAIN_MIN on every channel", NULL);
        }
    }
    return RILL_OK;
}

rill_result rill_cube_parse(const char *text, size_t len, const char *name, rill_cube_lut *out,
                            rill_error *err) {
    if (!out || (!text && len)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_cube_parse: NULL argument");
    }
    memset(out, 0, sizeof(*out));
    out->domain_max[0] = out->domain_max[1] = out->domain_max[2] = 1.0f;
    cube_reader rd = {.name = name ? name : "cube", .err = err, .lut = out};
    if (rill_text_is_utf16(text, len)) {
        return rill_error_set(err, RILL_ERR_PARSE, "%s:1: %s", rd.name, RILL_TEXT_UTF16_HINT);
    }
    /* A UTF-8 byte-order mark at the start (Windows editors write one) is skipped. */
    size_t pos = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3u : 0u;
    rill_result res = RILL_OK;
    while (res == RILL_OK && pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        rd.line++;
        res = read_line(&rd, (cube_line){text + pos, end - pos});
        pos = end + 1;
    }
    if (res == RILL_OK) {
        rd.line = rd.line ? rd.line : 1;
        res = finish(&rd);
    }
    if (res != RILL_OK) {
        rill_cube_free(out);
    }
    return res;
}

void rill_cube_free(rill_cube_lut *lut) {
    if (!lut) {
        return;
    }
    rill_free(lut->rgb);
    memset(lut, 0, sizeof(*lut));
}

void rill_cube_sample(const rill_cube_lut *lut, const float in[3], float out[3]) {
    if (!lut || !lut->rgb || lut->size < 2) {
        memcpy(out, in, sizeof(float) * 3);
        return;
    }
    uint32_t n = lut->size, i0[3], i1[3];
    float f[3];
    for (int k = 0; k < 3; k++) {
        float t = (in[k] - lut->domain_min[k]) / (lut->domain_max[k] - lut->domain_min[k]);
        t = isfinite(t) ? fminf(fmaxf(t, 0.0f), 1.0f) * (float)(n - 1) : 0.0f;
        i0[k] = (uint32_t)t < n - 1 ? (uint32_t)t : n - 2;
        f[k] = t - (float)i0[k];
        i1[k] = i0[k] + 1;
    }
    for (int c = 0; c < 3; c++) {
        float acc = 0.0f;
        for (int corner = 0; corner < 8; corner++) {
            uint32_t r = corner & 1 ? i1[0] : i0[0], g = corner & 2 ? i1[1] : i0[1],
                     b = corner & 4 ? i1[2] : i0[2];
            float w = (corner & 1 ? f[0] : 1.0f - f[0]) * (corner & 2 ? f[1] : 1.0f - f[1]) *
                      (corner & 4 ? f[2] : 1.0f - f[2]);
            acc += w * lut->rgb[((size_t)b * n * n + (size_t)g * n + r) * 3u + (size_t)c];
        }
        out[c] = acc;
    }
}
