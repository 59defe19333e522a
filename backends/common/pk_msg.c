#include <stdarg.h>
#include <stdio.h>

#include "backend.h"

pk_status pk_msgf(pk_msg *msg, pk_status status, const char *fmt, ...)
{
    if (msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg->text, sizeof msg->text, fmt, ap);
        va_end(ap);
    }
    return status;
}
