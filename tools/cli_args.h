/* cli_args.h: strict number parsing for the `rill` subcommands. Header-only (static inline) so a
 * test can link one cmd_<name>.c without the dispatcher. */
#ifndef RILL_TOOLS_CLI_ARGS_H
#define RILL_TOOLS_CLI_ARGS_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

/* Parses all of s as a decimal integer in [min, max]. A sign is accepted only when min < 0, so
 * "-1" is refused for counts instead of wrapping to a huge value as strtoul would. */
static inline bool rill_cli_parse_int(const char *s, long long min, long long max, long long *out) {
    if (!s || !*s || (*s == '-' && min >= 0) || *s == '+' || *s == ' ')
        return false;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || !end || *end != '\0' || v < min || v > max)
        return false;
    *out = v;
    return true;
}

#endif /* RILL_TOOLS_CLI_ARGS_H */
