/* flush.c - sum the unacknowledged bytes on one local TCP port from /proc/net/tcp{,6} (see flush.h).
 *
 * A line of /proc/net/tcp (tcp6 has 32 hex digits of address instead of 8):
 *   "  12: 0100007F:1F90 0100007F:C350 01 0001A2B0:00000000 ..."
 *   slot   local addr:port  remote addr:port  state  tx_queue:rx_queue
 * Ports and queues are hexadecimal. A listening socket (state 0A) reports its backlog limit as
 * tx_queue, so it is skipped.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "ops/flush.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TCP_LISTEN 0x0Au

/* Parse a hex field ending in `end` at *p; advances *p past it. False if it is not one. */
static bool hex_field(const char **p, char end, unsigned long *out)
{
    char *e = NULL;
    const unsigned long v = strtoul(*p, &e, 16);
    if (e == *p || *e != end) return false;
    *out = v;
    *p = e + 1;
    return true;
}

/* The tx_queue of one line if its local port is port and it is not listening, else 0. */
static uint64_t line_pending(const char *line, uint16_t port)
{
    const char *p = strchr(line, ':'); /* after the slot number */
    if (p == NULL) return 0;
    p = strchr(p + 1, ':'); /* between local address and port */
    unsigned long local_port = 0, remote = 0, state = 0, tx = 0;
    if (p == NULL) return 0;
    p++;
    if (!hex_field(&p, ' ', &local_port) || local_port != port) return 0;
    p = strchr(p, ':'); /* the remote address's port */
    if (p == NULL) return 0;
    p++;
    if (!hex_field(&p, ' ', &remote) || !hex_field(&p, ' ', &state) || !hex_field(&p, ':', &tx)) return 0;
    return state == TCP_LISTEN ? 0 : (uint64_t)tx;
}

static uint64_t file_pending(const char *path, uint16_t port)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    uint64_t sum = 0;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL)
        sum += line_pending(line, port); /* the header line has no such port: 0 */
    fclose(f);
    return sum;
}

uint64_t nq_flush_pending(uint16_t port)
{
    return file_pending("/proc/net/tcp", port) + file_pending("/proc/net/tcp6", port);
}
