/* text.c: the text primitives every reader and writer shares. Numbers both ways (strict parsing
 * of integers and floats, and the shortest float text that reads back to the same bits), hex
 * digits and URI decoding, so .rsn, reflection, TOML and the glTF/export paths agree on one syntax
 * and one set of safety rules.
 *
 * Number parsing validates the token's form itself (so strtod's extra syntax, hex floats and
 * locale quirks never leak into a format) and takes an exact fast path for the common short
 * decimals: when the digits fit the float's mantissa and the power of ten is exact in that type,
 * one multiplication or division is correctly rounded (Clinger's observation). Everything else
 * goes to strtof/strtod, which round correctly.
 */
#include "rill/base.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rill_hex_digit(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

bool rill_uri_decode(char *dst, size_t cap, const char *uri) {
    if (!dst || !cap || !uri) {
        return false;
    }
    size_t n = 0;
    for (const char *p = uri; *p; p++) {
        char c = *p;
        if (c == '%' && rill_hex_digit(p[1]) >= 0 && rill_hex_digit(p[2]) >= 0) {
            c = (char)(rill_hex_digit(p[1]) * 16 + rill_hex_digit(p[2]));
            p += 2;
        }
        if (c == '\0' || n + 1 >= cap) {
            return false;
        }
        dst[n++] = c;
    }
    dst[n] = '\0';
    return true;
}

bool rill_uri_is_relative_path(const char *path) {
    if (!path || !path[0] || path[0] == '/' || path[0] == '\\') {
        return false;
    }
    /* A scheme ("data:", "http://") or a drive ("C:") is a ':' before any '/'. */
    for (const char *p = path; *p && *p != '/' && *p != '\\'; p++) {
        if (*p == ':') {
            return false;
        }
    }
    return strstr(path, "://") == NULL;
}

bool rill_num_parse_int(const char *s, size_t len, bool *out_neg, uint64_t *out_mag,
                        bool *out_overflow) {
    size_t i = 0;
    bool neg = false;
    *out_overflow = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i++;
    }
    if (i >= len) {
        return false;
    }
    uint64_t v = 0;
    bool over = false;
    if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        for (i += 2; i < len; i++) {
            char c = s[i];
            int h = rill_hex_digit(c);
            if (h < 0) {
                return false;
            }
            uint64_t d = (uint64_t)h;
            if (v >> 60) {
                over = true;
            }
            v = (v << 4) | d;
        }
    } else {
        for (; i < len; i++) {
            char c = s[i];
            if (c < '0' || c > '9') {
                return false;
            }
            uint64_t d = (uint64_t)(c - '0');
            if (v > (UINT64_MAX - d) / 10u) {
                over = true;
            }
            v = v * 10u + d;
        }
    }
    *out_neg = neg && v != 0;
    *out_mag = over ? UINT64_MAX : v;
    *out_overflow = over;
    return true;
}

/* Splits a decimal float token into sign, up to 19 significant digits and a power of ten.
 * Returns 0 = invalid, 1 = decimal (fast-path fields valid when *exact), 2 = inf, 3 = nan. */
static int scan_float(const char *s, size_t len, bool *neg, uint64_t *mant, int32_t *exp10,
                      bool *exact) {
    size_t i = 0;
    *neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        *neg = s[i] == '-';
        i++;
    }
    if (len - i == 3 && memcmp(s + i, "inf", 3) == 0) {
        return 2;
    }
    if (len - i == 3 && memcmp(s + i, "nan", 3) == 0) {
        return 3;
    }
    uint64_t m = 0;
    int32_t digits = 0, e = 0;
    bool any = false, ok = true;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        any = true;
        if (m == 0 && s[i] == '0') {
            continue; /* leading zeros are not significant */
        }
        if (digits < 19) {
            m = m * 10u + (uint64_t)(s[i] - '0');
            digits++;
        } else {
            e++;
            if (s[i] != '0') {
                ok = false;
            }
        }
    }
    if (i < len && s[i] == '.') {
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            any = true;
            if (m == 0 && s[i] == '0') {
                e--;
                continue;
            }
            if (digits < 19) {
                m = m * 10u + (uint64_t)(s[i] - '0');
                digits++;
                e--;
            } else if (s[i] != '0') {
                ok = false;
            }
        }
    }
    if (!any) {
        return 0;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+')) {
            eneg = s[i] == '-';
            i++;
        }
        if (i >= len) {
            return 0;
        }
        int32_t x = 0;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            if (x < 100000) {
                x = x * 10 + (s[i] - '0');
            }
        }
        e += eneg ? -x : x;
    }
    if (i != len) {
        return 0;
    }
    *mant = m;
    *exp10 = e;
    *exact = ok;
    return 1;
}

static bool slow_parse(const char *s, size_t len, bool is_f32, double *out) {
    char buf[128];
    char *heap = NULL;
    char *p = buf;
    if (len >= sizeof buf) {
        heap = rill_malloc_tagged(len + 1u, RILL_MEM_GENERAL);
        if (!heap) {
            return false;
        }
        p = heap;
    }
    memcpy(p, s, len);
    p[len] = '\0';
    if (is_f32) {
        *out = (double)strtof(p, NULL);
    } else {
        *out = strtod(p, NULL);
    }
    rill_free(heap);
    return true;
}

static const double pow10_d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const float pow10_f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                  1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

/* Parses a float (is_f32: to the nearest float, stored exactly in *out) or a double. Exact
 * mantissas with small exponents take the fast path (one multiply or divide in the target type:
 * correctly rounded), the rest strtod / strtof. */
static bool parse_real(const char *s, size_t len, bool is_f32, double *out) {
    bool neg, exact;
    uint64_t m;
    int32_t e;
    int kind = scan_float(s, len, &neg, &m, &e, &exact);
    if (kind != 1) { /* 2 infinity, 3 NaN, 0 not a number */
        *out = kind == 2 ? (neg ? -INFINITY : INFINITY) : kind == 3 ? NAN : 0.0;
        return kind != 0;
    }
    if (is_f32 && exact && m <= (1u << 24) && e >= -10 && e <= 10) {
        float f = (float)m;
        f = e >= 0 ? f * pow10_f[e] : f / pow10_f[-e];
        *out = neg ? -f : f;
        return true;
    }
    if (!is_f32 && exact && m <= (UINT64_C(1) << 53) && e >= -22 && e <= 22) {
        double d = (double)m;
        d = e >= 0 ? d * pow10_d[e] : d / pow10_d[-e];
        *out = neg ? -d : d;
        return true;
    }
    return slow_parse(s, len, is_f32, out);
}

bool rill_num_parse_f32(const char *s, size_t len, float *out) {
    double d = 0.0;
    bool ok = parse_real(s, len, true, &d);
    *out = (float)d; /* exact: d holds a float value */
    return ok;
}

bool rill_num_parse_f64(const char *s, size_t len, double *out) {
    return parse_real(s, len, false, out);
}

/* Lays out the shortest digits (from "%.{p-1}e") in the canonical form: plain decimal when the
 * exponent is in [-5, 15], else "d.ddde+XX" as %g would. The value is the same decimal, so it
 * reads back to the same bits. */
static uint32_t layout(const char *e_form, char *dst, size_t cap) {
    char digits[40];
    uint32_t nd = 0;
    bool neg = false;
    const char *s = e_form;
    if (*s == '-') {
        neg = true;
        s++;
    }
    while (*s && *s != 'e' && nd < sizeof digits - 1) {
        if (*s != '.') {
            digits[nd++] = *s;
        }
        s++;
    }
    while (nd > 1 && digits[nd - 1] == '0') {
        nd--; /* "%.{p-1}e" may pad with zeros */
    }
    int x = (*s == 'e') ? atoi(s + 1) : 0;
    char out[64];
    uint32_t n = 0;
    if (neg) {
        out[n++] = '-';
    }
    if (x < -5 || x > 15) {
        out[n++] = digits[0];
        if (nd > 1) {
            out[n++] = '.';
            for (uint32_t i = 1; i < nd; i++) {
                out[n++] = digits[i];
            }
        }
        n += (uint32_t)snprintf(out + n, sizeof out - n, "e%c%02d", x < 0 ? '-' : '+',
                                x < 0 ? -x : x);
    } else if (x < 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -x - 1; i++) {
            out[n++] = '0';
        }
        for (uint32_t i = 0; i < nd; i++) {
            out[n++] = digits[i];
        }
    } else {
        for (int i = 0; i <= x; i++) {
            out[n++] = (uint32_t)i < nd ? digits[i] : '0';
        }
        if (nd > (uint32_t)x + 1u) {
            out[n++] = '.';
            for (uint32_t i = (uint32_t)x + 1u; i < nd; i++) {
                out[n++] = digits[i];
            }
        }
    }
    out[n] = '\0';
    return (uint32_t)snprintf(dst, cap, "%s", out);
}

uint32_t rill_num_format_f32(float v, char *dst, size_t cap) {
    if (isnan(v)) {
        return (uint32_t)snprintf(dst, cap, "nan");
    }
    if (isinf(v)) {
        return (uint32_t)snprintf(dst, cap, v < 0 ? "-inf" : "inf");
    }
    if (v == 0.0f) {
        return (uint32_t)snprintf(dst, cap, signbit(v) ? "-0" : "0");
    }
    char e_form[48];
    for (int prec = 1; prec <= 9; prec++) {
        int n = snprintf(e_form, sizeof e_form, "%.*e", prec - 1, (double)v);
        float back;
        if (n > 0 && rill_num_parse_f32(e_form, (uint32_t)n, &back) &&
            memcmp(&back, &v, sizeof v) == 0) {
            break;
        }
    }
    return layout(e_form, dst, cap);
}

uint32_t rill_num_format_f64(double v, char *dst, size_t cap) {
    if (isnan(v)) {
        return (uint32_t)snprintf(dst, cap, "nan");
    }
    if (isinf(v)) {
        return (uint32_t)snprintf(dst, cap, v < 0 ? "-inf" : "inf");
    }
    if (v == 0.0) {
        return (uint32_t)snprintf(dst, cap, signbit(v) ? "-0" : "0");
    }
    char e_form[48];
    for (int prec = 1; prec <= 17; prec++) {
        int n = snprintf(e_form, sizeof e_form, "%.*e", prec - 1, v);
        double back;
        if (n > 0 && rill_num_parse_f64(e_form, (uint32_t)n, &back) &&
            memcmp(&back, &v, sizeof v) == 0) {
            break;
        }
    }
    return layout(e_form, dst, cap);
}

bool rill_text_quote(rill_strbuf *out, const char *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    char buf[256];
    size_t n = 0;
    bool ok = true;
    buf[n++] = '"';
    for (size_t i = 0; i < len; i++) {
        if (n + 8 > sizeof buf) {
            ok = ok && rill_strbuf_append(out, buf, n);
            n = 0;
        }
        unsigned char c = (unsigned char)s[i];
        const char *esc = c == '"'    ? "\\\""
                          : c == '\\' ? "\\\\"
                          : c == '\n' ? "\\n"
                          : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t"
                          : c == '\0' ? "\\0"
                                      : NULL;
        if (esc) {
            buf[n++] = esc[0];
            buf[n++] = esc[1];
        } else if (c < 0x20 || c == 0x7f) {
            buf[n++] = '\\';
            buf[n++] = 'x';
            buf[n++] = hex[c >> 4];
            buf[n++] = hex[c & 15];
        } else {
            buf[n++] = (char)c;
        }
    }
    buf[n++] = '"';
    return rill_strbuf_append(out, buf, n) && ok;
}

bool rill_text_is_utf16(const void *text, size_t len) {
    const unsigned char *t = text;
    return t && len >= 2 && ((t[0] == 0xFF && t[1] == 0xFE) || (t[0] == 0xFE && t[1] == 0xFF));
}
