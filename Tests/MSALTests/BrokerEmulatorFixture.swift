import Foundation
import MSALEmulator
import MSALEmulatorCore

/// The emulator the broker tests sign in against: the ready default with its user auto-approved and, when given,
/// a Conditional Access policy on the demo tenant (which only brokered, device-bound sign-ins pass).
enum BrokerEmulatorFixture {
    static func start(policy: EmulatedConditionalAccess? = nil) async throws -> IdentityEmulator {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        if let index = configuration.tenants.firstIndex(where: { $0.id == EmulatorConfiguration.demoTenantId }) {
            configuration.tenants[index].conditionalAccess = policy
        }
        return try await IdentityEmulator.start(configuration)
    }
}
