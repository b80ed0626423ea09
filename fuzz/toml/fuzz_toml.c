/* fuzz_toml.c: libFuzzer entry for the project.toml reader. Every input is parsed; a document
 * that parses is also walked through every lookup API and turned into project settings, so the
 * getters and the settings reader see hostile trees too. */
#include "rill/app.h"

static void touch(const rill_toml_value *v, uint32_t depth) {
    if (depth > RILL_TOML_MAX_DEPTH + 2u) {
        return;
    }
    (void)rill_toml_value_key(v);
    (void)rill_toml_value_string(v, NULL);
    (void)rill_toml_value_float(v, 0.0);
    for (uint32_t i = 0; i < rill_toml_value_len(v); i++) {
        touch(rill_toml_value_at(v, i), depth + 1u);
    }
}

static void quiet(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)level;
    (void)module;
    (void)msg;
    (void)user;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rill_log_set_sink(quiet, NULL);
    rill_toml *doc = NULL;
    rill_error err = {0};
    if (rill_toml_parse((const char *)data, size, "fuzz.toml", &doc, &err) == RILL_OK) {
        touch(rill_toml_root(doc), 0);
        (void)rill_toml_get_string(doc, "a.b[0].c", NULL);
        rill_project project;
        (void)rill_project_from_toml(doc, &project, &err);
        rill_toml_destroy(doc);
    }
    return 0;
}
