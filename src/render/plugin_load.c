/* plugin_load.c: bringing effect plugin libraries in. The host table a library's entry point
 * calls (each announced effect checked and copied), loading (a probe child runs the entry first,
 * the ELF is checked, a private copy is dlopened, the ABI checked, the effects compiled and
 * committed) and hot reload (a rebuilt library or an edited shader file is swapped in). */
#include "plugin_internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t file_mtime(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        return -1;
    }
    return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/* >>the host table ------------------------------------------------------------------------------
 */

static bool valid_name(const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n >= 48) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_')) {
            return false;
        }
    }
    return true;
}

/* True when a relative path has a '..' component (it could climb out of its folder). */
static bool escapes_folder(const char *rel) {
    for (const char *c = rel; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            return true;
        }
        c += n;
        c += *c == '/';
    }
    return false;
}

/* Checks one announced effect and copies it into *e; a message in err on refusal. */
static rill_result take_effect(rill_plugins *p, const rill_plugin_effect_desc *d, plug_effect *e,
                               rill_error *err) {
    const char *lib = p->staging_lib;
    if (!d || d->struct_size < offsetof(rill_plugin_effect_desc, order) + sizeof(int32_t)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "plugins: %s: add_post_process: desc too small", lib);
    }
    if (!valid_name(d->id)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "plugins: %s: effect id must be 1-47 letters, digits or _", lib);
    }
    if (d->settings_size > PLUG_MAX_SETTINGS || d->settings_field_count > PLUG_MAX_FIELDS) {
        return rill_error_set(err, RILL_ERR_LIMIT,
                              "plugins: %s: effect '%s': %u bytes of settings in %u fields: at "
                              "most %u bytes and %u fields",
                              lib, d->id, d->settings_size, d->settings_field_count,
                              PLUG_MAX_SETTINGS, PLUG_MAX_FIELDS);
    }
    if (d->phase >= RILL_PLUGIN_PHASE_COUNT || (d->settings_field_count && !d->settings_fields) ||
        (!d->shader_source && !d->shader_path)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "plugins: %s: effect '%s': bad phase, no settings_fields for its "
                              "fields, or no shader",
                              lib, d->id);
    }
    /* ABI 1.1's inputs: a plugin built for 1.0 has a desc that ends before them (none). */
    uint64_t inputs = d->struct_size >= offsetof(rill_plugin_effect_desc, inputs) + sizeof(uint64_t)
                          ? d->inputs
                          : 0;
    if (inputs & ~(uint64_t)PLUG_HOST_INPUTS) {
        return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                              "plugins: %s: effect '%s': asks for frame inputs this host cannot "
                              "give (mask 0x%llx; it gives 0x%x: depth, normal, motion)",
                              lib, d->id, (unsigned long long)inputs, PLUG_HOST_INPUTS);
    }
    memset(e, 0, sizeof(*e));
    snprintf(e->id, sizeof(e->id), "%s", d->id);
    e->phase = d->phase;
    e->order = d->order;
    e->inputs = (uint32_t)inputs;
    e->settings_size = d->settings_size;
    e->field_count = d->settings_field_count;
    for (uint32_t i = 0; i < e->field_count; i++) {
        const rill_plugin_field *f = &d->settings_fields[i];
        uint32_t fb = rill__plug_field_bytes(f->type);
        if (!valid_name(f->name) || !fb || f->offset + fb > d->settings_size) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "plugins: %s: effect '%s': field %u: bad name, type or offset "
                                  "past settings_size %u",
                                  lib, d->id, i, d->settings_size);
        }
        e->fields[i] = *f;
        snprintf(e->field_names[i], sizeof(e->field_names[i]), "%s", f->name);
        e->fields[i].name = NULL;
        e->fields[i].doc = NULL;
        if (f->type == RILL_PLUGIN_FIELD_I32 || f->type == RILL_PLUGIN_FIELD_U32) {
            int32_t iv = (int32_t)f->default_value[0]; /* integer defaults travel as floats */
            memcpy(e->settings + f->offset, &iv, 4);
        } else {
            memcpy(e->settings + f->offset, f->default_value, fb);
        }
    }
    if (d->shader_path) {
        if (d->shader_path[0] == '/') {
            snprintf(e->shader_path, sizeof(e->shader_path), "%s", d->shader_path);
        } else {
            /* A relative path names a file in the plugin's folder: the read is confined to that
             * folder (no '..', no link out), so '../../etc/passwd' is refused here, by name. */
            if (escapes_folder(d->shader_path)) {
                return rill_error_set(err, RILL_ERR_LIMIT,
                                      "plugins: %s: effect '%s': shader_path '%.40s' leaves the "
                                      "plugin's folder",
                                      lib, d->id, d->shader_path);
            }
            const char *slash = strrchr(lib, '/');
            int dl = slash ? (int)(slash - lib) : 1;
            snprintf(e->shader_root, sizeof(e->shader_root), "%.*s", dl, slash ? lib : ".");
            int n = snprintf(e->shader_path, sizeof(e->shader_path), "%s/%s", e->shader_root,
                             d->shader_path);
            if (n < 0 || (size_t)n >= sizeof(e->shader_path)) {
                return rill_error_set(err, RILL_ERR_LIMIT,
                                      "plugins: %s: effect '%s': shader_path too long", lib, d->id);
            }
        }
        e->shader_mtime = file_mtime(e->shader_path);
    } else {
        size_t n = strlen(d->shader_source) + 1;
        if (n > PLUG_MAX_SHADER_BYTES) {
            return rill_error_set(err, RILL_ERR_LIMIT,
                                  "plugins: %s: effect '%s': shader source of %zu bytes exceeds "
                                  "%u",
                                  lib, d->id, n - 1, PLUG_MAX_SHADER_BYTES);
        }
        e->source = rill_malloc_tagged(n, RILL_MEM_RENDER);
        if (!e->source) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "plugins: out of memory");
        }
        memcpy(e->source, d->shader_source, n);
    }
    return RILL_OK;
}

static int host_add_post_process(void *host, const rill_plugin_effect_desc *d) {
    rill_plugins *p = host;
    rill_error err = {0};
    plug_effect e;
    if (p->staged.len >= PLUG_MAX_EFFECTS) {
        if (!p->staging_failed) {
            rill_error_set(&err, RILL_ERR_LIMIT, "plugins: %s: more than %u effects in one plugin",
                           p->staging_lib, PLUG_MAX_EFFECTS);
            rill__plug_note_error(p, err.msg);
        }
        p->staging_failed = true;
        return 1;
    }
    memset(&e, 0, sizeof(e));
    if (take_effect(p, d, &e, &err) != RILL_OK) {
        rill_free(e.source);
        rill__plug_note_error(p, err.msg);
        p->staging_failed = true;
        return 1;
    }
    if (!rill_array_push(&p->staged, e)) {
        rill_free(e.source);
        p->staging_failed = true;
        return 1;
    }
    return 0;
}

static void host_log(void *host, int level, const char *message) {
    (void)host;
    rill_logf(level >= 2   ? RILL_LOG_ERROR
              : level == 1 ? RILL_LOG_WARN
                           : RILL_LOG_INFO,
              "plugin", "%s", message ? message : "");
}

/* >>loading ------------------------------------------------------------------------------------ */

/* The dynamic loader maps an ELF's segments from its program headers without checking them
 * against the file's size, so a truncated library (a build cut short, a partial copy) faults with
 * SIGBUS inside dlopen. A library is code and is trusted once it loads; this only catches files
 * that are visibly not a whole 64-bit ELF of this machine. */
static bool elf_whole(const uint8_t *d, size_t size, char *why, size_t cap) {
    Elf64_Ehdr eh;
    if (size < sizeof(eh) || memcmp(d, ELFMAG, SELFMAG) != 0) {
        snprintf(why, cap, "not an ELF file (%zu bytes)", size);
        return false;
    }
    memcpy(&eh, d, sizeof(eh));
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
        snprintf(why, cap, "not a 64-bit ELF library");
        return false;
    }
    uint64_t ph_end = eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr);
    if (eh.e_phoff > size || ph_end > size) {
        snprintf(why, cap, "truncated: program headers end at byte %llu, the file has %zu",
                 (unsigned long long)ph_end, size);
        return false;
    }
    for (uint32_t i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, d + eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
        if (ph.p_type == PT_LOAD && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)) {
            snprintf(why, cap, "truncated: segment %u ends at byte %llu, the file has %zu", i,
                     (unsigned long long)(ph.p_offset + ph.p_filesz), size);
            return false;
        }
    }
    return true;
}

/* dlopens a private copy of path: the loader caches by name and the build replaces the file. */
static void *open_copy(rill_plugins *p, const char *path, rill_error *err) {
    uint8_t *data = NULL;
    size_t size = 0;
    if (rill_file_read_all(path, &data, &size, err) != RILL_OK) {
        return NULL;
    }
    char why[160];
    if (!elf_whole(data, size, why, sizeof(why))) {
        rill_free(data);
        rill_error_set(err, RILL_ERR_CORRUPT, "plugins: %s: %s", path, why);
        return NULL;
    }
    char tmp[256];
    snprintf(tmp, sizeof(tmp), "%s/rill-plugin-%ld-%u.so",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid(), p->copies++);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f) {
        ok = fclose(f) == 0 && ok;
    }
    rill_free(data);
    if (!ok) {
        unlink(tmp);
        rill_error_set(err, RILL_ERR_IO, "plugins: %s: cannot write a copy to %s", path, tmp);
        return NULL;
    }
    void *dl = dlopen(tmp, RTLD_NOW | RTLD_LOCAL);
    unlink(tmp); /* the mapping stays; nothing is left behind */
    if (!dl) {
        rill_error_set(err, RILL_ERR_IO, "plugins: %s: %s", path, dlerror());
    }
    return dl;
}

void rill__plug_free_staged(rill_plugins *p) {
    for (uint32_t i = 0; i < p->staged.len; i++) {
        rill_free(p->staged.data[i].source);
        if (p->staged.data[i].pipe) {
            rill__pipe_destroy(p->r->gpu, p->staged.data[i].pipe);
        }
    }
    rill_array_clear(&p->staged);
}

/* Plugins are trusted code, but a broken one must not take the program down with it: before a
 * library is opened in this process, a child process (fork) opens a copy and runs its entry point.
 * A child that dies on a signal or exits non-zero (a crash, or a sanitizer's report of one) or is
 * still running after PLUG_PROBE_MS (a loop) gets the library refused with that reason, and this
 * process never runs its code. Refusals of other
 * kinds (no entry point, a bad ABI, bad effects) are left to the real load, which reports them. */
static int probe_add(void *host, const rill_plugin_effect_desc *d) {
    (void)d;
    uint32_t *count = host;
    return ++*count > PLUG_MAX_EFFECTS; /* the limit stops a plugin that keeps adding */
}
static void probe_log(void *host, int level, const char *message) {
    (void)host, (void)level, (void)message;
}
/* The child logs nothing: the log lock may have been held by another thread at the fork. */
_Noreturn static void probe_child(rill_plugins *p, const char *path) {
    rill_error e = {0};
    void *dl = open_copy(p, path, &e);
    rill_plugin_entry_fn entry = NULL;
    if (dl) {
        *(void **)&entry = dlsym(dl, RILL_PLUGIN_ENTRY_NAME);
    }
    if (entry) {
        uint32_t count = 0;
        rill_host_api host = {RILL_PLUGIN_ABI_MAJOR,
                              RILL_PLUGIN_ABI_MINOR,
                              sizeof(rill_host_api),
                              &count,
                              probe_add,
                              probe_log,
                              PLUG_HOST_INPUTS};
        (void)entry(&host);
    }
    _exit(0); /* no atexit handlers, no buffered output of the parent's written twice */
}

static rill_result probe_lib(rill_plugins *p, const char *path, rill_error *err) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        return rill_error_set(err, RILL_ERR_IO, "plugins: %s: cannot start the probe process",
                              path);
    }
    if (pid == 0) {
        probe_child(p, path);
    }
    int st = 0;
    for (int waited_us = 0;; waited_us += 2000) {
        pid_t got = waitpid(pid, &st, WNOHANG);
        if (got == pid) {
            break;
        }
        if (got < 0 || waited_us >= PLUG_PROBE_MS * 1000) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return rill_error_set(err, RILL_ERR_LIMIT,
                                  "plugins: %s: refused: loading it and running its entry point "
                                  "did not finish within %d ms (in a probe process)",
                                  path, PLUG_PROBE_MS);
        }
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    if (WIFSIGNALED(st)) {
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "plugins: %s: refused: loading it or running its entry point "
                              "crashed (signal %d, %s, in a probe process)",
                              path, WTERMSIG(st), strsignal(WTERMSIG(st)));
    }
    /* The child exits 0 whatever it found; any other status is the plugin exiting, or a crash a
     * sanitizer's handler turned into an exit (its report is on stderr). */
    if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "plugins: %s: refused: loading it or running its entry point "
                              "crashed (exit status %d, in a probe process)",
                              path, WEXITSTATUS(st));
    }
    return RILL_OK;
}

/* Opens path and runs its entry into p->staged; checks the ABI. */
static rill_result open_lib(rill_plugins *p, const char *path, plug_lib *lib, rill_error *err) {
    memset(lib, 0, sizeof(*lib));
    snprintf(lib->path, sizeof(lib->path), "%s", path);
    lib->mtime = file_mtime(path);
    if (probe_lib(p, path, err) != RILL_OK) {
        return err ? err->code : RILL_ERR_IO;
    }
    lib->dl = open_copy(p, path, err);
    if (!lib->dl) {
        return err ? err->code : RILL_ERR_IO;
    }
    rill_plugin_entry_fn entry = NULL;
    *(void **)&entry = dlsym(lib->dl, RILL_PLUGIN_ENTRY_NAME);
    if (!entry) {
        dlclose(lib->dl);
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "plugins: %s: no %s entry point",
                              path, RILL_PLUGIN_ENTRY_NAME);
    }
    rill_host_api host = {RILL_PLUGIN_ABI_MAJOR, RILL_PLUGIN_ABI_MINOR,
                          sizeof(rill_host_api), p,
                          host_add_post_process, host_log,
                          PLUG_HOST_INPUTS};
    p->staging_lib = path;
    p->staging_failed = false;
    rill__plug_free_staged(p);
    const rill_plugin_api *api = entry(&host);
    rill_result rc = RILL_OK;
    if (!api || api->struct_size < offsetof(rill_plugin_api, name)) {
        rc = rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                            "plugins: %s: the entry point returned no plugin table", path);
    } else if (api->abi_major != RILL_PLUGIN_ABI_MAJOR || api->abi_minor > RILL_PLUGIN_ABI_MINOR) {
        rc = rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                            "plugins: %s: ABI %u.%u refused: this host has ABI %u.%u (major must "
                            "match, minor at most the host's)",
                            path, api->abi_major, api->abi_minor, RILL_PLUGIN_ABI_MAJOR,
                            RILL_PLUGIN_ABI_MINOR);
    } else if (p->staging_failed) {
        rc = rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "plugins: %s: refused: %s", path,
                            p->stats.last_error);
    }
    if (rc != RILL_OK) {
        rill__plug_free_staged(p);
        dlclose(lib->dl);
        return rc;
    }
    lib->api = api;
    lib->abi_major = api->abi_major;
    lib->abi_minor = api->abi_minor;
    bool has_name = api->struct_size >= offsetof(rill_plugin_api, version) + sizeof(char *);
    snprintf(lib->name, sizeof(lib->name), "%s", has_name && api->name ? api->name : "?");
    snprintf(lib->version, sizeof(lib->version), "%s",
             has_name && api->version ? api->version : "?");
    return RILL_OK;
}

int rill__plug_find_effect(const rill_plugins *p, const char *id) {
    for (uint32_t i = 0; i < p->effects.len; i++) {
        if (!p->effects.data[i].dead && strcmp(p->effects.data[i].id, id) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* Compiles every staged effect and checks it against the live ones (owner = the library being
 * replaced, or UINT32_MAX for a new load). */
static rill_result check_staged(rill_plugins *p, uint32_t owner, rill_error *err) {
    for (uint32_t i = 0; i < p->staged.len; i++) {
        plug_effect *e = &p->staged.data[i];
        int old = rill__plug_find_effect(p, e->id);
        for (uint32_t k = 0; old < 0 && k < rill_render_effect_count(p->r); k++) {
            rill_render_effect_info fi;
            if (rill_render_effect_get(p->r, k, &fi) && strcmp(fi.id, e->id) == 0) {
                return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                      "plugins: %s: effect id '%s' is taken by another effect of "
                                      "the renderer",
                                      p->staging_lib, e->id);
            }
        }
        if (old >= 0 && p->effects.data[old].lib != owner) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "plugins: %s: effect '%s' is already loaded from %s",
                                  p->staging_lib, e->id,
                                  p->libs.data[p->effects.data[old].lib].path);
        }
        if (old >= 0 && !rill__plug_same_layout(&p->effects.data[old], e)) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "plugins: %s: effect '%s': settings layout changed; refused "
                                  "(the old plugin is kept: restart to change a layout)",
                                  p->staging_lib, e->id);
        }
        if (p->lazy && owner == UINT32_MAX) {
            /* Compiled when a camera first uses it; its shader must still be readable now. */
            char *body = rill__plug_read_body(e, err);
            if (!body) {
                return err ? err->code : RILL_ERR_IO;
            }
            rill_free(body);
            continue;
        }
        if (rill__plug_compile(p, e, p->staging_lib, &e->pipe, err) != RILL_OK) {
            p->stats.shader_errors++;
            return err ? err->code : RILL_ERR_PARSE;
        }
    }
    return RILL_OK;
}

void rill__plug_close_lib(plug_lib *lib) {
    if (lib->api && lib->api->struct_size >= sizeof(rill_plugin_api) && lib->api->shutdown) {
        lib->api->shutdown();
    }
    if (lib->dl) {
        dlclose(lib->dl);
    }
    lib->dl = NULL;
    lib->api = NULL;
}

/* Moves the staged effects in as the effects of library `owner`, replacing its old ones. */
static rill_result commit_staged(rill_plugins *p, uint32_t owner, rill_error *err) {
    for (uint32_t i = 0; i < p->effects.len; i++) {
        plug_effect *e = &p->effects.data[i];
        if (e->lib == owner && !e->dead) {
            e->dead = true; /* revived below when the new library still has it */
        }
    }
    for (uint32_t i = 0; i < p->staged.len; i++) {
        plug_effect *s = &p->staged.data[i];
        snprintf(s->plugin, sizeof(s->plugin), "%s", p->libs.data[owner].name);
        s->lib = owner;
        int old = -1;
        for (uint32_t k = 0; k < p->effects.len; k++) {
            if (p->effects.data[k].lib == owner && strcmp(p->effects.data[k].id, s->id) == 0) {
                old = (int)k;
            }
        }
        plug_effect *live;
        if (old >= 0) {
            /* Swapped in place: out of the registry and back in (phase or order may change). */
            plug_effect *o = &p->effects.data[old];
            rill__plug_effect_unregister(p, o);
            rill__pipe_destroy(p->r->gpu, o->pipe);
            rill_free(o->source);
            s->comp = o->comp;
            s->generation = o->generation + 1;
            memcpy(s->settings, o->settings, sizeof(s->settings));
            *o = *s;
            live = o;
        } else {
            RILL_TRY(rill__plug_register_component(p, s, err));
            if (!rill_array_push(&p->effects, *s)) {
                return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "plugins: out of memory");
            }
            live = &p->effects.data[p->effects.len - 1];
        }
        s->pipe = NULL;
        s->source = NULL;
        RILL_TRY(rill__plug_effect_register(p, live, err));
    }
    rill_array_clear(&p->staged);
    /* Effects the new library no longer has leave the registry. */
    for (uint32_t i = 0; i < p->effects.len; i++) {
        plug_effect *e = &p->effects.data[i];
        if (e->lib == owner && e->dead && e->fx) {
            rill__plug_effect_unregister(p, e);
        }
    }
    return RILL_OK;
}

rill_result rill_plugins_load(rill_plugins *p, const char *path, rill_error *err) {
    if (!p || !path) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "plugins: load needs a path");
    }
    rill_error local = {0};
    if (!err) {
        err = &local;
    }
    plug_lib lib;
    rill_result rc = open_lib(p, path, &lib, err);
    if (rc == RILL_OK) {
        rc = check_staged(p, UINT32_MAX, err);
        if (rc == RILL_OK && !rill_array_push(&p->libs, lib)) {
            rc = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "plugins: out of memory");
        }
        if (rc != RILL_OK) {
            rill__plug_free_staged(p);
            rill__plug_close_lib(&lib);
        } else {
            rc = commit_staged(p, p->libs.len - 1, err);
        }
    }
    if (rc != RILL_OK) {
        p->stats.refused++;
        rill__plug_note_error(p, err->msg);
        return rc;
    }
    p->stats.loads++;
    return RILL_OK;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

rill_result rill_plugins_load_dir(rill_plugins *p, const char *dir, uint32_t *out_failed,
                                  rill_error *err) {
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) {
        return rill_error_set(err, RILL_ERR_IO, "plugins: cannot read the folder '%s'",
                              dir ? dir : "(null)");
    }
    char *names[256];
    uint32_t n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) && n < 256) {
        size_t len = strlen(ent->d_name);
        if (len > 3 && strcmp(ent->d_name + len - 3, ".so") == 0) {
            names[n] = rill_malloc_tagged(strlen(dir) + len + 2, RILL_MEM_RENDER);
            if (names[n]) {
                sprintf(names[n], "%s/%s", dir, ent->d_name);
                n++;
            }
        }
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), cmp_str);
    uint32_t failed = 0;
    for (uint32_t i = 0; i < n; i++) {
        rill_error e = {0};
        if (rill_plugins_load(p, names[i], &e) != RILL_OK) {
            failed++;
        }
        rill_free(names[i]);
    }
    if (out_failed) {
        *out_failed = failed;
    }
    return RILL_OK;
}

/* >>hot reload --------------------------------------------------------------------------------- */

static bool reload_lib(rill_plugins *p, uint32_t li) {
    rill_error err = {0};
    plug_lib *old = &p->libs.data[li];
    plug_lib lib;
    int64_t mt = file_mtime(old->path);
    old->mtime = mt; /* one attempt per change */
    rill_result rc = open_lib(p, old->path, &lib, &err);
    if (rc == RILL_OK) {
        rc = check_staged(p, li, &err);
        if (rc != RILL_OK) {
            rill__plug_free_staged(p);
            rill__plug_close_lib(&lib);
        }
    }
    if (rc != RILL_OK) {
        p->stats.refused++;
        rill__plug_note_error(p, err.msg);
        return false;
    }
    rill__plug_close_lib(&p->libs.data[li]);
    p->libs.data[li] = lib;
    commit_staged(p, li, &err);
    p->stats.reloads++;
    rill_logf(RILL_LOG_INFO, "plugins", "%s reloaded", lib.path);
    return true;
}

static bool reload_shader(rill_plugins *p, plug_effect *e) {
    e->shader_mtime = file_mtime(e->shader_path);
    if (!e->pipe && p->lazy) {
        e->compile_failed = false; /* not compiled yet: its next use compiles the new file */
        return false;
    }
    rill_error err = {0};
    rill__pipe *pipe = NULL;
    if (rill__plug_compile(p, e, p->libs.data[e->lib].path, &pipe, &err) != RILL_OK) {
        p->stats.shader_errors++;
        rill__plug_note_error(p, err.msg); /* the last good pipeline stays */
        return false;
    }
    rill__pipe_destroy(p->r->gpu, e->pipe);
    e->pipe = pipe;
    e->generation++;
    p->stats.reloads++;
    return true;
}

uint32_t rill_plugins_poll(rill_plugins *p) {
    if (!p) {
        return 0;
    }
    uint32_t swaps = 0;
    for (uint32_t i = 0; i < p->libs.len; i++) {
        int64_t mt = file_mtime(p->libs.data[i].path);
        if (mt >= 0 && mt != p->libs.data[i].mtime) {
            swaps += reload_lib(p, i);
        }
    }
    for (uint32_t i = 0; i < p->effects.len; i++) {
        plug_effect *e = &p->effects.data[i];
        if (e->dead || !e->shader_path[0]) {
            continue;
        }
        int64_t mt = file_mtime(e->shader_path);
        if (mt >= 0 && mt != e->shader_mtime) {
            swaps += reload_shader(p, e);
        }
    }
    return swaps;
}
