/* cmd_pack.c: the `rill pack` subcommand: build, list, extract from and verify .rpak packs.
 *
 *   rill pack create DIR --out X.rpak [--chunk BYTES] [--level N] [--raw]
 *   rill pack ls X.rpak
 *   rill pack cat X.rpak PATH
 *   rill pack verify X.rpak
 *   rill pack append TARGET X.rpak
 *
 * Exit codes: 0 success, 1 failure (the message names the pack and the entry), 2 usage error.
 */
#include "cli_args.h"
#include "rill/formats/rpak.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int rill_cmd_pack(int argc, char **argv);

static void pack_help(FILE *f) {
    fprintf(f,
            "usage: rill pack create DIR --out X.rpak [--chunk BYTES] [--level N] [--raw]\n"
            "       rill pack ls X.rpak\n"
            "       rill pack cat X.rpak PATH\n"
            "       rill pack verify X.rpak\n"
            "       rill pack append TARGET X.rpak\n"
            "\n"
            "create  pack every file of DIR (paths relative to it) into X.rpak; the export cache\n"
            "        folder (.rill-cache) and the output itself are left out\n"
            "        --out X.rpak     the pack to write (required)\n"
            "        --chunk BYTES    compression chunk size, a power of two in [4096, 16777216]\n"
            "        --level N        zstd level in [-7, 22]\n"
            "        --raw            store every entry uncompressed\n"
            "ls      list the entries with their sizes, compression and checksums\n"
            "cat     write one entry to standard output\n"
            "verify  check every entry's checksum\n"
            "append  append X.rpak to the existing file TARGET (a copy of `rill` then plays it)\n");
}

static int pack_usage(void) {
    pack_help(stderr);
    return 2;
}

/* Names what is missing, then the usage. */
static int pack_missing(const char *action, const char *what) {
    fprintf(stderr, "rill pack%s%s: missing %s\n", action[0] ? " " : "", action, what);
    return pack_usage();
}

/* export's cache folder (rill export --cache default): build state, not content. */
#define PACK_SKIP_DIR ".rill-cache"

static const char *compression_name(rill_rpak_compression c) {
    return c == RILL_RPAK_COMPRESSION_ZSTD ? "zstd" : "raw";
}

typedef struct create_ctx {
    rill_rpak_writer *w;
    const char *dir;
    rill_rpak_compression mode;
    bool skip_out; /* the output exists: skip the file with its device and inode */
    dev_t out_dev;
    ino_t out_ino;
    rill_error *err;
} create_ctx;

/* Adds one file of the folder, except the pack being written: a pack written into the folder it
 * packs would otherwise take the previous run's pack in, and grow on every run. */
static rill_result create_visit(const char *rel_path, void *user) {
    create_ctx *c = user;
    char full[4096];
    if (!rill_path_join(full, sizeof(full), c->dir, rel_path)) {
        return rill_error_set(c->err, RILL_ERR_LIMIT, "path too long: %s/%s", c->dir, rel_path);
    }
    struct stat st;
    if (c->skip_out && stat(full, &st) == 0 && st.st_dev == c->out_dev && st.st_ino == c->out_ino) {
        return RILL_OK;
    }
    size_t skip_len = strlen(PACK_SKIP_DIR);
    if (strncmp(rel_path, PACK_SKIP_DIR, skip_len) == 0 && rel_path[skip_len] == '/') {
        return RILL_OK;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    /* Confined to the folder being packed: a symbolic link in it that leads out (to
     * /etc/passwd, say) is refused, so it never comes back out of `rill pack cat`. */
    rill_result r = rill_file_read_all_in(c->dir, full, 0, &data, &size, c->err);
    if (r == RILL_OK) {
        r = rill_rpak_writer_add(c->w, rel_path, data, size, c->mode, c->err);
    }
    rill_free(data);
    return r;
}

static int pack_create(int argc, char **argv) {
    const char *dir = NULL;
    const char *out = NULL;
    rill_rpak_writer_desc desc = {0};
    rill_rpak_compression mode = RILL_RPAK_COMPRESSION_AUTO;
    for (int i = 0; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            pack_help(stdout);
            return 0;
        }
        bool takes_value =
            !strcmp(argv[i], "--out") || !strcmp(argv[i], "--chunk") || !strcmp(argv[i], "--level");
        if (takes_value && i + 1 >= argc) {
            fprintf(stderr, "rill pack create: %s needs a value\n", argv[i]);
            return 2;
        }
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) {
            long long n = 0;
            if (!rill_cli_parse_int(argv[++i], 4096, 16 * 1024 * 1024, &n)) {
                fprintf(stderr, "rill pack create: bad --chunk '%s' (bytes, 4096..16777216)\n",
                        argv[i]);
                return 2;
            }
            desc.chunk_size = (uint32_t)n;
        } else if (strcmp(argv[i], "--level") == 0 && i + 1 < argc) {
            long long n = 0;
            if (!rill_cli_parse_int(argv[++i], -7, 22, &n)) {
                fprintf(stderr, "rill pack create: bad --level '%s' (zstd level, -7..22)\n",
                        argv[i]);
                return 2;
            }
            desc.zstd_level = (int)n;
        } else if (strcmp(argv[i], "--raw") == 0) {
            mode = RILL_RPAK_COMPRESSION_RAW;
        } else if (argv[i][0] != '-' && !dir) {
            dir = argv[i];
        } else {
            fprintf(stderr, "rill pack create: unexpected argument '%s'\n", argv[i]);
            return pack_usage();
        }
    }
    if (!dir) {
        return pack_missing("create", "DIR (the folder to pack)");
    }
    if (!out) {
        return pack_missing("create", "--out X.rpak");
    }
    char why[1024];
    if (!rill_cli_writable(out, why, sizeof(why))) {
        fprintf(stderr, "rill pack create: cannot write --out: %s\n", why);
        return 1;
    }
    rill_rpak_writer *w = rill_rpak_writer_create(&desc, NULL);
    if (!w) {
        fprintf(stderr,
                "rill pack: invalid options (chunk must be a power of two, 4 KiB..16 MiB)\n");
        return 2;
    }
    rill_error err = {0};
    create_ctx ctx = {.w = w, .dir = dir, .mode = mode, .err = &err};
    struct stat out_st;
    if (stat(out, &out_st) == 0) {
        ctx.skip_out = true;
        ctx.out_dev = out_st.st_dev;
        ctx.out_ino = out_st.st_ino;
    }
    rill_result r = rill_dir_exists(dir)
                        ? rill_dir_walk(dir, create_visit, &ctx, &err)
                        : rill_error_set(&err, RILL_ERR_NOT_FOUND, "%s: folder not found", dir);
    if (r == RILL_OK) {
        r = rill_rpak_writer_finish_file(w, out, &err);
    }
    rill_rpak_writer_destroy(w);
    if (r != RILL_OK) {
        fprintf(stderr, "rill pack create: %s\n", err.msg);
        return 1;
    }
    rill_rpak *p = NULL;
    if (rill_rpak_open_file(out, &p, &err) != RILL_OK) {
        fprintf(stderr, "rill pack create: %s\n", err.msg);
        return 1;
    }
    uint64_t raw = 0, stored = 0;
    for (uint32_t i = 0; i < rill_rpak_entry_count(p); ++i) {
        rill_rpak_entry_info info;
        rill_rpak_entry_info_get(p, i, &info);
        raw += info.raw_size;
        stored += info.stored_size;
    }
    printf("%s: %u entries, %llu bytes of content stored in %llu bytes\n", out,
           rill_rpak_entry_count(p), (unsigned long long)raw, (unsigned long long)stored);
    rill_rpak_close(p);
    return 0;
}

static int open_or_fail(const char *path, rill_rpak **out) {
    rill_error err = {0};
    if (rill_rpak_open_file(path, out, &err) != RILL_OK) {
        fprintf(stderr, "rill pack: %s\n", err.msg);
        return 1;
    }
    return 0;
}

static int pack_ls(const char *path) {
    rill_rpak *p = NULL;
    if (open_or_fail(path, &p)) {
        return 1;
    }
    printf("%-12s %-12s %-5s %-16s %s\n", "size", "stored", "comp", "checksum", "path");
    for (uint32_t i = 0; i < rill_rpak_entry_count(p); ++i) {
        rill_rpak_entry_info info;
        rill_rpak_entry_info_get(p, i, &info);
        printf("%-12llu %-12llu %-5s %016llx %s\n", (unsigned long long)info.raw_size,
               (unsigned long long)info.stored_size, compression_name(info.compression),
               (unsigned long long)info.checksum, info.path);
    }
    rill_rpak_close(p);
    return 0;
}

static int pack_cat(const char *path, const char *entry) {
    rill_rpak *p = NULL;
    if (open_or_fail(path, &p)) {
        return 1;
    }
    int32_t i = rill_rpak_find(p, entry);
    if (i < 0) {
        fprintf(stderr, "rill pack cat: %s: no entry '%s'\n", path, entry);
        rill_rpak_close(p);
        return 1;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    rill_result r = rill_rpak_read_entry(p, (uint32_t)i, &data, &size, &err);
    rill_rpak_close(p);
    if (r != RILL_OK) {
        fprintf(stderr, "rill pack cat: %s\n", err.msg);
        return 1;
    }
    size_t written = fwrite(data, 1, size, stdout);
    rill_free(data);
    return written == size ? 0 : 1;
}

static int pack_verify(const char *path) {
    rill_rpak *p = NULL;
    if (open_or_fail(path, &p)) {
        return 1;
    }
    uint32_t bad = 0;
    for (uint32_t i = 0; i < rill_rpak_entry_count(p); ++i) {
        rill_error e = {0};
        rill_rpak_entry_info info;
        rill_rpak_entry_info_get(p, i, &info);
        if (rill_rpak_verify_entry(p, i, &e) != RILL_OK) {
            fprintf(stderr, "BAD %s: %s\n", info.path, e.msg);
            bad++;
        }
    }
    if (bad > 0) {
        fprintf(stderr, "%s: %u of %u entries failed verification\n", path, bad,
                rill_rpak_entry_count(p));
        rill_rpak_close(p);
        return 1;
    }
    printf("%s: %u entries OK\n", path, rill_rpak_entry_count(p));
    rill_rpak_close(p);
    return 0;
}

/* `rill pack append TARGET X.rpak`: TARGET must be an existing regular file (appending to a
 * missing one would make a file holding only the pack) and X.rpak a readable pack. */
static int pack_append(const char *target, const char *pack) {
    struct stat st;
    if (stat(target, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "rill pack append: %s: %s\n", target,
                stat(target, &st) != 0 ? "no such file (TARGET must exist: a copy of rill)"
                                       : "not a regular file");
        return 1;
    }
    if (!rill_file_exists(pack)) {
        fprintf(stderr, "rill pack append: %s: no such pack\n", pack);
        return 1;
    }
    char why[1024];
    if (!rill_cli_writable(target, why, sizeof(why))) {
        fprintf(stderr, "rill pack append: cannot write TARGET: %s\n", why);
        return 1;
    }
    rill_error err = {0};
    if (rill_rpak_append_to_file(target, pack, &err) != RILL_OK) {
        fprintf(stderr, "rill pack append: %s\n", err.msg);
        return 1;
    }
    printf("appended %s to %s\n", pack, target);
    return 0;
}

int rill_cmd_pack(int argc, char **argv) {
    /* argv[0] is "pack", argv[1] the action. A dispatcher that passes its whole argv
     * ("rill pack ...") is accepted too. */
    if (argc >= 2 && strcmp(argv[1], "pack") == 0) {
        argc--;
        argv++;
    }
    if (argc < 2) {
        return pack_missing("", "an action (create, ls, cat, verify, append)");
    }
    const char *action = argv[1];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            pack_help(stdout);
            return 0;
        }
    }
    if (strcmp(action, "create") == 0) {
        return pack_create(argc - 2, argv + 2);
    }
    static const char *const needs[][3] = {{"ls", "X.rpak", NULL},
                                           {"cat", "X.rpak", "PATH"},
                                           {"verify", "X.rpak", NULL},
                                           {"append", "TARGET", "X.rpak"}};
    for (size_t k = 0; k < sizeof(needs) / sizeof(needs[0]); k++) {
        if (strcmp(action, needs[k][0]) != 0) {
            continue;
        }
        int want = needs[k][2] ? 2 : 1;
        if (argc - 2 < want) {
            return pack_missing(action, needs[k][argc - 2 + 1]);
        }
        if (argc - 2 > want) {
            fprintf(stderr, "rill pack %s: unexpected argument '%s'\n", action, argv[2 + want]);
            return pack_usage();
        }
        if (k == 0) {
            return pack_ls(argv[2]);
        }
        if (k == 1) {
            return pack_cat(argv[2], argv[3]);
        }
        if (k == 2) {
            return pack_verify(argv[2]);
        }
        return pack_append(argv[2], argv[3]);
    }
    static const char *const actions[] = {"create", "ls", "cat", "verify", "append", "list"};
    const char *near = rill_suggest_from_list(action, actions, 6);
    if (near && strcmp(near, "list") == 0) {
        near = "ls";
    }
    fprintf(stderr, "rill pack: unknown action '%s'%s%s%s\n", action,
            near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    return pack_usage();
}
