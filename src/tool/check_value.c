/* check_value.c - the check value of the files the tools write (check_value.h). */
#include "check_value.h"

#include <zlib.h>

uint32_t nq_check_value(const void *data, size_t len)
{
    const Bytef *bytes = data;
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t at = 0; at < len;) { /* crc32 takes a uInt length */
        const uInt step = len - at > 1u << 30 ? 1u << 30 : (uInt)(len - at);
        crc = crc32(crc, bytes + at, step);
        at += step;
    }
    return (uint32_t)crc;
}
