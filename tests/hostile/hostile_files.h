/* hostile_files.h: writers of small hostile inputs, one per class the engine must survive (see
 * docs/limits.md), and a runner that executes a command with a time and memory cap and reports
 * its peak memory. Shared by tests/hostile/test_hostile.c (which checks the `rill` CLI ends fast
 * with a clear error) and bench/hostile (which measures each class before and after).
 *
 * Every file is made at run time and stays small on disk: the size a hostile file claims comes
 * from its headers, sparse files or compression, never from bytes checked into the repository.
 * Each writer returns false on an I/O failure. */
#ifndef RILL_HOSTILE_FILES_H
#define RILL_HOSTILE_FILES_H

#include "rill/base.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* >>bytes ------------------------------------------------------------------------------------- */

typedef struct hostile_buf {
    uint8_t *data;
    size_t len, cap;
} hostile_buf;

static inline bool hostile_put(hostile_buf *b, const void *p, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n) {
            cap *= 2;
        }
        uint8_t *d = realloc(b->data, cap);
        if (!d) {
            return false;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return true;
}

static inline bool hostile_put_le(hostile_buf *b, uint64_t v, int bytes) {
    uint8_t t[8];
    for (int i = 0; i < bytes; ++i) {
        t[i] = (uint8_t)(v >> (8 * i));
    }
    return hostile_put(b, t, (size_t)bytes);
}

static inline bool hostile_put_be32(hostile_buf *b, uint32_t v) {
    uint8_t t[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    return hostile_put(b, t, 4);
}

static inline bool hostile_write(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        return false;
    }
    bool ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* >>png: 16384 x 16384, 1-bit grey, all zero: about 200 KB that decode to 1 GiB of RGBA ------ */

static inline uint32_t hostile_crc32(const uint8_t *p, size_t n, uint32_t crc) {
    crc = ~crc;
    for (size_t i = 0; i < n; ++i) {
        crc ^= p[i];
        for (int k = 0; k < 8; ++k) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

typedef struct hostile_bits {
    hostile_buf *b;
    uint32_t acc;
    int n;
} hostile_bits;

/* Deflate writes bits LSB first; Huffman codes go most significant bit first. */
static inline bool hostile_bits_put(hostile_bits *w, uint32_t v, int n) {
    for (int i = 0; i < n; ++i) {
        w->acc |= ((v >> i) & 1u) << w->n;
        if (++w->n == 8) {
            uint8_t byte = (uint8_t)w->acc;
            if (!hostile_put(w->b, &byte, 1)) {
                return false;
            }
            w->acc = 0;
            w->n = 0;
        }
    }
    return true;
}

static inline bool hostile_bits_code(hostile_bits *w, uint32_t code, int n) {
    uint32_t rev = 0;
    for (int i = 0; i < n; ++i) {
        rev |= ((code >> i) & 1u) << (n - 1 - i);
    }
    return hostile_bits_put(w, rev, n);
}

/* A zlib stream of `total` zero bytes: one fixed-Huffman block, a literal 0 then copies of 258
 * bytes at distance 1 (13 bits each), literal zeros for the tail. */
static inline bool hostile_zlib_zeros(hostile_buf *b, uint64_t total) {
    uint8_t head[2] = {0x78, 0x01};
    hostile_put(b, head, 2);
    hostile_bits w = {.b = b};
    bool ok = hostile_bits_put(&w, 1, 1) && hostile_bits_put(&w, 1, 2); /* final, fixed */
    uint64_t left = total;
    if (left > 0) {
        ok = ok && hostile_bits_code(&w, 0x30, 8); /* literal 0 */
        left--;
    }
    while (ok && left >= 258) {
        ok = hostile_bits_code(&w, 0xC5, 8) && hostile_bits_code(&w, 0, 5); /* len 258, dist 1 */
        left -= 258;
    }
    while (ok && left > 0) {
        ok = hostile_bits_code(&w, 0x30, 8);
        left--;
    }
    ok = ok && hostile_bits_code(&w, 0, 7); /* end of block */
    if (ok && w.n > 0) {
        ok = hostile_bits_put(&w, 0, 8 - w.n);
    }
    /* Adler-32 of zeros: a stays 1, b adds 1 per byte. */
    uint32_t adler = (uint32_t)((total % 65521u) << 16) | 1u;
    return ok && hostile_put_be32(b, adler);
}

static inline bool hostile_png_chunk(hostile_buf *b, const char *type, const uint8_t *data,
                                     size_t n) {
    bool ok = hostile_put_be32(b, (uint32_t)n);
    size_t at = b->len;
    ok = ok && hostile_put(b, type, 4) && (n == 0 || hostile_put(b, data, n));
    return ok && hostile_put_be32(b, hostile_crc32(b->data + at, n + 4, 0));
}

static inline bool hostile_write_png(const char *path, uint32_t side) {
    hostile_buf b = {0};
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    uint8_t ihdr[13] = {0};
    for (int i = 0; i < 4; ++i) {
        ihdr[i] = ihdr[4 + i] = (uint8_t)(side >> (24 - 8 * i));
    }
    ihdr[8] = 1; /* bit depth 1, colour type 0 (grey) */
    hostile_buf z = {0};
    uint64_t raw = (uint64_t)side * (1u + (side + 7u) / 8u); /* filter byte + packed row */
    bool ok = hostile_put(&b, sig, 8) && hostile_png_chunk(&b, "IHDR", ihdr, 13) &&
              hostile_zlib_zeros(&z, raw) && hostile_png_chunk(&b, "IDAT", z.data, z.len) &&
              hostile_png_chunk(&b, "IEND", NULL, 0) && hostile_write(path, b.data, b.len);
    free(z.data);
    free(b.data);
    return ok;
}

/* >>rpak: entries of RLE zstd frames, each declaring `entry_raw` bytes ------------------------ */

/* One zstd frame of `raw` zero bytes made of RLE blocks of 128 KiB (4 bytes each). */
static inline bool hostile_zstd_rle(hostile_buf *b, uint64_t raw) {
    bool ok = hostile_put_le(b, 0xFD2FB528u, 4);
    uint8_t fhd = 0xE0; /* 8-byte content size, single segment */
    ok = ok && hostile_put(b, &fhd, 1) && hostile_put_le(b, raw, 8);
    uint64_t left = raw;
    while (ok && left > 0) {
        uint32_t n = left > 131072u ? 131072u : (uint32_t)left;
        left -= n;
        uint32_t hdr = (left == 0 ? 1u : 0u) | (1u << 1) | (n << 3); /* last, RLE, size */
        uint8_t zero = 0;
        ok = hostile_put_le(b, hdr, 3) && hostile_put(b, &zero, 1);
    }
    return ok;
}

/* A pack (docs/formats/rpak.md) of `count` zstd entries "bomb/NN.bin", each a frame of
 * `entry_raw` zeros: 17 entries of 256 MiB are 4.25 GiB in about 140 KB. */
static inline bool hostile_write_zstd_bomb_pack(const char *path, uint32_t count,
                                                uint64_t entry_raw) {
    hostile_buf b = {0}, frame = {0}, idx = {0}, names = {0};
    static const uint8_t magic[8] = {'R', 'P', 'A', 'K', 0x0D, 0x0A, 0x1A, 0x0A};
    bool ok = hostile_put(&b, magic, 8) && hostile_put_le(&b, 1, 4) && hostile_put_le(&b, 32, 4) &&
              hostile_put_le(&b, 65536, 4) && hostile_put_le(&b, 0, 4) && hostile_put_le(&b, 0, 8);
    ok = ok && hostile_zstd_rle(&frame, entry_raw);
    uint64_t sum = ok ? rill_hash64(frame.data, frame.len) : 0;
    for (uint32_t i = 0; ok && i < count; ++i) {
        uint64_t off = b.len;
        ok = hostile_put(&b, frame.data, frame.len);
        while (ok && b.len % 16u != 0) {
            uint8_t z = 0;
            ok = hostile_put(&b, &z, 1);
        }
        char name[32];
        int nl = snprintf(name, sizeof(name), "bomb/%02u.bin", i);
        uint64_t name_off = names.len;
        ok = ok && hostile_put(&names, name, (size_t)nl);
        ok = ok && hostile_put_le(&idx, off, 8) && hostile_put_le(&idx, frame.len, 8) &&
             hostile_put_le(&idx, entry_raw, 8) && hostile_put_le(&idx, sum, 8) &&
             hostile_put_le(&idx, name_off, 4) && hostile_put_le(&idx, (uint64_t)nl, 2) &&
             hostile_put_le(&idx, 2, 1) && hostile_put_le(&idx, 0, 1) &&
             hostile_put_le(&idx, 0, 4) && hostile_put_le(&idx, 0, 4);
    }
    ok = ok && hostile_put(&idx, names.data, names.len);
    uint64_t index_offset = b.len;
    ok = ok && hostile_put(&b, idx.data, idx.len);
    hostile_buf tr = {0};
    ok = ok && hostile_put_le(&tr, index_offset, 8) && hostile_put_le(&tr, idx.len, 8) &&
         hostile_put_le(&tr, b.len + 64u, 8) &&
         hostile_put_le(&tr, rill_hash64(idx.data, idx.len), 8) && hostile_put_le(&tr, count, 4) &&
         hostile_put_le(&tr, 0, 4) && hostile_put_le(&tr, names.len, 4) &&
         hostile_put_le(&tr, 1, 4);
    ok = ok && hostile_put_le(&tr, rill_hash64(tr.data, 48), 8) &&
         hostile_put(&tr, "RPAKEND\x1A", 8);
    ok = ok && hostile_put(&b, tr.data, tr.len) && hostile_write(path, b.data, b.len);
    free(b.data);
    free(frame.data);
    free(idx.data);
    free(names.data);
    free(tr.data);
    return ok;
}

/* >>scenes: `levels` files of `fan` nested instances each ---------------------------------------
 */

/* Writes dir/l0.rsn .. l<levels-1>.rsn: each holds `fan` entities that instance the next file;
 * the last holds `fan` plain entities. Expanded that is fan^levels entities. */
static inline bool hostile_write_scene_bomb(const char *dir, int levels, int fan) {
    for (int l = 0; l < levels; ++l) {
        hostile_buf b = {0};
        char line[256];
        bool ok = hostile_put(&b, "rsn 1\n", 6);
        for (int i = 1; ok && i <= fan; ++i) {
            int n =
                l + 1 < levels
                    ? snprintf(line, sizeof(line),
                               "entity %d { SceneInstance { scene: @\"l%d.rsn\" } }\n", i, l + 1)
                    : snprintf(line, sizeof(line), "entity %d { Transform {} }\n", i);
            ok = hostile_put(&b, line, (size_t)n);
        }
        char path[4200];
        int pn = snprintf(path, sizeof(path), "%s/l%d.rsn", dir, l);
        ok = ok && pn > 0 && (size_t)pn < sizeof(path) && hostile_write(path, b.data, b.len);
        free(b.data);
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* A sparse file of `size` bytes (no disk used): a 2 GiB project.toml. */
static inline bool hostile_write_sparse(const char *path, uint64_t size) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        return false;
    }
    bool ok = ftruncate(fd, (off_t)size) == 0;
    return close(fd) == 0 && ok;
}

/* >>running ----------------------------------------------------------------------------------- */

typedef struct hostile_run {
    int exit_code;  /* -1 when killed */
    bool timed_out; /* killed after the time cap */
    double wall_s;
    long max_rss_kib; /* peak resident memory of the child */
    char err[4096];   /* the start of its stderr */
} hostile_run;

/* Runs argv with stdout discarded, stderr captured, `time_cap_s` of wall time and `mem_cap_mib`
 * of address space (so a regression is an error here, not an out-of-memory machine). */
static inline bool hostile_exec(char *const argv[], double time_cap_s, long mem_cap_mib,
                                hostile_run *out) {
    memset(out, 0, sizeof(*out));
    char errfile[] = "/tmp/rill_hostile_errXXXXXX";
    int efd = mkstemp(errfile);
    if (efd < 0) {
        return false;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {(rlim_t)mem_cap_mib << 20, (rlim_t)mem_cap_mib << 20};
        setrlimit(RLIMIT_AS, &rl);
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, 1);
        dup2(efd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    for (;;) {
        pid_t got = wait4(pid, &status, WNOHANG, &ru);
        if (got == pid) {
            break;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        if (!out->timed_out && el > time_cap_s) {
            kill(pid, SIGKILL);
            out->timed_out = true;
        }
        usleep(2000);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    out->max_rss_kib = ru.ru_maxrss;
    out->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    ssize_t n = pread(efd, out->err, sizeof(out->err) - 1, 0);
    out->err[n > 0 ? n : 0] = '\0';
    close(efd);
    unlink(errfile);
    return true;
}

#endif
