/* fuzz_script.c: libFuzzer entry for script source, which is hostile input like any file: each
 * input is compiled and run in the sandbox of one script system (kept across inputs, as a game
 * keeps its state), under an instruction budget of 200,000 and a 16 MiB memory limit, with the
 * whole rill.* API reachable against a small world. Nothing it does may crash, leak past the limit
 * or escape the sandbox; the world is cleared between inputs. */
#include <stdlib.h>
#include <string.h>

#include "rill/script.h"

static void quiet(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)level;
    (void)module;
    (void)msg;
    (void)user;
}

typedef struct state {
    rill_world *world;
    rill_vfs *vfs;
    rill_scripts *scripts;
} state;

static state *get_state(void) {
    static state st;
    if (!st.scripts) {
        rill_error err = {0};
        st.world = rill_world_create(NULL, &err);
        st.vfs = rill_vfs_create(NULL, &err);
        if (!st.world || !st.vfs) {
            abort();
        }
        st.scripts = rill_scripts_create(&(rill_scripts_desc){.world = st.world,
                                                              .vfs = st.vfs,
                                                              .memory_limit = (size_t)16 << 20,
                                                              .instruction_budget = 200000},
                                         &err);
        if (!st.scripts) {
            abort();
        }
    }
    return &st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rill_log_set_sink(quiet, NULL);
    state *st = get_state();
    char *code = malloc(size + 1);
    if (!code) {
        return 0;
    }
    memcpy(code, data, size);
    code[size] = '\0';
    rill_entity e = rill_world_spawn(st->world);
    rill_world_set_name(st->world, e, "target");
    rill_transform t = rill_transform_identity();
    rill_world_set_transform(st->world, e, &t);
    rill_error err = {0};
    (void)rill_scripts_exec(st->scripts, "fuzz", code, &err);
    rill_scripts_update(st->scripts, 1.0 / 60.0); /* timers and events the chunk queued */
    free(code);
    rill_world_clear(st->world);
    return 0;
}
