/* fuzz_path.c: libFuzzer target for the path helpers. Asset paths come from files, so every
 * helper must take any byte string without crashing, and normalize must keep its promises:
 * the result is relative, has no empty, "." or ".." components, and normalizing it again
 * changes nothing. */
#include "rill/base.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_normalized(const char *p) {
    if (p[0] == '\0') {
        return;
    }
    if (p[0] == '/' || p[strlen(p) - 1] == '/' || strchr(p, '\\') != NULL) {
        abort();
    }
    const char *c = p;
    for (;;) {
        const char *end = strchr(c, '/');
        size_t len = end != NULL ? (size_t)(end - c) : strlen(c);
        if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) {
            abort();
        }
        if (end == NULL) {
            break;
        }
        c = end + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* The input as a C string, cut at the first NUL the way C callers would see it. */
    char *in = malloc(size + 1u);
    if (in == NULL) {
        return 0;
    }
    memcpy(in, data, size);
    in[size] = '\0';
    char out[256];
    char again[256];
    if (rill_path_normalize(out, sizeof(out), in)) {
        check_normalized(out);
        if (!rill_path_normalize(again, sizeof(again), out) || strcmp(out, again) != 0) {
            abort();
        }
    } else if (out[0] != '\0') {
        abort(); /* a failure always leaves "" */
    }
    /* Small buffers: every helper either fits or fails with "". */
    for (size_t cap = 1; cap < 8; ++cap) {
        char small[8];
        if (!rill_path_normalize(small, cap, in) && small[0] != '\0') {
            abort();
        }
        if (!rill_path_dirname(small, cap, in) && small[0] != '\0') {
            abort();
        }
        const char *label = NULL;
        if (!rill_path_split_label(in, small, cap, &label) && small[0] != '\0') {
            abort();
        }
    }
    (void)rill_path_basename(in);
    (void)rill_path_ext(in);
    char joined[512];
    size_t half = strlen(in) / 2u;
    char *a = rill_strndup(in, half);
    if (a != NULL) {
        (void)rill_path_join(joined, sizeof(joined), a, in + half);
        rill_free(a);
    }
    free(in);
    return 0;
}
