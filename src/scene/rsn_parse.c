/* rsn_parse.c: the .rsn lexer and parser, text -> rsn_doc (see docs/formats/rsn.md).
 *
 * The parser is a single forward pass over a NUL-terminated copy of the text with one token of
 * lookahead. It never trusts the input: every read is bounded by the terminating NUL, nesting is
 * limited, and the first error stops the parse with a "path:line:col: message" error. Values are
 * checked for syntax and kept as source spans; reflection's value parser gives them their
 * meaning when the binder binds them to component fields.
 */
#include "rsn_doc.h"

#include <stdio.h>
#include <string.h>

/* Tuples inside arrays inside tuples are as deep as real data goes; the limit only stops a
 * hostile file from exhausting the stack. */
#define RSN_MAX_VALUE_DEPTH 16

typedef enum tok_kind {
    TOK_EOF = 0,
    TOK_IDENT,
    TOK_NUMBER,
    TOK_STRING,
    TOK_LBRACE,
    TOK_RBRACE,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_LBRACKET,
    TOK_RBRACKET,
    TOK_COLON,
    TOK_COMMA,
    TOK_AT,
    TOK_AMP,
    TOK_ERROR,
} tok_kind;

typedef struct token {
    tok_kind kind;
    uint32_t off, len; /* strings: the content between the quotes */
    uint32_t line, col;
} token;

typedef struct parser {
    rsn_doc *doc;
    const char *s;
    uint32_t pos;
    uint32_t line, line_start;
    token tok;         /* current token */
    uint32_t last_end; /* end of the token before tok */
    rill_error *err;
    bool failed;
} parser;

static bool fail_at(parser *p, uint32_t line, uint32_t col, const char *fmt, ...) RILL_PRINTF(4, 5);

static bool fail_at(parser *p, uint32_t line, uint32_t col, const char *fmt, ...) {
    if (p->failed) {
        return false;
    }
    p->failed = true;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rill_error_set(p->err, RILL_ERR_PARSE, "%s:%u:%u: %s", p->doc->path, line, col, msg);
    return false;
}

static inline bool is_ident_start(char c) {
    return (unsigned)((c | 0x20) - 'a') < 26u || c == '_';
}
static inline bool is_ident_char(char c) {
    return (unsigned)((c | 0x20) - 'a') < 26u || (unsigned)(c - '0') < 10u || c == '_' || c == '.';
}
static bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Describes a token for messages ("'{'", "identifier 'foo'", "end of file"). */
static const char *tok_desc(const parser *p, const token *t, char *buf, size_t cap) {
    switch (t->kind) {
    case TOK_EOF:
        return "end of file";
    case TOK_IDENT:
    case TOK_NUMBER:
        snprintf(buf, cap, "'%.*s'", (int)RILL_MIN(t->len, 40u), p->s + t->off);
        return buf;
    case TOK_STRING:
        return "a string";
    default:
        snprintf(buf, cap, "'%c'", p->s[t->off]);
        return buf;
    }
}

/* Reads the next token into p->tok. Errors become TOK_ERROR with p->failed set. */
static void next(parser *p) {
    const char *s = p->s;
    uint32_t i = p->pos;
    p->last_end = i;
    const size_t len = p->doc->src_len;
    for (;;) {
        /* Canonical files indent with runs of spaces: skip them 8 bytes at a time while the
         * 8 bytes lie inside the text. */
        while (i + 8u <= len) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w != UINT64_C(0x2020202020202020)) {
                break;
            }
            i += 8u;
        }
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            i++;
        } else if (c == '\n') {
            i++;
            p->line++;
            p->line_start = i;
        } else if (c == '#') {
            while (s[i] != '\n' && s[i] != '\0') {
                i++;
            }
        } else {
            break;
        }
    }
    token *t = &p->tok;
    t->off = i;
    t->len = 1;
    t->line = p->line;
    t->col = i - p->line_start + 1;
    char c = s[i];
    if (c == '\0') {
        /* An embedded NUL before the real end is not text. */
        if (i < p->doc->src_len) {
            fail_at(p, t->line, t->col, "unexpected NUL byte");
            t->kind = TOK_ERROR;
            return;
        }
        t->kind = TOK_EOF;
        t->len = 0;
        p->pos = i;
        return;
    }
    if (is_ident_start(c)) {
        uint32_t j = i + 1;
        while (is_ident_char(s[j])) {
            j++;
        }
        t->kind = TOK_IDENT;
        t->len = j - i;
        p->pos = j;
        return;
    }
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
        /* A number token is a run of number-ish characters; the binder validates its form. A sign
         * is only part of one right after an exponent letter. */
        uint32_t j = i + 1;
        for (;;) {
            char d = s[j];
            if ((d >= '0' && d <= '9') || (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') ||
                d == '.' || d == '_') {
                j++;
            } else if ((d == '-' || d == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E') &&
                       !(j - i >= 2 && (s[i + 1] == 'x' || s[i + 1] == 'X'))) {
                j++;
            } else {
                break;
            }
        }
        t->kind = TOK_NUMBER;
        t->len = j - i;
        p->pos = j;
        return;
    }
    if (c == '"') {
        uint32_t j = i + 1;
        for (;;) {
            unsigned char d = (unsigned char)s[j];
            if (d == '"') {
                break;
            }
            if (d == '\0' || d == '\n') {
                fail_at(p, t->line, t->col, "unterminated string");
                t->kind = TOK_ERROR;
                return;
            }
            if (d == '\\') {
                char e = s[j + 1];
                if (e == '"' || e == '\\' || e == 'n' || e == 'r' || e == 't' || e == '0') {
                    j += 2;
                } else if (e == 'x' && is_hex(s[j + 2]) && is_hex(s[j + 3])) {
                    j += 4;
                } else {
                    fail_at(p, t->line, j - p->line_start + 1, "invalid escape in string");
                    t->kind = TOK_ERROR;
                    return;
                }
                continue;
            }
            if (d < 0x20 && d != '\t') {
                fail_at(p, t->line, j - p->line_start + 1, "control byte 0x%02x in string", d);
                t->kind = TOK_ERROR;
                return;
            }
            j++;
        }
        t->kind = TOK_STRING;
        t->off = i + 1;
        t->len = j - i - 1;
        p->pos = j + 1;
        return;
    }
    p->pos = i + 1;
    switch (c) {
    case '{':
        t->kind = TOK_LBRACE;
        return;
    case '}':
        t->kind = TOK_RBRACE;
        return;
    case '(':
        t->kind = TOK_LPAREN;
        return;
    case ')':
        t->kind = TOK_RPAREN;
        return;
    case '[':
        t->kind = TOK_LBRACKET;
        return;
    case ']':
        t->kind = TOK_RBRACKET;
        return;
    case ':':
        t->kind = TOK_COLON;
        return;
    case ',':
        t->kind = TOK_COMMA;
        return;
    case '@':
        t->kind = TOK_AT;
        return;
    case '&':
        t->kind = TOK_AMP;
        return;
    default:
        break;
    }
    if ((unsigned char)c == 0xEF && (unsigned char)s[i + 1] == 0xBB &&
        (unsigned char)s[i + 2] == 0xBF) { /* s is NUL-terminated: each test stops at the end */
        fail_at(p, t->line, t->col,
                "a byte-order mark (EF BB BF) is only allowed at the start of the file");
    } else if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f) {
        fail_at(p, t->line, t->col, "unexpected character '%c'", c);
    } else {
        fail_at(p, t->line, t->col, "unexpected byte 0x%02x", (unsigned char)c);
    }
    t->kind = TOK_ERROR;
}

static inline bool tok_is_n(const parser *p, const char *word, size_t n) {
    return p->tok.kind == TOK_IDENT && p->tok.len == n && memcmp(p->s + p->tok.off, word, n) == 0;
}
/* word must be a string literal (its length is taken at compile time). */
#define tok_is(p, word) tok_is_n((p), (word), sizeof(word) - 1u)

static bool expect(parser *p, tok_kind kind, const char *what) {
    if (p->tok.kind == kind) {
        next(p);
        return !p->failed;
    }
    if (p->failed) {
        return false;
    }
    char buf[64];
    return fail_at(p, p->tok.line, p->tok.col, "expected %s, found %s", what,
                   tok_desc(p, &p->tok, buf, sizeof buf));
}

/* Parses a decimal or 0x id in 1..UINT32_MAX from the current token. */
static bool parse_id(parser *p, uint32_t *out, const char *what) {
    char buf[64];
    if (p->tok.kind != TOK_NUMBER) {
        return fail_at(p, p->tok.line, p->tok.col, "expected %s, found %s", what,
                       tok_desc(p, &p->tok, buf, sizeof buf));
    }
    const char *s = p->s + p->tok.off;
    uint32_t n = p->tok.len;
    uint64_t v = 0;
    bool ok = n > 0 && n <= 10;
    for (uint32_t i = 0; ok && i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            ok = false;
        } else {
            v = v * 10u + (uint64_t)(s[i] - '0');
        }
    }
    if (!ok || v == 0 || v > UINT32_MAX) {
        return fail_at(p, p->tok.line, p->tok.col, "%s must be an integer from 1 to 4294967295",
                       what);
    }
    *out = (uint32_t)v;
    next(p);
    return !p->failed;
}

/* Checks one value's syntax and moves past it. Values are not stored: the binder hands each
 * field's value text to reflection's parser, which gives them their meaning. */
static bool parse_value(parser *p, uint32_t depth) {
    char buf[64];
    if (depth > RSN_MAX_VALUE_DEPTH) {
        return fail_at(p, p->tok.line, p->tok.col, "values nested too deeply");
    }
    switch (p->tok.kind) {
    case TOK_NUMBER:
    case TOK_STRING:
        next(p);
        return !p->failed;
    case TOK_IDENT:
        next(p);
        /* A tagged tuple, `euler(-25, 0, 0)`: reflection's parser gives the tag its meaning. */
        if (!p->failed && p->tok.kind == TOK_LPAREN) {
            return parse_value(p, depth + 1);
        }
        return !p->failed;
    case TOK_AT:
        next(p);
        if (p->tok.kind != TOK_STRING) {
            return fail_at(p, p->tok.line, p->tok.col, "expected a string after '@'");
        }
        next(p);
        return !p->failed;
    case TOK_AMP: {
        next(p);
        uint32_t id;
        return !p->failed && parse_id(p, &id, "an entity id after '&'");
    }
    case TOK_LPAREN:
    case TOK_LBRACKET: {
        bool tuple = p->tok.kind == TOK_LPAREN;
        tok_kind close = tuple ? TOK_RPAREN : TOK_RBRACKET;
        uint32_t line = p->tok.line, col = p->tok.col, count = 0;
        next(p);
        while (!p->failed && p->tok.kind != close) {
            if (!parse_value(p, depth + 1)) {
                return false;
            }
            count++;
            if (p->tok.kind == TOK_COMMA) {
                next(p);
            } else if (p->tok.kind != close) {
                return fail_at(p, p->tok.line, p->tok.col, "expected ',' or '%c', found %s",
                               tuple ? ')' : ']', tok_desc(p, &p->tok, buf, sizeof buf));
            }
        }
        if (p->failed) {
            return false;
        }
        if (tuple && count == 0) {
            return fail_at(p, line, col, "empty tuple");
        }
        next(p);
        return !p->failed;
    }
    default:
        return fail_at(p, p->tok.line, p->tok.col, "expected a value, found %s",
                       tok_desc(p, &p->tok, buf, sizeof buf));
    }
}

static bool parse_component(parser *p) {
    rsn_doc *d = p->doc;
    rsn_component c = {0};
    c.name_off = p->tok.off;
    c.name_len = p->tok.len;
    c.line = p->tok.line;
    c.col = p->tok.col;
    c.raw_off = p->tok.off;
    c.first_field = d->fields.len;
    next(p);
    if (!expect(p, TOK_LBRACE, "'{' after the component name")) {
        return false;
    }
    while (p->tok.kind == TOK_IDENT) {
        rsn_field f = {0};
        f.name_off = p->tok.off;
        f.name_len = p->tok.len;
        f.line = p->tok.line;
        f.col = p->tok.col;
        next(p);
        if (!expect(p, TOK_COLON, "':' after the field name")) {
            return false;
        }
        f.val_off = p->tok.kind == TOK_STRING ? p->tok.off - 1u : p->tok.off;
        f.val_line = p->tok.line;
        f.val_col = p->tok.col;
        if (!parse_value(p, 0)) {
            return false;
        }
        f.val_end = p->last_end;
        if (d->fields.len >= d->fields.cap && !rill_array_reserve(&d->fields, d->fields.len + 1u)) {
            return fail_at(p, f.line, f.col, "out of memory");
        }
        d->fields.data[d->fields.len++] = f;
        c.field_count++;
    }
    if (p->tok.kind != TOK_RBRACE) {
        char buf[64];
        return fail_at(p, p->tok.line, p->tok.col, "expected a field name or '}', found %s",
                       tok_desc(p, &p->tok, buf, sizeof buf));
    }
    c.raw_end = p->tok.off + 1u;
    next(p);
    if (p->failed) {
        return false;
    }
    if (!rill_array_push(&d->comps, c)) {
        return fail_at(p, c.line, c.col, "out of memory");
    }
    return true;
}

static bool parse_entity(parser *p) {
    rsn_doc *d = p->doc;
    rsn_entity e = {0};
    e.line = p->tok.line;
    e.col = p->tok.col;
    e.name_off = RSN_NONE_INDEX;
    e.parent_index = RSN_NONE_INDEX;
    next(p);
    if (p->failed || !parse_id(p, &e.id, "an entity id")) {
        return false;
    }
    if (tok_is(p, "parent")) {
        next(p);
        if (p->failed || !parse_id(p, &e.parent, "a parent id")) {
            return false;
        }
    }
    if (p->tok.kind == TOK_STRING) {
        e.name_off = p->tok.off - 1u;
        e.name_len = p->tok.len + 2u;
        next(p);
        if (p->failed) {
            return false;
        }
    }
    if (!expect(p, TOK_LBRACE, "'{' to open the entity")) {
        return false;
    }
    e.first_comp = d->comps.len;
    while (p->tok.kind == TOK_IDENT) {
        if (!parse_component(p)) {
            return false;
        }
        e.comp_count++;
    }
    if (!expect(p, TOK_RBRACE, "a component name or '}'")) {
        return false;
    }
    uint64_t prev;
    if (rill_map_get(&d->id_to_index, e.id, &prev)) {
        const rsn_entity *o = &d->entities.data[prev];
        return fail_at(p, e.line, e.col, "duplicate entity id %u (first at line %u)", e.id,
                       o->line);
    }
    if (!rill_map_set(&d->id_to_index, e.id, d->entities.len) ||
        !rill_array_push(&d->entities, e)) {
        return fail_at(p, e.line, e.col, "out of memory");
    }
    return true;
}

/* Resolves parent ids to indices and refuses loops (a parent chain that comes back to itself). */
static bool link_parents(parser *p) {
    rsn_doc *d = p->doc;
    uint32_t n = d->entities.len;
    for (uint32_t i = 0; i < n; i++) {
        rsn_entity *e = &d->entities.data[i];
        if (e->parent == 0) {
            continue;
        }
        uint64_t idx;
        if (!rill_map_get(&d->id_to_index, e->parent, &idx)) {
            return fail_at(p, e->line, e->col, "parent %u of entity %u is not in the file",
                           e->parent, e->id);
        }
        e->parent_index = (uint32_t)idx;
    }
    /* Colors: 0 unvisited, 1 on the current chain, 2 known to reach a root. */
    uint8_t *mark = rill_calloc_tagged(n ? n : 1, 1, RILL_MEM_SCENE);
    if (!mark) {
        return fail_at(p, 1, 1, "out of memory");
    }
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        uint32_t j = i;
        while (j != RSN_NONE_INDEX && mark[j] == 0) {
            mark[j] = 1;
            j = d->entities.data[j].parent_index;
        }
        if (j != RSN_NONE_INDEX && mark[j] == 1) {
            const rsn_entity *e = &d->entities.data[j];
            ok = fail_at(p, e->line, e->col, "entity %u is its own ancestor (parent loop)", e->id);
        }
        for (j = i; j != RSN_NONE_INDEX && mark[j] == 1; j = d->entities.data[j].parent_index) {
            mark[j] = 2;
        }
    }
    rill_free(mark);
    return ok;
}

rill_result rill__rsn_parse_owned(rsn_doc *doc, const char *path, char *src, size_t len,
                                  rill_error *err) {
    memset(doc, 0, sizeof *doc);
    doc->path = rill_strdup(path ? path : "<memory>");
    doc->src = src;
    doc->src_len = len;
    if (!doc->path) {
        rill__rsn_doc_free(doc);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (len >= UINT32_MAX - 16u) {
        rill_error_set(err, RILL_ERR_LIMIT, "%s: file too large (%zu bytes)", doc->path, len);
        rill__rsn_doc_free(doc);
        return RILL_ERR_LIMIT;
    }
    parser p = {.doc = doc, .s = src, .line = 1, .err = err};
    /* A UTF-8 byte-order mark at the very start (Windows editors write one) is skipped; columns
     * count from the byte after it. */
    if (rill_text_is_utf16(src, len)) {
        fail_at(&p, 1, 1, "%s", RILL_TEXT_UTF16_HINT);
    } else if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) {
        p.pos = 3;
        p.line_start = 3;
    }
    /* Canonical text spends ~30 bytes per field; reserving a little more costs only address
     * space (pages are touched when written), while regrowth copies. */
    if (len / 24u < UINT32_MAX - 16u) {
        rill_array_reserve(&doc->fields, (uint32_t)(len / 24u) + 16u);
    }
    if (!p.failed) {
        next(&p);
    }
    if (!p.failed && !tok_is(&p, "rsn")) {
        fail_at(&p, p.tok.line, p.tok.col, "expected the version line 'rsn %u'", RSN_VERSION);
    } else if (!p.failed) {
        next(&p);
        uint32_t v = 0;
        if (!p.failed && parse_id(&p, &v, "a format version")) {
            doc->version = v;
            if (v != RSN_VERSION) {
                p.failed = true;
                rill_error_set(err, RILL_ERR_VERSION,
                               "%s:1:1: format version %u is not supported (this reader: %u)",
                               doc->path, v, RSN_VERSION);
            }
        }
    }
    while (!p.failed && p.tok.kind != TOK_EOF) {
        if (!tok_is(&p, "entity")) {
            char buf[64];
            fail_at(&p, p.tok.line, p.tok.col, "expected 'entity', found %s",
                    tok_desc(&p, &p.tok, buf, sizeof buf));
            break;
        }
        parse_entity(&p);
    }
    if (!p.failed) {
        link_parents(&p);
    }
    if (p.failed) {
        rill_result code = err ? err->code : RILL_ERR_PARSE;
        rill__rsn_doc_free(doc);
        return code == RILL_OK ? RILL_ERR_PARSE : code;
    }
    return RILL_OK;
}

rill_result rill__rsn_parse(rsn_doc *doc, const char *path, const char *text, size_t len,
                            rill_error *err) {
    char *src = rill_malloc_tagged(len + 1u, RILL_MEM_SCENE);
    if (!src) {
        memset(doc, 0, sizeof *doc);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    if (len) {
        memcpy(src, text, len);
    }
    src[len] = '\0';
    return rill__rsn_parse_owned(doc, path, src, len, err);
}

void rill__rsn_doc_free(rsn_doc *doc) {
    if (!doc) {
        return;
    }
    rill_free(doc->path);
    rill_free(doc->src);
    rill_array_free(&doc->entities);
    rill_array_free(&doc->comps);
    rill_array_free(&doc->fields);
    rill_map_free(&doc->id_to_index);
    memset(doc, 0, sizeof *doc);
}
