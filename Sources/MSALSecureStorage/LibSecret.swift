import Foundation
import MSALCore

/// What the Secret Service storage needs from a secret store: libsecret's simple password API (store, look up,
/// clear by schema name and attributes). Tests put other stores behind it (a locked keyring, an absent service).
protocol SecretServiceBackend: Sendable {
    /// Stores `secret` (text) under `schema` and `attributes`, replacing the item with the same ones.
    func store(schema: String, attributes: [String: String], label: String, collection: String?, secret: String) throws
    /// The secret under `schema` and `attributes`, or nil when there is none.
    func lookup(schema: String, attributes: [String: String]) throws -> String?
    /// Removes the items under `schema` and `attributes`; whether there were any.
    @discardableResult
    func clear(schema: String, attributes: [String: String]) throws -> Bool
}

/// The Secret Service through libsecret, loaded at run time once per process: the backend of the Secret Service
/// stores.
///
/// - Throws: ``MSALErrorInfo`` (underlying ``MSALTokenCacheProtectionError/secretServiceFailed(_:)``) when libsecret
///   cannot be loaded, or on platforms other than Linux.
func libSecretBackend() throws -> any SecretServiceBackend {
    #if os(Linux)
    switch LibSecret.shared {
    case .success(let library): return library
    case .failure(let error): throw error.errorInfo(file: nil)
    }
    #else
    throw MSALTokenCacheProtectionError.secretServiceFailed("the Secret Service is used on Linux only").errorInfo(file: nil)
    #endif
}

#if os(Linux)
/// libsecret (`libsecret-1.so.0`), loaded with `dlopen` on first use so that MSAL does not need it to start.
///
/// It uses the non-variadic `...v_sync` functions with GLib hash tables of attributes; every attribute is a
/// string attribute (`SECRET_SCHEMA_ATTRIBUTE_STRING`), and the schema has no flags, so libsecret adds and
/// matches the `xdg:schema` attribute: the schema name alone tells items apart, as msal-extensions relies on.
final class LibSecret: SecretServiceBackend, @unchecked Sendable {
    private typealias HashTableNew = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> OpaquePointer?
    private typealias HashTableInsert = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32
    private typealias HashTableUnref = @convention(c) (OpaquePointer?) -> Void
    private typealias ErrorFree = @convention(c) (UnsafeMutableRawPointer?) -> Void
    private typealias SchemaNew = @convention(c) (UnsafePointer<CChar>?, Int32, OpaquePointer?) -> OpaquePointer?
    private typealias SchemaUnref = @convention(c) (OpaquePointer?) -> Void
    private typealias Store = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                              UnsafePointer<CChar>?, OpaquePointer?,
                                              UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32
    private typealias Lookup = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?,
                                               UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> UnsafeMutablePointer<CChar>?
    private typealias Clear = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?,
                                              UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32
    private typealias PasswordFree = @convention(c) (UnsafeMutablePointer<CChar>?) -> Void

    /// The library's file name.
    static let libraryName = "libsecret-1.so.0"

    private let strHash: UnsafeMutableRawPointer
    private let strEqual: UnsafeMutableRawPointer
    private let hashTableNew: HashTableNew
    private let hashTableInsert: HashTableInsert
    private let hashTableUnref: HashTableUnref
    private let errorFree: ErrorFree
    private let schemaNew: SchemaNew
    private let schemaUnref: SchemaUnref
    private let storeV: Store
    private let lookupV: Lookup
    private let clearV: Clear
    private let passwordFree: PasswordFree
    /// libsecret's synchronous calls run one at a time.
    private let lock = NSLock()

    /// The loaded library, or why it could not be loaded (once per process).
    static let shared: Result<LibSecret, MSALTokenCacheProtectionError> = Result { try LibSecret() }
        .mapError { $0 as? MSALTokenCacheProtectionError ?? .secretServiceFailed("\($0)") }

    private init() throws {
        guard let handle = dlopen(Self.libraryName, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw MSALTokenCacheProtectionError.secretServiceFailed("\(Self.libraryName) could not be loaded (\(reason))")
        }
        func symbol(_ name: String) throws -> UnsafeMutableRawPointer {
            // dlsym on the library's handle also finds the symbols of its dependencies (GLib).
            guard let pointer = dlsym(handle, name) else {
                throw MSALTokenCacheProtectionError.secretServiceFailed("\(Self.libraryName) has no \(name)")
            }
            return pointer
        }
        strHash = try symbol("g_str_hash")
        strEqual = try symbol("g_str_equal")
        hashTableNew = unsafeBitCast(try symbol("g_hash_table_new"), to: HashTableNew.self)
        hashTableInsert = unsafeBitCast(try symbol("g_hash_table_insert"), to: HashTableInsert.self)
        hashTableUnref = unsafeBitCast(try symbol("g_hash_table_unref"), to: HashTableUnref.self)
        errorFree = unsafeBitCast(try symbol("g_error_free"), to: ErrorFree.self)
        schemaNew = unsafeBitCast(try symbol("secret_schema_newv"), to: SchemaNew.self)
        schemaUnref = unsafeBitCast(try symbol("secret_schema_unref"), to: SchemaUnref.self)
        storeV = unsafeBitCast(try symbol("secret_password_storev_sync"), to: Store.self)
        lookupV = unsafeBitCast(try symbol("secret_password_lookupv_sync"), to: Lookup.self)
        clearV = unsafeBitCast(try symbol("secret_password_clearv_sync"), to: Clear.self)
        passwordFree = unsafeBitCast(try symbol("secret_password_free"), to: PasswordFree.self)
    }

    func store(schema: String, attributes: [String: String], label: String, collection: String?, secret: String) throws {
        try call(schema: schema, attributes: attributes) { schemaPointer, table, error in
            let stored = label.withCString { labelPointer in
                secret.withCString { secretPointer in
                    if let collection {
                        return collection.withCString {
                            storeV(schemaPointer, table, $0, labelPointer, secretPointer, nil, error)
                        }
                    }
                    return storeV(schemaPointer, table, nil, labelPointer, secretPointer, nil, error)
                }
            }
            return stored != 0
        }
    }

    func lookup(schema: String, attributes: [String: String]) throws -> String? {
        var found: String?
        try call(schema: schema, attributes: attributes) { schemaPointer, table, error in
            let password = lookupV(schemaPointer, table, nil, error)
            if let password {
                found = String(cString: password)
                passwordFree(password)
            }
            return true
        }
        return found
    }

    @discardableResult
    func clear(schema: String, attributes: [String: String]) throws -> Bool {
        var removed = false
        try call(schema: schema, attributes: attributes) { schemaPointer, table, error in
            removed = clearV(schemaPointer, table, nil, error) != 0
            return true
        }
        return removed
    }

    /// Builds the schema and the attribute table, runs `body`, and turns a `GError` into a thrown error.
    private func call(schema: String, attributes: [String: String],
                      _ body: (OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Bool) throws {
        lock.lock()
        defer { lock.unlock() }
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer { strings.forEach { free($0) } }
        func copy(_ text: String) -> UnsafeMutableRawPointer {
            let pointer = strdup(text)!
            strings.append(pointer)
            return UnsafeMutableRawPointer(pointer)
        }
        // The schema's attribute types (all SECRET_SCHEMA_ATTRIBUTE_STRING, which is 0) and the attribute values.
        let types = hashTableNew(strHash, strEqual)
        let values = hashTableNew(strHash, strEqual)
        defer {
            hashTableUnref(types)
            hashTableUnref(values)
        }
        for (name, value) in attributes {
            _ = hashTableInsert(types, copy(name), nil)
            _ = hashTableInsert(values, copy(name), copy(value))
        }
        let schemaPointer = schema.withCString { schemaNew($0, 0, types) }
        defer { schemaUnref(schemaPointer) }
        var error: UnsafeMutableRawPointer?
        let succeeded = body(schemaPointer, values, &error)
        if let error {
            // GError: guint32 domain, gint code, gchar *message.
            let message = error.load(fromByteOffset: 8, as: UnsafeMutablePointer<CChar>?.self)
                .map { String(cString: $0) } ?? "unknown error"
            errorFree(error)
            throw MSALTokenCacheProtectionError.secretServiceFailed(message)
        }
        if !succeeded { throw MSALTokenCacheProtectionError.secretServiceFailed("the request was not carried out") }
    }
}
#endif
