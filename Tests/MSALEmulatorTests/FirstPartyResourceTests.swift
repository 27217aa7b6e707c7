import Testing
@testable import MSALEmulatorCore

/// A first-party resource every tenant has is found by any of its names, as Entra resolves it: the credential chain's
/// default scope `https://management.azure.com/.default` names Azure Resource Manager as much as
/// `https://management.core.windows.net//.default` (the Azure CLI's) does.
@Suite("First-party resources")
struct FirstPartyResourceTests {
    let configuration = EmulatorConfiguration.default

    func parse(_ scope: String) throws -> RequestedScopes {
        try RequestedScopes.parse(scope, apis: configuration.apis, applications: configuration.applications,
                                  clientId: EmulatorConfiguration.demoClientId)
    }

    @Test("Resource Manager by each of its names", arguments: [
        "https://management.azure.com/.default", "https://management.azure.com//.default",
        "https://management.core.windows.net//.default", "https://management.core.windows.net/.default",
        "HTTPS://MANAGEMENT.AZURE.COM/.default", "797f4846-ba00-4fd7-ba43-dac1f8f63013/.default",
    ])
    func resourceManager(scope: String) throws {
        let parsed = try parse(scope + " offline_access")
        #expect(parsed.primaryResource == EmulatorConfiguration.resourceManagerResource)
        #expect(parsed.usesDefault)
    }

    @Test func graphWithATrailingSlashAndAnUnknownResource() throws {
        #expect(try parse("https://graph.microsoft.com//.default").primaryResource == EmulatorConfiguration.graphResource)
        #expect(throws: EntraError.self) { try parse("https://unknown.example.com/.default") }
        #expect(throws: EntraError.self) { try parse("https://management.azure.com.evil.example/.default") }
    }
}
