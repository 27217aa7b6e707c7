#ifndef CMSALCURL_H
#define CMSALCURL_H

#include <stddef.h>
#include <stdint.h>

/// libcurl, loaded at run time (libcurl.so.4, which every Linux system with curl has): a build needs no curl
/// headers and no development package, and a program that never sends a request never loads it.
///
/// A worker is one easy handle in a multi handle of its own: the multi handle keeps the worker's connections for
/// reuse, and its poll can be woken from another thread, so a transfer is cancelled at once. A worker runs one
/// transfer at a time; msal_curl_cancel may be called from any thread.

/// The libcurl error codes (CURLcode) this shim returns itself.
#define MSAL_CURLE_OK 0
#define MSAL_CURLE_OUT_OF_MEMORY 27
#define MSAL_CURLE_ABORTED_BY_CALLBACK 42
#define MSAL_CURLE_WRITE_ERROR 23
#define MSAL_CURLE_NOT_LOADED (-1)

/// The options the transport sets (CURLoption values: the type's base plus the option's number).
#define MSAL_CURLOPT_URL 10002
#define MSAL_CURLOPT_PROXY 10004
#define MSAL_CURLOPT_CUSTOMREQUEST 10036
#define MSAL_CURLOPT_NOBODY 44
#define MSAL_CURLOPT_HTTPGET 80
#define MSAL_CURLOPT_FOLLOWLOCATION 52
#define MSAL_CURLOPT_HTTPPROXYTUNNEL 61
#define MSAL_CURLOPT_CAINFO 10065
#define MSAL_CURLOPT_CAPATH 10097
#define MSAL_CURLOPT_CAINFO_BLOB 40309
#define MSAL_CURLOPT_PROXYUSERNAME 10175
#define MSAL_CURLOPT_PROXYPASSWORD 10176
#define MSAL_CURLOPT_NOPROXY 10177
#define MSAL_CURLOPT_TIMEOUT_MS 155
#define MSAL_CURLOPT_CONNECTTIMEOUT_MS 156
#define MSAL_CURLOPT_MAXAGE_CONN 288
#define MSAL_CURLOPT_PROTOCOLS_STR 10318
#define MSAL_CURLOPT_MAXFILESIZE_LARGE 30117

/// The information read after a transfer (CURLINFO values).
#define MSAL_CURLINFO_RESPONSE_CODE 0x200002
#define MSAL_CURLINFO_HTTP_CONNECTCODE 0x200016
#define MSAL_CURLINFO_OS_ERRNO 0x200019
#define MSAL_CURLINFO_CAINFO 0x10003D
#define MSAL_CURLINFO_CAPATH 0x10003E

typedef struct msal_curl_worker msal_curl_worker;

/// Loads libcurl once (later calls return the first outcome). 0 when loaded; otherwise -1, with why in `reason`.
int msal_curl_load(char *reason, size_t reason_size);

/// A new worker, or NULL (libcurl not loaded, or out of memory). Destroying it closes its connections.
msal_curl_worker *msal_curl_worker_create(void);
void msal_curl_worker_destroy(msal_curl_worker *worker);

/// Forgets the previous transfer's options, headers, body and outcome (the connections stay) and clears a
/// cancellation. Sets what every transfer has: no signals, no redirects, the response collected by the worker.
int msal_curl_worker_reset(msal_curl_worker *worker);

/// curl_easy_setopt for a long, a string (copied by libcurl), an offset, or a blob (copied). Return a CURLcode.
int msal_curl_set_long(msal_curl_worker *worker, int option, long value);
int msal_curl_set_string(msal_curl_worker *worker, int option, const char *value);
int msal_curl_set_offset(msal_curl_worker *worker, int option, int64_t value);
int msal_curl_set_blob(msal_curl_worker *worker, int option, const void *data, size_t length);

/// Adds one request header line (`Name: value`, or `Name:` to remove a header libcurl adds). 0, or 27.
int msal_curl_add_header(msal_curl_worker *worker, const char *line);

/// The request body (copied), sent with the method set by CUSTOMREQUEST (POST when none is set).
int msal_curl_set_body(msal_curl_worker *worker, const void *data, size_t length);

/// Runs the transfer to its end, collecting the response head and at most `body_limit` bytes of body (more fails
/// with 23 and `msal_curl_body_overflowed`). Returns the CURLcode; 42 when cancelled.
int msal_curl_perform(msal_curl_worker *worker, size_t body_limit);

/// Cancels the transfer running on the worker (or the next one, until the next reset). Any thread.
void msal_curl_cancel(msal_curl_worker *worker);

/// What the last transfer received: the raw header lines of every response head (interim and proxy ones
/// included), and the body.
const uint8_t *msal_curl_headers(const msal_curl_worker *worker, size_t *length);
const uint8_t *msal_curl_body(const msal_curl_worker *worker, size_t *length);
int msal_curl_body_overflowed(const msal_curl_worker *worker);

/// curl_easy_getinfo for a long (0 when unknown) or a string (NULL when unknown; owned by libcurl).
long msal_curl_info_long(msal_curl_worker *worker, int info);
const char *msal_curl_info_string(msal_curl_worker *worker, int info);

/// libcurl's description of a CURLcode (never NULL).
const char *msal_curl_strerror(int code);

#endif
