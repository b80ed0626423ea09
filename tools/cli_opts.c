/* cli_opts.c: the table-driven option parser (cli_opts.h), and the render thread's flags. */
#include "cli_opts.h"

#include "cli_args.h"
#include "cmds.h"

#include <stdlib.h>
#include <string.h>

#include "rill/channels.h"
#include "rill/render/renderer.h"

const char *const rill_cli_quality_names[] = {"low", "medium", "high", NULL};
const int rill_cli_quality_values[] = {RILL_RENDER_QUALITY_LOW, RILL_RENDER_QUALITY_MEDIUM,
                                       RILL_RENDER_QUALITY_HIGH};

const char *rill_cli_quality_name(int quality) {
    return quality == RILL_RENDER_QUALITY_LOW    ? "Low"
           : quality == RILL_RENDER_QUALITY_HIGH ? "High"
                                                 : "Medium";
}

static const rill_cli_opt *find_opt(const rill_cli_parser *p, const char *a) {
    for (uint32_t i = 0; i < p->opt_count; i++) {
        if (strcmp(a, p->opts[i].name) == 0) {
            return &p->opts[i];
        }
    }
    return NULL;
}

/* The index of v in names, letter case ignored ("High" as project.toml spells it is "high"; no
 * option has two names that differ only in case), or -1. */
static int enum_index(const char *v, const char *const *names) {
    for (int i = 0; names[i]; i++) {
        if (rill_str_ieq(v, names[i])) {
            return i;
        }
    }
    return -1;
}

/* "X,Y" with both numbers in [min, max] (each all of its side of the comma: "3," and "," are
 * refused, not read as 0). */
static bool parse_point(const rill_cli_opt *o, const char *v) {
    const char *comma = strchr(v, ',');
    char x_text[64];
    float x = 0.0f, y = 0.0f;
    if (!comma || (size_t)(comma - v) >= sizeof x_text) {
        return false;
    }
    memcpy(x_text, v, (size_t)(comma - v));
    x_text[comma - v] = '\0';
    if (!rill_cli_parse_float(x_text, o->min, o->max, &x) ||
        !rill_cli_parse_float(comma + 1, o->min, o->max, &y)) {
        return false;
    }
    *(float *)o->out = x;
    *(float *)o->out2 = y;
    return true;
}

/* A whole number in [min, max] into a uint32_t or uint64_t. */
static bool parse_count(const rill_cli_opt *o, const char *v) {
    long long n = 0;
    if (!rill_cli_parse_int(v, (long long)o->min, (long long)o->max, &n)) {
        return false;
    }
    if (o->kind == RILL_CLI_OPT_U32) {
        *(uint32_t *)o->out = (uint32_t)n;
    } else {
        *(uint64_t *)o->out = (uint64_t)n;
    }
    return true;
}

/* Checks and stores the value v of option o: 0 done, 2 on a usage error (printed). */
static int take_value(const rill_cli_parser *p, const rill_cli_opt *o, const char *v) {
    bool ok = true;
    switch (o->kind) {
    case RILL_CLI_OPT_FLAG:
        *(bool *)o->out = true;
        break;
    case RILL_CLI_OPT_STRING:
        *(const char **)o->out = v;
        break;
    case RILL_CLI_OPT_U32:
    case RILL_CLI_OPT_U64:
        ok = parse_count(o, v);
        break;
    case RILL_CLI_OPT_FLOAT:
        ok = rill_cli_parse_float(v, o->min, o->max, o->out);
        break;
    case RILL_CLI_OPT_SIZE:
        ok = rill_cli_parse_size(v, o->out, o->out2);
        break;
    case RILL_CLI_OPT_POINT:
        ok = parse_point(o, v);
        break;
    case RILL_CLI_OPT_ENUM: {
        int k = enum_index(v, o->names);
        if (k < 0) {
            rill_cli_bad_enum(rill_cli_who(p->cmd), o->name, v, o->names);
            return 2;
        }
        *(int *)o->out = o->values ? o->values[k] : k;
        break;
    }
    case RILL_CLI_OPT_CHANNEL: {
        uint64_t ch = 0;
        rill_render_mode mode;
        float op = 1.0f;
        rill_error perr = {0};
        if (!rill_channels_parse_assignment(v, &ch, &mode, &op, &perr)) {
            fprintf(stderr, "%s: bad %s: %s\n", rill_cli_who(p->cmd), o->name, perr.msg);
            return 2;
        }
        uint32_t *count = o->out2;
        if (*count >= (uint32_t)o->max) {
            fprintf(stderr, "%s: at most %u %s options\n", rill_cli_who(p->cmd), (uint32_t)o->max,
                    o->name);
            return 2;
        }
        ((const char **)o->out)[(*count)++] = v;
        break;
    }
    }
    if (!ok) {
        char want[96];
        if (o->want) {
            snprintf(want, sizeof want, "%s", o->want);
        } else if (o->kind == RILL_CLI_OPT_SIZE) {
            snprintf(want, sizeof want, "WxH, each in [1, 16384]");
        } else { /* counts say their range */
            snprintf(want, sizeof want, "a count in [%.0f, %.0f]", o->min, o->max);
        }
        fprintf(stderr, "%s: bad %s '%s' (want %s)\n", rill_cli_who(p->cmd), o->name, v, want);
        return 2;
    }
    if (o->given) {
        *o->given = true;
    }
    return 0;
}

static const char *cli_program; /* NULL: messages say "rill CMD" */

void rill_cli_set_program(const char *name) {
    cli_program = name;
}

const char *rill_cli_who(const char *cmd) {
    static char who[128];
    if (cli_program) {
        return cli_program;
    }
    snprintf(who, sizeof who, "rill %s", cmd ? cmd : "");
    return who;
}

static const char *opt_name_at(const void *ctx, uint32_t i) {
    return ((const rill_cli_parser *)ctx)->opts[i].name;
}

/* Whether a and b differ only by a "no-" after the dashes (--no-window, --window): opposites,
 * never a typo of each other. */
static bool negation_of(const char *a, const char *b) {
    return (strncmp(a, "--no-", 5) == 0 && strcmp(a + 5, b + 2) == 0) ||
           (strncmp(b, "--no-", 5) == 0 && strcmp(b + 5, a + 2) == 0);
}

static int unexpected(const rill_cli_parser *p, const char *a) {
    const char *near =
        a[0] == '-' ? rill_suggest_name(a, strlen(a), opt_name_at, p, p->opt_count) : NULL;
    if (near && strlen(a) > 2 && strlen(near) > 2 && negation_of(a, near)) {
        near = NULL;
    }
    if (near) {
        fprintf(stderr, "%s: unexpected argument '%s'; did you mean %s?\n", rill_cli_who(p->cmd), a,
                near);
    } else {
        fprintf(stderr, "%s: unexpected argument '%s'\n", rill_cli_who(p->cmd), a);
    }
    p->usage(stderr);
    return 2;
}

int rill_cli_parse(const rill_cli_parser *p, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            p->usage(stdout);
            return -1;
        }
        int fxa = p->effects ? rill_cli_effects_arg(p->effects, p->cmd, a, v) : 0;
        if (fxa != 0) { /* --effect, --plugins, --no-plugins */
            if (fxa < 0) {
                return 2;
            }
            i += fxa == 1; /* the option's value */
            continue;
        }
        const rill_cli_opt *o = find_opt(p, a);
        if (!o) {
            if (a[0] == '-' || !p->input || *p->input) {
                return unexpected(p, a);
            }
            *p->input = a;
            continue;
        }
        if (o->kind != RILL_CLI_OPT_FLAG) {
            if (!v) {
                fprintf(stderr, "%s: %s needs a value\n", rill_cli_who(p->cmd), a);
                return 2;
            }
            i++;
        }
        int rc = take_value(p, o, v);
        if (rc) {
            return rc;
        }
    }
    return 0;
}

int rill_cli_render_thread(const char *cmd, bool on, bool off, int *out) {
    if (on && off) {
        fprintf(stderr, "rill %s: --render-thread and --no-render-thread contradict each other\n",
                cmd);
        return 2;
    }
    *out = on ? 1 : off ? -1 : 0;
    return 0;
}
