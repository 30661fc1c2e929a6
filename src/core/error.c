/* error.c — status names and error text. */
#include <stdarg.h>
#include <string.h>

#include "nnfx.h"

const char *nnfx_status_name(nnfx_status s) {
    switch (s) {
    case NNFX_OK: return "ok";
    case NNFX_ERR_INVALID_ARG: return "invalid argument";
    case NNFX_ERR_NOMEM: return "out of memory";
    case NNFX_ERR_IO: return "i/o error";
    case NNFX_ERR_PARSE: return "parse error";
    case NNFX_ERR_UNSUPPORTED: return "unsupported";
    case NNFX_ERR_SHAPE: return "shape error";
    case NNFX_ERR_GRAPH: return "graph error";
    case NNFX_ERR_TRACE: return "trace error";
    case NNFX_ERR_RUNTIME: return "runtime error";
    case NNFX_ERR_NOT_FOUND: return "not found";
    }
    return "unknown status";
}

nnfx_status nnfx_error_set(nnfx_error *err, nnfx_status s, const char *fmt, ...) {
    if (err) {
        err->status = s;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return s;
}

void nnfx_error_prefix(nnfx_error *err, const char *fmt, ...) {
    if (!err) return;
    char prefix[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[sizeof err->msg];
    memcpy(old, err->msg, sizeof old);
    size_t pl = strlen(prefix);
    if (pl > sizeof err->msg - 3) pl = sizeof err->msg - 3;
    memcpy(err->msg, prefix, pl);
    memcpy(err->msg + pl, ": ", 2);
    size_t room = sizeof err->msg - pl - 3;
    size_t ol = strnlen(old, room);
    memcpy(err->msg + pl + 2, old, ol);
    err->msg[pl + 2 + ol] = 0;
}
