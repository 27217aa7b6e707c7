// Security, as far as MSAL for Swift's keychain token cache uses it: the SecItem functions, the attribute keys and
// values it passes, and the status codes it reads. The Core Foundation types Security's declarations use are the
// toll-free bridged Foundation classes here, as `as CFDictionary` treats them on Apple platforms.

@_exported public import Foundation

// MARK: Core Foundation types (Apple: CoreFoundation, re-exported by Security)

/// https://developer.apple.com/documentation/corefoundation/cftyperef
public typealias CFTypeRef = AnyObject
/// https://developer.apple.com/documentation/corefoundation/cfstring (toll-free bridged with NSString)
public typealias CFString = NSString
/// https://developer.apple.com/documentation/corefoundation/cfdictionary (toll-free bridged with NSDictionary)
public typealias CFDictionary = NSDictionary
/// https://developer.apple.com/documentation/corefoundation/cfdata (toll-free bridged with NSData)
public typealias CFData = NSData
/// https://developer.apple.com/documentation/corefoundation/cfboolean (bridged with NSNumber)
public typealias CFBoolean = NSNumber
/// https://developer.apple.com/documentation/corefoundation/kcfbooleantrue
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// https://developer.apple.com/documentation/corefoundation/kcfbooleanfalse
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// https://developer.apple.com/documentation/kernel/osstatus
public typealias OSStatus = Int32

// MARK: Result codes (https://developer.apple.com/documentation/security/security-framework-result-codes)

/// https://developer.apple.com/documentation/security/errsecsuccess
public var errSecSuccess: OSStatus { 0 }
/// https://developer.apple.com/documentation/security/errsecparam
public var errSecParam: OSStatus { -50 }
/// https://developer.apple.com/documentation/security/errsecduplicateitem
public var errSecDuplicateItem: OSStatus { -25299 }
/// https://developer.apple.com/documentation/security/errsecitemnotfound
public var errSecItemNotFound: OSStatus { -25300 }
/// https://developer.apple.com/documentation/security/errsecinteractionnotallowed
public var errSecInteractionNotAllowed: OSStatus { -25308 }
/// https://developer.apple.com/documentation/security/errsecmissingentitlement
public var errSecMissingEntitlement: OSStatus { -34018 }

// MARK: Item class, attribute, search and return keys (their values are Security's own strings)

/// https://developer.apple.com/documentation/security/ksecclass
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// https://developer.apple.com/documentation/security/ksecclassgenericpassword
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// https://developer.apple.com/documentation/security/ksecattraccount
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// https://developer.apple.com/documentation/security/ksecattrservice
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// https://developer.apple.com/documentation/security/ksecattrgeneric
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
/// https://developer.apple.com/documentation/security/ksecattrtype
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// https://developer.apple.com/documentation/security/ksecattraccessgroup
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// https://developer.apple.com/documentation/security/ksecattraccessible
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlockthisdeviceonly
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// https://developer.apple.com/documentation/security/ksecvaluedata
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// https://developer.apple.com/documentation/security/ksecreturndata
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
/// https://developer.apple.com/documentation/security/ksecreturnattributes
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
/// https://developer.apple.com/documentation/security/ksecmatchlimit
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
/// https://developer.apple.com/documentation/security/ksecmatchlimitall
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"
/// https://developer.apple.com/documentation/security/ksecmatchlimitone
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// https://developer.apple.com/documentation/security/ksecusedataprotectionkeychain
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"

// MARK: Keychain items (https://developer.apple.com/documentation/security/keychain-items)

/// https://developer.apple.com/documentation/security/secitemadd(_:_:)
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SurfaceKeychain.shared.add(attributes, result)
}

/// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:)
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SurfaceKeychain.shared.copyMatching(query, result)
}

/// https://developer.apple.com/documentation/security/secitemupdate(_:_:)
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SurfaceKeychain.shared.update(query, attributesToUpdate)
}

/// https://developer.apple.com/documentation/security/secitemdelete(_:)
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SurfaceKeychain.shared.delete(query)
}

/// https://developer.apple.com/documentation/security/seccopyerrormessagestring(_:_:)
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    switch status {
    case errSecSuccess: return "No error."
    case errSecParam: return "One or more parameters passed to a function were not valid."
    case errSecDuplicateItem: return "The specified item already exists in the keychain."
    case errSecItemNotFound: return "The specified item could not be found in the keychain."
    case errSecInteractionNotAllowed: return "User interaction is not allowed."
    case errSecMissingEntitlement: return "A required entitlement isn't present."
    default: return nil
    }
}
