/*
 * http_global.c - curl's process-wide initialisation, for the command line
 * to call once (only src/judge/ includes curl.h).
 */
#include <curl/curl.h>

#include "arbiter/http.h"

enum arb_status arb_http_global_init(void)
{
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? ARB_OK : ARB_EINTERNAL;
}

int arb_http_global_init_threadsafe(void)
{
#ifdef CURL_VERSION_THREADSAFE
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);

    return v && (v->features & CURL_VERSION_THREADSAFE) != 0;
#else
    return 0;
#endif
}

void arb_http_global_cleanup(void)
{
    curl_global_cleanup();
}
