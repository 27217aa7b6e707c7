// libcurl through dlopen: the few entry points the HTTP transport needs, with libcurl's variadic
// curl_easy_setopt and curl_easy_getinfo called with their real calling convention.

#include "CMSALCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void CURL;
typedef void CURLM;
struct curl_slist;
struct curl_blob_ { void *data; size_t len; unsigned int flags; };
struct curl_message { int msg; CURL *easy_handle; union { void *whatever; int result; } data; };

#define OPT_WRITEDATA 10001
#define OPT_WRITEFUNCTION 20011
#define OPT_HEADERDATA 10029
#define OPT_HEADERFUNCTION 20079
#define OPT_HTTPHEADER 10023
#define OPT_NOSIGNAL 99
#define OPT_POST 47
#define OPT_POSTFIELDSIZE_LARGE 30120
#define OPT_COPYPOSTFIELDS 10165
#define CURLMSG_DONE 1
#define BLOB_COPY 1

static struct {
    int (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    int (*easy_setopt)(CURL *, int, ...);
    int (*easy_getinfo)(CURL *, int, ...);
    const char *(*easy_strerror)(int);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    int (*multi_cleanup)(CURLM *);
    int (*multi_add_handle)(CURLM *, CURL *);
    int (*multi_remove_handle)(CURLM *, CURL *);
    int (*multi_perform)(CURLM *, int *);
    int (*multi_poll)(CURLM *, void *, unsigned int, int, int *);
    int (*multi_wakeup)(CURLM *);
    struct curl_message *(*multi_info_read)(CURLM *, int *);
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_reason[256];

static void load(void) {
    const char *names[] = { "libcurl.so.4", "libcurl.so" };
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        snprintf(load_reason, sizeof load_reason, "libcurl.so.4 could not be loaded (install libcurl4)");
        return;
    }
#define FIND(field, symbol) \
    do { \
        *(void **)(&api.field) = dlsym(library, symbol); \
        if (api.field == NULL) { \
            snprintf(load_reason, sizeof load_reason, "libcurl.so.4 has no %s (libcurl 7.68 or later is needed)", symbol); \
            return; \
        } \
    } while (0)
    FIND(global_init, "curl_global_init");
    FIND(easy_init, "curl_easy_init");
    FIND(easy_cleanup, "curl_easy_cleanup");
    FIND(easy_reset, "curl_easy_reset");
    FIND(easy_setopt, "curl_easy_setopt");
    FIND(easy_getinfo, "curl_easy_getinfo");
    FIND(easy_strerror, "curl_easy_strerror");
    FIND(slist_append, "curl_slist_append");
    FIND(slist_free_all, "curl_slist_free_all");
    FIND(multi_init, "curl_multi_init");
    FIND(multi_cleanup, "curl_multi_cleanup");
    FIND(multi_add_handle, "curl_multi_add_handle");
    FIND(multi_remove_handle, "curl_multi_remove_handle");
    FIND(multi_perform, "curl_multi_perform");
    FIND(multi_poll, "curl_multi_poll");
    FIND(multi_wakeup, "curl_multi_wakeup");
    FIND(multi_info_read, "curl_multi_info_read");
#undef FIND
    // CURL_GLOBAL_ALL, once, before any handle exists.
    if (api.global_init(3) != 0) {
        snprintf(load_reason, sizeof load_reason, "libcurl could not be initialised");
        return;
    }
    load_status = 0;
}

int msal_curl_load(char *reason, size_t reason_size) {
    pthread_once(&load_once, load);
    if (load_status != 0 && reason != NULL && reason_size > 0) {
        snprintf(reason, reason_size, "%s", load_reason);
    }
    return load_status;
}

/// A growing byte buffer with a limit.
struct buffer {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
    size_t limit;
    int overflowed;
};

static int buffer_append(struct buffer *buffer, const void *data, size_t length) {
    if (length > buffer->limit - buffer->length) {
        buffer->overflowed = 1;
        return 0;
    }
    if (buffer->length + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->length + length) capacity *= 2;
        uint8_t *grown = realloc(buffer->bytes, capacity);
        if (grown == NULL) return 0;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->length, data, length);
    buffer->length += length;
    return 1;
}

struct msal_curl_worker {
    CURLM *multi;
    CURL *easy;
    struct curl_slist *headers;
    struct buffer head;
    struct buffer body;
    atomic_int cancelled;
};

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    struct msal_curl_worker *worker = context;
    return buffer_append(&worker->body, data, size * count) ? size * count : 0;
}

static size_t on_header(char *data, size_t size, size_t count, void *context) {
    struct msal_curl_worker *worker = context;
    return buffer_append(&worker->head, data, size * count) ? size * count : 0;
}

msal_curl_worker *msal_curl_worker_create(void) {
    if (msal_curl_load(NULL, 0) != 0) return NULL;
    struct msal_curl_worker *worker = calloc(1, sizeof *worker);
    if (worker == NULL) return NULL;
    worker->multi = api.multi_init();
    worker->easy = api.easy_init();
    if (worker->multi == NULL || worker->easy == NULL) {
        msal_curl_worker_destroy(worker);
        return NULL;
    }
    atomic_init(&worker->cancelled, 0);
    return worker;
}

void msal_curl_worker_destroy(msal_curl_worker *worker) {
    if (worker == NULL) return;
    if (worker->easy != NULL) api.easy_cleanup(worker->easy);
    if (worker->multi != NULL) api.multi_cleanup(worker->multi);
    if (worker->headers != NULL) api.slist_free_all(worker->headers);
    free(worker->head.bytes);
    free(worker->body.bytes);
    free(worker);
}

int msal_curl_worker_reset(msal_curl_worker *worker) {
    api.easy_reset(worker->easy);
    if (worker->headers != NULL) {
        api.slist_free_all(worker->headers);
        worker->headers = NULL;
    }
    worker->head.length = 0;
    worker->head.overflowed = 0;
    worker->body.length = 0;
    worker->body.overflowed = 0;
    atomic_store(&worker->cancelled, 0);
    int result = 0;
    if ((result = api.easy_setopt(worker->easy, OPT_NOSIGNAL, 1L)) != 0) return result;
    if ((result = api.easy_setopt(worker->easy, MSAL_CURLOPT_FOLLOWLOCATION, 0L)) != 0) return result;
    if ((result = api.easy_setopt(worker->easy, OPT_WRITEFUNCTION, on_body)) != 0) return result;
    if ((result = api.easy_setopt(worker->easy, OPT_WRITEDATA, (void *)worker)) != 0) return result;
    if ((result = api.easy_setopt(worker->easy, OPT_HEADERFUNCTION, on_header)) != 0) return result;
    return api.easy_setopt(worker->easy, OPT_HEADERDATA, (void *)worker);
}

int msal_curl_set_long(msal_curl_worker *worker, int option, long value) {
    return api.easy_setopt(worker->easy, option, value);
}

int msal_curl_set_string(msal_curl_worker *worker, int option, const char *value) {
    return api.easy_setopt(worker->easy, option, value);
}

int msal_curl_set_offset(msal_curl_worker *worker, int option, int64_t value) {
    return api.easy_setopt(worker->easy, option, (int64_t)value);
}

int msal_curl_set_blob(msal_curl_worker *worker, int option, const void *data, size_t length) {
    struct curl_blob_ blob = { (void *)data, length, BLOB_COPY };
    return api.easy_setopt(worker->easy, option, &blob);
}

int msal_curl_add_header(msal_curl_worker *worker, const char *line) {
    struct curl_slist *list = api.slist_append(worker->headers, line);
    if (list == NULL) return MSAL_CURLE_OUT_OF_MEMORY;
    worker->headers = list;
    return api.easy_setopt(worker->easy, OPT_HTTPHEADER, worker->headers);
}

int msal_curl_set_body(msal_curl_worker *worker, const void *data, size_t length) {
    int result = api.easy_setopt(worker->easy, OPT_POST, 1L);
    if (result != 0) return result;
    // The size first, so that COPYPOSTFIELDS copies exactly `length` bytes (the body may hold zero bytes).
    if ((result = api.easy_setopt(worker->easy, OPT_POSTFIELDSIZE_LARGE, (int64_t)length)) != 0) return result;
    static const char empty[1] = { 0 };
    return api.easy_setopt(worker->easy, OPT_COPYPOSTFIELDS, length > 0 ? data : (const void *)empty);
}

int msal_curl_perform(msal_curl_worker *worker, size_t body_limit) {
    worker->body.limit = body_limit;
    // libcurl refuses a head over 100 kB itself; this bounds the interim and proxy heads kept beside it.
    worker->head.limit = 1 << 20;
    if (atomic_load(&worker->cancelled)) return MSAL_CURLE_ABORTED_BY_CALLBACK;
    int result = api.multi_add_handle(worker->multi, worker->easy);
    if (result != 0) return MSAL_CURLE_OUT_OF_MEMORY;
    int outcome = -2;
    for (;;) {
        int running = 0;
        if (api.multi_perform(worker->multi, &running) != 0) {
            outcome = MSAL_CURLE_OUT_OF_MEMORY;
            break;
        }
        int queued = 0;
        struct curl_message *message;
        while ((message = api.multi_info_read(worker->multi, &queued)) != NULL) {
            if (message->msg == CURLMSG_DONE && message->easy_handle == worker->easy) outcome = message->data.result;
        }
        if (outcome != -2) break;
        if (atomic_load(&worker->cancelled)) {
            outcome = MSAL_CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        // Waits for the sockets, libcurl's own timers (the request's timeout among them), or a wake-up from
        // msal_curl_cancel; the second is only an upper bound on one wait.
        if (api.multi_poll(worker->multi, NULL, 0, 1000, NULL) != 0) {
            outcome = MSAL_CURLE_OUT_OF_MEMORY;
            break;
        }
    }
    api.multi_remove_handle(worker->multi, worker->easy);
    return outcome;
}

void msal_curl_cancel(msal_curl_worker *worker) {
    atomic_store(&worker->cancelled, 1);
    api.multi_wakeup(worker->multi);
}

const uint8_t *msal_curl_headers(const msal_curl_worker *worker, size_t *length) {
    *length = worker->head.length;
    return worker->head.bytes;
}

const uint8_t *msal_curl_body(const msal_curl_worker *worker, size_t *length) {
    *length = worker->body.length;
    return worker->body.bytes;
}

int msal_curl_body_overflowed(const msal_curl_worker *worker) {
    return worker->body.overflowed;
}

long msal_curl_info_long(msal_curl_worker *worker, int info) {
    long value = 0;
    return api.easy_getinfo(worker->easy, info, &value) == 0 ? value : 0;
}

const char *msal_curl_info_string(msal_curl_worker *worker, int info) {
    char *value = NULL;
    return api.easy_getinfo(worker->easy, info, &value) == 0 ? value : NULL;
}

const char *msal_curl_strerror(int code) {
    if (load_status != 0) return load_reason;
    const char *text = api.easy_strerror(code);
    return text != NULL ? text : "unknown libcurl error";
}
