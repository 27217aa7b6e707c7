import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Authority parsing")
struct AuthorityParsingTests {
    @Test("AAD tenants", arguments: [
        ("https://login.microsoftonline.com/common", TenantKind.common),
        ("https://login.microsoftonline.com/organizations", .organizations),
        ("https://login.microsoftonline.com/consumers", .consumers),
        ("https://login.microsoftonline.com/Common", .common),
        ("https://login.microsoftonline.com/f645ad92-e38d-4d1a-b510-d1b09a74a8ca", .specific),
        ("https://login.microsoftonline.com/contoso.onmicrosoft.com", .specific),
    ])
    func aadTenants(_ url: String, _ kind: TenantKind) throws {
        let authority = try MSALAuthority(url: URL(string: url)!)
        #expect(authority.descriptor.kind == .aad)
        #expect(MSALAuthority.make(authority.descriptor) is MSALAADAuthority)
        #expect(authority.descriptor.tenantKind == kind)
        #expect(authority.url.absoluteString == url)
    }

    @Test("Trailing slashes and host case are normalized")
    func normalization() throws {
        let authority = try MSALAADAuthority(url: URL(string: "https://LOGIN.microsoftonline.com/common/")!)
        #expect(authority.url.absoluteString == "https://login.microsoftonline.com/common")
        #expect(authority == (try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/common")!)))
        let b2c = try MSALB2CAuthority(url: URL(string: "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin//")!)
        #expect(b2c.url.absoluteString == "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin")
    }

    @Test("Sovereign clouds and audiences")
    func sovereign() throws {
        let china = try MSALAADAuthority(cloudInstance: .chinaCloudInstance, audienceType: .azureADMultipleOrgsAudience, rawTenant: nil)
        #expect(china.url.absoluteString == "https://login.chinacloudapi.cn/organizations")
        let usGov = try MSALAADAuthority(cloudInstance: .usGovernmentCloudInstance, audienceType: .azureADMyOrgOnlyAudience,
                                         rawTenant: "contoso.onmicrosoft.us")
        #expect(usGov.url.absoluteString == "https://login.microsoftonline.us/contoso.onmicrosoft.us")
        let consumers = try MSALAADAuthority(environment: "login.microsoftonline.com", audienceType: .personalMicrosoftAccountAudience, rawTenant: nil)
        #expect(consumers.url.absoluteString == "https://login.microsoftonline.com/consumers")
        #expect(throws: MSALErrorInfo.self) {
            try MSALAADAuthority(cloudInstance: .publicCloudInstance, audienceType: .azureADMyOrgOnlyAudience, rawTenant: nil)
        }
        #expect(throws: MSALErrorInfo.self) {
            try MSALAADAuthority(cloudInstance: .publicCloudInstance, audienceType: .azureADAndPersonalMicrosoftAccountAudience, rawTenant: "x")
        }
        let rawTenant = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com")!, rawTenant: "tenant-1")
        #expect(rawTenant.url.absoluteString == "https://login.microsoftonline.com/tenant-1")
    }

    @Test("B2C, both forms")
    func b2c() throws {
        let tfp = try MSALAuthority(url: URL(string: "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin")!)
        #expect(tfp.descriptor.kind == .b2c)
        #expect(MSALAuthority.make(tfp.descriptor) is MSALB2CAuthority)
        // The factory returns the subclass of the URL's kind (the initializer cannot).
        #expect(try MSALAuthority.authority(with: URL(string: "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin")!) is MSALB2CAuthority)
        #expect(try MSALAuthority.authority(with: URL(string: "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")!) is MSALCIAMAuthority)
        #expect(try MSALAuthority.authority(with: URL(string: "https://login.microsoftonline.com/common")!) is MSALAADAuthority)
        #expect(tfp.descriptor.usesTfpPrefix)
        #expect(tfp.descriptor.tenant == "contoso.onmicrosoft.com")
        #expect(tfp.descriptor.policy == "B2C_1_signin")
        let plain = try MSALAuthority(url: URL(string: "https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin")!)
        #expect(plain.descriptor.kind == .b2c)
        #expect(!plain.descriptor.usesTfpPrefix)
        #expect(plain.url.absoluteString == "https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin")
        #expect(throws: MSALErrorInfo.self) { try MSALB2CAuthority(url: URL(string: "https://contoso.b2clogin.com/contoso.onmicrosoft.com")!) }
    }

    @Test("CIAM with and without tenant")
    func ciam() throws {
        let bare = try MSALAuthority(url: URL(string: "https://contoso.ciamlogin.com")!)
        #expect(bare.descriptor.kind == .ciam)
        #expect(MSALAuthority.make(bare.descriptor) is MSALCIAMAuthority)
        #expect(bare.url.absoluteString == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
        let withTenant = try MSALCIAMAuthority(url: URL(string: "https://contoso.ciamlogin.com/f645ad92-e38d-4d1a-b510-d1b09a74a8ca")!)
        #expect(withTenant.descriptor.tenant == "f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
    }

    @Test("Rejected authorities", arguments: [
        "https://login.microsoftonline.com/adfs", "http://login.microsoftonline.com/common",
        "https://login.microsoftonline.com/common?x=1", "https://login.microsoftonline.com/a/b",
        "ftp://login.microsoftonline.com/common", "https://user:pw@login.microsoftonline.com/common",
    ])
    func rejected(_ url: String) {
        let error = #expect(throws: MSALErrorInfo.self) { try MSALAuthority(url: URL(string: url)!) }
        #expect(error?.internalCode == .internalErrorInvalidParameter)
    }

    @Test("Loopback hosts may use http and keep their port")
    func loopback() throws {
        let v4 = AuthorityDescriptor.test("http://127.0.0.1:8443/common")
        #expect(v4.isLoopback && v4.origin == "http://127.0.0.1:8443")
        let v6 = AuthorityDescriptor.test("http://[::1]:8080/common")
        #expect(v6.isLoopback && v6.urlString == "http://[::1]:8080/common")
        #expect(AuthorityDescriptor.test("https://localhost/tenant").isLoopback)
    }
}
