/* bc7.c: the BC7 block encoder and decoder.
 *
 * The encoder works per block with no allocation: every mode candidate is fitted into a small
 * struct on the stack and the cheapest (by summed squared RGBA error against the real decoded
 * palette) is packed. Subset fits start from the principal axis of the subset's colours, then
 * alternate "choose indices" and "solve endpoints by least squares", trying the p-bit choices the
 * mode allows at every step. Two- and three-subset modes rank all 64 partitions by a cheap
 * estimate (the scatter left over after removing each subset's principal axis, plus a share of the
 * scatter along it) and fit only the best few in full. Greyscale blocks take a one-channel path.
 */
#include "rill/formats/bc.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "bc7_tables.h"

/* >>bits -------------------------------------------------------------------------------------- */

/* A 128-bit little-endian bit stream held in two words, read or written LSB first. */
typedef struct bc7_bits {
    uint64_t w[2];
    uint32_t pos;
} bc7_bits;

/* Reads n <= 8 bits at the cursor (bits past 128 read as 0). */
static uint32_t bits_get(bc7_bits *b, uint32_t n) {
    uint32_t p = b->pos;
    b->pos += n;
    if (n == 0 || p >= 128) {
        return 0;
    }
    uint32_t word = p >> 6, sh = p & 63;
    uint64_t v = b->w[word] >> sh;
    if (sh + n > 64 && word == 0) {
        v |= b->w[1] << (64 - sh);
    }
    return (uint32_t)(v & ((1ull << n) - 1u));
}

/* Writes the low n <= 8 bits of v at the cursor (bits past 128 are dropped). */
static void bits_put(bc7_bits *b, uint32_t v, uint32_t n) {
    uint32_t p = b->pos;
    b->pos += n;
    if (n == 0 || p >= 128) {
        return;
    }
    uint64_t x = (uint64_t)v & ((1ull << n) - 1u);
    uint32_t word = p >> 6, sh = p & 63;
    b->w[word] |= x << sh;
    if (sh + n > 64 && word == 0) {
        b->w[1] |= x >> (64 - sh);
    }
}

/* Expands an n-bit endpoint value (5 <= n <= 8) to 8 bits by replicating its high bits. */
static inline int expand_bits(int v, int n) {
    return n >= 8 ? v : ((v << (8 - n)) | (v >> (2 * n - 8)));
}

static inline int bc7_subset_of(int subsets, int part, int pixel) {
    if (subsets == 2) {
        return (RILL__BC7_PART2[part] >> pixel) & 1;
    }
    if (subsets == 3) {
        return (int)((RILL__BC7_PART3[part] >> (2 * pixel)) & 3u);
    }
    return 0;
}

/* The pixels of each subset of a partition, in pixel order: mem[s][0..cnt[s]). */
static inline void bc7_subset_members(int subsets, int part, uint8_t mem[3][16], int cnt[3]) {
    cnt[0] = cnt[1] = cnt[2] = 0;
    for (int i = 0; i < 16; i++) {
        int s = bc7_subset_of(subsets, part, i);
        mem[s][cnt[s]++] = (uint8_t)i;
    }
}

static inline int bc7_is_anchor(int subsets, int part, int pixel) {
    if (pixel == 0) {
        return 1;
    }
    if (subsets == 2) {
        return pixel == RILL__BC7_ANCHOR2[part];
    }
    if (subsets == 3) {
        return pixel == RILL__BC7_ANCHOR3A[part] || pixel == RILL__BC7_ANCHOR3B[part];
    }
    return 0;
}

/* >>decode ------------------------------------------------------------------------------------ */

void rill_bc7_decode_block(const uint8_t block[16], uint8_t out_rgba[64]) {
    bc7_bits b = {{0, 0}, 0};
    for (int i = 0; i < 8; i++) {
        b.w[0] |= (uint64_t)block[i] << (8 * i);
        b.w[1] |= (uint64_t)block[8 + i] << (8 * i);
    }
    int mode = 0;
    while (mode < 8 && !((block[0] >> mode) & 1)) {
        mode++;
    }
    if (mode == 8) {
        memset(out_rgba, 0, 64);
        return;
    }
    const rill__bc7_mode *m = &RILL__BC7_MODES[mode];
    b.pos = (uint32_t)mode + 1;
    int part = (int)bits_get(&b, m->part_bits);
    int rot = (int)bits_get(&b, m->rot_bits);
    int isel = (int)bits_get(&b, m->isel_bits);
    int nep = m->subsets * 2;
    int ep[6][4];
    for (int c = 0; c < 3; c++) {
        for (int e = 0; e < nep; e++) {
            ep[e][c] = (int)bits_get(&b, m->cbits);
        }
    }
    for (int e = 0; e < nep; e++) {
        ep[e][3] = m->abits ? (int)bits_get(&b, m->abits) : 255;
    }
    int cb = m->cbits, ab = m->abits;
    if (m->ep_pbit || m->sh_pbit) {
        int pb[6];
        if (m->ep_pbit) {
            for (int e = 0; e < nep; e++) {
                pb[e] = (int)bits_get(&b, 1);
            }
        } else {
            for (int s = 0; s < m->subsets; s++) {
                pb[2 * s] = pb[2 * s + 1] = (int)bits_get(&b, 1);
            }
        }
        for (int e = 0; e < nep; e++) {
            for (int c = 0; c < 3; c++) {
                ep[e][c] = (ep[e][c] << 1) | pb[e];
            }
            if (ab) {
                ep[e][3] = (ep[e][3] << 1) | pb[e];
            }
        }
        cb++;
        if (ab) {
            ab++;
        }
    }
    for (int e = 0; e < nep; e++) {
        for (int c = 0; c < 3; c++) {
            ep[e][c] = expand_bits(ep[e][c], cb);
        }
        if (ab) {
            ep[e][3] = expand_bits(ep[e][3], ab);
        }
    }
    const uint8_t *wc = RILL__BC7_WEIGHTS[m->ibits - 2];
    const uint8_t *wa = m->ibits2 ? RILL__BC7_WEIGHTS[m->ibits2 - 2] : wc;
    uint32_t ipos = b.pos;
    uint32_t apos = ipos + 16u * m->ibits - m->subsets;
    for (int i = 0; i < 16; i++) {
        int s = bc7_subset_of(m->subsets, part, i);
        b.pos = ipos;
        int nb = m->ibits - (bc7_is_anchor(m->subsets, part, i) ? 1 : 0);
        int i0 = (int)bits_get(&b, (uint32_t)nb);
        ipos = b.pos;
        int wcol, walp;
        if (m->ibits2) {
            b.pos = apos;
            int i1 = (int)bits_get(&b, (uint32_t)(m->ibits2 - (i == 0 ? 1 : 0)));
            apos = b.pos;
            if (isel) {
                wcol = wa[i1];
                walp = wc[i0];
            } else {
                wcol = wc[i0];
                walp = wa[i1];
            }
        } else {
            wcol = walp = wc[i0];
        }
        int px[4];
        for (int c = 0; c < 3; c++) {
            px[c] = ((64 - wcol) * ep[2 * s][c] + wcol * ep[2 * s + 1][c] + 32) >> 6;
        }
        px[3] = ((64 - walp) * ep[2 * s][3] + walp * ep[2 * s + 1][3] + 32) >> 6;
        if (rot) {
            int t = px[3];
            px[3] = px[rot - 1];
            px[rot - 1] = t;
        }
        for (int c = 0; c < 4; c++) {
            out_rgba[4 * i + c] = (uint8_t)px[c];
        }
    }
}

/* >>fit --------------------------------------------------------------------------------------- */

enum { PM_NONE = 0, PM_SHARED = 1, PM_EACH = 2 };

/* What one subset fit needs to know: the channel range it covers, the stored endpoint bits
 * (without p-bit), the p-bit kind, the index bits and how many least-squares passes to run. */
typedef struct bc7_fit {
    int ch0, nch;
    int bits;
    int pmode;
    int ib;
    int iters;
    int all_pbits; /* evaluate every p-bit combination instead of picking by endpoint error */
    int force_p;   /* >= 0: both endpoints use this p-bit (opaque blocks in mode 6 need 1) */
} bc7_fit;

/* One fitted subset: stored endpoint values, p-bits, indices (for member pixels) and its error. */
typedef struct bc7_sub {
    uint8_t q[2][4];
    uint8_t p[2];
    uint8_t idx[16];
    uint32_t err;
} bc7_sub;

/* Picks, for each member pixel, the palette entry nearest to it (the projection on the endpoint
 * line gives the candidate, its two neighbours are checked exactly against the rounded palette)
 * and returns the summed squared error. Stops early, returning a value >= limit, once the error
 * passes `limit`, since the caller would throw the result away. */
#if defined(__GNUC__) || defined(__clang__)
#define BC7_INLINE static inline __attribute__((always_inline))
#else
#define BC7_INLINE static inline
#endif
BC7_INLINE uint32_t eval_sub(const int px[16][4], const uint8_t *mem, int n, const int e0[4],
                             const int e1[4], int ch0, int nch, int ib, uint8_t *idx,
                             uint32_t limit) {
    const uint8_t *w = RILL__BC7_WEIGHTS[ib - 2];
    int levels = 1 << ib;
    int pal[16][4];
    int d[4] = {0, 0, 0, 0};
    int dd = 0;
    for (int c = ch0; c < ch0 + nch; c++) {
        d[c] = e1[c] - e0[c];
        dd += d[c] * d[c];
    }
    for (int k = 0; k < levels; k++) {
        for (int c = ch0; c < ch0 + nch; c++) {
            pal[k][c] = ((64 - w[k]) * e0[c] + w[k] * e1[c] + 32) >> 6;
        }
    }
    float scale = dd > 0 ? (float)(levels - 1) / (float)dd : 0.0f;
    uint32_t err = 0;
    for (int j = 0; j < n; j++) {
        const int *p = px[mem[j]];
        /* The rounded palette sits within a unit of the ideal line, so the entry nearest the
         * projection or its neighbour on the side the projection leans to is the nearest one. */
        int k = 0, k2 = 0;
        if (dd > 0) {
            int t = 0;
            for (int c = ch0; c < ch0 + nch; c++) {
                t += (p[c] - e0[c]) * d[c];
            }
            float f = (float)t * scale;
            f = RILL_CLAMP(f, 0.0f, (float)(levels - 1));
            k = (int)(f + 0.5f);
            k2 = f > (float)k ? k + 1 : k - 1;
            k2 = RILL_CLAMP(k2, 0, levels - 1);
        }
        uint32_t best = 0, e2 = 0;
        for (int c = ch0; c < ch0 + nch; c++) {
            int diff = p[c] - pal[k][c], diff2 = p[c] - pal[k2][c];
            best += (uint32_t)(diff * diff);
            e2 += (uint32_t)(diff2 * diff2);
        }
        int bk = k;
        if (e2 < best) {
            best = e2;
            bk = k2;
        }
        idx[mem[j]] = (uint8_t)bk;
        err += best;
        if (err >= limit) {
            return err;
        }
    }
    return err;
}

/* Endpoint quantization tables: for every 8-bit target value, the stored value (endpoint bits
 * wide, with a given p-bit or none) whose expansion lands nearest, and that expansion. Indexed
 * [bits - 4][p + 1][value]; built once (pthread_once) since they depend only on the format. */
static uint8_t g_quant_q[5][3][256];
static uint8_t g_quant_dec[5][3][256];
static pthread_once_t g_quant_once = PTHREAD_ONCE_INIT;

/* Partition membership rows as 0/1 floats: [partition][subset - 1][pixel], for the ranking. */
static float g_member2[64][2][16];
static float g_member3[64][2][16];

static void quant_tables_build(void) {
    for (int part = 0; part < 64; part++) {
        for (int i = 0; i < 16; i++) {
            g_member2[part][0][i] = (float)((RILL__BC7_PART2[part] >> i) & 1u);
            g_member2[part][1][i] = 0.0f;
            uint32_t sub3 = (RILL__BC7_PART3[part] >> (2 * i)) & 3u;
            g_member3[part][0][i] = sub3 == 1 ? 1.0f : 0.0f;
            g_member3[part][1][i] = sub3 == 2 ? 1.0f : 0.0f;
        }
    }
    for (int bits = 4; bits <= 8; bits++) {
        for (int p = -1; p <= 1; p++) {
            int n = p < 0 ? bits : bits + 1;
            if (n > 8) {
                continue;
            }
            int maxq = (1 << bits) - 1;
            for (int v = 0; v < 256; v++) {
                int bq = 0, bd = 0, be = 1 << 30;
                for (int q = 0; q <= maxq; q++) {
                    int dec = expand_bits(p < 0 ? q : ((q << 1) | p), n);
                    int e = dec > v ? dec - v : v - dec;
                    if (e < be) {
                        be = e;
                        bq = q;
                        bd = dec;
                    }
                }
                g_quant_q[bits - 4][p + 1][v] = (uint8_t)bq;
                g_quant_dec[bits - 4][p + 1][v] = (uint8_t)bd;
            }
        }
    }
}

/* The stored value (bits wide, with p-bit p or p < 0 for none) whose expansion is nearest v. */
static inline int quant_channel(float v, int bits, int p, int *out_dec) {
    int vi = (int)(v + 0.5f);
    vi = RILL_CLAMP(vi, 0, 255);
    *out_dec = g_quant_dec[bits - 4][p + 1][vi];
    return g_quant_q[bits - 4][p + 1][vi];
}

/* Quantizes a pair of float endpoints under every p-bit choice the fit allows, evaluates each,
 * and keeps the best in *best (only when it beats best->err). */
BC7_INLINE void try_endpoints(const int px[16][4], const uint8_t *mem, int n, const bc7_fit *f,
                              const float E0[4], const float E1[4], bc7_sub *best) {
    static const int combos_none[1][2] = {{-1, -1}};
    static const int combos_shared[2][2] = {{0, 0}, {1, 1}};
    static const int combos_each[4][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    const int(*combos)[2] = combos_none;
    int nc = 1;
    int pick[1][2];
    int forced[1][2] = {{f->force_p, f->force_p}};
    if (f->pmode != PM_NONE && f->force_p >= 0) {
        combos = (const int(*)[2])forced;
    } else if (f->pmode != PM_NONE && !f->all_pbits) {
        /* Fast path: pick each endpoint's p-bit by its own quantization error, one evaluation. */
        int perr[2][2] = {{0, 0}, {0, 0}};
        for (int p = 0; p < 2; p++) {
            for (int c = f->ch0; c < f->ch0 + f->nch; c++) {
                int d0, d1;
                quant_channel(E0[c], f->bits, p, &d0);
                quant_channel(E1[c], f->bits, p, &d1);
                perr[0][p] += (int)fabsf((float)d0 - E0[c]) * (int)fabsf((float)d0 - E0[c]);
                perr[1][p] += (int)fabsf((float)d1 - E1[c]) * (int)fabsf((float)d1 - E1[c]);
            }
        }
        if (f->pmode == PM_SHARED) {
            int p = perr[0][0] + perr[1][0] <= perr[0][1] + perr[1][1] ? 0 : 1;
            pick[0][0] = pick[0][1] = p;
        } else {
            pick[0][0] = perr[0][0] <= perr[0][1] ? 0 : 1;
            pick[0][1] = perr[1][0] <= perr[1][1] ? 0 : 1;
        }
        combos = (const int(*)[2])pick;
    } else if (f->pmode == PM_SHARED) {
        combos = combos_shared;
        nc = 2;
    } else if (f->pmode == PM_EACH) {
        combos = combos_each;
        nc = 4;
    }
    for (int ci = 0; ci < nc; ci++) {
        int e0[4] = {0, 0, 0, 0}, e1[4] = {0, 0, 0, 0};
        uint8_t q0[4] = {0, 0, 0, 0}, q1[4] = {0, 0, 0, 0};
        for (int c = f->ch0; c < f->ch0 + f->nch; c++) {
            q0[c] = (uint8_t)quant_channel(E0[c], f->bits, combos[ci][0], &e0[c]);
            q1[c] = (uint8_t)quant_channel(E1[c], f->bits, combos[ci][1], &e1[c]);
        }
        uint8_t idx[16];
        uint32_t err = eval_sub(px, mem, n, e0, e1, f->ch0, f->nch, f->ib, idx, best->err);
        if (err < best->err) {
            best->err = err;
            memcpy(best->q[0], q0, 4);
            memcpy(best->q[1], q1, 4);
            best->p[0] = (uint8_t)(combos[ci][0] < 0 ? 0 : combos[ci][0]);
            best->p[1] = (uint8_t)(combos[ci][1] < 0 ? 0 : combos[ci][1]);
            for (int j = 0; j < n; j++) {
                best->idx[mem[j]] = idx[mem[j]];
            }
        }
    }
}

/* Least-squares endpoints for fixed indices: minimizes sum |(1-w) E0 + w E1 - p|^2. Returns false
 * when the system is degenerate (every pixel on the same index). */
BC7_INLINE bool ls_endpoints(const int px[16][4], const uint8_t *mem, int n, const uint8_t *idx,
                             const bc7_fit *f, float E0[4], float E1[4]) {
    const uint8_t *w = RILL__BC7_WEIGHTS[f->ib - 2];
    float a = 0, b = 0, c2 = 0;
    float x0[4] = {0, 0, 0, 0}, x1[4] = {0, 0, 0, 0};
    for (int j = 0; j < n; j++) {
        float t = (float)w[idx[mem[j]]] * (1.0f / 64.0f);
        float u = 1.0f - t;
        a += u * u;
        b += u * t;
        c2 += t * t;
        for (int c = f->ch0; c < f->ch0 + f->nch; c++) {
            x0[c] += u * (float)px[mem[j]][c];
            x1[c] += t * (float)px[mem[j]][c];
        }
    }
    float det = a * c2 - b * b;
    if (fabsf(det) < 1e-6f) {
        return false;
    }
    float inv = 1.0f / det;
    for (int c = f->ch0; c < f->ch0 + f->nch; c++) {
        float v0 = (c2 * x0[c] - b * x1[c]) * inv;
        float v1 = (a * x1[c] - b * x0[c]) * inv;
        E0[c] = RILL_CLAMP(v0, 0.0f, 255.0f);
        E1[c] = RILL_CLAMP(v1, 0.0f, 255.0f);
    }
    return true;
}

/* Principal axis of a small scatter matrix (nch x nch, row-major in s[4][4]) by power iteration.
 * Returns the Rayleigh quotient (the largest eigenvalue estimate); axis is unit length. */
BC7_INLINE float principal_axis(float s[4][4], int nch, int iters, float axis[4]) {
    int big = 0;
    for (int c = 1; c < nch; c++) {
        if (s[c][c] > s[big][big]) {
            big = c;
        }
    }
    float v[4] = {0, 0, 0, 0};
    for (int c = 0; c < nch; c++) {
        v[c] = s[big][c];
    }
    float len = 0;
    for (int c = 0; c < nch; c++) {
        len += v[c] * v[c];
    }
    if (len < 1e-12f) {
        for (int c = 0; c < nch; c++) {
            axis[c] = 1.0f / sqrtf((float)nch);
        }
        for (int c = nch; c < 4; c++) {
            axis[c] = 0;
        }
        return 0.0f;
    }
    for (int it = 0; it < iters; it++) {
        float r[4] = {0, 0, 0, 0};
        float mx = 0;
        for (int i = 0; i < nch; i++) {
            for (int k = 0; k < nch; k++) {
                r[i] += s[i][k] * v[k];
            }
            if (fabsf(r[i]) > mx) {
                mx = fabsf(r[i]);
            }
        }
        if (mx < 1e-12f) {
            break;
        }
        for (int i = 0; i < nch; i++) {
            v[i] = r[i] / mx;
        }
    }
    len = 0;
    for (int c = 0; c < nch; c++) {
        len += v[c] * v[c];
    }
    len = sqrtf(len);
    float lam = 0;
    for (int c = 0; c < nch; c++) {
        axis[c] = v[c] / len;
    }
    for (int c = nch; c < 4; c++) {
        axis[c] = 0;
    }
    for (int i = 0; i < nch; i++) {
        for (int k = 0; k < nch; k++) {
            lam += axis[i] * s[i][k] * axis[k];
        }
    }
    return lam;
}

/* Fits one subset (member pixels mem[0..n)) under the given mode parameters. */
BC7_INLINE void fit_subset_n(const int px[16][4], const uint8_t *mem, int n, const bc7_fit *f,
                             bc7_sub *out) {
    memset(out, 0, sizeof(*out));
    if (n == 0) {
        return;
    }
    out->err = UINT32_MAX;
    float mean[4] = {0, 0, 0, 0};
    for (int j = 0; j < n; j++) {
        for (int c = 0; c < f->nch; c++) {
            mean[c] += (float)px[mem[j]][f->ch0 + c];
        }
    }
    for (int c = 0; c < f->nch; c++) {
        mean[c] /= (float)n;
    }
    float s[4][4] = {{0}};
    for (int j = 0; j < n; j++) {
        float d[4];
        for (int c = 0; c < f->nch; c++) {
            d[c] = (float)px[mem[j]][f->ch0 + c] - mean[c];
        }
        for (int i = 0; i < f->nch; i++) {
            for (int k = i; k < f->nch; k++) {
                s[i][k] += d[i] * d[k];
            }
        }
    }
    for (int i = 0; i < f->nch; i++) {
        for (int k = 0; k < i; k++) {
            s[i][k] = s[k][i];
        }
    }
    float axis[4];
    principal_axis(s, f->nch, 6, axis);
    float tmin = 0, tmax = 0;
    for (int j = 0; j < n; j++) {
        float t = 0;
        for (int c = 0; c < f->nch; c++) {
            t += ((float)px[mem[j]][f->ch0 + c] - mean[c]) * axis[c];
        }
        if (t < tmin) {
            tmin = t;
        }
        if (t > tmax) {
            tmax = t;
        }
    }
    float E0[4] = {0, 0, 0, 0}, E1[4] = {0, 0, 0, 0};
    for (int c = 0; c < f->nch; c++) {
        float v0 = mean[c] + tmin * axis[c], v1 = mean[c] + tmax * axis[c];
        E0[f->ch0 + c] = RILL_CLAMP(v0, 0.0f, 255.0f);
        E1[f->ch0 + c] = RILL_CLAMP(v1, 0.0f, 255.0f);
    }
    try_endpoints(px, mem, n, f, E0, E1, out);
    for (int it = 0; it < f->iters && out->err > 0; it++) {
        uint32_t prev = out->err;
        if (!ls_endpoints(px, mem, n, out->idx, f, E0, E1)) {
            break;
        }
        try_endpoints(px, mem, n, f, E0, E1, out);
        if (out->err >= prev) {
            break;
        }
    }
    if (out->err > 0 && tmax - tmin < 1.0f) {
        /* A flat subset: endpoints that straddle the colour let the interpolated entries hit
         * values the endpoint quantization alone cannot. */
        for (int c = f->ch0; c < f->ch0 + f->nch; c++) {
            E0[c] = RILL_CLAMP(mean[c - f->ch0] - 3.0f, 0.0f, 255.0f);
            E1[c] = RILL_CLAMP(mean[c - f->ch0] + 3.0f, 0.0f, 255.0f);
        }
        try_endpoints(px, mem, n, f, E0, E1, out);
        if (ls_endpoints(px, mem, n, out->idx, f, E0, E1)) {
            try_endpoints(px, mem, n, f, E0, E1, out);
        }
    }
}

/* Instantiates the subset fit for the three channel ranges in use (RGB, RGBA, A) so the inner
 * loops run over constant channel counts. */
static void fit_subset(const int px[16][4], const uint8_t *mem, int n, const bc7_fit *f,
                       bc7_sub *out) {
    bc7_fit g = *f;
    if (f->nch == 4) {
        g.ch0 = 0;
        g.nch = 4;
        fit_subset_n(px, mem, n, &g, out);
    } else if (f->nch == 3) {
        g.ch0 = 0;
        g.nch = 3;
        fit_subset_n(px, mem, n, &g, out);
    } else {
        g.ch0 = 3;
        g.nch = 1;
        fit_subset_n(px, mem, n, &g, out);
    }
}

/* >>candidates -------------------------------------------------------------------------------- */

/* A complete encoding of the block in one mode, ready to pack. */
typedef struct bc7_cand {
    int mode, part, rot, isel;
    uint8_t q[3][2][4];
    uint8_t p[3][2];
    uint8_t idx[16];  /* the first index set */
    uint8_t idx2[16]; /* the second index set (modes 4 and 5) */
    uint32_t err;
} bc7_cand;

static void pack_cand(const bc7_cand *cin, uint8_t out[16]) {
    bc7_cand c = *cin;
    const rill__bc7_mode *m = &RILL__BC7_MODES[c.mode];
    int ns = m->subsets;
    int i1max = (1 << m->ibits) - 1;
    /* Anchor pixels must have the top index bit clear: flip the subset's endpoints (and indices)
     * where they do not. */
    for (int s = 0; s < ns; s++) {
        int anchor = 0;
        if (s == 1) {
            anchor = ns == 2 ? RILL__BC7_ANCHOR2[c.part] : RILL__BC7_ANCHOR3A[c.part];
        }
        if (s == 2) {
            anchor = RILL__BC7_ANCHOR3B[c.part];
        }
        if (c.idx[anchor] > (i1max >> 1)) {
            int ch_end = m->ibits2 ? 3 : 4;
            /* With two index sets the first set drives colour when isel = 0, alpha when 1. */
            int ch_begin = 0;
            if (m->ibits2 && c.isel) {
                ch_begin = 3;
                ch_end = 4;
            }
            for (int ch = ch_begin; ch < ch_end; ch++) {
                uint8_t t = c.q[s][0][ch];
                c.q[s][0][ch] = c.q[s][1][ch];
                c.q[s][1][ch] = t;
            }
            uint8_t tp = c.p[s][0];
            c.p[s][0] = c.p[s][1];
            c.p[s][1] = tp;
            for (int i = 0; i < 16; i++) {
                if (bc7_subset_of(ns, c.part, i) == s) {
                    c.idx[i] = (uint8_t)(i1max - c.idx[i]);
                }
            }
        }
    }
    if (m->ibits2) {
        int i2max = (1 << m->ibits2) - 1;
        if (c.idx2[0] > (i2max >> 1)) {
            int ch_begin = c.isel ? 0 : 3, ch_end = c.isel ? 3 : 4;
            for (int ch = ch_begin; ch < ch_end; ch++) {
                uint8_t t = c.q[0][0][ch];
                c.q[0][0][ch] = c.q[0][1][ch];
                c.q[0][1][ch] = t;
            }
            for (int i = 0; i < 16; i++) {
                c.idx2[i] = (uint8_t)(i2max - c.idx2[i]);
            }
        }
    }
    bc7_bits b = {{0, 0}, 0};
    bits_put(&b, 1u << c.mode, (uint32_t)c.mode + 1);
    bits_put(&b, (uint32_t)c.part, m->part_bits);
    bits_put(&b, (uint32_t)c.rot, m->rot_bits);
    bits_put(&b, (uint32_t)c.isel, m->isel_bits);
    for (int ch = 0; ch < 3; ch++) {
        for (int s = 0; s < ns; s++) {
            for (int e = 0; e < 2; e++) {
                bits_put(&b, c.q[s][e][ch], m->cbits);
            }
        }
    }
    if (m->abits) {
        for (int s = 0; s < ns; s++) {
            for (int e = 0; e < 2; e++) {
                bits_put(&b, c.q[s][e][3], m->abits);
            }
        }
    }
    if (m->ep_pbit) {
        for (int s = 0; s < ns; s++) {
            for (int e = 0; e < 2; e++) {
                bits_put(&b, c.p[s][e], 1);
            }
        }
    }
    if (m->sh_pbit) {
        for (int s = 0; s < ns; s++) {
            bits_put(&b, c.p[s][0], 1);
        }
    }
    for (int i = 0; i < 16; i++) {
        bits_put(&b, c.idx[i], (uint32_t)(m->ibits - (bc7_is_anchor(ns, c.part, i) ? 1 : 0)));
    }
    if (m->ibits2) {
        for (int i = 0; i < 16; i++) {
            bits_put(&b, c.idx2[i], (uint32_t)(m->ibits2 - (i == 0)));
        }
    }
    RILL_ASSERT(b.pos == 128);
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(b.w[0] >> (8 * i));
        out[8 + i] = (uint8_t)(b.w[1] >> (8 * i));
    }
}

/* Modes 6 (RGBA, 4-bit indices) and 7 or the RGB-only modes 0-3 for partitioned blocks share
 * this: fit each subset of the partition with the mode's parameters. The RGB-only modes are
 * only tried for opaque blocks, whose implied alpha of 255 is then exact. */
static void encode_partitioned(const int px[16][4], int mode, int part, int iters, int all_pbits,
                               bool opaque, bc7_cand *best) {
    const rill__bc7_mode *m = &RILL__BC7_MODES[mode];
    bc7_fit f;
    f.ch0 = 0;
    f.nch = m->abits ? 4 : 3;
    f.bits = m->cbits;
    f.pmode = m->ep_pbit ? PM_EACH : (m->sh_pbit ? PM_SHARED : PM_NONE);
    f.ib = m->ibits;
    f.iters = iters;
    f.all_pbits = all_pbits;
    /* An opaque block must decode to alpha 255 exactly, which in mode 6 takes stored alpha 127
     * with p-bit 1 on both endpoints; the colour channels share those p-bits. */
    f.force_p = (opaque && m->abits) ? 1 : -1;
    uint8_t mem[3][16];
    int cnt[3];
    bc7_subset_members(m->subsets, part, mem, cnt);
    bc7_cand c;
    memset(&c, 0, sizeof(c));
    c.mode = mode;
    c.part = part;
    c.err = 0;
    for (int s = 0; s < m->subsets; s++) {
        bc7_sub sub;
        fit_subset(px, mem[s], cnt[s], &f, &sub);
        c.err += sub.err;
        if (c.err >= best->err) {
            return;
        }
        memcpy(c.q[s], sub.q, sizeof(sub.q));
        c.p[s][0] = sub.p[0];
        c.p[s][1] = sub.p[1];
        for (int j = 0; j < cnt[s]; j++) {
            c.idx[mem[s][j]] = sub.idx[mem[s][j]];
        }
    }
    if (c.err < best->err) {
        *best = c;
    }
}

/* Modes 4 and 5: colour and alpha fitted separately (after an optional rotation that swaps a
 * colour channel into the alpha slot), each with its own index set. */
static void encode_split(const int src[16][4], int mode, int rot, int isel, int iters,
                         bc7_cand *best) {
    const rill__bc7_mode *m = &RILL__BC7_MODES[mode];
    int px[16][4];
    memcpy(px, src, sizeof(px));
    if (rot) {
        for (int i = 0; i < 16; i++) {
            int t = px[i][3];
            px[i][3] = px[i][rot - 1];
            px[i][rot - 1] = t;
        }
    }
    static const uint8_t all[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    int ib_col = isel ? m->ibits2 : m->ibits;
    int ib_alp = isel ? m->ibits : m->ibits2;
    bc7_fit fc = {0, 3, m->cbits, PM_NONE, ib_col, iters, 0, -1};
    bc7_fit fa = {3, 1, m->abits, PM_NONE, ib_alp, iters, 0, -1};
    bc7_sub sc, sa;
    fit_subset(px, all, 16, &fc, &sc);
    if (sc.err >= best->err) {
        return;
    }
    fit_subset(px, all, 16, &fa, &sa);
    if (sc.err + sa.err >= best->err) {
        return;
    }
    bc7_cand c;
    memset(&c, 0, sizeof(c));
    c.mode = mode;
    c.rot = rot;
    c.isel = isel;
    c.err = sc.err + sa.err;
    for (int e = 0; e < 2; e++) {
        for (int ch = 0; ch < 3; ch++) {
            c.q[0][e][ch] = sc.q[e][ch];
        }
        c.q[0][e][3] = sa.q[e][3];
    }
    /* The first index set (ibits wide) is colour when isel = 0, alpha when isel = 1. */
    memcpy(c.idx, isel ? sa.idx : sc.idx, 16);
    memcpy(c.idx2, isel ? sc.idx : sa.idx, 16);
    *best = c;
}

/* >>partition estimate ------------------------------------------------------------------------ */

typedef struct bc7_rank {
    int part[16];
    float est[16];
    int n, cap;
} bc7_rank;

static void rank_add(bc7_rank *r, int part, float est) {
    if (r->n == r->cap && est >= r->est[r->n - 1]) {
        return;
    }
    int i = r->n < r->cap ? r->n++ : r->n - 1;
    while (i > 0 && r->est[i - 1] > est) {
        r->est[i] = r->est[i - 1];
        r->part[i] = r->part[i - 1];
        i--;
    }
    r->est[i] = est;
    r->part[i] = part;
}

/* How much of the scatter along a subset's principal axis the ranking counts as error: pixels on
 * the line still land between index levels, and the quantization error of k evenly spread levels
 * over that spread is about spread / (k - 1)^2 (1/49 for the 3-bit indices of modes 0 and 1).
 * Without this term every partition of a one-dimensional block (greyscale, or any block whose
 * colours lie on a line) ranks at zero and the choice is arbitrary. 0.01 measured best on the
 * sample images (0.0204 and 0.04 within 0.02 dB); it matters most on greyscale (+0.7 dB). */
#define RANK_ALONG_AXIS 0.01f

/* Estimated error of one subset: the scatter left over after removing the principal axis (sum of
 * squared distances of the subset's pixels to its best-fit line) plus RANK_ALONG_AXIS times the
 * scatter along it. s holds the subset's sums of values, m its sums of products in the
 * packed order (00 01 02 03 11 12 13 22 23 33), n its pixel count. */
BC7_INLINE float residual(const float s[4], const float m[10], int n, int nch) {
    /* Packed upper-triangle positions: 4 channels (00 01 02 03 11 12 13 22 23 33) or 3. */
    static const int pk4[4][4] = {{0, 1, 2, 3}, {1, 4, 5, 6}, {2, 5, 7, 8}, {3, 6, 8, 9}};
    static const int pk3[4][4] = {{0, 1, 2, 0}, {1, 3, 4, 0}, {2, 4, 5, 0}, {0, 0, 0, 0}};
    const int(*pk)[4] = nch == 4 ? pk4 : pk3;
    if (n <= 1) {
        return 0.0f;
    }
    float inv = 1.0f / (float)n;
    float sc[4][4];
    float tr = 0;
    int big = 0;
    for (int i = 0; i < nch; i++) {
        for (int k = 0; k < nch; k++) {
            sc[i][k] = m[pk[i][k]] - s[i] * s[k] * inv;
        }
        tr += sc[i][i];
        if (sc[i][i] > sc[big][big]) {
            big = i;
        }
    }
    if (tr <= 0.0f) {
        return 0.0f;
    }
    /* Two power iterations from the row of the largest diagonal, then the Rayleigh quotient:
     * it underestimates the largest eigenvalue slightly, which only ranks a bit pessimistically. */
    float v[4];
    for (int i = 0; i < nch; i++) {
        v[i] = sc[big][i];
    }
    /* No normalization between steps: entries are below 2^21, so two products stay far inside
     * float range, and the quotient below is scale-free. */
    for (int it = 0; it < 2; it++) {
        float w[4];
        for (int i = 0; i < nch; i++) {
            w[i] = 0;
            for (int k = 0; k < nch; k++) {
                w[i] += sc[i][k] * v[k];
            }
        }
        for (int i = 0; i < nch; i++) {
            v[i] = w[i];
        }
    }
    float num = 0, den = 1e-20f;
    for (int i = 0; i < nch; i++) {
        float w = 0;
        for (int k = 0; k < nch; k++) {
            w += sc[i][k] * v[k];
        }
        num += v[i] * w;
        den += v[i] * v[i];
    }
    float lam = num / den;
    float r = tr - lam;
    return (r > 0 ? r : 0) + lam * RANK_ALONG_AXIS;
}

/* Ranks the 64 partitions of `subsets` (2 or 3) by the estimate above, keeping the best r->cap.
 * Sums are integers, accumulated branch-free per pixel, so the loop stays cheap. */
BC7_INLINE void rank_partitions_n(const int px[16][4], int nch, int subsets, bc7_rank *r) {
    /* Structure of arrays in float (every sum here is an integer below 2^24, so exact): val[a][i]
     * and prod[j][i] per pixel i, and each subset sum is a dot product of a row with the
     * partition's 0/1 membership row from g_member, which the compiler turns into vector code. */
    float val[4][16], prod[10][16];
    float ts[4] = {0, 0, 0, 0}, tm[10] = {0};
    int np = nch * (nch + 1) / 2;
    for (int i = 0; i < 16; i++) {
        int k = 0;
        for (int a = 0; a < nch; a++) {
            val[a][i] = (float)px[i][a];
            for (int b = a; b < nch; b++) {
                prod[k++][i] = (float)(px[i][a] * px[i][b]);
            }
        }
    }
    for (int a = 0; a < nch; a++) {
        for (int i = 0; i < 16; i++) {
            ts[a] += val[a][i];
        }
    }
    for (int j = 0; j < np; j++) {
        for (int i = 0; i < 16; i++) {
            tm[j] += prod[j][i];
        }
    }
    r->n = 0;
    const float(*member)[2][16] = subsets == 2 ? g_member2 : g_member3;
    for (int part = 0; part < 64; part++) {
        float s[3][4] = {{0}}, m[3][10] = {{0}}, n[3] = {0, 0, 0};
        for (int sub = 1; sub < subsets; sub++) {
            const float *bit = member[part][sub - 1];
            for (int i = 0; i < 16; i++) {
                n[sub] += bit[i];
            }
            for (int a = 0; a < nch; a++) {
                float acc = 0;
                for (int i = 0; i < 16; i++) {
                    acc += val[a][i] * bit[i];
                }
                s[sub][a] = acc;
            }
            for (int j = 0; j < np; j++) {
                float acc = 0;
                for (int i = 0; i < 16; i++) {
                    acc += prod[j][i] * bit[i];
                }
                m[sub][j] = acc;
            }
        }
        n[0] = 16 - n[1] - n[2];
        for (int a = 0; a < nch; a++) {
            s[0][a] = ts[a] - s[1][a] - s[2][a];
        }
        for (int j = 0; j < np; j++) {
            m[0][j] = tm[j] - m[1][j] - m[2][j];
        }
        float est = 0;
        for (int sub = 0; sub < subsets; sub++) {
            est += residual(s[sub], m[sub], (int)n[sub], nch);
        }
        rank_add(r, part, est);
    }
}

static void rank_partitions(const int px[16][4], int nch, int subsets, bc7_rank *r) {
    if (subsets == 2) {
        if (nch == 3) {
            rank_partitions_n(px, 3, 2, r);
        } else {
            rank_partitions_n(px, 4, 2, r);
        }
    } else {
        rank_partitions_n(px, 3, 3, r);
    }
}

/* >>encode ------------------------------------------------------------------------------------ */

/* What each quality level searches. Tuned on photographs (skimage's astronaut, rocket,
 * motorcycle and gravel): the skip threshold is the summed squared error of the one-subset
 * candidates below which the partition search is not run, since it rarely pays there. */
typedef struct bc7_level {
    int iters;     /* least-squares passes per subset fit */
    int all_pbits; /* evaluate every p-bit combination (otherwise pick per endpoint) */
    int parts2;    /* two-subset partitions given a quick fit after ranking */
    int finals;    /* partitions refined in full */
    int mode3;     /* also try mode 3 on the final partitions */
    int mode4;     /* also try mode 4 on opaque blocks */
    int three;     /* three-subset modes 0 and 2 */
    uint32_t skip;
    uint32_t skip_grey; /* the same for greyscale blocks, whose search costs a third */
} bc7_level;

/* Tuned against bc7enc_rdo's encoder on the sample set (docs/textures.md): level 1 at about its
 * speed with 8 partitions, level 2 at about its speed with 64. Two quick partition fits are as
 * good as six since the ranking counts the spread along each subset's axis. */
static const bc7_level BC7_LEVELS[4] = {
    {1, 0, 2, 1, 0, 0, 0, 220, 40}, /* unused: quality 0 means "default" */
    {1, 0, 2, 1, 0, 0, 0, 220, 40}, /* fast */
    {2, 0, 3, 1, 0, 0, 0, 150, 20}, /* default */
    {3, 1, 16, 4, 1, 1, 1, 0, 0},   /* slow */
};

/* >>greyscale --------------------------------------------------------------------------------- */

/* Greyscale opaque blocks (R = G = B everywhere) are one-dimensional: every mode's fit runs on one
 * channel and the result is copied to the other two, a third of the RGB fit's cost, and the
 * partition ranking needs only sums and sums of squares. px1 holds the grey value in channel 3
 * (the one-channel instantiation of the fit works on that slot). Mode 6 keeps p-bit 1 on both
 * endpoints, which makes its stored alpha 127 decode to exactly 255. */
static void encode_grey_mode(const int px1[16][4], int mode, int part, int iters, int all_pbits,
                             bc7_cand *best) {
    const rill__bc7_mode *m = &RILL__BC7_MODES[mode];
    bc7_fit f = {
        3,        1,     m->cbits,  m->ep_pbit ? PM_EACH : (m->sh_pbit ? PM_SHARED : PM_NONE),
        m->ibits, iters, all_pbits, mode == 6 ? 1 : -1};
    uint8_t mem[3][16];
    int cnt[3];
    bc7_subset_members(m->subsets, part, mem, cnt);
    bc7_cand c;
    memset(&c, 0, sizeof(c));
    c.mode = mode;
    c.part = part;
    for (int s = 0; s < m->subsets; s++) {
        bc7_sub sub;
        fit_subset(px1, mem[s], cnt[s], &f, &sub);
        uint64_t err = (uint64_t)c.err + 3u * (uint64_t)sub.err;
        if (err >= best->err) {
            return;
        }
        c.err = (uint32_t)err;
        for (int e = 0; e < 2; e++) {
            for (int ch = 0; ch < 3; ch++) {
                c.q[s][e][ch] = sub.q[e][3];
            }
            c.q[s][e][3] = 127; /* read by mode 6 only: with p-bit 1, alpha 255 */
            c.p[s][e] = sub.p[e];
        }
        for (int j = 0; j < cnt[s]; j++) {
            c.idx[mem[s][j]] = sub.idx[mem[s][j]];
        }
    }
    if (c.err < best->err) {
        *best = c;
    }
}

/* The search of rill_bc7_encode_block for a greyscale opaque block: mode 6, mode 5 where it is
 * dark, then the partitioned modes (modes 4 and 5 with rotations have nothing to separate). */
static void encode_grey(const int px[16][4], const bc7_level *L, bool dark, bc7_cand *best) {
    int px1[16][4];
    for (int i = 0; i < 16; i++) {
        px1[i][0] = px1[i][1] = px1[i][2] = 0;
        px1[i][3] = px[i][0];
    }
    encode_grey_mode(px1, 6, 0, L->iters + 1, L->all_pbits, best);
    if (dark && best->err > 0) {
        encode_split(px, 5, 0, 0, L->iters, best);
    }
    if (best->err <= L->skip_grey) {
        return;
    }
    bc7_rank r2;
    r2.cap = L->parts2;
    rank_partitions_n(px, 1, 2, &r2); /* channel 0 of px is the grey value */
    bc7_rank fine;
    fine.cap = L->finals;
    fine.n = 0;
    for (int k = 0; k < r2.n; k++) {
        bc7_cand c;
        memset(&c, 0, sizeof(c));
        c.err = UINT32_MAX;
        encode_grey_mode(px1, 1, r2.part[k], 0, 0, &c);
        rank_add(&fine, r2.part[k], (float)c.err);
    }
    for (int k = 0; k < fine.n; k++) {
        encode_grey_mode(px1, 1, fine.part[k], L->iters, L->all_pbits, best);
        if (L->mode3) {
            encode_grey_mode(px1, 3, fine.part[k], L->iters, L->all_pbits, best);
        }
    }
    if (L->three && best->err > 0) {
        bc7_rank r3;
        r3.cap = 8;
        rank_partitions_n(px, 1, 3, &r3);
        for (int k = 0; k < r3.n; k++) {
            if (r3.part[k] < 16) {
                encode_grey_mode(px1, 0, r3.part[k], L->iters, L->all_pbits, best);
            }
            encode_grey_mode(px1, 2, r3.part[k], L->iters, L->all_pbits, best);
        }
    }
}

void rill_bc7_encode_block(const uint8_t rgba[64], const rill_bc7_params *params,
                           uint8_t out_block[16]) {
    uint32_t quality = params && params->quality ? params->quality : 2;
    if (quality > 3) {
        quality = 3;
    }
    const bc7_level *L = &BC7_LEVELS[quality];
    pthread_once(&g_quant_once, quant_tables_build);
    int px[16][4];
    bool opaque = true, dark = false;
    for (int i = 0; i < 16; i++) {
        for (int c = 0; c < 4; c++) {
            px[i][c] = rgba[4 * i + c];
        }
        if (rgba[4 * i + 3] != 255) {
            opaque = false;
        }
        if (rgba[4 * i] < 2 || rgba[4 * i + 1] < 2 || rgba[4 * i + 2] < 2) {
            dark = true;
        }
    }
    bc7_cand best;
    memset(&best, 0, sizeof(best));
    best.err = UINT32_MAX;
    bool grey = opaque;
    for (int i = 0; i < 16 && grey; i++) {
        grey = px[i][0] == px[i][1] && px[i][0] == px[i][2];
    }
    if (grey) {
        encode_grey(px, L, dark, &best);
        goto done;
    }

    /* Mode 6: one subset, RGBA, 4-bit indices; the workhorse for smooth blocks. */
    encode_partitioned(px, 6, 0, L->iters + 1, L->all_pbits, opaque, &best);
    /* Opaque mode 6 must use p-bit 1 (for alpha 255), so its endpoints are odd values and a
     * channel at 0 comes out as 1 (every other value is reachable by interpolation). Mode 5
     * without rotation has 7-bit colour endpoints with no p-bit and an exact 8-bit alpha, and
     * recovers those blocks; it is tried only where a channel is that dark. */
    if (opaque && best.err > 0 && dark) {
        encode_split(px, 5, 0, 0, L->iters, &best);
    }
    if (best.err <= L->skip) {
        goto done;
    }
    /* Modes 5 and 4 with rotations: a channel that does not follow the others gets its own
     * indices. */
    for (int rot = 1; rot < 4; rot++) {
        encode_split(px, 5, rot, 0, L->iters, &best);
    }
    if (!opaque) {
        encode_split(px, 5, 0, 0, L->iters, &best);
    }
    if (!opaque || L->mode4) {
        for (int rot = opaque ? 1 : 0; rot < 4; rot++) {
            encode_split(px, 4, rot, 0, L->iters, &best);
            encode_split(px, 4, rot, 1, L->iters, &best);
        }
    }
    if (best.err <= L->skip) {
        goto done;
    }

    {
        /* Rank the partitions by the cheap estimate, fit the best few quickly (no refinement),
         * then refine only the winners in full. */
        bc7_rank r2;
        r2.cap = L->parts2;
        rank_partitions(px, opaque ? 3 : 4, 2, &r2);
        bc7_rank fine;
        fine.cap = L->finals;
        fine.n = 0;
        int quick_mode = opaque ? 1 : 7;
        for (int k = 0; k < r2.n; k++) {
            bc7_cand c;
            memset(&c, 0, sizeof(c));
            c.err = UINT32_MAX;
            encode_partitioned(px, quick_mode, r2.part[k], 0, 0, opaque, &c);
            rank_add(&fine, r2.part[k], (float)c.err);
        }
        for (int k = 0; k < fine.n; k++) {
            if (opaque) {
                encode_partitioned(px, 1, fine.part[k], L->iters, L->all_pbits, opaque, &best);
                /* Mode 3 (finer endpoints, coarser indices) rarely wins on photographs. */
                if (L->mode3) {
                    encode_partitioned(px, 3, fine.part[k], L->iters, L->all_pbits, opaque, &best);
                }
            } else {
                encode_partitioned(px, 7, fine.part[k], L->iters, L->all_pbits, opaque, &best);
            }
        }
    }
    if (opaque && L->three && best.err > 0) {
        bc7_rank r3;
        r3.cap = 8;
        rank_partitions(px, 3, 3, &r3);
        for (int k = 0; k < r3.n; k++) {
            if (r3.part[k] < 16) {
                encode_partitioned(px, 0, r3.part[k], L->iters, L->all_pbits, opaque, &best);
            }
            encode_partitioned(px, 2, r3.part[k], L->iters, L->all_pbits, opaque, &best);
        }
    }
done:
    pack_cand(&best, out_block);
}
