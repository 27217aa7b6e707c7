// AuthenticationServices' authorization requests, as far as MSAL for Swift uses them: the single sign-on provider of
// an identity provider URL (Microsoft's Enterprise SSO extension), its request and credential, the controller that
// performs it, its delegate, and its errors. Performed requests go to `SurfaceSSOExtension`, where a test answers
// them (not Apple API). Declarations as Swift sees them in the iOS 18 / macOS 15 SDKs (Xcode 16) and the 26 SDKs,
// which agree on all of these: the delegate and presentation-context protocols are `NS_SWIFT_UI_ACTOR` (`@MainActor`)
// in both; the controller, the provider, the requests and the credential are not isolated.

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationprovider
public protocol ASAuthorizationProvider: NSObjectProtocol {}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcredential
public protocol ASAuthorizationCredential: NSObjectProtocol {}

/// https://developer.apple.com/documentation/authenticationservices/asauthorization
open class ASAuthorization: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorization/openidoperation
    public struct OpenIDOperation: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/authenticationservices/asauthorization/openidoperation/operationlogin
        public static let operationLogin = OpenIDOperation(rawValue: "login")
        /// https://developer.apple.com/documentation/authenticationservices/asauthorization/openidoperation/operationrefresh
        public static let operationRefresh = OpenIDOperation(rawValue: "refresh")
        /// https://developer.apple.com/documentation/authenticationservices/asauthorization/openidoperation/operationlogout
        public static let operationLogout = OpenIDOperation(rawValue: "logout")
        /// https://developer.apple.com/documentation/authenticationservices/asauthorization/openidoperation/operationimplicit
        public static let operationImplicit = OpenIDOperation(rawValue: "")
    }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorization/provider
    open var provider: any ASAuthorizationProvider { surfaceProvider }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorization/credential
    open var credential: any ASAuthorizationCredential { surfaceCredential }

    private let surfaceProvider: any ASAuthorizationProvider
    private let surfaceCredential: any ASAuthorizationCredential
    init(provider: any ASAuthorizationProvider, credential: any ASAuthorizationCredential) {
        surfaceProvider = provider
        surfaceCredential = credential
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationrequest
open class ASAuthorizationRequest: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationrequest/provider
    open var provider: any ASAuthorizationProvider { surfaceProvider }
    private let surfaceProvider: any ASAuthorizationProvider
    init(provider: any ASAuthorizationProvider) { surfaceProvider = provider }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationopenidrequest
open class ASAuthorizationOpenIDRequest: ASAuthorizationRequest {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationopenidrequest/requestedoperation
    open var requestedOperation: ASAuthorization.OpenIDOperation = .operationImplicit
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignonrequest
open class ASAuthorizationSingleSignOnRequest: ASAuthorizationOpenIDRequest {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignonrequest/authorizationoptions
    open var authorizationOptions: [URLQueryItem] = []
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignonrequest/isuserinterfaceenabled
    /// (iOS 15, macOS 12; true by default)
    open var isUserInterfaceEnabled: Bool = true
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignonprovider
open class ASAuthorizationSingleSignOnProvider: NSObject, ASAuthorizationProvider {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignonprovider/init(identityprovider:)
    public convenience init(identityProvider url: URL) {
        self.init(surfaceURL: url)
    }
    private let address: URL
    init(surfaceURL url: URL) { address = url }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignonprovider/url
    open var url: URL { address }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignonprovider/canperformauthorization
    /// (the stand-in: whether a test configured an extension for this URL)
    open var canPerformAuthorization: Bool { SurfaceSSOExtension.configuredURLs.contains(address) }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignonprovider/createrequest()
    open func createRequest() -> ASAuthorizationSingleSignOnRequest {
        ASAuthorizationSingleSignOnRequest(provider: self)
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignoncredential
open class ASAuthorizationSingleSignOnCredential: NSObject, ASAuthorizationCredential {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignoncredential/authenticatedresponse
    open var authenticatedResponse: HTTPURLResponse? { response }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignoncredential/state
    open var state: String? { nil }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignoncredential/accesstoken
    open var accessToken: Data? { nil }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationsinglesignoncredential/identitytoken
    open var identityToken: Data? { nil }
    private let response: HTTPURLResponse?
    init(surfaceResponse: HTTPURLResponse?) { response = surfaceResponse }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationerror-swift.struct
public struct ASAuthorizationError: CustomNSError, Hashable, Sendable {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationerror-swift.struct/code
    public enum Code: Int, @unchecked Sendable {
        case unknown = 1000
        case canceled = 1001
        case invalidResponse = 1002
        case notHandled = 1003
        case failed = 1004
        /// iOS 15, macOS 12
        case notInteractive = 1005
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationerrordomain
    public static var errorDomain: String { "com.apple.AuthenticationServices.AuthorizationError" }
    public var errorCode: Int { code.rawValue }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerdelegate
/// (`NS_SWIFT_UI_ACTOR` from Xcode 16: main-actor isolated; both requirements optional in Objective-C, given
/// defaults here: Swift on Linux has no `@objc optional`)
@MainActor public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerdelegate/authorizationcontroller(controller:didcompletewithauthorization:)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerdelegate/authorizationcontroller(controller:didcompletewitherror:)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

extension ASAuthorizationControllerDelegate {
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {}
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {}
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerpresentationcontextproviding
/// (`@MainActor protocol ASAuthorizationControllerPresentationContextProviding : NSObjectProtocol`)
@MainActor public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerpresentationcontextproviding/presentationanchor(for:)
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller
open class ASAuthorizationController: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/init(authorizationrequests:)
    public init(authorizationRequests: [ASAuthorizationRequest]) { requests = authorizationRequests }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/authorizationrequests
    open var authorizationRequests: [ASAuthorizationRequest] { requests }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/delegate
    weak open var delegate: (any ASAuthorizationControllerDelegate)?
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/presentationcontextprovider
    weak open var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?
    private let requests: [ASAuthorizationRequest]

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/performrequests()
    /// (the stand-in hands the single sign-on request to `SurfaceSSOExtension`'s handler and calls the delegate on
    /// the main actor with its answer)
    open func performRequests() {
        guard let request = requests.first as? ASAuthorizationSingleSignOnRequest,
              let provider = request.provider as? ASAuthorizationSingleSignOnProvider else { return }
        let operation = request.requestedOperation.rawValue
        let items = request.authorizationOptions
        let userInterface = request.isUserInterfaceEnabled
        let url = provider.url
        nonisolated(unsafe) let controller = self
        Task {
            // The extension shows its user interface over the anchor its provider gives (asked on the main actor).
            if userInterface {
                let anchor = await MainActor.run { controller.presentationContextProvider?.presentationAnchor(for: controller) }
                SurfaceSSOExtension.lastAnchor = anchor.map { ObjectIdentifier($0) }
            }
            let answer = await SurfaceSSOExtension.answer(operation, items, userInterface)
            await MainActor.run {
                switch answer {
                case .success(let fields):
                    let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: fields)
                    let authorization = ASAuthorization(provider: provider,
                                                        credential: ASAuthorizationSingleSignOnCredential(surfaceResponse: response))
                    controller.delegate?.authorizationController(controller: controller, didCompleteWithAuthorization: authorization)
                case .failure(let error):
                    controller.delegate?.authorizationController(controller: controller, didCompleteWithError: error)
                }
            }
        }
    }
}

/// The stand-in's Enterprise SSO extension (not Apple API): the identity provider URLs it is configured for, and what
/// it answers to a performed request (the header fields of its response, or an error).
public enum SurfaceSSOExtension {
    nonisolated(unsafe) public static var configuredURLs: Set<URL> = []
    nonisolated(unsafe) public static var handler: (@Sendable (String, [URLQueryItem], Bool) async -> Result<[String: String], NSError>)?
    /// The window the last request with a user interface was presented over (nil: no provider).
    nonisolated(unsafe) public static var lastAnchor: ObjectIdentifier?

    static func answer(_ operation: String, _ items: [URLQueryItem], _ userInterface: Bool) async -> Result<[String: String], NSError> {
        guard let handler else { return .failure(ASAuthorizationError(.notHandled) as NSError) }
        return await handler(operation, items, userInterface)
    }

    /// No extension configured, no handler.
    public static func reset() {
        configuredURLs = []
        handler = nil
        lastAnchor = nil
    }
}
