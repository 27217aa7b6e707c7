#ifndef CMSALKEYCTL_H
#define CMSALKEYCTL_H

#include <stddef.h>
#include <stdint.h>

/// The Linux kernel key retention service through its system calls (no libkeyutils needed). Each function returns
/// what the system call returns (-1 with errno set on failure); on other systems they fail with ENOSYS.

/// The special keyring ids (KEY_SPEC_*).
#define MSAL_KEY_SPEC_SESSION_KEYRING (-3)
#define MSAL_KEY_SPEC_USER_KEYRING (-4)

/// add_key(2) of a "user" key: creates the key, or updates the payload of the key with this description in the
/// keyring. Returns the key's serial number.
int32_t msal_keyctl_add_user_key(const char *description, const void *payload, size_t length, int32_t keyring);

/// keyctl(KEYCTL_SEARCH) for a "user" key by description in the keyring (and the keyrings it links). Returns the
/// key's serial number; -1 with ENOKEY when there is none.
int32_t msal_keyctl_search_user_key(int32_t keyring, const char *description);

/// keyctl(KEYCTL_READ): copies up to `length` bytes of the key's payload; returns the payload's full size.
long msal_keyctl_read(int32_t key, void *buffer, size_t length);

/// keyctl(KEYCTL_SETPERM).
long msal_keyctl_set_permissions(int32_t key, uint32_t permissions);

/// keyctl(KEYCTL_INVALIDATE): the key is gone at once for everyone.
long msal_keyctl_invalidate(int32_t key);

#endif
