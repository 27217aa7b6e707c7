public import Foundation

/// Which token a claim request applies to.
public enum MSALClaimsRequestTarget: Int, Sendable {
    case idToken = 0
    case accessToken = 1

    var key: String { self == .idToken ? "id_token" : "access_token" }
}

/// Extra information for one requested claim: `essential`, `value` or `values`.
public final class MSALIndividualClaimRequestAdditionalInfo: @unchecked Sendable {
    /// Whether the claim is essential.
    @MSALLocked public var essentialFlag: Bool?
    @MSALLocked var valueJSON: JSONValue?
    @MSALLocked var valuesJSON: [JSONValue]?

    /// Creates empty additional information.
    public init() {}

    /// Whether the claim is essential, as `NSNumber` (MSAL's shape).
    public var essential: NSNumber? {
        get { essentialFlag.map { NSNumber(value: $0) } }
        set { essentialFlag = newValue?.boolValue }
    }
    /// The requested value (a string, number or boolean).
    public var value: Any? {
        get { valueJSON?.foundationValue }
        set { valueJSON = newValue.flatMap { JSONValue(foundation: $0) } }
    }
    /// The requested values.
    public var values: [Any]? {
        get { valuesJSON?.map(\.foundationValue) }
        set { valuesJSON = newValue?.compactMap { JSONValue(foundation: $0) } }
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let essentialFlag { object["essential"] = .bool(essentialFlag) }
        if let valueJSON { object["value"] = valueJSON }
        if let valuesJSON { object["values"] = .array(valuesJSON) }
        return object.isEmpty ? .null : .object(object)
    }
}

/// One requested claim.
public final class MSALIndividualClaimRequest: @unchecked Sendable {
    /// The claim name.
    public let name: String
    /// Extra information (`essential`, `value`, `values`).
    @MSALLocked public var additionalInfo: MSALIndividualClaimRequestAdditionalInfo?

    /// Creates a request for claim `name`.
    public init(name: String) { self.name = name }
}

/// An OpenID Connect claims request (the `claims` parameter), such as a claims challenge from a resource.
public final class MSALClaimsRequest: @unchecked Sendable, CustomStringConvertible {
    private let state = LockedBox<[String: JSONValue]>([:])

    /// Creates an empty claims request.
    public init() {}

    /// Parses a claims request from its JSON form, for example a claims challenge.
    public init(jsonString: String) throws {
        guard let object = JSONValue.parseObject(Data(jsonString.utf8)) else {
            throw MSALErrorInfo.invalidParameter("The claims request is not a JSON object.")
        }
        state.set(object)
    }

    /// The JSON form, as sent in the `claims` parameter.
    public func jsonString() -> String? {
        JSONText.serialize(.object(state.get()))
    }

    /// Adds `request` for `target`.
    public func requestClaim(_ request: MSALIndividualClaimRequest, for target: MSALClaimsRequestTarget) throws {
        guard !request.name.isEmpty else { throw MSALErrorInfo.invalidParameter("A claim request needs a name.") }
        state.withLock { object in
            var section = object[target.key]?.objectValue ?? [:]
            section[request.name] = request.additionalInfo?.json ?? .null
            object[target.key] = .object(section)
        }
    }

    /// Removes the claim named `name` from `target`.
    public func removeClaimRequest(withName name: String, target: MSALClaimsRequestTarget) throws {
        state.withLock { object in
            guard var section = object[target.key]?.objectValue else { return }
            section[name] = nil
            object[target.key] = section.isEmpty ? nil : .object(section)
        }
    }

    /// The claims requested for `target`.
    public func claimsRequests(for target: MSALClaimsRequestTarget) -> [MSALIndividualClaimRequest] {
        let section = state.get()[target.key]?.objectValue ?? [:]
        return section.keys.sorted().map { name in
            let request = MSALIndividualClaimRequest(name: name)
            if case .object(let info)? = section[name] {
                let additional = MSALIndividualClaimRequestAdditionalInfo()
                if case .bool(let b)? = info["essential"] { additional.essentialFlag = b }
                additional.valueJSON = info["value"]
                additional.valuesJSON = info["values"]?.arrayValue
                request.additionalInfo = additional
            }
            return request
        }
    }

    var object: [String: JSONValue] { state.get() }

    public var description: String { jsonString() ?? "{}" }
}
