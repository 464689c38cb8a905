/* openapi_data.h - the service's OpenAPI document (openapi.yaml), embedded at build time.
 *
 * CMake turns openapi.yaml into a generated C file, so nqueensd serves /openapi.yaml without reading
 * anything from disk and the document always matches the binary. Constant data: thread-safe.
 */
#ifndef NQ_OPENAPI_DATA_H
#define NQ_OPENAPI_DATA_H

#include <stddef.h>

extern const char nq_openapi_yaml[];     /* the document's bytes (NUL-terminated) */
extern const size_t nq_openapi_yaml_len; /* their length without the NUL */

#endif /* NQ_OPENAPI_DATA_H */
