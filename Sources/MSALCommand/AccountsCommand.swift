import ArgumentParser
import MSAL

/// `msal accounts`: the accounts in the cache.
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List the signed-in accounts in the cache.",
        discussion: """
        One account a line: user name, home account id and environment (tab-separated), or a JSON array with --json.

        Example:
          msal accounts --cache ~/.cache/my-app/msal.json --json
        """
    )

    @OptionGroup var options: CommonOptions

    func run() async throws {
        try await CLI.run(options) {
            let accounts = try ApplicationFactory(options: options).makeApplication().allAccounts()
            if options.wantsJSON {
                CLI.out(CLI.jsonLine(accounts.map(Describe.account)))
            } else if accounts.isEmpty {
                CLI.err("No accounts are signed in.")
            } else {
                for account in accounts {
                    CLI.out([account.username ?? "", account.identifier ?? "", account.environment].joined(separator: "\t"))
                }
            }
        }
    }
}
