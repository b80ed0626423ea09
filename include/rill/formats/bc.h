/* rill/formats/bc.h: block-compressed texture formats (BC1, BC4, BC5, BC7): encoders, decoders and
 * the size arithmetic every texture path shares.
 *
 * ON BLOCKS
 *   Every BC format stores 4x4 pixel blocks: 8 bytes (BC1, BC4) or 16 bytes (BC3, BC5, BC7). A
 * level of w x h pixels holds ceil(w/4) * ceil(h/4) blocks, so a level smaller than 4 px is one
 * block. The image-level encoders pad partial edge blocks by clamping (repeating the last
 * row/column).
 *
 * ON THE BLOCK FUNCTIONS
 *   The *_block functions are pure: they read 16 RGBA8 pixels (row-major, 4 bytes each, 64 bytes)
 *   or one encoded block, write the result, allocate nothing and keep no state, so any number of
 *   threads may call them at once.
 *
 * ON BC7
 *   The encoder minimizes the summed squared RGBA error. It always tries mode 6 (one subset,
 *   4-bit indices) and mode 5 (separate colour and alpha indices, with channel rotations), and
 *   mode 4 for blocks with alpha; unless those are already within a small error it ranks the 64
 *   two-subset partitions by a cheap estimate, fits the best few quickly and refines the winner
 *   with mode 1 (opaque) or mode 7 (alpha). Quality 3 adds mode 3, mode 4 for opaque blocks,
 *   every p-bit combination and the three-subset modes 0 and 2. Endpoints come from a principal-
 *   axis fit refined by least squares, indices are chosen against the real quantized palette.
 *   Opaque input always decodes to alpha 255.
 *
 * Depends on: rill/base.h.
 */
#ifndef RILL_FORMATS_BC_H
#define RILL_FORMATS_BC_H

#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Changes whenever an encoder here produces different bytes for the same input (a better search,
 * a fixed rounding), so build caches can put it in their keys. */
#define RILL_BC_ENCODER_VERSION 1u

/* Pixel formats a texture level can be stored in. The colour space (sRGB or linear) is a separate
 * flag; it changes how the GPU samples, not how the bytes are laid out. */
/* rill_tex_format's values and their names (rill_tex_format_name), one list. */
#define RILL_TEX_FORMAT_LIST(X)                                                                    \
    X(RILL_TEX_FORMAT_NONE, "none")                                                                \
    X(RILL_TEX_FORMAT_RGBA8, "rgba8")     /* 4 bytes a pixel */                                    \
    X(RILL_TEX_FORMAT_RGBA16F, "rgba16f") /* 8 bytes a pixel, IEEE half floats */                  \
    X(RILL_TEX_FORMAT_BC1, "bc1")         /* 8 bytes a block, opaque RGB */                        \
    X(RILL_TEX_FORMAT_BC3,                                                                         \
      "bc3") /* 16 bytes a block; read from legacy files, decoded, never written */                \
    X(RILL_TEX_FORMAT_BC4, "bc4") /* 8 bytes a block, one channel (R) */                           \
    X(RILL_TEX_FORMAT_BC5, "bc5") /* 16 bytes a block, two channels (R, G): normal maps */         \
    X(RILL_TEX_FORMAT_BC7, "bc7") /* 16 bytes a block, RGBA */
typedef enum rill_tex_format {
    RILL_TEX_FORMAT_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_TEX_FORMAT_NUM,
    RILL_TEX_FORMAT_FORCE_U32 = 0x7FFFFFFF
} rill_tex_format;

/* A stable lower-case name ("bc7", "rgba8", ...), "none" for unknown values. Static storage. */
const char *rill_tex_format_name(rill_tex_format format);
/* True for the block-compressed formats. */
bool rill_tex_format_is_block(rill_tex_format format);
/* Bytes per 4x4 block for block formats, bytes per pixel for the others, 0 for NONE/unknown. */
uint32_t rill_tex_format_unit_bytes(rill_tex_format format);
/* Byte size of one level of w x h pixels. Returns false (and *out_size = 0) when w or h is 0, the
 * format is unknown, or the size would overflow 64 bits. */
bool rill_tex_level_size(rill_tex_format format, uint32_t width, uint32_t height,
                         uint64_t *out_size);

/* >>bc7 --------------------------------------------------------------------------------------- */

/* BC7 encoder settings. All-zero = defaults (quality 2).
 * quality: 0 = default (2); 1 = fast (one least-squares pass, partition search only for blocks
 *          above a larger error); 2 = default (two passes); 3 = slow (exhaustive over the modes
 *          above, every block); values above 3 behave as 3. Measured figures: docs/textures.md. */
typedef struct rill_bc7_params {
    uint32_t quality;
} rill_bc7_params;

/* Encodes one 4x4 block of RGBA8 pixels (64 bytes, row-major) to 16 bytes. params may be NULL
 * (defaults). Pure: no allocation, no shared state. */
void rill_bc7_encode_block(const uint8_t rgba[64], const rill_bc7_params *params,
                           uint8_t out_block[16]);
/* Decodes one BC7 block to 16 RGBA8 pixels. Reserved mode bytes (no mode bit set) decode to
 * all-zero pixels, as the format specifies. Never reads past the 16 bytes. */
void rill_bc7_decode_block(const uint8_t block[16], uint8_t out_rgba[64]);

/* >>bc1-bc5 ----------------------------------------------------------------------------------- */

/* Encodes the RGB of 16 RGBA8 pixels as an opaque BC1 block (4-colour mode; alpha ignored). */
void rill_bc1_encode_block(const uint8_t rgba[64], uint8_t out_block[8]);
/* Decodes a BC1 block (both 4- and 3-colour modes; the 3-colour mode's 4th entry is transparent
 * black). */
void rill_bc1_decode_block(const uint8_t block[8], uint8_t out_rgba[64]);
/* Encodes 16 single-channel values (one byte each, row-major) as a BC4 block. */
void rill_bc4_encode_block(const uint8_t values[16], uint8_t out_block[8]);
/* Decodes a BC4 block to 16 single-channel values. */
void rill_bc4_decode_block(const uint8_t block[8], uint8_t out_values[16]);
/* Encodes the R and G of 16 RGBA8 pixels as a BC5 block (two BC4 halves: R then G). */
void rill_bc5_encode_block(const uint8_t rgba[64], uint8_t out_block[16]);
/* Decodes a BC5 block: R and G from the two halves, B = 0, A = 255. (Normal-map users rebuild Z.)
 */
void rill_bc5_decode_block(const uint8_t block[16], uint8_t out_rgba[64]);
/* Decodes a BC3 block (BC4-style alpha, then BC1-style colour always in 4-colour mode). */
void rill_bc3_decode_block(const uint8_t block[16], uint8_t out_rgba[64]);

/* >>images ------------------------------------------------------------------------------------ */

/* Encodes a whole RGBA8 image (width x height, rows `stride` bytes apart; stride 0 = width * 4) to
 * `format` (BC1, BC4 (from R), BC5 (from R, G) or BC7). Partial edge blocks are padded by clamping.
 * dst must hold rill_tex_level_size(format, width, height) bytes (dst_size says how many it holds).
 * bc7 may be NULL (defaults); it is ignored by the other formats. Single-threaded; callers that
 * want threads split the image by block rows and call this per band (rows must then be a multiple
 * of 4 except the last band). */
rill_result rill_bc_encode_image(rill_tex_format format, const uint8_t *rgba, uint32_t width,
                                 uint32_t height, size_t stride, const rill_bc7_params *bc7,
                                 uint8_t *dst, size_t dst_size, rill_error *err);
/* Decodes a whole level of a block format (BC1, BC3, BC4, BC5, BC7) to RGBA8 (width x height,
 * tightly packed, width * height * 4 bytes in dst). BC4 decodes to (R, R, R, 255). src_size must be
 * at least the level size; RILL_ERR_TRUNCATED otherwise. */
rill_result rill_bc_decode_image(rill_tex_format format, const uint8_t *src, size_t src_size,
                                 uint32_t width, uint32_t height, uint8_t *dst, size_t dst_size,
                                 rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_FORMATS_BC_H */
