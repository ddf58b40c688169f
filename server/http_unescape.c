/* http_unescape.c -- the request target's percent-escapes (see http_unescape.h). */
#include "http_unescape.h"

#include <microhttpd.h>
#include <string.h>

static int http_hex(char ch)
{
    return ch >= '0' && ch <= '9'   ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
}

size_t http_unescape_text(char *s)
{
    const char *p;

    for (p = strchr(s, '%'); p; p = strchr(p + 1, '%')) {
        int high = http_hex(p[1]), low = high < 0 ? -1 : http_hex(p[2]), byte = high * 16 + low;
        if (low >= 0 && (byte == 0 || (byte >= '0' && byte <= '9')))
            return strlen(s); /* a digit or a NUL in disguise: left as it came */
    }
    return MHD_http_unescape(s);
}
