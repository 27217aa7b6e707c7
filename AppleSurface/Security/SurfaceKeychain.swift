// The stand-in's in-memory keychain behind the SecItem functions (not Apple API): generic-password items in access
// groups the app is entitled to, and keys and certificates a test places (with their references), matched on the
// attributes a query names, with the status codes the keychain returns. Tests arrange entitlements and failures through it and read back what was stored.

public import Foundation

/// The in-memory keychain of the SecItem stand-ins, and its test controls.
public final class SurfaceKeychain: @unchecked Sendable {
    /// The keychain every SecItem function of this stand-in uses.
    public static let shared = SurfaceKeychain()

    /// One stored item: its attributes (attribute key → value, as a query names them) and its data.
    public struct Item: @unchecked Sendable {
        public var attributes: [String: Any]
        public var data: Data?
        /// Whether the item is in the data-protection keychain (always on iOS; on macOS only when added with
        /// `kSecUseDataProtectionKeychain`, else it is in the file-based keychain, which other queries do not see).
        public var inDataProtectionKeychain: Bool
        /// The item's class (`kSecClass`): a generic password unless a test placed a key or certificate.
        public var itemClass: String = kSecClassGenericPassword as String
        /// A key's `SecKey` or a certificate's `SecCertificate` (`kSecValueRef`).
        public var reference: AnyObject?

        public var accessGroup: String? { attributes[kSecAttrAccessGroup as String] as? String }
        public var account: String? { attributes[kSecAttrAccount as String] as? String }
        public var service: String? { attributes[kSecAttrService as String] as? String }
        public var generic: Data? { attributes[kSecAttrGeneric as String] as? Data }
        public var type: Int? { (attributes[kSecAttrType as String] as? NSNumber)?.intValue }
    }

    private let lock = NSLock()
    private var items: [Item] = []
    private var entitled: [String] = []
    private var failures: [OSStatus] = []
    private var addFailure: OSStatus?

    /// Empties the keychain and sets the access groups the app is entitled to (the first is the default group of
    /// an item added without one). No group at all: every call fails with `errSecMissingEntitlement`, as for an
    /// app signed without the keychain-sharing entitlement.
    public func reset(entitledAccessGroups: [String]) {
        lock.withLock { items = []; entitled = entitledAccessGroups; failures = []; addFailure = nil }
    }

    /// Every `SecItemAdd` fails with `status` (nil: adds work again), as when the device is locked.
    public func failAdds(with status: OSStatus?) {
        lock.withLock { addFailure = status }
    }

    /// The next calls (one status per call) fail with these statuses instead of running.
    public func failNextCalls(with statuses: [OSStatus]) {
        lock.withLock { failures += statuses }
    }

    /// Places a key (`kSecClassKey`, `reference` a ``SecKey``) or a certificate (`kSecClassCertificate`, a
    /// ``SecCertificate``) with `attributes`, in the data-protection keychain or (macOS) the file-based one; an item
    /// of the file-based keychain has no access group.
    public func surfacePlace(_ itemClass: CFString, attributes: [String: Any], reference: AnyObject, dataProtection: Bool = true) {
        lock.withLock {
            var item = Item(attributes: attributes, data: nil, inDataProtectionKeychain: dataProtection)
            item.itemClass = itemClass as String
            item.reference = reference
            items.append(item)
        }
    }

    /// Places a generic password with `attributes` and `data` (test control), as another app of the team wrote it.
    public func surfacePlacePassword(attributes: [String: Any], data: Data? = nil, dataProtection: Bool = true) {
        lock.withLock { items.append(Item(attributes: attributes, data: data, inDataProtectionKeychain: dataProtection)) }
    }

    /// Makes the keys of `SecKeyCreateRandomKey`: given the key type (`kSecAttrKeyType`) and size in bits, a private
    /// key whose ``SecKey`` public key and external representation are set (test control; nil: key creation fails).
    public var surfaceKeyMaker: (@Sendable (String, Int) -> SecKey?)? {
        get { lock.withLock { keyMaker } }
        set { lock.withLock { keyMaker = newValue } }
    }
    private var keyMaker: (@Sendable (String, Int) -> SecKey?)?

    /// Every stored item, in the order they were added.
    public var storedItems: [Item] { lock.withLock { items } }

    // MARK: The SecItem functions

    /// `SecKeyCreateRandomKey`: a new key from the key maker; a permanent one is stored as a key item with the
    /// request's attributes and its private key attributes (tag), in its access group (default: the first entitled).
    func createRandomKey(_ parameters: CFDictionary) -> (SecKey?, OSStatus) {
        lock.withLock {
            if let failure = takeFailure() ?? addFailure { return (nil, failure) }
            var fields = Self.fields(parameters)
            let privateAttributes = (fields.removeValue(forKey: kSecPrivateKeyAttrs as String) as? NSDictionary).map(Self.fields) ?? [:]
            let type = fields[kSecAttrKeyType as String] as? String ?? ""
            let bits = (fields[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue ?? 0
            guard let key = keyMaker?(type, bits) else { return (nil, errSecParam) }
            guard privateAttributes[kSecAttrIsPermanent as String] as? Bool == true else { return (key, errSecSuccess) }
            guard let defaultGroup = entitled.first else { return (nil, errSecMissingEntitlement) }
            let group = fields[kSecAttrAccessGroup as String] as? String ?? defaultGroup
            guard entitled.contains(group) else { return (nil, errSecMissingEntitlement) }
            fields[kSecAttrAccessGroup as String] = group
            let dataProtection = Self.dataProtection(fields)
            fields.removeValue(forKey: kSecUseDataProtectionKeychain as String)
            for (name, value) in privateAttributes where name != kSecAttrIsPermanent as String { fields[name] = value }
            var item = Item(attributes: fields, data: nil, inDataProtectionKeychain: dataProtection)
            item.itemClass = kSecClassKey as String
            item.reference = key
            items.append(item)
            return (key, errSecSuccess)
        }
    }

    func add(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        lock.withLock {
            if let failure = takeFailure() ?? addFailure { return failure }
            var fields = Self.fields(attributes)
            guard fields[kSecClass as String] as? String == kSecClassGenericPassword as String else { return errSecParam }
            guard let defaultGroup = entitled.first else { return errSecMissingEntitlement }
            let group = fields[kSecAttrAccessGroup as String] as? String ?? defaultGroup
            guard entitled.contains(group) else { return errSecMissingEntitlement }
            fields[kSecAttrAccessGroup as String] = group
            let data = fields.removeValue(forKey: kSecValueData as String) as? Data
            let returnAttributes = fields.removeValue(forKey: kSecReturnAttributes as String) as? Bool ?? false
            fields.removeValue(forKey: kSecReturnData as String)
            let dataProtection = Self.dataProtection(fields)
            fields.removeValue(forKey: kSecUseDataProtectionKeychain as String)
            let item = Item(attributes: fields, data: data, inDataProtectionKeychain: dataProtection)
            let primary = { (other: Item) in
                other.inDataProtectionKeychain == item.inDataProtectionKeychain
                    && other.accessGroup == item.accessGroup && (other.account ?? "") == (item.account ?? "")
                    && (other.service ?? "") == (item.service ?? "")
            }
            guard !items.contains(where: primary) else { return errSecDuplicateItem }
            items.append(item)
            if returnAttributes { result?.pointee = Self.attributesObject(item, data: false) }
            return errSecSuccess
        }
    }

    func copyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        lock.withLock {
            if let failure = takeFailure() { return failure }
            let fields = Self.fields(query)
            let (matched, status) = lookup(fields)
            guard status == errSecSuccess else { return status }
            let returnData = fields[kSecReturnData as String] as? Bool ?? false
            let returnAttributes = fields[kSecReturnAttributes as String] as? Bool ?? false
            let returnRef = fields[kSecReturnRef as String] as? Bool ?? false
            let all = fields[kSecMatchLimit as String] as? String == kSecMatchLimitAll as String
            let results: [AnyObject] = matched.map { item in
                if returnAttributes { return Self.attributesObject(item, data: returnData, reference: returnRef) }
                if returnRef, let reference = item.reference { return reference }
                return (item.data ?? Data()) as NSData
            }
            if returnData || returnAttributes || returnRef {
                result?.pointee = all ? results as NSArray : results[0]
            }
            return errSecSuccess
        }
    }

    func update(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
        lock.withLock {
            if let failure = takeFailure() { return failure }
            let fields = Self.fields(query)
            let status = lookup(fields).status
            guard status == errSecSuccess else { return status }
            var changes = Self.fields(attributesToUpdate)
            let data = changes.removeValue(forKey: kSecValueData as String) as? Data
            let dataProtection = Self.dataProtection(fields)
            for index in items.indices
            where items[index].inDataProtectionKeychain == dataProtection && Self.matches(items[index], fields) {
                for (key, value) in changes { items[index].attributes[key] = value }
                if let data { items[index].data = data }
            }
            return errSecSuccess
        }
    }

    func delete(_ query: CFDictionary) -> OSStatus {
        lock.withLock {
            if let failure = takeFailure() { return failure }
            let fields = Self.fields(query)
            let status = lookup(fields).status
            guard status == errSecSuccess else { return status }
            let dataProtection = Self.dataProtection(fields)
            items.removeAll { $0.inDataProtectionKeychain == dataProtection && Self.matches($0, fields) }
            return errSecSuccess
        }
    }

    // MARK: Matching

    private func takeFailure() -> OSStatus? {
        failures.isEmpty ? nil : failures.removeFirst()
    }

    /// The items a query names, in the groups the app may read, and `errSecSuccess`; or no item and the status
    /// that refuses the query: `errSecMissingEntitlement` for a group the app may not use, `errSecParam` for another
    /// class, `errSecItemNotFound` when nothing matches.
    private func lookup(_ fields: [String: Any]) -> (items: [Item], status: OSStatus) {
        guard !entitled.isEmpty else { return ([], errSecMissingEntitlement) }
        if let group = fields[kSecAttrAccessGroup as String] as? String, !entitled.contains(group) {
            return ([], errSecMissingEntitlement)
        }
        let itemClass = fields[kSecClass as String] as? String ?? ""
        guard [kSecClassGenericPassword, kSecClassKey, kSecClassCertificate].contains(where: { $0 as String == itemClass }) else {
            return ([], errSecParam)
        }
        let dataProtection = Self.dataProtection(fields)
        // The file-based keychain (macOS) has no access groups: its items are the user's, readable by the app.
        let found = items.filter {
            $0.itemClass == itemClass && $0.inDataProtectionKeychain == dataProtection
                && (!$0.inDataProtectionKeychain || entitled.contains($0.accessGroup ?? "")) && Self.matches($0, fields)
        }
        return (found, found.isEmpty ? errSecItemNotFound : errSecSuccess)
    }

    /// Which keychain a query or item names: on macOS the data-protection one only with
    /// `kSecUseDataProtectionKeychain`; on iOS there is no other.
    private static func dataProtection(_ fields: [String: Any]) -> Bool {
        #if SURFACE_MACOS
        return fields[kSecUseDataProtectionKeychain as String] as? Bool ?? false
        #else
        return true
        #endif
    }

    private static let matchedAttributes = [kSecAttrAccessGroup, kSecAttrAccount, kSecAttrService, kSecAttrGeneric,
                                            kSecAttrType, kSecAttrApplicationTag, kSecAttrApplicationLabel,
                                            kSecAttrPublicKeyHash, kSecAttrKeySizeInBits].map { $0 as String }

    private static func matches(_ item: Item, _ fields: [String: Any]) -> Bool {
        for key in matchedAttributes {
            guard let wanted = fields[key] else { continue }
            guard let stored = item.attributes[key], same(stored, wanted) else { return false }
        }
        return true
    }

    /// Attribute values compare as the keychain compares them: strings, data and numbers by value.
    private static func same(_ left: Any, _ right: Any) -> Bool {
        if let left = left as? String, let right = right as? String { return left == right }
        if let left = left as? Data, let right = right as? Data { return left == right }
        if let left = left as? NSNumber, let right = right as? NSNumber { return left == right }
        if let left = left as? Int, let right = right as? Int { return left == right }
        return false
    }

    private static func fields(_ dictionary: CFDictionary) -> [String: Any] {
        var fields: [String: Any] = [:]
        for (key, value) in dictionary {
            guard let key = key as? String else { continue }
            fields[key] = value
        }
        return fields
    }

    private static func attributesObject(_ item: Item, data: Bool, reference: Bool = false) -> NSDictionary {
        var attributes = item.attributes
        if reference, let object = item.reference { attributes[kSecValueRef as String] = object }
        attributes[kSecClass as String] = item.itemClass
        if data { attributes[kSecValueData as String] = item.data ?? Data() }
        return attributes as NSDictionary
    }
}
