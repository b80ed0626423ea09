/* assert.c: the RILL_ASSERT failure path and its replaceable hook. */
#include "rill/base.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* The hook and its user pointer are read together on the failure path; a mutex would be overkill
 * for something set once by tests, so both live in atomics and tests set them before use. */
static _Atomic(rill_assert_fn) assert_hook; /* zero = no hook */
static _Atomic(void *) assert_user;

void rill_set_assert_hook(rill_assert_fn fn, void *user) {
    atomic_store(&assert_user, user);
    atomic_store(&assert_hook, fn);
}

void rill__assert_fail(const char *expr, const char *file, int line) {
    rill_assert_fn fn = atomic_load(&assert_hook);
    if (fn != NULL) {
        /* A test hook normally longjmps away; if it returns, the caller carries on, which lets a
         * hook merely count failures. */
        fn(expr, file, line, atomic_load(&assert_user));
        return;
    }
    rill_logf(RILL_LOG_ERROR, "assert", "%s:%d: assertion failed: %s", file, line, expr);
    fflush(stderr);
    abort();
}
