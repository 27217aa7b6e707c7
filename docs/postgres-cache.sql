-- The schema of the PostgreSQL token cache (MSALPostgresCache), for the default table name `msal_token_cache`.
-- MSALPostgresTokenCache.prepareSchema() runs the same statements (under an advisory lock, one instance at a time);
-- apply this file yourself when the application's database user may not create tables.
-- Plain SQL: no extension, no procedural language.

CREATE TABLE IF NOT EXISTS msal_schema_version (
    component text PRIMARY KEY,
    version integer NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Row versions come from one sequence: a partition deleted and written again never reuses a version.
CREATE SEQUENCE IF NOT EXISTS msal_token_cache_version_seq;

-- One row per partition: a user's tokens (home account id), an application's own tokens (<client id>_<tenant>),
-- or on-behalf-of tokens (the hash of the incoming assertion).
CREATE TABLE IF NOT EXISTS msal_token_cache (
    partition_key text PRIMARY KEY,
    data bytea NOT NULL,            -- AES-GCM: 12-byte nonce, the encrypted unified cache document, 16-byte tag
    version bigint NOT NULL,        -- new on every write (compare-and-set by the writers)
    key_id text NOT NULL,           -- the key ring's id of the key `data` is encrypted with
    expires_at timestamptz NOT NULL,-- when the partition's last useful token expires: deleted after it
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS msal_token_cache_expires_at ON msal_token_cache (expires_at);

INSERT INTO msal_schema_version (component, version) VALUES ('token_cache:msal_token_cache', 1)
    ON CONFLICT (component) DO NOTHING;

-- Change notifications (sent by every write, in the same statement): channel msal_token_cache_changes,
-- payload '<version> <partition_key>'.
-- Eviction: DELETE FROM msal_token_cache WHERE expires_at < now();  (MSALPostgresTokenCache.deleteExpired())
