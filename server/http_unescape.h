/* http_unescape.h -- how the server decodes a request target's percent-escapes
 * (libmicrohttpd's MHD_OPTION_UNESCAPE_CALLBACK: the path, and each query
 * parameter's name and value, one at a time).
 *
 * Decoding is libmicrohttpd's own (MHD_http_unescape), with one exception: a
 * text that percent-encodes a digit (%30..%39) or a NUL (%00) is left exactly
 * as it arrived. No client needs either (digits are unreserved: browsers and
 * curl never encode them), so a number written that way ("/sessions/%31",
 * "limit=%35", "1%00") reaches the number parser as the non-digits it is and
 * is refused (api_parse_number), and no NUL ever cuts a text short. */
#ifndef JITSCOPE_HTTP_UNESCAPE_H
#define JITSCOPE_HTTP_UNESCAPE_H

#include <stddef.h>

/* Decodes s (NUL-terminated) in place as above; returns its new length. */
size_t http_unescape_text(char *s);

#endif
