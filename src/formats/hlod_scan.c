/* hlod_scan.c: a small, tolerant reader of .rsn text for the proxy bake. formats sits below the
 * scene module, so the exporter cannot use the real scene reader; this one reads only entity
 * headers (`entity N "name" parent M {`) and three components: Transform (translation, rotation,
 * scale), Model (path) and SceneInstance (scene, streamed, bounds). Anything else is skipped, and
 * text it does not understand ends nothing: the real reader reports errors when the scene loads.
 */
#include "hlod_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum tok_kind { TOK_END, TOK_IDENT, TOK_NUM, TOK_STR, TOK_PUNCT } tok_kind;

typedef struct lexer {
    const char *t;
    size_t n, at;
    tok_kind kind;
    const char *s; /* token text (strings: without quotes) */
    size_t len;
    char punct;
} lexer;

static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool num_char(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Reads the next token; comments (# to end of line) and white space are skipped. */
static void next(lexer *lx) {
    for (;;) {
        while (lx->at < lx->n && (lx->t[lx->at] == ' ' || lx->t[lx->at] == '\t' ||
                                  lx->t[lx->at] == '\n' || lx->t[lx->at] == '\r')) {
            lx->at++;
        }
        if (lx->at < lx->n && lx->t[lx->at] == '#') {
            while (lx->at < lx->n && lx->t[lx->at] != '\n') {
                lx->at++;
            }
            continue;
        }
        break;
    }
    if (lx->at >= lx->n) {
        lx->kind = TOK_END;
        return;
    }
    char c = lx->t[lx->at];
    size_t start = lx->at;
    if (c == '"') {
        size_t i = ++lx->at;
        while (i < lx->n && lx->t[i] != '"' && lx->t[i] != '\n') {
            i += lx->t[i] == '\\' && i + 1 < lx->n ? 2u : 1u;
        }
        lx->kind = TOK_STR;
        lx->s = lx->t + lx->at;
        lx->len = (i < lx->n ? i : lx->n) - lx->at;
        lx->at = i < lx->n ? i + 1 : lx->n;
    } else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
        while (lx->at < lx->n && num_char(lx->t[lx->at])) {
            lx->at++;
        }
        lx->kind = TOK_NUM;
        lx->s = lx->t + start;
        lx->len = lx->at - start;
    } else if (ident_char(c)) {
        while (lx->at < lx->n && ident_char(lx->t[lx->at])) {
            lx->at++;
        }
        lx->kind = TOK_IDENT;
        lx->s = lx->t + start;
        lx->len = lx->at - start;
    } else {
        lx->at++;
        lx->kind = TOK_PUNCT;
        lx->punct = c;
    }
}

static bool is_ident(const lexer *lx, const char *w) {
    return lx->kind == TOK_IDENT && lx->len == strlen(w) && memcmp(lx->s, w, lx->len) == 0;
}

static bool is_punct(const lexer *lx, char c) {
    return lx->kind == TOK_PUNCT && lx->punct == c;
}

static double num(const lexer *lx) {
    char b[64];
    size_t n = lx->len < sizeof b - 1 ? lx->len : sizeof b - 1;
    memcpy(b, lx->s, n);
    b[n] = '\0';
    double v = strtod(b, NULL);
    return isfinite(v) ? v : 0.0;
}

/* Reads a tuple "(a, b, ...)" of up to cap numbers (the lexer stands on "("); returns how many. */
static uint32_t tuple(lexer *lx, float *out, uint32_t cap) {
    uint32_t k = 0;
    for (next(lx); lx->kind != TOK_END && !is_punct(lx, ')'); next(lx)) {
        if (lx->kind == TOK_NUM && k < cap) {
            out[k++] = (float)num(lx);
        }
        if (is_punct(lx, '}') || is_punct(lx, '{')) {
            return k; /* broken text: stop here and let the caller resync */
        }
    }
    return k;
}

static char *str_dup(const lexer *lx) {
    return lx->len < 4096 ? rill_strndup(lx->s, lx->len) : NULL;
}

/* One `field: value` inside component `comp` of entity e (the lexer stands on the field name). */
static void field(lexer *lx, const char *comp, rill__rsn_entity *e) {
    char name[32];
    size_t n = lx->len < sizeof name - 1 ? lx->len : sizeof name - 1;
    memcpy(name, lx->s, n);
    name[n] = '\0';
    next(lx);
    if (!is_punct(lx, ':')) {
        return;
    }
    next(lx);
    if (is_punct(lx, '@')) {
        next(lx);
    }
    if (is_punct(lx, '(')) {
        float v[4] = {0};
        uint32_t k = tuple(lx, v, 4);
        if (strcmp(comp, "Transform") == 0) {
            if (strcmp(name, "translation") == 0 && k == 3) {
                memcpy(e->t, v, sizeof e->t);
            } else if (strcmp(name, "rotation") == 0 && k == 4) {
                memcpy(e->r, v, sizeof e->r);
            } else if (strcmp(name, "scale") == 0 && k == 3) {
                memcpy(e->s, v, sizeof e->s);
            }
        } else if (strcmp(comp, "SceneInstance") == 0 && k == 3) {
            if (strcmp(name, "bounds_min") == 0) {
                memcpy(e->bounds_min, v, sizeof e->bounds_min);
            } else if (strcmp(name, "bounds_max") == 0) {
                memcpy(e->bounds_max, v, sizeof e->bounds_max);
            }
        }
        return;
    }
    if (lx->kind == TOK_STR) {
        if (strcmp(comp, "Model") == 0 && strcmp(name, "path") == 0 && !e->model) {
            e->model = str_dup(lx);
        } else if (strcmp(comp, "SceneInstance") == 0 && strcmp(name, "scene") == 0 &&
                   !e->instance) {
            e->instance = str_dup(lx);
        }
    } else if (lx->kind == TOK_IDENT && strcmp(comp, "SceneInstance") == 0 &&
               strcmp(name, "streamed") == 0) {
        e->streamed = is_ident(lx, "true");
    }
}

/* The body of one entity block (the lexer stands after its "{"). */
static void entity_body(lexer *lx, rill__rsn_entity *e) {
    char comp[32] = "";
    int depth = 1;
    for (next(lx); lx->kind != TOK_END && depth > 0;) {
        if (is_punct(lx, '{')) {
            depth++;
        } else if (is_punct(lx, '}')) {
            depth--;
            comp[0] = '\0';
        } else if (lx->kind == TOK_IDENT && depth == 1) {
            size_t n = lx->len < sizeof comp - 1 ? lx->len : sizeof comp - 1;
            memcpy(comp, lx->s, n);
            comp[n] = '\0';
        } else if (lx->kind == TOK_IDENT && depth == 2 && comp[0]) {
            field(lx, comp, e);
            if (is_punct(lx, '}') || is_punct(lx, '{')) {
                continue; /* a brace where a value was due: counted above */
            }
        }
        next(lx);
    }
}

bool rill__rsn_scan_text(const char *t, size_t n, rill__rsn_scan *out) {
    memset(out, 0, sizeof *out);
    RILL_ARRAY(rill__rsn_entity) ents = {0};
    lexer lx = {.t = t, .n = t ? n : 0};
    for (next(&lx); lx.kind != TOK_END;) {
        if (!is_ident(&lx, "entity")) {
            next(&lx);
            continue;
        }
        rill__rsn_entity e = {.r = {0, 0, 0, 1}, .s = {1, 1, 1}};
        next(&lx);
        if (lx.kind != TOK_NUM) {
            continue;
        }
        double id = num(&lx);
        e.id = id >= 1 && id < 4294967295.0 ? (uint32_t)id : 0;
        next(&lx);
        if (lx.kind == TOK_STR) {
            next(&lx);
        }
        if (is_ident(&lx, "parent")) {
            next(&lx);
            double p = lx.kind == TOK_NUM ? num(&lx) : 0;
            e.parent = p >= 1 && p < 4294967295.0 ? (uint32_t)p : 0;
            next(&lx);
        }
        if (!is_punct(&lx, '{')) {
            continue;
        }
        entity_body(&lx, &e);
        if (!rill_array_push(&ents, e)) {
            rill_free(e.model);
            rill_free(e.instance);
            out->ents = ents.data;
            out->count = ents.len;
            rill__rsn_scan_free(out);
            return false;
        }
    }
    out->ents = ents.data;
    out->count = ents.len;
    return true;
}

void rill__rsn_scan_free(rill__rsn_scan *s) {
    for (uint32_t i = 0; s && i < s->count; i++) {
        rill_free(s->ents[i].model);
        rill_free(s->ents[i].instance);
    }
    if (s) {
        rill_free(s->ents);
    }
    if (s) {
        memset(s, 0, sizeof *s);
    }
}

/* Column-major TRS matrix (rotation as an xyzw quaternion, normalized here). */
static void trs(const rill__rsn_entity *e, float m[16]) {
    float x = e->r[0], y = e->r[1], z = e->r[2], w = e->r[3];
    float len = sqrtf(x * x + y * y + z * z + w * w);
    if (!(len > 1e-8f)) {
        x = y = z = 0, w = 1, len = 1;
    }
    x /= len, y /= len, z /= len, w /= len;
    const float R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                        2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                        2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++) {
            m[c * 4 + r] = R[c * 3 + r] * e->s[c];
        }
        m[c * 4 + 3] = 0;
    }
    m[12] = e->t[0], m[13] = e->t[1], m[14] = e->t[2], m[15] = 1;
}

static void mul(const float a[16], const float b[16], float out[16]) {
    float r[16];
    for (int c = 0; c < 4; c++) {
        for (int k = 0; k < 4; k++) {
            r[c * 4 + k] = a[k] * b[c * 4] + a[4 + k] * b[c * 4 + 1] + a[8 + k] * b[c * 4 + 2] +
                           a[12 + k] * b[c * 4 + 3];
        }
    }
    memcpy(out, r, sizeof r);
}

void rill__rsn_world_matrix(const rill__rsn_scan *s, uint32_t i, float out[16]) {
    trs(&s->ents[i], out);
    uint32_t parent = s->ents[i].parent;
    /* Parents are looked up by id; 64 steps bound a cycle or an absurd depth. */
    for (int step = 0; parent && step < 64; step++) {
        uint32_t k = 0;
        while (k < s->count && s->ents[k].id != parent) {
            k++;
        }
        if (k == s->count) {
            break;
        }
        float pm[16];
        trs(&s->ents[k], pm);
        mul(pm, out, out);
        parent = s->ents[k].parent;
    }
}
