/// An object that serializes itself to JSON, as MSAL for iOS/macOS's `MSALJsonSerializable`
/// (``MSALClaimsRequest`` adopts it).
public protocol MSALJsonSerializable {
    /// The object as JSON text; nil when it cannot be serialized.
    func jsonString() -> String?
}

/// An object made from JSON, as MSAL for iOS/macOS's `MSALJsonDeserializable` (``MSALClaimsRequest`` adopts it).
public protocol MSALJsonDeserializable {
    /// Reads `jsonString`.
    ///
    /// - Throws: ``MSALErrorInfo`` when it is not JSON of the object's form.
    init(jsonString: String) throws
}

extension MSALClaimsRequest: MSALJsonSerializable, MSALJsonDeserializable {}
