/* framing.c - request head checks: field syntax, Host, Content-Length, Transfer-Encoding (framing.h).
 *
 * Tuned for heads of a dozen short lines: one pass per line, no allocation. Values are compared
 * byte-wise; Transfer-Encoding's coding names case-insensitively (RFC 9112 section 7).
 */
#include "http/framing.h"

#include "base/errors.h"

#include <string.h>
#include <strings.h>

const char nq_framing_synthetic[] = "0";

bool nq_framing_is_synthetic(const char *value)
{
    return value == nq_framing_synthetic;
}

void nq_framing_init(nq_framing *f)
{
    memset(f, 0, sizeof *f);
}

/* Record the first fault only: it is the one the client sees named. */
static void fault(nq_framing *f, nq_err err, const char *detail)
{
    if (f->err != NQ_OK) return;
    f->err = err;
    f->detail = detail;
}

static bool tchar(unsigned char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

bool nq_framing_is_token(const char *s, size_t len)
{
    if (len == 0) return false;
    for (size_t i = 0; i < len; i++)
        if (!tchar((unsigned char)s[i])) return false;
    return true;
}

/* field-value characters (RFC 9110 section 5.5): visible ASCII, SP, HTAB and obs-text; a CR that
 * did not end the line, a NUL or any other control byte is not one. */
static bool value_ok(const char *v, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)v[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
    }
    return true;
}

/* The length of v without trailing whitespace (the field value excludes it). */
static size_t trim_end(const char *v, size_t len)
{
    while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t')) len--;
    return len;
}

static bool named(const char *name, size_t nlen, const char *want)
{
    return nlen == strlen(want) && strncasecmp(name, want, nlen) == 0;
}

bool nq_framing_length_value(const char *v, size_t len, uint64_t *out)
{
    uint64_t n = 0;
    for (size_t i = 0; i < len; i++) {
        const unsigned d = (unsigned)(unsigned char)v[i] - '0';
        if (d > 9 || n > (UINT64_MAX - d) / 10) return false;
        n = n * 10 + d;
    }
    *out = n;
    return len > 0;
}

/* Content-Length = 1*DIGIT, one value (a list, even of equal values, is refused: RFC 9112 section
 * 6.3 lets a server reject what it cannot delimit beyond doubt). */
static void content_length(nq_framing *f, const char *v, size_t len)
{
    if (++f->lengths > 1) {
        fault(f, NQ_E_BAD_REQUEST, "The request has more than one Content-Length: its body's end is in doubt.");
        return;
    }
    uint64_t n = 0;
    if (!nq_framing_length_value(v, len, &n)) {
        fault(f, NQ_E_BAD_REQUEST, "Content-Length must be one number of plain decimal digits that fits 64 bits.");
        return;
    }
    f->length = n;
}

/* One Transfer-Encoding line: a comma-separated list of codings, each maybe with parameters, empty
 * elements ignored (RFC 9110 section 5.6.1). Lines repeat the list (RFC 9110 section 5.3). */
static void transfer_encoding(nq_framing *f, const char *v, size_t len)
{
    f->codings++;
    for (const char *p = v, *const end = v + len; p < end;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *const stop = comma ? comma : end;
        while (p < stop && (*p == ' ' || *p == '\t')) p++;
        const char *const name = p;
        while (p < stop && tchar((unsigned char)*p)) p++;
        const size_t nlen = (size_t)(p - name);
        while (p < stop && (*p == ' ' || *p == '\t')) p++;
        /* Past the name only parameters may follow; a non-empty element without a name is no coding. */
        if (p < stop && (nlen == 0 || *p != ';'))
            fault(f, NQ_E_BAD_REQUEST, "Transfer-Encoding names a coding that is not a token.");
        if (nlen > 0) { /* an empty element is no coding at all */
            f->chunked_last = named(name, nlen, "chunked");
            if (f->chunked_last)
                f->chunked++;
            else
                f->other_coding = true;
        }
        p = comma ? comma + 1 : end;
    }
}

static bool hex_digit(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A reg-name or IPv4address character (RFC 3986 section 3.2.2): unreserved or sub-delims; a '%'
 * must start an escape of two hex digits. Returns how many bytes it takes, 0 for none. */
static size_t host_char(const char *p, const char *end)
{
    const unsigned char c = (unsigned char)*p;
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return 1;
    if (c != '\0' && strchr("-._~!$&'()*+,;=", c)) return 1;
    if (c == '%' && end - p >= 3 && hex_digit((unsigned char)p[1]) && hex_digit((unsigned char)p[2])) return 3;
    return 0;
}

/* The inside of an IP-literal (RFC 3986 section 3.2.2): an IPv6 address, in its characters (hex
 * digits, ':' and '.', two colons at least), or IPvFuture, "v" 1*HEXDIG "." 1*(unreserved /
 * sub-delims / ":"). */
static bool ip_literal(const char *p, const char *end)
{
    if (p < end && (*p == 'v' || *p == 'V')) {
        const char *q = p + 1;
        while (q < end && hex_digit((unsigned char)*q)) q++;
        if (q == p + 1 || q == end || *q != '.' || ++q == end) return false;
        for (; q < end; q++)
            if (*q != ':' && host_char(q, end) != 1) return false; /* no '%' escapes here */
        return true;
    }
    unsigned colons = 0;
    for (; p < end; p++) {
        if (!hex_digit((unsigned char)*p) && *p != ':' && *p != '.') return false;
        colons += *p == ':';
    }
    return colons >= 2;
}

/* Host = uri-host [ ":" port ] (RFC 9112 section 3.2, RFC 3986 section 3.2.2): a reg-name (which
 * an IPv4 address also is; empty allowed) or a bracketed IP literal, then optional ':' and digits. */
static bool host_value(const char *v, size_t len)
{
    const char *p = v, *const end = v + len;
    if (p < end && *p == '[') { /* IP-literal */
        const char *const close = memchr(p, ']', (size_t)(end - p));
        if (!close || !ip_literal(p + 1, close)) return false;
        p = close + 1;
    } else {
        for (size_t n; p < end && (n = host_char(p, end)) > 0;) p += n;
    }
    if (p < end && *p == ':')
        for (p++; p < end && *p >= '0' && *p <= '9';) p++;
    return p == end;
}

void nq_framing_field(nq_framing *f, const char *name, size_t nlen, const char *value, size_t vlen)
{
    if (!nq_framing_is_token(name, nlen)) {
        fault(f, NQ_E_BAD_REQUEST, "A header field name must be a token, with nothing between it and its colon.");
        return;
    }
    if (!value_ok(value, vlen)) {
        fault(f, NQ_E_BAD_REQUEST, "A header field value holds a control character (a bare CR, say).");
        return;
    }
    vlen = trim_end(value, vlen);
    if (named(name, nlen, "Host")) {
        f->hosts++;
        if (!host_value(value, vlen))
            fault(f, NQ_E_BAD_REQUEST, "The Host header must be a host name or address, with an optional ':port'.");
    } else if (named(name, nlen, "Content-Length"))
        content_length(f, value, vlen);
    else if (named(name, nlen, "Transfer-Encoding"))
        transfer_encoding(f, value, vlen);
}

void nq_framing_folded(nq_framing *f)
{
    fault(f, NQ_E_BAD_REQUEST, "A header line is folded onto the previous one (obsolete line folding).");
}

/* Transfer-Encoding present: how the body is delimited, or the fault (RFC 9112 sections 6.1, 6.3). */
static void coded(nq_framing *f, bool http11)
{
    if (!http11) fault(f, NQ_E_BAD_REQUEST, "Transfer-Encoding is not allowed in an HTTP/1.0 request.");
    if (f->lengths > 0)
        fault(f, NQ_E_BAD_REQUEST,
              "The request has both Content-Length and Transfer-Encoding: its body's end is in doubt.");
    if (!f->chunked_last)
        fault(f, NQ_E_BAD_REQUEST, "Transfer-Encoding must end with 'chunked': the body's end is in doubt.");
    if (f->chunked > 1) fault(f, NQ_E_BAD_REQUEST, "Transfer-Encoding applies 'chunked' more than once.");
    if (f->other_coding)
        fault(f, NQ_E_NOT_IMPLEMENTED,
              "Transfer-Encoding names a coding other than 'chunked', which this server does not implement.");
    f->body = NQ_FRAMING_CHUNKED;
}

nq_err nq_framing_finish(nq_framing *f, bool http11)
{
    if (http11 && f->hosts == 0) fault(f, NQ_E_BAD_REQUEST, "An HTTP/1.1 request must have a Host header.");
    if (f->hosts > 1) fault(f, NQ_E_BAD_REQUEST, "The request has more than one Host header.");
    if (f->codings > 0)
        coded(f, http11);
    else
        f->body = f->lengths == 1 && f->length > 0 ? NQ_FRAMING_LENGTH : NQ_FRAMING_NONE;
    if (f->err != NQ_OK) f->body = NQ_FRAMING_NONE;
    return f->err;
}
