/* rill_test.h: header-only helpers shared by every module's cmocka tests.
 *
 * Include it after the cmocka prerequisites, or alone (it includes them itself):
 *
 *   #include "rill_test.h"
 *
 * What it offers:
 *   - rill_test_tmpdir(): a fresh, empty, unique temporary folder per test, under $RILL_TEST_TMP
 *     (set by rill_test() in CMake) or /tmp.
 *   - rill_test_write_file(): writes a file under a folder, creating the folders in between;
 *     rill_test_copy_file(): copies a file there the same way.
 *   - rill_test_data_path(): a path inside the test data folder ($RILL_TEST_DATA, else
 *     "tests/data").
 *   - rill_test_log: a log sink that counts messages per level and keeps the last one, so tests
 *     can assert that a warning or an error was (or was not) logged; rill_test_setup_quiet, a
 *     group setup that drops every message.
 *   - rill_test_clock: a rill_clock whose time only moves when the test advances it.
 *   - RILL_TEST_EXPECT_ASSERT(stmt): runs stmt and fails the test unless a RILL_ASSERT fired in
 *     it (the assert hook longjmps back, so stmt is abandoned at the failing assert).
 *   - rill_test_run_captured(): runs a CLI subcommand compiled into the test with its stdout and
 *     stderr captured as text.
 *   - RILL_TEST_LEAK_BEGIN / RILL_TEST_LEAK_END: checks that a block left no live rill_malloc
 *     bytes behind.
 *
 * Everything is static inline, with state kept in function-local statics, so any number of test
 * files may include it without link clashes or unused-function warnings. Depends on base.h and
 * cmocka. */
#ifndef RILL_TEST_H
#define RILL_TEST_H

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rill/base.h"

/* >>temporary folders */

/* Creates a fresh, empty folder for one test and writes its path into dst[cap]:
 * "<root>/<name>-<pid>-<n>", where root is $RILL_TEST_TMP or /tmp and n counts calls in this
 * process. Anything left there by an earlier run is removed first. Fails the test on error.
 * The folder is left in place afterwards so failures can be inspected; call
 * rill_test_tmpdir_remove() at the end of a passing test to clean it up. */
static inline void rill_test_tmpdir(char *dst, size_t cap, const char *name) {
    static unsigned counter;
    const char *root = getenv("RILL_TEST_TMP");
    if (root == NULL || root[0] == '\0') {
        root = "/tmp";
    }
    int n = snprintf(dst, cap, "%s/%s-%ld-%u", root, name != NULL ? name : "test", (long)getpid(),
                     counter++);
    assert_true(n > 0 && (size_t)n < cap);
    rill_error err = {0};
    assert_int_equal(rill_dir_remove_all(dst, &err), RILL_OK);
    rill_result r = rill_dir_create_all(dst, &err);
    if (r != RILL_OK) {
        fail_msg("rill_test_tmpdir: %s", err.msg);
    }
}

/* Removes a folder made by rill_test_tmpdir and everything in it. */
static inline void rill_test_tmpdir_remove(const char *dir) {
    rill_error err = {0};
    assert_int_equal(rill_dir_remove_all(dir, &err), RILL_OK);
}

/* Writes "<tmpdir>/<rel>" into dst[cap]; fails the test when it does not fit. */
static inline void rill_test_path(char *dst, size_t cap, const char *dir, const char *rel) {
    assert_true(rill_path_join(dst, cap, dir, rel));
}

/* Writes data[size] to "<dir>/<rel>", creating the folders in between. Fails the test on error. */
static inline void rill_test_write_file(const char *dir, const char *rel, const void *data,
                                        size_t size) {
    char path[1024];
    char parent[1024];
    rill_error err = {0};
    assert_true(rill_path_join(path, sizeof(path), dir, rel));
    assert_true(rill_path_dirname(parent, sizeof(parent), path));
    if (parent[0] != '\0' && rill_dir_create_all(parent, &err) != RILL_OK) {
        fail_msg("rill_test_write_file: %s", err.msg);
    }
    if (rill_file_write_all(path, data, size, &err) != RILL_OK) {
        fail_msg("rill_test_write_file: %s", err.msg);
    }
}

/* Copies the file at `from` to "<dir>/<rel>" (rill_test_write_file). Fails the test on error. */
static inline void rill_test_copy_file(const char *from, const char *dir, const char *rel) {
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    if (rill_file_read_all(from, &data, &size, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    rill_test_write_file(dir, rel, data, size);
    rill_free(data);
}

/* Writes the path of a file in the test data folder into dst[cap]: $RILL_TEST_DATA/rel, falling
 * back to "tests/data/rel" (relative to the working directory) when the variable is unset. */
static inline void rill_test_data_path(char *dst, size_t cap, const char *rel) {
    const char *root = getenv("RILL_TEST_DATA");
    if (root == NULL || root[0] == '\0') {
        root = "tests/data";
    }
    assert_true(rill_path_join(dst, cap, root, rel));
}

/* >>log capture */

/* Counts of captured messages and a copy of the last one. Zero it, then rill_test_log_begin. */
typedef struct rill_test_log {
    int count[RILL_LOG_NONE + 1]; /* indexed by rill_log_level */
    int total;
    rill_log_level last_level;
    char last_module[64];
    char last_msg[1024];
    bool echo;                  /* also print captured lines to stderr */
    rill_log_level saved_level; /* the threshold to restore at rill_test_log_end */
} rill_test_log;

static inline void rill_test__log_sink(rill_log_level level, const char *module, const char *msg,
                                       void *user) {
    rill_test_log *cap = user;
    if ((int)level >= 0 && level <= RILL_LOG_NONE) {
        cap->count[level]++;
    }
    cap->total++;
    cap->last_level = level;
    snprintf(cap->last_module, sizeof(cap->last_module), "%s", module);
    snprintf(cap->last_msg, sizeof(cap->last_msg), "%s", msg);
    if (cap->echo) {
        fprintf(stderr, "[captured %s] %s: %s\n", rill_log_level_name(level), module, msg);
    }
}

/* Routes all logging into cap and lowers the threshold to debug until rill_test_log_end. */
static inline void rill_test_log_begin(rill_test_log *cap) {
    bool echo = cap->echo;
    memset(cap, 0, sizeof(*cap));
    cap->echo = echo;
    cap->saved_level = rill_log_get_level();
    rill_log_set_sink(rill_test__log_sink, cap);
    rill_log_set_level(RILL_LOG_DEBUG);
}

/* Restores the default sink and the previous threshold. */
static inline void rill_test_log_end(rill_test_log *cap) {
    rill_log_set_sink(NULL, NULL);
    rill_log_set_level(cap->saved_level != 0 ? cap->saved_level : RILL_LOG_INFO);
}

/* A cmocka group setup that drops every log message (still formatted, so the code that builds
 * them runs): for test files whose expected failures log errors that are not news. */
static inline void rill_test__drop_log(rill_log_level level, const char *module, const char *msg,
                                       void *user) {
    (void)level, (void)module, (void)msg, (void)user;
}
static inline int rill_test_setup_quiet(void **state) {
    (void)state;
    rill_log_set_sink(rill_test__drop_log, NULL);
    return 0;
}

/* Messages captured at a level, e.g. rill_test_log_count(&cap, RILL_LOG_WARN). */
static inline int rill_test_log_count(const rill_test_log *cap, rill_log_level level) {
    return ((int)level >= 0 && level <= RILL_LOG_NONE) ? cap->count[level] : 0;
}

/* True when the last captured message contains needle. */
static inline bool rill_test_log_last_has(const rill_test_log *cap, const char *needle) {
    return strstr(cap->last_msg, needle) != NULL;
}

/* >>fake clock */

/* A hand-driven clock: time is `now` and moves only through rill_test_clock_advance. */
typedef struct rill_test_clock {
    uint64_t now;
} rill_test_clock;

static inline uint64_t rill_test__clock_now(void *user) {
    return ((rill_test_clock *)user)->now;
}

/* A rill_clock reading from fake; fake must outlive every user of the returned clock. */
static inline rill_clock rill_test_clock_make(rill_test_clock *fake) {
    rill_clock c = {rill_test__clock_now, fake};
    return c;
}

static inline void rill_test_clock_advance(rill_test_clock *fake, uint64_t ns) {
    fake->now += ns;
}

/* >>expected asserts */

typedef struct rill_test_assert_state {
    jmp_buf jump;
    bool armed;
    int fired;
    char last_expr[256];
    char last_file[256];
    int last_line;
} rill_test_assert_state;

static inline rill_test_assert_state *rill_test__assert_state(void) {
    static rill_test_assert_state state;
    return &state;
}

static inline void rill_test__assert_hook(const char *expr, const char *file, int line,
                                          void *user) {
    rill_test_assert_state *s = user;
    s->fired++;
    snprintf(s->last_expr, sizeof(s->last_expr), "%s", expr);
    snprintf(s->last_file, sizeof(s->last_file), "%s", file);
    s->last_line = line;
    if (s->armed) {
        s->armed = false;
        longjmp(s->jump, 1);
    }
    /* Not inside RILL_TEST_EXPECT_ASSERT: an unexpected assert is a test failure. */
    fail_msg("unexpected RILL_ASSERT(%s) at %s:%d", expr, file, line);
}

/* Runs the statement(s); the test fails unless a RILL_ASSERT fires inside it. Afterwards the
 * default hook is back. Only for code that may be abandoned half way (no locks held across the
 * assert). Locals changed inside stmt and read afterwards must be volatile (longjmp rules). With
 * NDEBUG asserts compile away, so such tests check RILL_TEST_HAS_ASSERTS and skip(). */
#define RILL_TEST_EXPECT_ASSERT(...)                                                               \
    do {                                                                                           \
        rill_test_assert_state *rill_test_s_ = rill_test__assert_state();                          \
        rill_test_s_->fired = 0;                                                                   \
        rill_set_assert_hook(rill_test__assert_hook, rill_test_s_);                                \
        if (setjmp(rill_test_s_->jump) == 0) {                                                     \
            rill_test_s_->armed = true;                                                            \
            __VA_ARGS__;                                                                           \
            rill_test_s_->armed = false;                                                           \
        }                                                                                          \
        rill_set_assert_hook(NULL, NULL);                                                          \
        if (rill_test_s_->fired == 0) {                                                            \
            fail_msg("expected a RILL_ASSERT in: %s", #__VA_ARGS__);                               \
        }                                                                                          \
    } while (0)

#ifdef NDEBUG
#define RILL_TEST_HAS_ASSERTS 0
#else
#define RILL_TEST_HAS_ASSERTS 1
#endif

/* >>captured commands */

/* Copies the file at path into text[cap] (cut to fit, NUL-terminated); fails the test when it
 * cannot be read. */
static inline void rill_test__read_text(const char *path, char *text, size_t cap) {
    uint8_t *data = NULL;
    size_t size = 0;
    assert_int_equal(rill_file_read_all(path, &data, &size, NULL), RILL_OK);
    snprintf(text, cap, "%s", data ? (char *)data : "");
    rill_free(data);
}

/* Runs a CLI subcommand compiled into the test, fn(argc, argv), with stdout and stderr sent to
 * stdout.txt and stderr.txt in dir, and copies what each got into out_text[out_cap] and
 * err_text[err_cap]. Returns fn's exit code. */
static inline int rill_test_run_captured(const char *dir, int (*fn)(int, char **), int argc,
                                         char **argv, char *out_text, size_t out_cap,
                                         char *err_text, size_t err_cap) {
    char out_path[1024], err_path[1024];
    rill_test_path(out_path, sizeof(out_path), dir, "stdout.txt");
    rill_test_path(err_path, sizeof(err_path), dir, "stderr.txt");
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    int fo = open(out_path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    int fe = open(err_path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    dup2(fo, 1);
    dup2(fe, 2);
    int rc = fn(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(fo);
    close(fe);
    close(saved_out);
    close(saved_err);
    rill_test__read_text(out_path, out_text, out_cap);
    rill_test__read_text(err_path, err_text, err_cap);
    return rc;
}

/* >>leak checks */

/* Brackets a block that must free everything it allocates through rill_malloc. */
#define RILL_TEST_LEAK_BEGIN() size_t rill_test_live_before_ = rill_mem_live_total()
#define RILL_TEST_LEAK_END() assert_int_equal(rill_mem_live_total(), rill_test_live_before_)

#endif /* RILL_TEST_H */
