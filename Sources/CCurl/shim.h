#ifndef HOMEBASE_CCURL_SHIM_H
#define HOMEBASE_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt / curl_easy_getinfo are variadic and do not import into Swift:
   one typed wrapper per argument type. */
static inline CURLcode hb_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode hb_curl_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode hb_curl_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode hb_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*hb_curl_data_cb)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode hb_curl_setopt_data_cb(CURL *h, CURLoption o, hb_curl_data_cb v) { return curl_easy_setopt(h, o, v); }
typedef int (*hb_curl_xfer_cb)(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode hb_curl_setopt_xfer_cb(CURL *h, CURLoption o, hb_curl_xfer_cb v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode hb_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode hb_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
#endif
