// The PostgreSQL cache is built on postgres-nio, which the package resolves only with its `PostgresCache` trait.
#if !PostgresCache
#error("MSALPostgresCache needs the package trait PostgresCache: .package(url: ..., from: ..., traits: [\"PostgresCache\"])")
#endif
