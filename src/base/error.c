/* error.c: result-code strings (from RILL_RESULT_LIST) and the rill_error helpers. */
#include "rill/base.h"

#include <stdio.h>
#include <string.h>

static const char *const result_messages[] = {
#define RILL__RESULT_MSG(name, msg) msg,
    RILL_RESULT_LIST(RILL__RESULT_MSG)
#undef RILL__RESULT_MSG
};

static const char *const result_names[] = {
#define RILL__RESULT_NAME(name, msg) "RILL_" #name,
    RILL_RESULT_LIST(RILL__RESULT_NAME)
#undef RILL__RESULT_NAME
};

const char *rill_result_str(rill_result code) {
    /* Compare as unsigned so that a negative value cast into the enum is also out of range. */
    if ((uint32_t)code >= (uint32_t)RILL_RESULT_NUM) {
        return "unknown";
    }
    return result_messages[code];
}

const char *rill_result_name(rill_result code) {
    if ((uint32_t)code >= (uint32_t)RILL_RESULT_NUM) {
        return "unknown";
    }
    return result_names[code];
}

rill_result rill_error_set(rill_error *err, rill_result code, const char *fmt, ...) {
    if (err != NULL) {
        err->code = code;
        err->msg[0] = '\0';
        if (fmt != NULL) {
            va_list ap;
            va_start(ap, fmt);
            /* vsnprintf truncates long messages and always terminates them. */
            vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
            va_end(ap);
        }
    }
    return code;
}

void rill_error_clear(rill_error *err) {
    if (err != NULL) {
        err->code = RILL_OK;
        err->msg[0] = '\0';
    }
}

rill_result rill_desc_check(uint32_t start_canary, uint32_t end_canary, const char *what,
                            rill_error *err) {
    if (start_canary == 0 && end_canary == 0) {
        return RILL_OK;
    }
    /* Logged too: several callers have no rill_error to carry the message. */
    RILL_LOG_ERROR("base", "%s: desc not zero-initialized (start_canary %u, end_canary %u)",
                   what ? what : "?", start_canary, end_canary);
    return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                          "%s: desc not zero-initialized (start_canary %u, end_canary %u); "
                          "start from {0} or rill_x_query_defaults()",
                          what ? what : "?", start_canary, end_canary);
}
