/* rmip_convert.c: image file bytes -> .rmip bytes: decode, pick usage and format, build the mip
 * chain in the right space, encode every level, write the container. Used by `rill export`. */
#include <ctype.h>
#include <string.h>

#include "rill/formats/rmip.h"

/* AUTO usage from the file name: "*normal*", "*_n", "*_nrm" (before the extension) are normals. */
static bool name_says_normal(const char *name) {
    if (!name) {
        return false;
    }
    const char *base = rill_path_basename(name);
    char low[256];
    size_t n = 0;
    for (; base[n] && n < sizeof(low) - 1; n++) {
        low[n] = (char)tolower((unsigned char)base[n]);
    }
    low[n] = 0;
    if (strstr(low, "normal")) {
        return true;
    }
    char *dot = strrchr(low, '.');
    if (dot) {
        *dot = 0;
    }
    size_t len = strlen(low);
    return (len > 2 && strcmp(low + len - 2, "_n") == 0) ||
           (len > 4 && strcmp(low + len - 4, "_nrm") == 0);
}

static rill_result convert_type(rill_image *img, rill_pixel_type to, rill_error *err) {
    if (img->type == to) {
        return RILL_OK;
    }
    rill_image out;
    rill_result res = rill_image_alloc(&out, img->width, img->height, to, err);
    if (res != RILL_OK) {
        return res;
    }
    size_t n = (size_t)img->width * img->height * 4;
    if (to == RILL_PIXEL_RGBA32F) {
        const uint8_t *s = img->pixels;
        float *d = out.pixels;
        for (size_t i = 0; i < n; i++) {
            d[i] = (float)s[i] / 255.0f;
        }
    } else {
        const float *s = img->pixels;
        uint8_t *d = out.pixels;
        for (size_t i = 0; i < n; i++) {
            float v = s[i] != s[i] ? 0.0f : RILL_CLAMP(s[i], 0.0f, 1.0f);
            d[i] = (uint8_t)(v * 255.0f + 0.5f);
        }
    }
    out.source_channels = img->source_channels;
    out.source_hdr = img->source_hdr;
    rill_image_free(img);
    *img = out;
    return RILL_OK;
}

/* One band of block rows of a level, encoded as a job. */
typedef struct encode_band {
    rill_tex_format format;
    const uint8_t *rgba; /* first pixel row of the band */
    uint32_t width, rows;
    const rill_bc7_params *bc7;
    uint8_t *dst;
    size_t dst_size;
    rill_result res;
} encode_band;

static void encode_band_job(void *arg) {
    encode_band *b = arg;
    b->res = rill_bc_encode_image(b->format, b->rgba, b->width, b->rows, 0, b->bc7, b->dst,
                                  b->dst_size, NULL);
}

/* Block-compresses a level, in bands of 16 block rows on the job system when there is one. The
 * bands are independent (each block reads only its own 4 x 4 pixels, and a band's last rows are
 * clamped exactly as the whole level's would be, since only the level's last band is partial). */
static rill_result encode_level(rill_tex_format format, const rill_image *L,
                                const rill_bc7_params *bc7, rill_jobs *jobs, uint8_t *dst,
                                size_t size, rill_error *err) {
    const uint32_t band_blocks = 16;
    uint32_t block_rows = (L->height + 3) / 4;
    if (!jobs || block_rows <= band_blocks) {
        return rill_bc_encode_image(format, L->pixels, L->width, L->height, 0, bc7, dst, size, err);
    }
    uint32_t bands = (block_rows + band_blocks - 1) / band_blocks;
    encode_band *b = rill_calloc_tagged(bands, sizeof(*b), RILL_MEM_FORMATS);
    if (!b) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "encode: out of memory");
    }
    uint64_t row_bytes = 0;
    rill_tex_level_size(format, L->width, 4, &row_bytes); /* one row of blocks */
    rill_counter counter = {0};
    for (uint32_t i = 0; i < bands; i++) {
        uint32_t y0 = i * band_blocks * 4;
        uint32_t rows = RILL_MIN(band_blocks * 4, L->height - y0);
        b[i].format = format;
        b[i].rgba = (const uint8_t *)L->pixels + (size_t)y0 * L->width * 4;
        b[i].width = L->width;
        b[i].rows = rows;
        b[i].bc7 = bc7;
        b[i].dst = dst + (size_t)row_bytes * i * band_blocks;
        b[i].dst_size = size - (size_t)row_bytes * i * band_blocks;
        rill_jobs_run(jobs, encode_band_job, &b[i], &counter);
    }
    rill_jobs_wait(jobs, &counter);
    rill_result res = RILL_OK;
    for (uint32_t i = 0; i < bands && res == RILL_OK; i++) {
        if (b[i].res != RILL_OK) {
            res = rill_error_set(err, b[i].res, "encode: band %u failed", i);
        }
    }
    rill_free(b);
    return res;
}

static bool usage_allows(rill_tex_usage usage, rill_tex_format format) {
    if (usage == RILL_TEX_USAGE_HDR) {
        return format == RILL_TEX_FORMAT_RGBA16F;
    }
    return format == RILL_TEX_FORMAT_RGBA8 || format == RILL_TEX_FORMAT_BC1 ||
           format == RILL_TEX_FORMAT_BC4 || format == RILL_TEX_FORMAT_BC5 ||
           format == RILL_TEX_FORMAT_BC7;
}

rill_result rill_rmip_convert(const void *image_data, size_t image_size, const char *name,
                              const rill_rmip_convert_desc *desc, uint8_t **out_data,
                              size_t *out_size, rill_tex_usage *out_usage, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_rmip_convert", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    *out_data = NULL;
    *out_size = 0;
    if (!name) {
        name = "<memory>";
    }
    rill_rmip_convert_desc d = desc ? *desc : (rill_rmip_convert_desc){0};
    if (d.usage >= RILL_TEX_USAGE_NUM) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: bad usage", name);
    }
    rill_image img;
    rill_result res = rill_image_load(image_data, image_size, name, RILL_PIXEL_NONE, &img, err);
    if (res != RILL_OK) {
        return res;
    }
    rill_mip_chain chain;
    memset(&chain, 0, sizeof(chain));
    uint8_t *encoded[RILL_RMIP_MAX_LEVELS] = {0};

    rill_tex_usage usage = d.usage;
    if (usage == RILL_TEX_USAGE_AUTO) {
        if (img.source_hdr) {
            usage = RILL_TEX_USAGE_HDR;
        } else if (img.source_channels == 1) {
            usage = RILL_TEX_USAGE_SINGLE;
        } else if (name_says_normal(name)) {
            usage = RILL_TEX_USAGE_NORMAL;
        } else {
            usage = RILL_TEX_USAGE_COLOR;
        }
    }
    rill_tex_format format = d.format;
    if (format == RILL_TEX_FORMAT_NONE) {
        static const rill_tex_format by_usage[RILL_TEX_USAGE_NUM] = {
            RILL_TEX_FORMAT_BC7, RILL_TEX_FORMAT_BC7, RILL_TEX_FORMAT_BC7,
            RILL_TEX_FORMAT_BC5, RILL_TEX_FORMAT_BC4, RILL_TEX_FORMAT_RGBA16F,
        };
        format = by_usage[usage];
    }
    if (!usage_allows(usage, format)) {
        res = rill_error_set(err, RILL_ERR_UNSUPPORTED, "%s: format %s does not fit this usage",
                             name, rill_tex_format_name(format));
        goto done;
    }
    res = convert_type(&img, usage == RILL_TEX_USAGE_HDR ? RILL_PIXEL_RGBA32F : RILL_PIXEL_RGBA8,
                       err);
    if (res != RILL_OK) {
        goto done;
    }

    rill_mip_desc md = {0};
    md.usage = usage == RILL_TEX_USAGE_COLOR    ? RILL_MIP_COLOR
               : usage == RILL_TEX_USAGE_NORMAL ? RILL_MIP_NORMAL
                                                : RILL_MIP_LINEAR;
    md.max_levels = d.no_mips ? 1 : 0;
    md.alpha_cutoff = d.alpha_cutoff;
    res = rill_image_build_mips(&img, &md, &chain, err);
    if (res != RILL_OK) {
        goto done;
    }

    rill_rmip_write_desc wd;
    memset(&wd, 0, sizeof(wd));
    wd.format = format;
    wd.srgb = usage == RILL_TEX_USAGE_COLOR;
    wd.width = img.width;
    wd.height = img.height;
    wd.level_count = chain.count;
    if (usage == RILL_TEX_USAGE_NORMAL) {
        wd.flags |= RILL_RMIP_FLAG_NORMAL_MAP;
    }
    if (usage == RILL_TEX_USAGE_HDR) {
        wd.flags |= RILL_RMIP_FLAG_HDR;
    }
    if (img.type == RILL_PIXEL_RGBA8) {
        const uint8_t *p = img.pixels;
        for (size_t i = 0; i < (size_t)img.width * img.height; i++) {
            if (p[i * 4 + 3] != 255) {
                wd.flags |= RILL_RMIP_FLAG_HAS_ALPHA;
                break;
            }
        }
    }
    for (uint32_t lv = 0; lv < chain.count; lv++) {
        const rill_image *L = &chain.levels[lv];
        uint64_t size = 0;
        rill_tex_level_size(format, L->width, L->height, &size);
        encoded[lv] = rill_malloc_tagged((size_t)size, RILL_MEM_FORMATS);
        if (!encoded[lv]) {
            res = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
            goto done;
        }
        if (format == RILL_TEX_FORMAT_RGBA8) {
            memcpy(encoded[lv], L->pixels, (size_t)size);
        } else if (format == RILL_TEX_FORMAT_RGBA16F) {
            const float *f = L->pixels;
            uint16_t *h = (uint16_t *)encoded[lv];
            for (size_t i = 0; i < (size_t)L->width * L->height * 4; i++) {
                h[i] = rill_f32_to_f16(f[i]);
            }
        } else {
            res = encode_level(format, L, &d.bc7, d.jobs, encoded[lv], (size_t)size, err);
            if (res != RILL_OK) {
                goto done;
            }
        }
        wd.level_data[lv] = encoded[lv];
        wd.level_size[lv] = (size_t)size;
    }
    res = rill_rmip_write(&wd, out_data, out_size, err);
    if (res == RILL_OK && out_usage) {
        *out_usage = usage;
    }
done:
    for (uint32_t lv = 0; lv < RILL_RMIP_MAX_LEVELS; lv++) {
        rill_free(encoded[lv]);
    }
    rill_mip_chain_free(&chain);
    rill_image_free(&img);
    return res;
}
