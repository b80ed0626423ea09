/* toml.c: the TOML reader for settings files (project.toml and others): a recursive-descent parser
 * for the TOML subset that Rill's configuration files use, building the tree of toml_tree.c
 * (which also holds the path lookup and typed getters).
 *
 * The input is untrusted: every read is bounds-checked against the length (the text need not be
 * NUL-terminated), nesting depth is capped (RILL_TOML_MAX_DEPTH) so a file of ten thousand '['
 * cannot overflow the stack, and large tables get a hash index so a file with many keys cannot
 * make parsing quadratic.
 */
#include "toml_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* >>parser ------------------------------------------------------------------------------------ */

typedef struct parser {
    const char *src;
    size_t len;
    size_t pos;
    uint32_t line;
    size_t line_start;
    const char *name;
    rill_error *err;
    rill_result failed; /* first error; parsing stops at once */
    uint32_t depth;
    rill_toml_value *root;
    rill_toml_value *current; /* the table that `key = value` lines go into */
    rill_strbuf buf;          /* scratch for keys and strings */
} parser;

static uint32_t col_at(const parser *p, size_t pos) {
    size_t c = pos - p->line_start + 1u;
    return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

/* Line and column of any position up to the cursor. Errors sometimes point back at the start of a
 * construct that spans lines (an unterminated multi-line string), so the line is recounted. */
static void line_col_of(const parser *p, size_t pos, uint32_t *out_line, uint32_t *out_col) {
    if (pos >= p->line_start) {
        *out_line = p->line;
        *out_col = col_at(p, pos);
        return;
    }
    uint32_t line = p->line;
    for (size_t i = pos; i < p->line_start; i++) {
        if (p->src[i] == '\n') {
            line--;
        }
    }
    size_t ls = pos;
    while (ls > 0 && p->src[ls - 1u] != '\n') {
        ls--;
    }
    size_t c = pos - ls + 1u;
    *out_line = line;
    *out_col = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

RILL_PRINTF(3, 4)
static rill_result fail_at(parser *p, size_t pos, const char *fmt, ...) {
    if (p->failed) {
        return p->failed;
    }
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    /* Whatever was expected, a byte-order mark where it stopped is the thing to name. */
    if (pos + 3u <= p->len && memcmp(p->src + pos, "\xEF\xBB\xBF", 3) == 0) {
        snprintf(what, sizeof what,
                 "a byte-order mark (EF BB BF) is only allowed at the start of "
                 "the file");
    }
    uint32_t line, col;
    line_col_of(p, pos, &line, &col);
    p->failed = RILL_ERR_PARSE;
    rill_error_set(p->err, RILL_ERR_PARSE, "%s:%u:%u: %s", p->name, line, col, what);
    return p->failed;
}

static rill_result fail_code(parser *p, rill_result code, const char *what) {
    if (p->failed) {
        return p->failed;
    }
    p->failed = code;
    rill_error_set(p->err, code, "%s:%u:%u: %s", p->name, p->line, col_at(p, p->pos), what);
    return code;
}

static rill_result fail_oom(parser *p) {
    return fail_code(p, RILL_ERR_OUT_OF_MEMORY, "out of memory");
}

static int peek(const parser *p) {
    return p->pos < p->len ? (unsigned char)p->src[p->pos] : -1;
}

static int peek_at(const parser *p, size_t ahead) {
    return p->pos + ahead < p->len ? (unsigned char)p->src[p->pos + ahead] : -1;
}

static bool starts_with(const parser *p, const char *s) {
    size_t n = strlen(s);
    return p->len - p->pos >= n && memcmp(p->src + p->pos, s, n) == 0;
}

/* Consumes one byte, keeping the line count. */
static void advance(parser *p) {
    if (p->pos < p->len) {
        if (p->src[p->pos] == '\n') {
            p->line++;
            p->line_start = p->pos + 1u;
        }
        p->pos++;
    }
}

static void skip_ws(parser *p) {
    while (peek(p) == ' ' || peek(p) == '\t') {
        advance(p);
    }
}

/* Skips a comment up to (not including) the end of the line. Control characters other than tab
 * are refused, as TOML asks. */
static rill_result skip_comment(parser *p) {
    if (peek(p) != '#') {
        return RILL_OK;
    }
    while (p->pos < p->len && p->src[p->pos] != '\n') {
        unsigned char c = (unsigned char)p->src[p->pos];
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
            return fail_at(p, p->pos, "control character 0x%02x in a comment", c);
        }
        p->pos++;
    }
    return RILL_OK;
}

/* Accepts "\n" or "\r\n" at the cursor. */
static bool eat_newline(parser *p) {
    if (peek(p) == '\n') {
        advance(p);
        return true;
    }
    if (peek(p) == '\r' && peek_at(p, 1) == '\n') {
        advance(p);
        advance(p);
        return true;
    }
    return false;
}

/* After a statement: optional spaces and comment, then a newline or the end. */
static rill_result end_of_line(parser *p) {
    skip_ws(p);
    if (skip_comment(p)) {
        return p->failed;
    }
    if (p->pos >= p->len || eat_newline(p)) {
        return RILL_OK;
    }
    return fail_at(p, p->pos, "expected the end of the line, found '%c'",
                   peek(p) >= 0x20 && peek(p) < 0x7f ? peek(p) : '?');
}

/* Whitespace, newlines and comments (inside arrays, and between statements). */
static rill_result skip_blank(parser *p) {
    for (;;) {
        skip_ws(p);
        if (skip_comment(p)) {
            return p->failed;
        }
        if (!eat_newline(p)) {
            return RILL_OK;
        }
    }
}

/* >>strings ----------------------------------------------------------------------------------- */

static bool put_utf8(rill_strbuf *sb, uint32_t cp) {
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return rill_strbuf_append(sb, b, n);
}

static bool is_bad_control(unsigned char c) {
    return (c < 0x20 && c != '\t') || c == 0x7f;
}

/* One escape sequence after the backslash (cursor on the character after '\'). */
static rill_result parse_escape(parser *p, rill_strbuf *out) {
    size_t at = p->pos - 1u;
    int c = peek(p);
    const char *simple = NULL;
    switch (c) {
    case 'b':
        simple = "\b";
        break;
    case 't':
        simple = "\t";
        break;
    case 'n':
        simple = "\n";
        break;
    case 'f':
        simple = "\f";
        break;
    case 'r':
        simple = "\r";
        break;
    case 'e':
        simple = "\x1b";
        break;
    case '"':
        simple = "\"";
        break;
    case '\\':
        simple = "\\";
        break;
    case 'u':
    case 'U': {
        uint32_t digits = c == 'u' ? 4u : 8u;
        uint32_t cp = 0;
        advance(p);
        for (uint32_t i = 0; i < digits; i++) {
            int h = peek(p);
            uint32_t d;
            if (h >= '0' && h <= '9') {
                d = (uint32_t)(h - '0');
            } else if (h >= 'a' && h <= 'f') {
                d = (uint32_t)(h - 'a' + 10);
            } else if (h >= 'A' && h <= 'F') {
                d = (uint32_t)(h - 'A' + 10);
            } else {
                return fail_at(p, at, "escape \\%c needs %u hex digits", c, digits);
            }
            cp = (cp << 4) | d;
            advance(p);
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return fail_at(p, at, "escape names an invalid Unicode scalar value U+%X", cp);
        }
        return put_utf8(out, cp) ? RILL_OK : fail_oom(p);
    }
    default:
        return fail_at(p, at, "unknown escape sequence");
    }
    advance(p);
    return rill_strbuf_append(out, simple, 1) ? RILL_OK : fail_oom(p);
}

/* Appends the character under the cursor to out and steps past it. */
static rill_result take_char(parser *p, rill_strbuf *out) {
    char ch = (char)peek(p);
    if (!rill_strbuf_append(out, &ch, 1)) {
        return fail_oom(p);
    }
    advance(p);
    return RILL_OK;
}

/* A basic ("...") or literal ('...') single-line string; the cursor is on the quote. */
static rill_result parse_line_string(parser *p, rill_strbuf *out) {
    size_t start = p->pos;
    int quote = peek(p);
    advance(p);
    for (;;) {
        int c = peek(p);
        if (c < 0 || c == '\n' || (c == '\r' && peek_at(p, 1) == '\n')) {
            return fail_at(p, start, "unterminated string");
        }
        if (c == quote) {
            advance(p);
            return RILL_OK;
        }
        if (is_bad_control((unsigned char)c)) {
            return fail_at(p, p->pos, "control character 0x%02x in a string", c);
        }
        if (c == '\\' && quote == '"') {
            advance(p);
            if (parse_escape(p, out)) {
                return p->failed;
            }
            continue;
        }
        if (take_char(p, out)) {
            return p->failed;
        }
    }
}

/* A multi-line string ("""...""" or '''...'''); the cursor is on the first of the three quotes. */
static rill_result parse_ml_string(parser *p, rill_strbuf *out) {
    size_t start = p->pos;
    int quote = peek(p);
    advance(p);
    advance(p);
    advance(p);
    /* A newline right after the opening quotes is not part of the string. */
    eat_newline(p);
    for (;;) {
        int c = peek(p);
        if (c < 0) {
            return fail_at(p, start, "unterminated multi-line string");
        }
        if (c == quote && peek_at(p, 1) == quote && peek_at(p, 2) == quote) {
            /* Up to two more quotes just before the closing three belong to the content. */
            uint32_t extra = 0;
            while (extra < 2 && peek_at(p, 3 + extra) == quote) {
                extra++;
            }
            for (uint32_t i = 0; i < extra; i++) {
                if (take_char(p, out)) {
                    return p->failed;
                }
            }
            advance(p);
            advance(p);
            advance(p);
            return RILL_OK;
        }
        if (c == '\r' && peek_at(p, 1) == '\n') {
            advance(p);
            continue;
        }
        if (c != '\n' && is_bad_control((unsigned char)c)) {
            return fail_at(p, p->pos, "control character 0x%02x in a string", c);
        }
        if (c == '\\' && quote == '"') {
            /* A backslash at the end of a line (before optional spaces) joins the lines and drops
             * the whitespace that follows. */
            size_t q = p->pos + 1u;
            while (q < p->len && (p->src[q] == ' ' || p->src[q] == '\t')) {
                q++;
            }
            if (q < p->len && (p->src[q] == '\n' ||
                               (p->src[q] == '\r' && q + 1u < p->len && p->src[q + 1u] == '\n'))) {
                while (p->pos < q) {
                    advance(p);
                }
                while (peek(p) == ' ' || peek(p) == '\t' || peek(p) == '\n' ||
                       (peek(p) == '\r' && peek_at(p, 1) == '\n')) {
                    advance(p);
                }
                continue;
            }
            advance(p);
            if (parse_escape(p, out)) {
                return p->failed;
            }
            continue;
        }
        if (take_char(p, out)) {
            return p->failed;
        }
    }
}

/* Any string value; fills p->buf from its start. */
static rill_result parse_string(parser *p) {
    p->buf.len = 0;
    if (p->buf.data) {
        p->buf.data[0] = '\0';
    }
    int q = peek(p);
    if (peek_at(p, 1) == q && peek_at(p, 2) == q) {
        return parse_ml_string(p, &p->buf);
    }
    return parse_line_string(p, &p->buf);
}

/* >>keys -------------------------------------------------------------------------------------- */

static bool is_bare_key_char(int c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/* A dotted key: parts separated by '.', each bare or quoted. The parts are stored one after the
 * other in *parts (each NUL-terminated) and their count in *count. */
typedef struct key_path {
    rill_strbuf text;
    RILL_ARRAY(uint32_t) offsets; /* start of each part in text */
    RILL_ARRAY(uint32_t) lens;
    RILL_ARRAY(uint32_t) cols;
} key_path;

static void key_path_free(key_path *k) {
    rill_strbuf_free(&k->text);
    rill_array_free(&k->offsets);
    rill_array_free(&k->lens);
    rill_array_free(&k->cols);
}

static rill_result parse_key(parser *p, key_path *k) {
    k->text.len = 0;
    k->offsets.len = k->lens.len = k->cols.len = 0;
    for (;;) {
        skip_ws(p);
        uint32_t off = k->text.len;
        uint32_t col = col_at(p, p->pos);
        int c = peek(p);
        if (c == '"' || c == '\'') {
            if (peek_at(p, 1) == c && peek_at(p, 2) == c) {
                return fail_at(p, p->pos, "a key cannot be a multi-line string");
            }
            p->buf.len = 0;
            if (parse_line_string(p, &p->buf)) {
                return p->failed;
            }
            if (!rill_strbuf_append(&k->text, p->buf.data ? p->buf.data : "", p->buf.len)) {
                return fail_oom(p);
            }
        } else if (is_bare_key_char(c)) {
            size_t s = p->pos;
            while (is_bare_key_char(peek(p))) {
                advance(p);
            }
            if (!rill_strbuf_append(&k->text, p->src + s, p->pos - s)) {
                return fail_oom(p);
            }
        } else {
            return fail_at(p, p->pos, "expected a key");
        }
        uint32_t part_len = k->text.len - off;
        if (!rill_strbuf_append(&k->text, "", 1) || !rill_array_push(&k->offsets, off) ||
            !rill_array_push(&k->lens, part_len) || !rill_array_push(&k->cols, col)) {
            return fail_oom(p);
        }
        skip_ws(p);
        if (peek(p) != '.') {
            return RILL_OK;
        }
        advance(p);
    }
}

static const char *key_part(const key_path *k, uint32_t i) {
    return k->text.data + k->offsets.data[i];
}

static rill_toml_value *new_member(parser *p, rill_toml_value *table, rill_toml_type type,
                                   const char *key, uint32_t key_len, uint32_t col) {
    rill_toml_value *m = rill__toml_value_new(type, p->line, col);
    if (!m) {
        fail_oom(p);
        return NULL;
    }
    m->key = rill_strndup(key, key_len);
    if (key_len && !m->key) {
        rill__toml_value_free(m);
        fail_oom(p);
        return NULL;
    }
    if (!m->key) {
        /* The empty key "" is legal TOML; rill_strndup may return NULL for size 0. */
        m->key = rill_malloc_tagged(1, RILL_MEM_FORMATS);
        if (!m->key) {
            rill__toml_value_free(m);
            fail_oom(p);
            return NULL;
        }
        m->key[0] = '\0';
    }
    m->key_len = key_len;
    m->key_line = p->line;
    m->key_col = col;
    if (!rill__toml_table_add(table, m)) {
        rill__toml_value_free(m);
        fail_oom(p);
        return NULL;
    }
    return m;
}

/* >>values ------------------------------------------------------------------------------------ */

static rill_toml_value *parse_value(parser *p);

static bool is_digit(int c) {
    return c >= '0' && c <= '9';
}

/* Integers and floats. The token is every character that can belong to a number; it is then
 * checked against TOML's grammar (underscores only between digits, no leading zeros). */
static rill_toml_value *parse_number(parser *p) {
    size_t start = p->pos;
    uint32_t line = p->line, col = col_at(p, start);
    while (p->pos < p->len) {
        int c = peek(p);
        if (is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
            c == '+' || c == '-' || c == '.') {
            advance(p);
        } else {
            break;
        }
    }
    const char *t = p->src + start;
    size_t n = p->pos - start;
    if (n == 0) {
        fail_at(p, start, "expected a value");
        return NULL;
    }
    /* Dates and times look like numbers at first: 1979-05-27, 07:32:00. */
    if ((n >= 5 && is_digit(t[0]) && is_digit(t[1]) && is_digit(t[2]) && is_digit(t[3]) &&
         t[4] == '-') ||
        (peek(p) == ':' && n == 2 && is_digit(t[0]) && is_digit(t[1]))) {
        fail_at(p, start, "dates and times are not supported");
        return NULL;
    }
    size_t i = 0;
    bool neg = false;
    if (t[0] == '+' || t[0] == '-') {
        neg = t[0] == '-';
        i = 1;
    }
    const char *body = t + i;
    size_t bn = n - i;
    if (bn == 3 && (memcmp(body, "inf", 3) == 0 || memcmp(body, "nan", 3) == 0)) {
        rill_toml_value *v = rill__toml_value_new(RILL_TOML_FLOAT, line, col);
        if (!v) {
            fail_oom(p);
            return NULL;
        }
        v->as.f = body[0] == 'i' ? (neg ? -INFINITY : INFINITY) : (neg ? -NAN : NAN);
        return v;
    }
    /* Prefixed integers: 0x, 0o, 0b (no sign allowed). */
    if (bn > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o' || body[1] == 'b')) {
        if (i) {
            fail_at(p, start, "a sign is not allowed on a hex, octal or binary integer");
            return NULL;
        }
        uint32_t base = body[1] == 'x' ? 16u : body[1] == 'o' ? 8u : 2u;
        uint64_t u = 0;
        bool prev_digit = false;
        for (size_t k = 2; k < bn; k++) {
            int c = (unsigned char)body[k];
            if (c == '_') {
                if (!prev_digit || k + 1 == bn) {
                    fail_at(p, start, "'_' must sit between two digits");
                    return NULL;
                }
                prev_digit = false;
                continue;
            }
            uint32_t d;
            if (is_digit(c)) {
                d = (uint32_t)(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                d = (uint32_t)(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                d = (uint32_t)(c - 'A' + 10);
            } else {
                d = 99;
            }
            if (d >= base) {
                fail_at(p, start, "invalid digit in a base-%u integer", base);
                return NULL;
            }
            if (u > (UINT64_MAX - d) / base || u * base + d > (uint64_t)INT64_MAX) {
                fail_at(p, start, "integer does not fit in 64 bits");
                return NULL;
            }
            u = u * base + d;
            prev_digit = true;
        }
        rill_toml_value *v = rill__toml_value_new(RILL_TOML_INT, line, col);
        if (!v) {
            fail_oom(p);
            return NULL;
        }
        v->as.i = (int64_t)u;
        return v;
    }
    /* Decimal integer or float: validate the shape while copying without underscores. */
    char clean[128];
    size_t cn = 0;
    bool is_float = false, seen_exp = false, seen_dot = false;
    int prev = 0; /* 'd' digit, '_' underscore, '.' dot, 'e' exponent, 's' exponent sign */
    size_t int_digits = 0;
    bool int_leading_zero = false;
    if (bn == 0) {
        fail_at(p, start, "expected digits after the sign");
        return NULL;
    }
    if (neg) {
        clean[cn++] = '-';
    }
    for (size_t k = 0; k < bn; k++) {
        int c = (unsigned char)body[k];
        if (cn + 2 >= sizeof(clean)) {
            fail_at(p, start, "number is too long");
            return NULL;
        }
        if (is_digit(c)) {
            if (!seen_dot && !seen_exp) {
                if (int_digits == 0 && c == '0') {
                    int_leading_zero = true;
                }
                int_digits++;
            }
            clean[cn++] = (char)c;
            prev = 'd';
        } else if (c == '_') {
            if (prev != 'd' || k + 1 == bn || !is_digit((unsigned char)body[k + 1])) {
                fail_at(p, start, "'_' must sit between two digits");
                return NULL;
            }
            prev = '_';
        } else if (c == '.') {
            if (prev != 'd' || seen_dot || seen_exp || k + 1 == bn ||
                !is_digit((unsigned char)body[k + 1])) {
                fail_at(p, start, "a '.' in a number needs digits on both sides");
                return NULL;
            }
            seen_dot = is_float = true;
            clean[cn++] = '.';
            prev = '.';
        } else if (c == 'e' || c == 'E') {
            if (prev != 'd' || seen_exp) {
                fail_at(p, start, "misplaced exponent");
                return NULL;
            }
            seen_exp = is_float = true;
            clean[cn++] = 'e';
            prev = 'e';
        } else if ((c == '+' || c == '-') && prev == 'e') {
            clean[cn++] = (char)c;
            prev = 's';
        } else {
            fail_at(p, start, "invalid character '%c' in a number",
                    c >= 0x20 && c < 0x7f ? c : '?');
            return NULL;
        }
    }
    if (prev != 'd') {
        fail_at(p, start, "a number must end with a digit");
        return NULL;
    }
    if (int_leading_zero && int_digits > 1) {
        fail_at(p, start, "leading zeros are not allowed");
        return NULL;
    }
    clean[cn] = '\0';
    rill_toml_value *v =
        rill__toml_value_new(is_float ? RILL_TOML_FLOAT : RILL_TOML_INT, line, col);
    if (!v) {
        fail_oom(p);
        return NULL;
    }
    if (is_float) {
        /* The form was checked above; the one number parser rounds it (inf and nan come
         * through their own branch). */
        if (!rill_num_parse_f64(clean, cn, &v->as.f)) {
            rill__toml_value_free(v);
            fail_at(p, start, "malformed float");
            return NULL;
        }
    } else {
        /* Accumulate as a negative number so INT64_MIN parses. */
        int64_t acc = 0;
        for (size_t k = neg ? 1u : 0u; k < cn; k++) {
            int d = clean[k] - '0';
            if (acc < (INT64_MIN + d) / 10) {
                rill__toml_value_free(v);
                fail_at(p, start, "integer does not fit in 64 bits");
                return NULL;
            }
            acc = acc * 10 - d;
        }
        if (!neg) {
            if (acc == INT64_MIN) {
                rill__toml_value_free(v);
                fail_at(p, start, "integer does not fit in 64 bits");
                return NULL;
            }
            acc = -acc;
        }
        v->as.i = acc;
    }
    return v;
}

static rill_toml_value *parse_array(parser *p) {
    uint32_t line = p->line, col = col_at(p, p->pos);
    rill_toml_value *arr = rill__toml_value_new(RILL_TOML_ARRAY, line, col);
    if (!arr) {
        fail_oom(p);
        return NULL;
    }
    arr->flags = TF_STATIC;
    advance(p); /* '[' */
    for (;;) {
        if (skip_blank(p)) {
            goto error;
        }
        if (peek(p) == ']') {
            advance(p);
            return arr;
        }
        rill_toml_value *item = parse_value(p);
        if (!item) {
            goto error;
        }
        if (!rill_array_push(&arr->items, item)) {
            rill__toml_value_free(item);
            fail_oom(p);
            goto error;
        }
        if (skip_blank(p)) {
            goto error;
        }
        if (peek(p) == ',') {
            advance(p);
            continue;
        }
        if (peek(p) == ']') {
            advance(p);
            return arr;
        }
        fail_at(p, p->pos, p->pos >= p->len ? "unterminated array" : "expected ',' or ']'");
        goto error;
    }
error:
    rill__toml_value_free(arr);
    return NULL;
}

static rill_result parse_keyval(parser *p, rill_toml_value *table, key_path *k);

static rill_toml_value *parse_inline_table(parser *p) {
    uint32_t line = p->line, col = col_at(p, p->pos);
    rill_toml_value *t = rill__toml_value_new(RILL_TOML_TABLE, line, col);
    key_path k = {0};
    if (!t) {
        fail_oom(p);
        return NULL;
    }
    advance(p); /* '{' */
    skip_ws(p);
    if (peek(p) == '}') {
        advance(p);
        t->flags = TF_INLINE;
        return t;
    }
    for (;;) {
        if (parse_keyval(p, t, &k)) {
            goto error;
        }
        skip_ws(p);
        if (peek(p) == ',') {
            advance(p);
            continue;
        }
        if (peek(p) == '}') {
            advance(p);
            break;
        }
        fail_at(p, p->pos, "expected ',' or '}' in an inline table");
        goto error;
    }
    key_path_free(&k);
    /* Seal this table and every table dotted keys created inside it. */
    {
        RILL_ARRAY(rill_toml_value *) stack = {0};
        rill_toml_value *cur = t;
        while (cur) {
            if (cur->type == RILL_TOML_TABLE) {
                cur->flags |= TF_INLINE;
                for (uint32_t i = 0; i < cur->items.len; i++) {
                    if (cur->items.data[i]->type == RILL_TOML_TABLE &&
                        !rill_array_push(&stack, cur->items.data[i])) {
                        rill_array_free(&stack);
                        fail_oom(p);
                        rill__toml_value_free(t);
                        return NULL;
                    }
                }
            }
            cur = stack.len ? rill_array_pop(&stack) : NULL;
        }
        rill_array_free(&stack);
    }
    return t;
error:
    key_path_free(&k);
    rill__toml_value_free(t);
    return NULL;
}

static rill_toml_value *parse_value(parser *p) {
    if (p->depth >= RILL_TOML_MAX_DEPTH) {
        fail_code(p, RILL_ERR_LIMIT, "values are nested too deeply");
        return NULL;
    }
    int c = peek(p);
    uint32_t line = p->line, col = col_at(p, p->pos);
    if (c == '"' || c == '\'') {
        if (parse_string(p)) {
            return NULL;
        }
        rill_toml_value *v = rill__toml_value_new(RILL_TOML_STRING, line, col);
        if (!v) {
            fail_oom(p);
            return NULL;
        }
        v->as.s.data = rill_malloc_tagged(p->buf.len + 1u, RILL_MEM_FORMATS);
        if (!v->as.s.data) {
            rill__toml_value_free(v);
            fail_oom(p);
            return NULL;
        }
        if (p->buf.len) {
            memcpy(v->as.s.data, p->buf.data, p->buf.len);
        }
        v->as.s.data[p->buf.len] = '\0';
        v->as.s.len = p->buf.len;
        return v;
    }
    if (starts_with(p, "true") || starts_with(p, "false")) {
        bool b = c == 't';
        size_t n = b ? 4u : 5u;
        int after = peek_at(p, n);
        if (!is_bare_key_char(after)) {
            for (size_t i = 0; i < n; i++) {
                advance(p);
            }
            rill_toml_value *v = rill__toml_value_new(RILL_TOML_BOOL, line, col);
            if (!v) {
                fail_oom(p);
                return NULL;
            }
            v->as.b = b;
            return v;
        }
    }
    if (c == '[' || c == '{') {
        p->depth++;
        rill_toml_value *v = c == '[' ? parse_array(p) : parse_inline_table(p);
        p->depth--;
        return v;
    }
    if (is_digit(c) || c == '+' || c == '-' || starts_with(p, "inf") || starts_with(p, "nan")) {
        return parse_number(p);
    }
    size_t word = 0; /* a bare word: most likely a string without its quotes */
    while (word < 40 && p->pos + word < p->len &&
           (is_bare_key_char(peek_at(p, word)) || peek_at(p, word) == '.' ||
            peek_at(p, word) == '/')) {
        word++;
    }
    if (c < 0 || c == '\n' || c == '\r' || c == '#') {
        fail_at(p, p->pos, "expected a value");
    } else if (word && (c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
        fail_at(p, p->pos,
                "expected a value, found '%.*s' (a string needs quotes: \"%.*s\"; booleans are "
                "true and false)",
                (int)word, p->src + p->pos, (int)word, p->src + p->pos);
    } else {
        fail_at(p, p->pos, "expected a value, found '%c'", c >= 0x20 && c < 0x7f ? c : '?');
    }
    return NULL;
}

/* `key = value` into `table` (the cursor is on the key). Dotted keys create sub-tables. */
static rill_result parse_keyval(parser *p, rill_toml_value *table, key_path *k) {
    skip_ws(p); /* so errors point at the key, not at the space before it */
    size_t key_pos = p->pos;
    uint32_t key_line = p->line;
    if (parse_key(p, k)) {
        return p->failed;
    }
    if (peek(p) != '=') {
        return fail_at(p, p->pos, "expected '=' after a key");
    }
    advance(p);
    skip_ws(p);
    rill_toml_value *t = table;
    for (uint32_t i = 0; i + 1u < k->offsets.len; i++) {
        rill_toml_value *m = rill__toml_table_get(t, key_part(k, i), k->lens.data[i]);
        if (!m) {
            m = new_member(p, t, RILL_TOML_TABLE, key_part(k, i), k->lens.data[i], k->cols.data[i]);
            if (!m) {
                return p->failed;
            }
            m->line = key_line;
            m->flags = TF_DOTTED;
        } else if (m->type != RILL_TOML_TABLE || (m->flags & (TF_INLINE | TF_HEADER))) {
            return fail_at(p, key_pos, "key '%s' is already defined and cannot be extended",
                           key_part(k, i));
        }
        t = m;
    }
    uint32_t last = k->offsets.len - 1u;
    if (rill__toml_table_get(t, key_part(k, last), k->lens.data[last])) {
        return fail_at(p, key_pos, "duplicate key '%s'", key_part(k, last));
    }
    /* Copy the last part of the key now: parsing the value reuses the scratch string buffer. */
    uint32_t last_len = k->lens.data[last];
    uint32_t last_col = k->cols.data[last];
    char *name = rill_strndup(key_part(k, last), last_len);
    if (!name && last_len) {
        return fail_oom(p);
    }
    rill_toml_value *v = parse_value(p);
    if (!v) {
        rill_free(name);
        return p->failed;
    }
    v->key = name;
    if (!v->key) {
        v->key = rill_malloc_tagged(1, RILL_MEM_FORMATS);
        if (!v->key) {
            rill__toml_value_free(v);
            return fail_oom(p);
        }
        v->key[0] = '\0';
    }
    v->key_len = last_len;
    v->key_line = key_line;
    v->key_col = last_col;
    if (v->type == RILL_TOML_TABLE) {
        v->line = key_line;
    }
    if (!rill__toml_table_add(t, v)) {
        rill__toml_value_free(v);
        return fail_oom(p);
    }
    return RILL_OK;
}

/* `[a.b]` or `[[a.b]]`; the cursor is on the first '['. */
static rill_result parse_header(parser *p, key_path *k) {
    size_t at = p->pos;
    bool aot = peek_at(p, 1) == '[';
    advance(p);
    if (aot) {
        advance(p);
    }
    if (parse_key(p, k)) {
        return p->failed;
    }
    if (peek(p) != ']' || (aot && peek_at(p, 1) != ']')) {
        return fail_at(p, p->pos, aot ? "expected ']]'" : "expected ']'");
    }
    advance(p);
    if (aot) {
        advance(p);
    }
    rill_toml_value *t = p->root;
    for (uint32_t i = 0; i + 1u < k->offsets.len; i++) {
        rill_toml_value *m = rill__toml_table_get(t, key_part(k, i), k->lens.data[i]);
        if (!m) {
            m = new_member(p, t, RILL_TOML_TABLE, key_part(k, i), k->lens.data[i], k->cols.data[i]);
            if (!m) {
                return p->failed;
            }
        } else if (m->type == RILL_TOML_ARRAY && (m->flags & TF_AOT) && m->items.len) {
            m = rill_array_last(&m->items);
        } else if (m->type != RILL_TOML_TABLE || (m->flags & TF_INLINE)) {
            return fail_at(p, at, "'%s' is not a table that can be extended", key_part(k, i));
        }
        t = m;
    }
    uint32_t last = k->offsets.len - 1u;
    const char *name = key_part(k, last);
    uint32_t name_len = k->lens.data[last];
    rill_toml_value *m = rill__toml_table_get(t, name, name_len);
    if (aot) {
        if (!m) {
            m = new_member(p, t, RILL_TOML_ARRAY, name, name_len, col_at(p, at));
            if (!m) {
                return p->failed;
            }
            m->line = p->line;
            m->flags = TF_AOT;
        } else if (m->type != RILL_TOML_ARRAY || !(m->flags & TF_AOT)) {
            return fail_at(p, at, "'%s' is already defined and is not an array of tables", name);
        }
        rill_toml_value *elem = rill__toml_value_new(RILL_TOML_TABLE, p->line, col_at(p, at));
        if (!elem) {
            return fail_oom(p);
        }
        elem->flags = TF_HEADER;
        if (!rill_array_push(&m->items, elem)) {
            rill__toml_value_free(elem);
            return fail_oom(p);
        }
        p->current = elem;
        return RILL_OK;
    }
    if (!m) {
        m = new_member(p, t, RILL_TOML_TABLE, name, name_len, col_at(p, at));
        if (!m) {
            return p->failed;
        }
    } else if (m->type != RILL_TOML_TABLE || (m->flags & (TF_HEADER | TF_DOTTED | TF_INLINE))) {
        return fail_at(p, at, "table '%s' is defined twice", name);
    }
    m->flags |= TF_HEADER;
    m->line = m->key_line = p->line;
    m->col = m->key_col = col_at(p, at);
    p->current = m;
    return RILL_OK;
}

rill_result rill_toml_parse(const char *text, size_t len, const char *name, rill_toml **out_doc,
                            rill_error *err) {
    if (out_doc) {
        *out_doc = NULL;
    }
    if (!out_doc || (!text && len)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_toml_parse: NULL argument");
    }
    if (!name) {
        name = "<toml>";
    }
    if (len > RILL_TOML_MAX_INPUT) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: file is larger than %u bytes", name,
                              (unsigned)RILL_TOML_MAX_INPUT);
    }
    rill_toml *doc = rill_calloc_tagged(1, sizeof(*doc), RILL_MEM_FORMATS);
    parser p = {0};
    p.src = text ? text : "";
    p.len = len;
    p.line = 1;
    p.name = name;
    p.err = err;
    key_path k = {0};
    if (!doc || !(doc->name = rill_strdup(name)) ||
        !(doc->root = rill__toml_value_new(RILL_TOML_TABLE, 1, 1))) {
        fail_oom(&p);
        goto done;
    }
    doc->root->flags = TF_HEADER;
    p.root = p.current = doc->root;
    if (rill_text_is_utf16(text, len)) {
        fail_at(&p, 0, "%s", RILL_TEXT_UTF16_HINT);
        goto done;
    }
    /* A UTF-8 byte order mark at the very start is allowed and skipped. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        p.pos = 3;
        p.line_start = 3;
    }
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\0') {
            /* Report NULs with the right position by scanning lines up to it. */
            uint32_t line = 1;
            size_t ls = 0;
            for (size_t j = 0; j < i; j++) {
                if (text[j] == '\n') {
                    line++;
                    ls = j + 1u;
                }
            }
            p.line = line;
            p.line_start = ls;
            fail_at(&p, i, "NUL byte in a text file");
            goto done;
        }
    }
    for (;;) {
        if (skip_blank(&p)) {
            goto done;
        }
        if (p.pos >= p.len) {
            break;
        }
        if (peek(&p) == '[') {
            if (parse_header(&p, &k)) {
                goto done;
            }
        } else if (parse_keyval(&p, p.current, &k)) {
            goto done;
        }
        if (end_of_line(&p)) {
            goto done;
        }
    }
done:
    key_path_free(&k);
    rill_strbuf_free(&p.buf);
    if (p.failed) {
        rill_toml_destroy(doc);
        return p.failed;
    }
    *out_doc = doc;
    return RILL_OK;
}

rill_result rill_toml_load(const char *path, rill_toml **out_doc, rill_error *err) {
    if (out_doc) {
        *out_doc = NULL;
    }
    if (!path || !out_doc) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_toml_load: NULL argument");
    }
    uint8_t *data = NULL;
    size_t size = 0;
    /* The format's own cap is applied from the file's size, before a byte is read. */
    rill_result r = rill_file_read_all_in(NULL, path, RILL_TOML_MAX_INPUT, &data, &size, err);
    if (r != RILL_OK) {
        return r;
    }
    r = rill_toml_parse((const char *)data, size, path, out_doc, err);
    rill_free(data);
    return r;
}
