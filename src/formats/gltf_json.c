/* gltf_json.c: the glTF reader's JSON parser (see gltf_json.h for what it promises).
 *
 * Why not a general JSON library: a glTF's JSON chunk of a few MB holds hundreds of thousands of
 * values, and a parser that allocates every value and every string separately spends more time
 * in malloc than in the whole rest of the load. This one copies the text once, unescapes strings
 * in place, takes nodes from blocks, and converts the common numbers (integers, short decimals)
 * exactly without strtod. */
#include "gltf_json.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "rill/base.h"

/* Nesting deeper than this is refused: glTF needs about 8 levels, and a cap keeps the recursive
 * descent's stack use bounded on hostile input. */
#define GJ_MAX_DEPTH 128

struct rill__gj_block {
    rill__gj_block *next;
    uint32_t used, cap;
    rill__gj nodes[];
};

typedef struct gp {
    char *s;   /* cursor in the private copy */
    char *end; /* one past the last byte (a NUL is stored there) */
    rill__gj_doc *doc;
    size_t max_bytes;
    bool over_limit;
} gp;

static rill__gj *new_node(gp *p, uint8_t type) {
    rill__gj_block *b = p->doc->blocks;
    if (!b || b->used == b->cap) {
        /* Blocks double from 64 nodes up to 8192, so small files stay small and large ones make
         * few allocations. */
        uint32_t cap = b ? (b->cap < 8192u ? b->cap * 2u : 8192u) : 64u;
        size_t bytes = sizeof(rill__gj_block) + (size_t)cap * sizeof(rill__gj);
        if (p->doc->bytes + bytes > p->max_bytes) {
            p->over_limit = true;
            return NULL;
        }
        rill__gj_block *nb = rill_malloc_tagged(bytes, RILL_MEM_FORMATS);
        if (!nb) {
            p->over_limit = true;
            return NULL;
        }
        nb->next = b;
        nb->used = 0;
        nb->cap = cap;
        p->doc->blocks = nb;
        p->doc->bytes += bytes;
        b = nb;
    }
    rill__gj *n = &b->nodes[b->used++];
    n->type = type;
    n->lazy = 0;
    n->count = 0;
    n->key = NULL;
    n->next = NULL;
    n->child = NULL;
    n->u.num = 0.0;
    return n;
}

static void skip_ws(gp *p) {
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\n' || *p->s == '\r' || *p->s == '\t')) {
        p->s++;
    }
}

static int hex4(const char *s) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = (c >= '0' && c <= '9')   ? c - '0'
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                         : -1;
        if (d < 0) {
            return -1;
        }
        v = v * 16 + d;
    }
    return v;
}

/* Parses a string starting at the opening quote; the unescaped, NUL-terminated result starts one
 * byte after the quote (escapes always shrink, so the write cursor never passes the read one). */
static const char *parse_string(gp *p) {
    char *src = p->s + 1;
    char *out = src;
    char *dst = src;
    for (;;) {
        if (src >= p->end) {
            p->s = src;
            return NULL;
        }
        unsigned char c = (unsigned char)*src;
        if (c == '"') {
            *dst = '\0';
            p->s = src + 1;
            return out;
        }
        if (c < 0x20) {
            p->s = src; /* raw control characters are not allowed inside JSON strings */
            return NULL;
        }
        if (c != '\\') {
            *dst++ = (char)c;
            src++;
            continue;
        }
        if (src + 1 >= p->end) {
            p->s = src;
            return NULL;
        }
        char e = src[1];
        src += 2;
        switch (e) {
        case '"':
            *dst++ = '"';
            break;
        case '\\':
            *dst++ = '\\';
            break;
        case '/':
            *dst++ = '/';
            break;
        case 'b':
            *dst++ = '\b';
            break;
        case 'f':
            *dst++ = '\f';
            break;
        case 'n':
            *dst++ = '\n';
            break;
        case 'r':
            *dst++ = '\r';
            break;
        case 't':
            *dst++ = '\t';
            break;
        case 'u': {
            int cp = p->end - src >= 4 ? hex4(src) : -1;
            if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) {
                p->s = src - 2;
                return NULL;
            }
            src += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                /* A high surrogate must be followed by an escaped low one. */
                int lo =
                    (p->end - src >= 6 && src[0] == '\\' && src[1] == 'u') ? hex4(src + 2) : -1;
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    p->s = src - 6;
                    return NULL;
                }
                src += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            if (cp < 0x80) {
                *dst++ = (char)cp;
            } else if (cp < 0x800) {
                *dst++ = (char)(0xC0 | (cp >> 6));
                *dst++ = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                *dst++ = (char)(0xE0 | (cp >> 12));
                *dst++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                *dst++ = (char)(0x80 | (cp & 0x3F));
            } else {
                *dst++ = (char)(0xF0 | (cp >> 18));
                *dst++ = (char)(0x80 | ((cp >> 12) & 0x3F));
                *dst++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                *dst++ = (char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default:
            p->s = src - 2;
            return NULL;
        }
    }
}

static const double k_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The slow path: strtod on the validated span, with the locale's decimal point swapped in when it
 * is not '.', so a program that called setlocale still reads "0.5" as one half. */
static double slow_number(const char *start, size_t len) {
    const char *dp = localeconv()->decimal_point;
    if (dp && dp[0] == '.' && dp[1] == '\0') {
        return strtod(start, NULL); /* the span is followed by a byte no number can contain */
    }
    char small[128];
    char *buf = len < sizeof(small) ? small : rill_malloc_tagged(len + 8, RILL_MEM_FORMATS);
    if (!buf) {
        return 0.0;
    }
    size_t o = 0;
    size_t dpl = dp ? strlen(dp) : 0;
    for (size_t i = 0; i < len; i++) {
        if (start[i] == '.' && dpl && dpl < 8) {
            memcpy(buf + o, dp, dpl);
            o += dpl;
        } else {
            buf[o++] = start[i];
        }
    }
    buf[o] = '\0';
    double v = strtod(buf, NULL);
    if (buf != small) {
        rill_free(buf);
    }
    return v;
}

/* A JSON number (RFC 8259 grammar, checked here because strtod accepts more: hex, "inf", a
 * leading '+' or '.'). Up to 19 significant digits with a decimal exponent within +-22 and a
 * mantissa below 2^53 convert exactly with one multiplication or division (both operands are
 * exact doubles, so the result is correctly rounded); everything else goes through strtod. */
static bool parse_number(gp *p, double *out, bool *lazy) {
    char *s = p->s, *start = s;
    bool neg = false;
    if (s < p->end && *s == '-') {
        neg = true;
        s++;
    }
    if (s >= p->end || *s < '0' || *s > '9') {
        return false;
    }
    uint64_t m = 0;
    int digits = 0, exp10 = 0;
    bool exact = true;
    if (*s == '0') {
        s++;
    } else {
        while (s < p->end && *s >= '0' && *s <= '9') {
            if (digits < 19) {
                m = m * 10u + (uint64_t)(*s - '0');
                digits += m != 0;
            } else {
                exp10++;
                exact = false;
            }
            s++;
        }
    }
    if (s < p->end && *s == '.') {
        s++;
        if (s >= p->end || *s < '0' || *s > '9') {
            return false;
        }
        while (s < p->end && *s >= '0' && *s <= '9') {
            if (digits < 19) {
                m = m * 10u + (uint64_t)(*s - '0');
                digits += m != 0;
                exp10--;
            } else {
                exact = false;
            }
            s++;
        }
    }
    if (s < p->end && (*s == 'e' || *s == 'E')) {
        s++;
        bool eneg = false;
        if (s < p->end && (*s == '+' || *s == '-')) {
            eneg = *s == '-';
            s++;
        }
        if (s >= p->end || *s < '0' || *s > '9') {
            return false;
        }
        int e = 0;
        while (s < p->end && *s >= '0' && *s <= '9') {
            if (e < 100000) {
                e = e * 10 + (*s - '0');
            }
            s++;
        }
        exp10 += eneg ? -e : e;
    }
    p->s = s;
    *lazy = false;
    if (exact && m < ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)m;
        v = exp10 >= 0 ? v * k_pow10[exp10] : v / k_pow10[-exp10];
        *out = neg ? -v : v;
    } else {
        (void)start;
        *lazy = true;
    }
    return true;
}

static bool literal(gp *p, const char *word, size_t n) {
    if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0) {
        return false;
    }
    p->s += n;
    return true;
}

static rill__gj *parse_value(gp *p, int depth);

/* Parses the members of an object or the elements of an array (cursor after the bracket). */
static rill__gj *parse_container(gp *p, int depth, bool object) {
    rill__gj *node = new_node(p, object ? RILL__GJ_OBJECT : RILL__GJ_ARRAY);
    if (!node) {
        return NULL;
    }
    char close = object ? '}' : ']';
    skip_ws(p);
    if (p->s < p->end && *p->s == close) {
        p->s++;
        return node;
    }
    rill__gj *last = NULL;
    for (;;) {
        const char *key = NULL;
        skip_ws(p);
        if (object) {
            if (p->s >= p->end || *p->s != '"' || !(key = parse_string(p))) {
                return NULL;
            }
            skip_ws(p);
            if (p->s >= p->end || *p->s != ':') {
                return NULL;
            }
            p->s++;
            skip_ws(p);
        }
        rill__gj *child = parse_value(p, depth + 1);
        if (!child) {
            return NULL;
        }
        child->key = key;
        if (last) {
            last->next = child;
        } else {
            node->child = child;
        }
        last = child;
        node->count++;
        skip_ws(p);
        if (p->s >= p->end) {
            return NULL;
        }
        if (*p->s == ',') {
            p->s++;
            continue;
        }
        if (*p->s == close) {
            p->s++;
            return node;
        }
        return NULL;
    }
}

static rill__gj *parse_value(gp *p, int depth) {
    if (depth > GJ_MAX_DEPTH || p->s >= p->end) {
        return NULL;
    }
    rill__gj *n;
    switch (*p->s) {
    case '{':
    case '[': {
        bool object = *p->s == '{';
        p->s++;
        return parse_container(p, depth, object);
    }
    case '"': {
        const char *str = parse_string(p);
        if (!str || !(n = new_node(p, RILL__GJ_STRING))) {
            return NULL;
        }
        n->u.str = str;
        return n;
    }
    case 't':
        return literal(p, "true", 4) ? new_node(p, RILL__GJ_TRUE) : NULL;
    case 'f':
        return literal(p, "false", 5) ? new_node(p, RILL__GJ_FALSE) : NULL;
    case 'n':
        return literal(p, "null", 4) ? new_node(p, RILL__GJ_NULL) : NULL;
    default: {
        double v = 0.0;
        bool lazy = false;
        char *start = p->s;
        if (!parse_number(p, &v, &lazy) || !(n = new_node(p, RILL__GJ_NUMBER))) {
            return NULL;
        }
        if (lazy) {
            n->lazy = 1;
            n->u.str = start;
            n->count = (uint32_t)(p->s - start < UINT32_MAX ? p->s - start : UINT32_MAX);
        } else {
            n->u.num = v;
        }
        return n;
    }
    }
}

void rill__gj_free(rill__gj_doc *doc) {
    rill__gj_block *b = doc->blocks;
    while (b) {
        rill__gj_block *next = b->next;
        rill_free(b);
        b = next;
    }
    rill_free(doc->text);
    memset(doc, 0, sizeof(*doc));
}

bool rill__gj_parse(const char *json, size_t size, size_t max_bytes, rill__gj_doc *doc,
                    size_t *err_offset, bool *over_limit) {
    memset(doc, 0, sizeof(*doc));
    *err_offset = 0;
    *over_limit = false;
    if (size >= max_bytes || size >= SIZE_MAX - 1) {
        *over_limit = true;
        return false;
    }
    doc->text = rill_malloc_tagged(size + 1, RILL_MEM_FORMATS);
    if (!doc->text) {
        *over_limit = true;
        return false;
    }
    memcpy(doc->text, json, size);
    doc->text[size] = '\0';
    doc->bytes = size + 1;
    gp p = {doc->text, doc->text + size, doc, max_bytes, false};
    skip_ws(&p);
    const rill__gj *root = parse_value(&p, 0);
    if (root) {
        /* GLB pads the JSON chunk with spaces; some writers pad with NULs. */
        while (p.s < p.end &&
               (*p.s == ' ' || *p.s == '\n' || *p.s == '\r' || *p.s == '\t' || *p.s == '\0')) {
            p.s++;
        }
    }
    if (!root || p.s != p.end) {
        *err_offset = (size_t)(p.s - doc->text);
        *over_limit = p.over_limit;
        rill__gj_free(doc);
        return false;
    }
    doc->root = root;
    return true;
}

const rill__gj *rill__gj_get(const rill__gj *obj, const char *key) {
    if (!obj || obj->type != RILL__GJ_OBJECT) {
        return NULL;
    }
    for (const rill__gj *c = obj->child; c; c = c->next) {
        if (c->key[0] == key[0] && strcmp(c->key, key) == 0) {
            return c;
        }
    }
    return NULL;
}

double rill__gj_num(const rill__gj *v) {
    if (!v || v->type != RILL__GJ_NUMBER) {
        return 0.0;
    }
    return v->lazy ? slow_number(v->u.str, v->count) : v->u.num;
}

bool rill__gj_num_finite(const rill__gj *v) {
    if (!v || v->type != RILL__GJ_NUMBER) {
        return false;
    }
    if (!v->lazy) {
        return true; /* the fast path only yields values below 2^53 * 1e22 */
    }
    /* Digits before the point plus the exponent bound the decimal magnitude: far below the
     * double range, no conversion is needed to know the value is finite. */
    const char *s = v->u.str, *end = s + v->count;
    long int_digits = 0, e = 0;
    bool eneg = false;
    if (s < end && *s == '-') {
        s++;
    }
    while (s < end && *s >= '0' && *s <= '9') {
        int_digits++;
        s++;
    }
    while (s < end && *s != 'e' && *s != 'E') {
        s++;
    }
    if (s < end) {
        s++;
        if (s < end && (*s == '+' || *s == '-')) {
            eneg = *s == '-';
            s++;
        }
        while (s < end && *s >= '0' && *s <= '9' && e < 100000) {
            e = e * 10 + (*s - '0');
            s++;
        }
    }
    if (eneg || int_digits + e < 300) {
        return true; /* tiny values underflow towards zero, which is finite */
    }
    double d = slow_number(v->u.str, v->count);
    return d - d == 0.0;
}
