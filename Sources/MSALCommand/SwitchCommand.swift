import ArgumentParser
import Foundation
import MSAL

/// `msal switch [ACCOUNT]`: chooses the active account, used by every command that does not name one.
struct SwitchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switch",
        abstract: "Make a signed-in account the active one.",
        discussion: """
        The active account is used by token, graph, logout and status when --account is not given; `msal login` \
        makes the account it signs in active. Without ACCOUNT, with exactly two accounts signed in, switches to the \
        other one; otherwise lists them. The choice is kept per client id and cache in \
        $XDG_STATE_HOME/msal/active-accounts.json.

        Examples:
          msal switch alice@contoso.com
          msal switch --json
        """
    )

    @Argument(help: ArgumentHelp("The account: user name or home account id.", valueName: "account"))
    var target: String?

    @OptionGroup var options: CommonOptions

    func run() async throws {
        try await CLI.run(options) {
            // An account with a sign-in record is looked for with the settings it was signed in with (its client id,
            // authority, cache), not the active one's.
            var options = options
            if let target, options.resolvedAccount == nil, let recorded = options.settings.records.entry(named: target) {
                var named = options
                named.account = recorded.homeAccountId
                if named.recordedSignIn != nil { options = named }
            }
            let factory = ApplicationFactory(options: options)
            let application = try factory.makeApplication()
            let accounts = try application.allAccounts()
            guard !accounts.isEmpty else {
                throw MSALErrorInfo(.interactionRequired, description: "No account is signed in.")
            }
            let active = factory.activeAccountId
            let chosen: MSALAccount
            if let target {
                guard let match = accounts.first(where: { AccountMatch.matches($0, target) }) else {
                    let names = accounts.compactMap(\.username).joined(separator: ", ")
                    throw CLIError(message: "No signed-in account \"\(target)\"; signed in: \(names). "
                                   + "To add it: msal login --account \(target)")
                }
                chosen = match
            } else if accounts.count == 2, let other = accounts.first(where: { $0.identifier != active }), active != nil {
                chosen = other
            } else if accounts.count == 1 {
                chosen = accounts[0]
            } else {
                let names = accounts.compactMap(\.username)
                throw CLIError(message: "Several accounts are signed in (\(names.joined(separator: ", "))): name one, as in "
                               + "`msal switch \(names.first ?? "ACCOUNT")`.", exitCode: 64)
            }
            try factory.activate(chosen)
            try factory.recordSwitch(to: chosen)
            if options.wantsJSON {
                CLI.out(CLI.jsonLine(["active_account": Describe.account(chosen)]))
            } else {
                CLI.out("Active account: \(chosen.username ?? chosen.identifier ?? "(unknown)").")
            }
        }
    }
}

/// Matching an account by user name or home account id (case-insensitive).
enum AccountMatch {
    static func matches(_ account: MSALAccount, _ wanted: String) -> Bool {
        account.username?.caseInsensitiveCompare(wanted) == .orderedSame
            || account.identifier?.caseInsensitiveCompare(wanted) == .orderedSame
    }
}
