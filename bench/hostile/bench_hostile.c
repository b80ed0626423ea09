/* bench_hostile.c: runs a `rill` binary on one small hostile input per class (docs/limits.md)
 * and prints one JSON line per command: exit code, wall time, peak resident memory (wait4's
 * ru_maxrss), and whether it hit the time cap. Each command runs with a wall-time cap and an
 * address-space cap, so an unprotected binary (the "before" figures in docs/benchmarks.md) is
 * stopped instead of taking the machine down: a "capped" line means the cost was at least that.
 *
 * Usage: bench_hostile RILL_BINARY [TIME_CAP_S=30] [MEM_CAP_MIB=3072] [WORK_DIR=/tmp/...] */
#include "hostile_files.h"

static const char *rill_bin;
static double time_cap = 30.0;
static long mem_cap = 3072;

static void run(const char *cls, const char *const *args) {
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)rill_bin;
    while (args[n - 1] && n < 15) {
        argv[n] = (char *)args[n - 1];
        n++;
    }
    argv[n] = NULL;
    hostile_run r;
    if (!hostile_exec(argv, time_cap, mem_cap, &r)) {
        printf("{\"class\":\"%s\",\"error\":\"cannot run\"}\n", cls);
        return;
    }
    /* The first line of stderr, for the record (JSON-escaped crudely: quotes and controls). */
    char first[160];
    size_t k = 0;
    for (const char *p = r.err; *p && *p != '\n' && k + 1 < sizeof(first); ++p) {
        first[k++] = (*p == '"' || *p == '\\' || (unsigned char)*p < 32) ? '\'' : *p;
    }
    first[k] = '\0';
    printf("{\"class\":\"%s\",\"command\":\"%s %s\",\"exit\":%d,\"timed_out\":%s,\"wall_s\":%.3f,"
           "\"peak_rss_mib\":%.1f,\"time_cap_s\":%.0f,\"mem_cap_mib\":%ld,\"stderr\":\"%s\"}\n",
           cls, args[0], args[1] ? args[1] : "", r.exit_code, r.timed_out ? "true" : "false",
           r.wall_s, (double)r.max_rss_kib / 1024.0, time_cap, mem_cap, first);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_hostile RILL_BINARY [TIME_CAP_S] [MEM_CAP_MIB] [WORK_DIR]\n");
        return 2;
    }
    rill_bin = argv[1];
    if (argc > 2) {
        time_cap = atof(argv[2]);
    }
    if (argc > 3) {
        mem_cap = atol(argv[3]);
    }
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", argc > 4 ? argv[4] : "/tmp/rill_bench_hostile");
    rill_dir_remove_all(dir, NULL);
    char p[1100], q[1100], r[1100];
#define AT(buf, rel) snprintf(buf, sizeof(buf), "%s/%s", dir, rel)
    AT(p, "png");
    rill_dir_create_all(p, NULL);
    AT(q, "png/big.png");
    hostile_write_png(q, 16384);
    AT(r, "png.rpak");
    run("png_16384", (const char *[]){"export", p, "--out", r, "--no-cache", "--quiet", NULL});

    AT(p, "link/assets");
    rill_dir_create_all(p, NULL);
    AT(q, "link/assets/passwd");
    if (symlink("/etc/passwd", q) != 0) {
        perror("symlink");
    }
    AT(p, "link");
    AT(r, "link.rpak");
    run("symlink_out", (const char *[]){"pack", "create", p, "--out", r, NULL});
    printf("{\"class\":\"symlink_out\",\"pack_written\":%s}\n",
           rill_file_exists(r) ? "true" : "false");

    AT(p, "bomb.rpak");
    hostile_write_zstd_bomb_pack(p, 17, (uint64_t)256 << 20);
    run("zstd_bomb", (const char *[]){"pack", "verify", p, NULL});

    AT(p, "scenes");
    rill_dir_create_all(p, NULL);
    hostile_write_scene_bomb(p, 9, 16);
    run("scene_bomb", (const char *[]){"scene", "load", "l0.rsn", "--root", p, NULL});

    AT(p, "fifo.rpak");
    mkfifo(p, 0644);
    run("fifo", (const char *[]){"pack", "ls", p, NULL});
    run("dev_zero", (const char *[]){"scene", "check", "/dev/zero", NULL});

    AT(p, "toml");
    rill_dir_create_all(p, NULL);
    AT(q, "toml/main.rsn");
    hostile_write(q, "rsn 1\n", 6);
    AT(q, "toml/project.toml");
    hostile_write_sparse(q, (uint64_t)2 << 30);
    run("toml_2gib", (const char *[]){"scene", "load", "main.rsn", "--root", p, NULL});
#undef AT
    rill_dir_remove_all(dir, NULL);
    return 0;
}
