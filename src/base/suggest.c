/* suggest.c: "did you mean" for names a user gets wrong (a component in a scene file, a key in
 * project.toml, a command-line option): the known name closest to a misspelt one (edit distance
 * with adjacent transpositions, letter case ignored), when it is close enough to be a typo rather
 * than another name. */
#include "rill/base.h"

#include <ctype.h>
#include <string.h>

#define SUGGEST_MAX_LEN 64u

/* Optimal string alignment distance between a[0..al) and b[0..bl), case-insensitive; both at
 * most SUGGEST_MAX_LEN bytes. */
static uint32_t name_distance(const char *a, size_t al, const char *b, size_t bl) {
    uint32_t d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
    for (size_t i = 0; i <= al; i++) {
        d[i][0] = (uint32_t)i;
    }
    for (size_t j = 0; j <= bl; j++) {
        d[0][j] = (uint32_t)j;
    }
    for (size_t i = 1; i <= al; i++) {
        for (size_t j = 1; j <= bl; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            uint32_t cost = ca != cb;
            uint32_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) {
                best = d[i][j - 1] + 1;
            }
            if (d[i - 1][j - 1] + cost < best) {
                best = d[i - 1][j - 1] + cost;
            }
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best) {
                best = d[i - 2][j - 2] + 1;
            }
            d[i][j] = best;
        }
    }
    return d[al][bl];
}

const char *rill_suggest_name(const char *name, size_t len,
                              const char *(*get)(const void *ctx, uint32_t i), const void *ctx,
                              uint32_t count) {
    if (!name || !get || len == 0 || len > SUGGEST_MAX_LEN) {
        return NULL;
    }
    /* A typo: at most a third of the letters (at least one, at most three) wrong. */
    uint32_t limit = (uint32_t)(len / 3u);
    limit = limit < 1u ? 1u : limit > 3u ? 3u : limit;
    const char *best = NULL;
    uint32_t best_d = limit + 1u;
    for (uint32_t i = 0; i < count; i++) {
        const char *cand = get(ctx, i);
        size_t cl = cand ? strlen(cand) : 0;
        if (!cl || cl > SUGGEST_MAX_LEN) {
            continue;
        }
        uint32_t dist = name_distance(name, len, cand, cl);
        if (dist < best_d) {
            best_d = dist;
            best = cand;
        }
    }
    return best;
}

static const char *list_get(const void *ctx, uint32_t i) {
    return ((const char *const *)ctx)[i];
}

const char *rill_suggest_from_list(const char *name, const char *const *names, uint32_t count) {
    if (!name || !names) {
        return NULL;
    }
    return rill_suggest_name(name, strlen(name), list_get, names, count);
}
