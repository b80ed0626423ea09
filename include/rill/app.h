/* rill/app.h: the top layer: project.toml, the project settings, run modes and the streaming gate,
 * and the frame loop that ties the world, the job system, the VFS, the asset server and the scene
 * loader together.
 *
 * ON PROJECT.TOML
 *   rill_toml_parse() reads a TOML subset into a read-only document tree: tables ([a], [a.b],
 *   [[a]]), `key = value` with bare, quoted and dotted keys, basic strings (with escapes) and
 *   literal strings (both also in their multi-line forms), integers (decimal, 0x, 0o, 0b, with
 *   `_` separators), floats (with exponent, inf, nan), booleans, arrays (nested, multi-line,
 *   trailing comma) and inline tables. Dates and times are refused with a message. Every error
 *   names the place: "project.toml:12:7: expected '='". The typed getters take a dotted path and
 *   a default: rill_toml_get_string(doc, "rendering.graphics_quality", "Medium").
 *
 *   rill_project_from_toml() turns a document into a rill_project with every default resolved in
 *   one place (rill_project_defaults). Unknown keys are warnings that name their line; a known key
 *   with a value of the wrong type is an error.
 *
 * ON RUN MODES AND THE STREAMING GATE
 *   An app is in one run mode at a time: EDIT, PLAY, PAUSED, SIMULATE (the editor's modes), GAME
 *   (a shipped runtime) or SERVER (a dedicated server). Streaming is active in GAME, PLAY, PAUSED
 *   and SIMULATE and never in EDIT or SERVER. When streaming goes from active to inactive the
 *   app calls its "streaming off" listeners exactly once, so the streamers can bring every piece
 *   of content back to full residency.
 *
 * Depends on: base, world, asset, scene.
 */
#ifndef RILL_APP_H
#define RILL_APP_H

#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >>toml -------------------------------------------------------------------------------------- */

/* A parsed TOML document. Opaque; owned by the caller (rill_toml_destroy). Read-only after
 * parsing, so several threads may read one document at once. */
typedef struct rill_toml rill_toml;
/* A node of a document: a table, an array or a scalar. Pointers to values live as long as their
 * document. */
typedef struct rill_toml_value rill_toml_value;

typedef enum rill_toml_type {
    RILL_TOML_NONE = 0, /* "no such value" */
    RILL_TOML_STRING,
    RILL_TOML_INT,
    RILL_TOML_FLOAT,
    RILL_TOML_BOOL,
    RILL_TOML_ARRAY,
    RILL_TOML_TABLE,
    RILL_TOML_TYPE_NUM,
    RILL_TOML_TYPE_FORCE_U32 = 0x7FFFFFFF
} rill_toml_type;

/* Hard limits that keep hostile input bounded. A document that exceeds one fails with
 * RILL_ERR_LIMIT and names the place. */
#define RILL_TOML_MAX_DEPTH 64u         /* nesting of arrays and inline tables */
#define RILL_TOML_MAX_INPUT (64u << 20) /* bytes */

/* Parses text[0..len) (need not be NUL-terminated; embedded NULs are an error). `name` is used in
 * messages (NULL = "<toml>"). On success *out_doc owns a new document; on failure *out_doc is NULL
 * and err (may be NULL) says "name:line:col: what". Columns count bytes from 1. */
rill_result rill_toml_parse(const char *text, size_t len, const char *name, rill_toml **out_doc,
                            rill_error *err);
/* Reads and parses a file; messages use `path` as the name. */
rill_result rill_toml_load(const char *path, rill_toml **out_doc, rill_error *err);
/* Frees a document and every value in it. NULL is a no-op. */
void rill_toml_destroy(rill_toml *doc);

/* The root table (never NULL for a document from rill_toml_parse). */
const rill_toml_value *rill_toml_root(const rill_toml *doc);
/* The name given at parse time. Valid as long as the document. */
const char *rill_toml_name(const rill_toml *doc);

/* Looks up a dotted path from the root: `window.width`, `a."key with.dots".b`, `layers[2]`,
 * `items[0].name`. Returns NULL when any step is missing, is of the wrong kind, or the path is
 * malformed. doc may be NULL (returns NULL). */
const rill_toml_value *rill_toml_find(const rill_toml *doc, const char *path);
/* The same from any table or array value. */
const rill_toml_value *rill_toml_value_find(const rill_toml_value *from, const char *path);

/* Typed getters by path. Each returns `def` when the path is missing or holds another type, except
 * that rill_toml_get_float also accepts an integer. The returned string lives as long as the
 * document (or is `def`). */
const char *rill_toml_get_string(const rill_toml *doc, const char *path, const char *def);
int64_t rill_toml_get_int(const rill_toml *doc, const char *path, int64_t def);
double rill_toml_get_float(const rill_toml *doc, const char *path, double def);
bool rill_toml_get_bool(const rill_toml *doc, const char *path, bool def);

/* Value accessors. All accept NULL (type NONE, length 0, defaults). */
rill_toml_type rill_toml_value_type(const rill_toml_value *v);
/* Number of array items or table members. */
uint32_t rill_toml_value_len(const rill_toml_value *v);
/* Array item i, or table member i in the order the file defines them; NULL when out of range. */
const rill_toml_value *rill_toml_value_at(const rill_toml_value *v, uint32_t i);
/* The key of a table member (NULL for array items and the root). */
const char *rill_toml_value_key(const rill_toml_value *v);
/* Where the value (or, for tables, the header or first key that created it) starts; 1-based. */
uint32_t rill_toml_value_line(const rill_toml_value *v);
uint32_t rill_toml_value_col(const rill_toml_value *v);
/* Where the key of a table member starts (for a [header] table: the header); for values without a
 * key, the same as rill_toml_value_line/col. */
uint32_t rill_toml_value_key_line(const rill_toml_value *v);
uint32_t rill_toml_value_key_col(const rill_toml_value *v);
const char *rill_toml_value_string(const rill_toml_value *v, const char *def);
/* Byte length of a string value (strings may hold NUL bytes written as \u0000); 0 otherwise. */
size_t rill_toml_value_string_len(const rill_toml_value *v);
int64_t rill_toml_value_int(const rill_toml_value *v, int64_t def);
double rill_toml_value_float(const rill_toml_value *v, double def); /* also accepts an integer */
bool rill_toml_value_bool(const rill_toml_value *v, bool def);
/* "string", "integer", "float", "boolean", "array", "table" or "none". Static storage. */
const char *rill_toml_type_name(rill_toml_type type);

/* >>project ----------------------------------------------------------------------------------- */

typedef enum rill_graphics_quality {
    RILL_QUALITY_DEFAULT = 0, /* resolves to MEDIUM */
    RILL_QUALITY_LOW,
    RILL_QUALITY_MEDIUM,
    RILL_QUALITY_HIGH,
    RILL_QUALITY_NUM,
    RILL_QUALITY_FORCE_U32 = 0x7FFFFFFF
} rill_graphics_quality;

#define RILL_PROJECT_NAME_MAX 128
#define RILL_PROJECT_PATH_MAX 512

/* The settings of a project, from project.toml. rill_project_defaults() gives the values used
 * for every missing key:
 *   [project]   name "Rill project", main_scene "" (none)
 *   [window]    width 1280, height 720, vsync true, title = the project name
 *   [rendering] graphics_quality "Medium" (Low | Medium | High), render_scale 1.0 in [0.1, 2.0]
 *   [streaming.texture] enabled true, full_distance 60, low_distance 90 (forced to at least
 *               full_distance + 5), budget_bytes 0 (no budget)
 *   [scene]     load_budget_ms 3 (> 0)
 * Plain data: copy it freely. */
typedef struct rill_project {
    char name[RILL_PROJECT_NAME_MAX];
    char main_scene[RILL_PROJECT_PATH_MAX]; /* project-relative path, "" = none */
    struct {
        uint32_t width, height; /* in [1, 16384] */
        bool vsync;
        char title[RILL_PROJECT_NAME_MAX];
    } window;
    struct {
        rill_graphics_quality graphics_quality; /* LOW, MEDIUM or HIGH after resolution */
        float render_scale;
    } rendering;
    struct {
        struct {
            bool enabled;
            float full_distance, low_distance;
            uint64_t budget_bytes;
        } texture;
    } streaming;
    struct {
        float load_budget_ms;
    } scene;
    /* How many warnings (unknown keys, clamped values) reading the file produced. Each one was
     * logged at WARN level with its file:line:col. */
    uint32_t warning_count;
} rill_project;

/* Fills *out with the defaults listed above. */
void rill_project_defaults(rill_project *out);
/* Fills *out from a document: defaults first, then every known key. Unknown keys and tables and
 * out-of-range values (clamped) are warnings; a known key holding the wrong type is an error
 * (RILL_ERR_PARSE with the place). doc may be NULL (defaults only). On error *out holds the
 * defaults plus whatever was read before the error. */
rill_result rill_project_from_toml(const rill_toml *doc, rill_project *out, rill_error *err);
/* Reads a project.toml file into *out (rill_toml_load + rill_project_from_toml). */
rill_result rill_project_load(const char *path, rill_project *out, rill_error *err);
/* "Low", "Medium" or "High" ("Medium" for DEFAULT). Static storage. */
const char *rill_graphics_quality_name(rill_graphics_quality q);
/* Parses "Low"/"Medium"/"High" (case-insensitive); returns DEFAULT for anything else. */
rill_graphics_quality rill_graphics_quality_parse(const char *s);

#ifdef __cplusplus
}
#endif
#endif /* RILL_APP_H */
