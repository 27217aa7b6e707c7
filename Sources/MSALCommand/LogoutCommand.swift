import ArgumentParser
import MSAL

/// `msal logout`: removes an account's tokens from the cache.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out: remove the account's tokens for this application from the cache.",
        discussion: """
        Signs out the account named by --account, or the only signed-in account; --all signs out every account.

        Examples:
          msal logout --account adele@contoso.onmicrosoft.com
          msal logout --all
        """
    )

    @OptionGroup var options: CommonOptions

    @Flag(name: .long, help: "Sign out every account.")
    var all = false

    func run() async throws {
        try await CLI.run(options) {
            let factory = ApplicationFactory(options: options)
            let application = try factory.makeApplication()
            let signedIn = try application.allAccounts()
            // The recorded sign-in's account is no longer in its cache (signed out by another tool, the cache
            // removed): forget the record, so the next most recent sign-in becomes active.
            if !all, options.resolvedAccount == nil, let recorded = factory.recordedSignInGone(from: signedIn) {
                try factory.forgetRecord(of: recorded.homeAccountId)
                let name = recorded.entry.username ?? recorded.homeAccountId
                report([name], text: "\(name) was no longer in the token cache; forgot its sign-in.")
                return
            }
            // Nobody signed in is not an error for logout: there is nothing to do, and nothing to sign in for.
            let accounts = all || (signedIn.isEmpty && options.resolvedAccount == nil)
                ? signedIn : [try factory.selectAccount(in: application)]
            let active = factory.activeAccountId
            for account in accounts {
                _ = try await application.signout(with: account, signoutParameters: MSALSignoutParameters())
                if let id = account.identifier { try factory.forgetRecord(of: id) }
                if account.identifier == active, let key = factory.activeAccountKey {
                    try? ActiveAccountStore(environment: ProcessConfiguration.environment).setActive(nil, for: key)
                }
            }
            let names = accounts.map { $0.username ?? $0.identifier ?? "" }
            var text = names.isEmpty ? "No account is signed in; nothing to sign out." : "Signed out \(names.joined(separator: ", "))."
            if !names.isEmpty, let next = SignInRecords.load(ProcessConfiguration.signInsFile).entry(named: nil) {
                text += " Active account now: \(next.entry.username ?? next.homeAccountId)."
            }
            report(names, text: text)
        }
    }

    private func report(_ names: [String], text: String) {
        if options.wantsJSON {
            CLI.out(CLI.jsonLine(["signed_out": names]))
        } else {
            CLI.out(text)
        }
    }
}
