/* bench_pack.c: read throughput of assets from a .rpak pack versus the same files loose, through
 * the VFS. Prints JSON lines, one per (mode, source):
 *   mode    sequential (every file in path order), random (every file in a shuffled order),
 *           range4k (random 4 KiB ranges of the raw .rmip files, like mip-tail reads)
 *   source  loose (a folder); pack_raw (every entry raw, 64 KiB checksum chunks); pack_auto
 *           (text zstd, the rest raw, default 16 KiB chunks); pack_raw_16k (every entry raw,
 *           16 KiB chunks)
 * The working set is generated: half incompressible ".rmip" files, half compressible ".txt"
 * files, sizes log-uniform between 1 KiB and 256 KiB. Every pass runs once to warm the page cache
 * and is then timed (best of `reps`), so the figures compare the code paths, not the disk.
 *
 * usage: bench_pack [files=1000] [reps=3] [tmpdir=/tmp]
 */
#include "rill/asset.h"
#include "rill/formats/rpak.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint32_t lcg(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

typedef struct bench_file {
    char path[64];
    size_t size;
    bool raw_kind;
} bench_file;

static double now_s(void) {
    return rill_time_sec();
}

typedef enum { MODE_SEQ, MODE_RANDOM, MODE_RANGE } bench_mode;
static const char *mode_name[] = {"sequential", "random", "range4k"};

/* One timed pass; returns bytes read. */
static uint64_t pass(rill_vfs *vfs, const bench_file *files, const uint32_t *order, uint32_t n,
                     bench_mode mode, uint32_t seed) {
    uint64_t bytes = 0;
    uint8_t buf[4096];
    for (uint32_t k = 0; k < n; ++k) {
        const bench_file *f = &files[order[k]];
        if (mode == MODE_RANGE) {
            if (!f->raw_kind || f->size < sizeof(buf)) {
                continue;
            }
            uint64_t off = lcg(&seed) % (f->size - sizeof(buf) + 1);
            rill_error err = {0};
            if (rill_vfs_read_range(vfs, f->path, off, sizeof(buf), buf, &err) != RILL_OK) {
                fprintf(stderr, "bench_pack: %s\n", err.msg);
                exit(1);
            }
            bytes += sizeof(buf);
            continue;
        }
        uint8_t *data = NULL;
        size_t size = 0;
        rill_error err = {0};
        if (rill_vfs_read_all(vfs, f->path, &data, &size, &err) != RILL_OK) {
            fprintf(stderr, "bench_pack: %s\n", err.msg);
            exit(1);
        }
        bytes += size;
        rill_free(data);
    }
    return bytes;
}

int main(int argc, char **argv) {
    uint32_t count = argc > 1 ? (uint32_t)atoi(argv[1]) : 1000;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    const char *tmp = argc > 3 ? argv[3] : "/tmp";
    if (count == 0 || reps <= 0) {
        fprintf(stderr, "usage: bench_pack [files] [reps] [tmpdir]\n");
        return 2;
    }
    char root[512], loose[600], pack_raw[600], pack_auto[600], pack_16k[600];
    snprintf(root, sizeof(root), "%s/rill_bench_pack_%ld", tmp, (long)getpid());
    snprintf(loose, sizeof(loose), "%s/loose", root);
    snprintf(pack_raw, sizeof(pack_raw), "%s/raw.rpak", root);
    snprintf(pack_auto, sizeof(pack_auto), "%s/auto.rpak", root);
    snprintf(pack_16k, sizeof(pack_16k), "%s/raw16k.rpak", root);
    rill_error err = {0};
    rill_dir_remove_all(root, NULL);
    if (rill_dir_create_all(loose, &err) != RILL_OK) {
        fprintf(stderr, "bench_pack: %s\n", err.msg);
        return 1;
    }

    /* Generate the working set. */
    bench_file *files = rill_calloc(count, sizeof(*files));
    uint32_t *order = rill_calloc(count, sizeof(*order));
    uint8_t *scratch = rill_malloc(256 * 1024);
    uint32_t seed = 42;
    uint64_t total = 0;
    rill_rpak_writer *w_raw =
        rill_rpak_writer_create(&(rill_rpak_writer_desc){.chunk_size = 65536}, NULL);
    rill_rpak_writer *w_auto =
        rill_rpak_writer_create(&(rill_rpak_writer_desc){.zstd_level = 3}, NULL);
    rill_rpak_writer *w_16k =
        rill_rpak_writer_create(&(rill_rpak_writer_desc){.chunk_size = 16384}, NULL);
    for (uint32_t i = 0; i < count; ++i) {
        bench_file *f = &files[i];
        f->raw_kind = (i & 1) == 0;
        double t = (double)(lcg(&seed) % 10000) / 10000.0; /* log-uniform 1 KiB .. 256 KiB */
        f->size = (size_t)(1024.0 * pow(256.0, t));
        snprintf(f->path, sizeof(f->path), "d%02u/f%05u.%s", i % 16, i,
                 f->raw_kind ? "rmip" : "txt");
        for (size_t b = 0; b < f->size; ++b) {
            scratch[b] = f->raw_kind ? (uint8_t)lcg(&seed)
                                     : (uint8_t)("lorem ipsum dolor sit amet, "[(b + i) % 28]);
        }
        char full[700], folder[700];
        snprintf(full, sizeof(full), "%s/%s", loose, f->path);
        rill_path_dirname(folder, sizeof(folder), full);
        rill_dir_create_all(folder, NULL);
        if (rill_file_write_all(full, scratch, f->size, &err) != RILL_OK ||
            rill_rpak_writer_add(w_raw, f->path, scratch, f->size, RILL_RPAK_COMPRESSION_RAW,
                                 &err) != RILL_OK ||
            rill_rpak_writer_add(w_auto, f->path, scratch, f->size, RILL_RPAK_COMPRESSION_AUTO,
                                 &err) != RILL_OK ||
            rill_rpak_writer_add(w_16k, f->path, scratch, f->size, RILL_RPAK_COMPRESSION_RAW,
                                 &err) != RILL_OK) {
            fprintf(stderr, "bench_pack: %s\n", err.msg);
            return 1;
        }
        total += f->size;
        order[i] = i;
    }
    if (rill_rpak_writer_finish_file(w_raw, pack_raw, &err) != RILL_OK ||
        rill_rpak_writer_finish_file(w_auto, pack_auto, &err) != RILL_OK ||
        rill_rpak_writer_finish_file(w_16k, pack_16k, &err) != RILL_OK) {
        fprintf(stderr, "bench_pack: %s\n", err.msg);
        return 1;
    }
    rill_rpak_writer_destroy(w_raw);
    rill_rpak_writer_destroy(w_auto);
    rill_rpak_writer_destroy(w_16k);
    rill_free(scratch);
    printf("{\"bench\":\"pack_setup\",\"files\":%u,\"content_bytes\":%llu,"
           "\"pack_raw_bytes\":%lld,\"pack_auto_bytes\":%lld}\n",
           count, (unsigned long long)total, (long long)rill_file_size(pack_raw),
           (long long)rill_file_size(pack_auto));

    const char *sources[] = {"loose", "pack_raw", "pack_auto", "pack_raw_16k"};
    const char *pack_paths[] = {NULL, pack_raw, pack_auto, pack_16k};
    for (int src = 0; src < 4; ++src) {
        rill_vfs *vfs = rill_vfs_create(NULL, NULL);
        rill_result r = src == 0 ? rill_vfs_mount_dir(vfs, loose, &err)
                                 : rill_rpak_mount_file(vfs, pack_paths[src], NULL, &err);
        if (r != RILL_OK) {
            fprintf(stderr, "bench_pack: %s\n", err.msg);
            return 1;
        }
        for (int mode = MODE_SEQ; mode <= MODE_RANGE; ++mode) {
            /* Path order for sequential; one fixed shuffle for random and range reads. */
            for (uint32_t i = 0; i < count; ++i) {
                order[i] = i;
            }
            if (mode != MODE_SEQ) {
                uint32_t s2 = 7;
                for (uint32_t i = count - 1; i > 0; --i) {
                    uint32_t j = lcg(&s2) % (i + 1);
                    uint32_t t = order[i];
                    order[i] = order[j];
                    order[j] = t;
                }
            }
            pass(vfs, files, order, count, (bench_mode)mode, 99); /* warm-up */
            double best = 1e30;
            uint64_t bytes = 0;
            uint32_t reads = 0;
            for (int rep = 0; rep < reps; ++rep) {
                double t0 = now_s();
                bytes = pass(vfs, files, order, count, (bench_mode)mode, 99);
                double dt = now_s() - t0;
                best = dt < best ? dt : best;
            }
            for (uint32_t i = 0; i < count; ++i) {
                reads += mode != MODE_RANGE || (files[i].raw_kind && files[i].size >= 4096);
            }
            printf("{\"bench\":\"pack_read\",\"mode\":\"%s\",\"source\":\"%s\",\"reads\":%u,"
                   "\"bytes\":%llu,\"seconds\":%.6f,\"mb_per_s\":%.1f,\"us_per_read\":%.2f}\n",
                   mode_name[mode], sources[src], reads, (unsigned long long)bytes, best,
                   (double)bytes / (1024.0 * 1024.0) / best, best * 1e6 / (double)reads);
            fflush(stdout);
        }
        rill_vfs_destroy(vfs);
    }
    rill_dir_remove_all(root, NULL);
    rill_free(files);
    rill_free(order);
    return 0;
}
