#include "CMSALKeyctl.h"

#include <errno.h>

#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>

#define MSAL_KEYCTL_SETPERM 5
#define MSAL_KEYCTL_SEARCH 10
#define MSAL_KEYCTL_READ 11
#define MSAL_KEYCTL_INVALIDATE 21

int32_t msal_keyctl_add_user_key(const char *description, const void *payload, size_t length, int32_t keyring) {
    return (int32_t)syscall(SYS_add_key, "user", description, payload, length, keyring);
}

int32_t msal_keyctl_search_user_key(int32_t keyring, const char *description) {
    return (int32_t)syscall(SYS_keyctl, MSAL_KEYCTL_SEARCH, keyring, "user", description, 0);
}

long msal_keyctl_read(int32_t key, void *buffer, size_t length) {
    return syscall(SYS_keyctl, MSAL_KEYCTL_READ, key, buffer, length);
}

long msal_keyctl_set_permissions(int32_t key, uint32_t permissions) {
    return syscall(SYS_keyctl, MSAL_KEYCTL_SETPERM, key, permissions);
}

long msal_keyctl_invalidate(int32_t key) {
    return syscall(SYS_keyctl, MSAL_KEYCTL_INVALIDATE, key);
}

#else

int32_t msal_keyctl_add_user_key(const char *description, const void *payload, size_t length, int32_t keyring) {
    (void)description; (void)payload; (void)length; (void)keyring;
    errno = ENOSYS;
    return -1;
}

int32_t msal_keyctl_search_user_key(int32_t keyring, const char *description) {
    (void)keyring; (void)description;
    errno = ENOSYS;
    return -1;
}

long msal_keyctl_read(int32_t key, void *buffer, size_t length) {
    (void)key; (void)buffer; (void)length;
    errno = ENOSYS;
    return -1;
}

long msal_keyctl_set_permissions(int32_t key, uint32_t permissions) {
    (void)key; (void)permissions;
    errno = ENOSYS;
    return -1;
}

long msal_keyctl_invalidate(int32_t key) {
    (void)key;
    errno = ENOSYS;
    return -1;
}

#endif
