/* rill/formats/rmip_cube.h: environment images. The .rmip cube (version 4, RILL_RMIP_FLAG_CUBE:
 * six RGBA16F faces a level, docs/formats/rmip.md): built from an equirectangular image, read
 * back, resampled to an equirectangular image; and the one decoder every environment image goes
 * through (Skybox, EnvironmentMapLight, ReflectionProbeSource): an equirectangular .hdr / .png /
 * .jpg / .tga or a .rmip cube in, a linear RGBA32F equirectangular image out, with its limits.
 *
 * ON DIRECTIONS
 *   Faces are +X, -X, +Y, -Y, +Z, -Z with Vulkan's cube orientation (a face texel (x, y) of an
 *   n x n face has sc = 2 (x + 0.5) / n - 1, tc = 2 (y + 0.5) / n - 1; +X looks along
 *   (1, -tc, -sc), and so on). An equirectangular image's centre column looks along -Z and its
 *   top row straight up (u = atan2(x, -z) / 2 pi + 0.5, v = acos(y) / pi), as the sky shaders read.
 *
 * ON HOSTILE INPUT
 *   An equirectangular image must be 4 x 2 to 8192 x 4096 pixels; a cube's faces 4 to
 *   RILL_RMIP_MAX_FACE pixels, RGBA16F, power-of-two; the .rmip reader's own checks come first.
 *   Errors name the file.
 *
 * Depends on: rill/base.h, rill/formats/image.h, rill/formats/rmip.h.
 */
#ifndef RILL_FORMATS_RMIP_CUBE_H
#define RILL_FORMATS_RMIP_CUBE_H

#include "rill/base.h"
#include "rill/formats/image.h"
#include "rill/formats/rmip.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_ENV_IMAGE_MIN_WIDTH 4u
#define RILL_ENV_IMAGE_MIN_HEIGHT 2u
#define RILL_ENV_IMAGE_MAX_WIDTH 8192u
#define RILL_ENV_IMAGE_MAX_HEIGHT 4096u
#define RILL_RMIP_MIN_FACE 4u
#define RILL_RMIP_MAX_FACE 4096u
/* A cube resampled to an equirectangular image uses its first level of at most this face size
 * (the image is 4 faces wide and 2 high). */
#define RILL_RMIP_EQUIRECT_FACE 1024u

/* Builds a cube .rmip (version 4, RGBA16F, HDR flag, full chain down to 1 x 1, each level's
 * faces box-filtered from the one above) from an equirectangular RGBA32F linear image: each face
 * texel averages 2 x 2 bilinear samples of the image. face: a power of two in [RILL_RMIP_MIN_FACE,
 * RILL_RMIP_MAX_FACE]; 0 = the largest power of two <= width / 4, clamped to [16, 1024].
 * *out_data is owned by the caller (rill_free). */
rill_result rill_rmip_cube_from_equirect(const rill_image *equirect, uint32_t face,
                                         uint8_t **out_data, size_t *out_size, rill_error *err);

/* Reads a cube .rmip held in memory into a texture payload (faces == 6): refuses a file that is
 * not a cube, not RGBA16F or whose faces are out of the limits, naming `name`. */
rill_result rill_rmip_cube_read(const void *data, size_t size, const char *name, rill_tex_data *out,
                                rill_error *err);

/* Resamples a cube payload (rill_rmip_cube_read) into a linear RGBA32F equirectangular image of
 * 4f x 2f pixels, f the face size of its first level of at most RILL_RMIP_EQUIRECT_FACE
 * (bilinear within a face). *out owns its pixels (rill_image_free). */
rill_result rill_rmip_cube_to_equirect(const rill_tex_data *cube, rill_image *out, rill_error *err);

/* Decodes an environment image held in memory: a .rmip cube (by its magic) or an image file
 * (Radiance .hdr is linear; 8-bit images are sRGB and made linear; alpha is kept) into a linear
 * RGBA32F equirectangular image within the limits above. NaN becomes 0 and values clamp to
 * [0, 65000]. *out owns its pixels (rill_image_free); on failure it is zeroed. */
rill_result rill_env_image_decode(const void *data, size_t size, const char *name, rill_image *out,
                                  rill_error *err);

/* The direction (not normalized) through face texel coordinates sc, tc in [-1, 1] of `face`
 * (0..5: +X -X +Y -Y +Z -Z). */
void rill_rmip_cube_face_dir(uint32_t face, float sc, float tc, float out_dir[3]);

#ifdef __cplusplus
}
#endif
#endif /* RILL_FORMATS_RMIP_CUBE_H */
