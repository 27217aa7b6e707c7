import Foundation

/// What to type when Microsoft Graph refuses a request: the permission a resource path usually needs, and the
/// `msal login` command that asks for it.
enum GraphHints {
    /// Delegated permissions by the first segments of a Graph path (after the version).
    static let permissions: [(prefix: String, scope: String)] = [
        ("me/messages", "Mail.Read"), ("me/mailfolders", "Mail.Read"), ("me/sendmail", "Mail.Send"),
        ("me/events", "Calendars.Read"), ("me/calendar", "Calendars.Read"), ("me/contacts", "Contacts.Read"),
        ("me/drive", "Files.Read"), ("me/todo", "Tasks.ReadWrite"), ("me/onenote", "Notes.Read"),
        ("me/people", "People.Read"), ("me/joinedteams", "Team.ReadBasic.All"), ("me/chats", "Chat.Read"),
        ("me/memberof", "GroupMember.Read.All"), ("users", "User.ReadBasic.All"), ("groups", "Group.Read.All"),
        ("sites", "Sites.Read.All"), ("me", "User.Read"),
    ]

    /// `msal login --scopes A B`.
    static func loginCommand(scopes: [String]) -> String {
        "msal login --scopes " + scopes.joined(separator: " ")
    }

    /// The permission a Graph URL's path usually needs, or nil when unknown.
    static func permission(for url: URL) -> String? {
        var segments = url.path.lowercased().split(separator: "/").map(String.init)
        if let first = segments.first, first == "v1.0" || first == "beta" { segments.removeFirst() }
        let path = segments.joined(separator: "/")
        return permissions.first { path == $0.prefix || path.hasPrefix($0.prefix + "/") }?.scope
    }

    /// A hint for an HTTP error from Graph, naming the command to run; nil when there is nothing to add.
    static func hint(status: Int, url: URL, scopes: [String]) -> String? {
        switch status {
        case 401:
            return "The token was not accepted. Sign in again: \(loginCommand(scopes: scopes))"
        case 403:
            guard let needed = permission(for: url) else {
                return "The signed-in account or its token's scopes (\(scopes.joined(separator: " "))) lack a permission "
                    + "this resource needs. Sign in asking for it: msal login --scopes <permission>"
            }
            if scopes.contains(where: { $0.caseInsensitiveCompare(needed) == .orderedSame }) {
                return "The token has \(needed), but the account is not allowed this resource (or an administrator must consent)."
            }
            return "This resource needs the \(needed) permission. Sign in asking for it: "
                + "\(loginCommand(scopes: [needed])), then run: msal graph \(url.path) --scopes \(needed)"
        default:
            return nil
        }
    }
}
