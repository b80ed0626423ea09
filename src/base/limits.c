/* limits.c: the process-wide resource limits every decoder checks before it commits memory
 * (RILL_LIMIT_LIST in rill/base.h holds the names and defaults; docs/limits.md explains them).
 *
 * The values live in atomics so worker threads that decode files can read them while the main
 * thread owns setting them; zero in a slot means "the default", so a zeroed table is valid. */
#include "rill/base.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct limit_info {
    const char *name;
    const char *unit;
    uint64_t def;
    size_t offset; /* of the field in rill_limits */
} limit_info;

static const limit_info limit_table[RILL_LIMIT_NUM] = {
#define RILL__LIMIT_INFO(id, field, dflt, u, what)                                                 \
    {.name = #field, .unit = u, .def = (uint64_t)(dflt), .offset = offsetof(rill_limits, field)},
    RILL_LIMIT_LIST(RILL__LIMIT_INFO)
#undef RILL__LIMIT_INFO
};

static _Atomic uint64_t limit_values[RILL_LIMIT_NUM]; /* 0 = default */
static atomic_bool links_inside_root;

static uint64_t *field_of(rill_limits *l, uint32_t i) {
    return (uint64_t *)(void *)((char *)l + limit_table[i].offset);
}

rill_limits rill_limits_query_defaults(void) {
    rill_limits l;
    memset(&l, 0, sizeof(l));
    for (uint32_t i = 0; i < RILL_LIMIT_NUM; ++i) {
        *field_of(&l, i) = limit_table[i].def;
    }
    return l;
}

void rill_limits_get(rill_limits *out) {
    if (out == NULL) {
        return;
    }
    memset(out, 0, sizeof(*out));
    for (uint32_t i = 0; i < RILL_LIMIT_NUM; ++i) {
        *field_of(out, i) = rill_limit_get((rill_limit)i);
    }
    out->links_inside_root = atomic_load_explicit(&links_inside_root, memory_order_relaxed);
}

void rill_limits_set(const rill_limits *limits) {
    rill_limits zero;
    memset(&zero, 0, sizeof(zero));
    rill_limits copy = limits ? *limits : zero;
    for (uint32_t i = 0; i < RILL_LIMIT_NUM; ++i) {
        atomic_store_explicit(&limit_values[i], *field_of(&copy, i), memory_order_relaxed);
    }
    atomic_store_explicit(&links_inside_root, copy.links_inside_root, memory_order_relaxed);
}

uint64_t rill_limit_get(rill_limit id) {
    if ((uint32_t)id >= (uint32_t)RILL_LIMIT_NUM) {
        return 0;
    }
    uint64_t v = atomic_load_explicit(&limit_values[id], memory_order_relaxed);
    return v != 0 ? v : limit_table[id].def;
}

bool rill_limits_links_inside_root(void) {
    return atomic_load_explicit(&links_inside_root, memory_order_relaxed);
}

const char *rill_limit_name(rill_limit id) {
    return (uint32_t)id < (uint32_t)RILL_LIMIT_NUM ? limit_table[id].name : "unknown";
}

rill_result rill_limit_check(rill_limit id, uint64_t value, const char *where, rill_error *err) {
    uint64_t max = rill_limit_get(id);
    if (value <= max) {
        return RILL_OK;
    }
    const char *name = rill_limit_name(id);
    const char *unit = (uint32_t)id < (uint32_t)RILL_LIMIT_NUM ? limit_table[id].unit : "";
    return rill_error_set(err, RILL_ERR_LIMIT,
                          "%s: %llu %s exceeds the %s limit of %llu (raise it: RILL_LIMITS=%s=N, "
                          "rill --limit %s=N, or rill_limits_set)",
                          where ? where : "input", (unsigned long long)value, unit, name,
                          (unsigned long long)max, name, name);
}

/* Parses a decimal count with an optional binary suffix; false on junk or overflow. */
static bool parse_value(const char *s, size_t len, uint64_t *out) {
    uint64_t v = 0;
    size_t i = 0;
    for (; i < len && isdigit((unsigned char)s[i]); ++i) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10u) {
            return false;
        }
        v = v * 10u + d;
    }
    if (i == 0) {
        return false;
    }
    unsigned shift = 0;
    if (i + 1u == len) {
        switch (toupper((unsigned char)s[i])) {
        case 'K':
            shift = 10;
            break;
        case 'M':
            shift = 20;
            break;
        case 'G':
            shift = 30;
            break;
        case 'T':
            shift = 40;
            break;
        default:
            return false;
        }
    } else if (i != len) {
        return false;
    }
    if (shift != 0 && v > (UINT64_MAX >> shift)) {
        return false;
    }
    *out = v << shift;
    return true;
}

/* Applies one "name=value" pair of len bytes. */

/* The name of limit i (for "did you mean"). */
static const char *limit_name_at(const void *ctx, uint32_t i) {
    (void)ctx;
    return limit_table[i].name;
}

static rill_result apply_pair(const char *s, size_t len, rill_limits *inout, rill_error *err) {
    const char *eq = memchr(s, '=', len);
    if (eq == NULL) {
        return rill_error_set(err, RILL_ERR_PARSE, "limits: '%.*s': expected name=value",
                              (int)RILL_MIN(len, 64u), s);
    }
    size_t nlen = (size_t)(eq - s);
    uint64_t v = 0;
    if (!parse_value(eq + 1, len - nlen - 1u, &v)) {
        return rill_error_set(err, RILL_ERR_PARSE,
                              "limits: '%.*s': value must be a count with optional K/M/G/T",
                              (int)RILL_MIN(len, 64u), s);
    }
    if (nlen == strlen("links_inside_root") && memcmp(s, "links_inside_root", nlen) == 0) {
        if (v > 1) {
            return rill_error_set(err, RILL_ERR_PARSE, "limits: links_inside_root takes 0 or 1");
        }
        inout->links_inside_root = v == 1;
        return RILL_OK;
    }
    for (uint32_t i = 0; i < RILL_LIMIT_NUM; ++i) {
        if (strlen(limit_table[i].name) == nlen && memcmp(limit_table[i].name, s, nlen) == 0) {
            *field_of(inout, i) = v;
            return RILL_OK;
        }
    }
    const char *near = rill_suggest_name(s, nlen, limit_name_at, NULL, RILL_LIMIT_NUM);
    return rill_error_set(err, RILL_ERR_PARSE,
                          "limits: unknown limit '%.*s'%s%s%s (see docs/limits.md)",
                          (int)RILL_MIN(nlen, 64u), s, near ? "; did you mean '" : "",
                          near ? near : "", near ? "'?" : "");
}

rill_result rill_limits_parse(const char *spec, rill_limits *inout, rill_error *err) {
    if (spec == NULL || inout == NULL) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "limits: NULL argument");
    }
    const char *p = spec;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        if (len > 0) {
            rill_result r = apply_pair(p, len, inout, err);
            if (r != RILL_OK) {
                return r;
            }
        }
        p += len;
        if (*p == ',') {
            p++;
        }
    }
    return RILL_OK;
}

rill_result rill_limits_from_env(rill_error *err) {
    const char *spec = getenv("RILL_LIMITS");
    if (spec == NULL || spec[0] == '\0') {
        return RILL_OK;
    }
    rill_limits l;
    rill_limits_get(&l);
    rill_result r = rill_limits_parse(spec, &l, err);
    if (r != RILL_OK) {
        if (err != NULL) {
            char msg[RILL_ERROR_MSG_MAX];
            memcpy(msg, err->msg, sizeof(msg));
            rill_error_set(err, r, "RILL_LIMITS: %.400s", msg);
        }
        return r;
    }
    rill_limits_set(&l);
    return RILL_OK;
}
