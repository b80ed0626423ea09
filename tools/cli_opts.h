/* cli_opts.h: the table-driven option parser of the `rill` subcommands that take many options
 * (render, run, fly, demo). A command lists its options once, each with its kind, where its value
 * goes and the bounds it takes; rill_cli_parse walks argv, checks every value with cli_args.h and
 * prints one message shape for every command:
 *   rill CMD: OPT needs a value
 *   rill CMD: bad OPT 'VALUE' (want WANT)          (enums: "(one of a, b, c)")
 *   rill CMD: unexpected argument 'ARG'[; did you mean OPT?]   (then the usage)
 * --help / -h print the usage on stdout; --effect and --plugins go to rill_cli_effects_arg. */
#ifndef RILL_TOOLS_CLI_OPTS_H
#define RILL_TOOLS_CLI_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct rill_cli_effects;

typedef enum rill_cli_opt_kind {
    RILL_CLI_OPT_FLAG,    /* no value: out is a bool, set true */
    RILL_CLI_OPT_STRING,  /* out is a const char *: the value itself */
    RILL_CLI_OPT_U32,     /* out is a uint32_t: a whole number in [min, max] */
    RILL_CLI_OPT_U64,     /* out is a uint64_t: a whole number in [min, max] */
    RILL_CLI_OPT_FLOAT,   /* out is a float: a finite number in [min, max] */
    RILL_CLI_OPT_SIZE,    /* WxH, each in [1, 16384]: out the width, out2 the height (uint32_t) */
    RILL_CLI_OPT_POINT,   /* X,Y, each in [min, max]: out x, out2 y (float) */
    RILL_CLI_OPT_ENUM,    /* one of names: out is an int, set to values[index] (or the index) */
    RILL_CLI_OPT_CHANNEL, /* NAME=MODE (rill_channels_parse_assignment), repeatable: appended to
                             the const char * array out, count in the uint32_t out2, at most max */
} rill_cli_opt_kind;

typedef struct rill_cli_opt {
    const char *name; /* "--size" */
    rill_cli_opt_kind kind;
    void *out;
    void *out2;               /* SIZE, POINT, CHANNEL (see the kinds) */
    double min, max;          /* U32, U64, FLOAT, POINT; CHANNEL: max = capacity */
    const char *const *names; /* ENUM: NULL-terminated */
    const int *values;        /* ENUM: the value of each name (NULL: its index) */
    const char *want; /* what a bad value should have been, for the message (NULL: counts say
                         their range, sizes "WxH, each in [1, 16384]") */
    bool *given;      /* set true when the option is given (NULL = not tracked) */
} rill_cli_opt;

typedef struct rill_cli_parser {
    const char *cmd; /* "render": messages start "rill render: " */
    const rill_cli_opt *opts;
    uint32_t opt_count;
    const char **input;               /* the one positional argument (NULL: none taken) */
    struct rill_cli_effects *effects; /* takes --effect / --plugins (NULL: not taken) */
    void (*usage)(FILE *f);
} rill_cli_parser;

/* --quality low|medium|high (rill render, run and fly): the names and their rill_render_quality
 * values, and the option entry for an int set to the tier (left 0, the project's, when not given).
 */
extern const char *const rill_cli_quality_names[];
extern const int rill_cli_quality_values[];
#define RILL_CLI_QUALITY_OPT(out)                                                                  \
    {                                                                                              \
        "--quality", RILL_CLI_OPT_ENUM, (out), .names = rill_cli_quality_names,                    \
                                               .values = rill_cli_quality_values                   \
    }
/* A rill_render_quality's tier name as project.toml spells it: "Low", "Medium" (also DEFAULT) or
 * "High". */
const char *rill_cli_quality_name(int quality);

/* What a command's messages start with: "rill CMD", or, once rill_cli_set_program(NAME) was
 * called (a game: a copy of rill with a pack appended), NAME, so a player reads the game's name
 * and not "rill run". The string lives until the next call. */
void rill_cli_set_program(const char *name);
const char *rill_cli_who(const char *cmd);

/* Parses argv[1..argc): 0 to go on, -1 after --help (exit 0), 2 on a usage error (printed). */
int rill_cli_parse(const rill_cli_parser *p, int argc, char **argv);

/* The flags --render-thread (on) and --no-render-thread (off) as one setting in *out: 0 neither
 * (the project's [rendering] render_thread, on by default), 1 on, -1 off. 2 when both are given
 * (said on stderr as "rill CMD: ..."), else 0. */
int rill_cli_render_thread(const char *cmd, bool on, bool off, int *out);

#endif /* RILL_TOOLS_CLI_OPTS_H */
