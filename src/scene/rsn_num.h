/* rsn_num.h: strict number parsing and shortest round-trip float printing for .rsn (private). */
#ifndef RILL_SCENE_RSN_NUM_H
#define RILL_SCENE_RSN_NUM_H

#include "rill/base.h"

/* Parses a decimal or 0x integer token. Returns false when the form is wrong. *out_mag is the
 * magnitude (UINT64_MAX with *out_overflow set when it does not fit 64 bits). */
bool rill__rsn_parse_int(const char *s, uint32_t len, bool *out_neg, uint64_t *out_mag,
                         bool *out_overflow);
/* Parses a decimal float token (or inf, -inf, nan), correctly rounded. False = bad form. */
bool rill__rsn_parse_f32(const char *s, uint32_t len, float *out);
bool rill__rsn_parse_f64(const char *s, uint32_t len, double *out);
/* Writes the shortest text that parses back to exactly v; returns its length. cap >= 32. */
uint32_t rill__rsn_format_f32(float v, char *dst, size_t cap);
uint32_t rill__rsn_format_f64(double v, char *dst, size_t cap);

#endif
