/*
 * http_global.c - curl's process-wide initialisation, for main() to call
 * once (only src/judge/ includes curl.h).
 */
#include <curl/curl.h>

#include "arbiter/http.h"

enum arb_status arb_http_global_init(void)
{
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? ARB_OK : ARB_EINTERNAL;
}

void arb_http_global_cleanup(void)
{
    curl_global_cleanup();
}
