import Foundation

/// The emulator could not start.
public struct EmulatorStartError: Error, CustomStringConvertible {
    /// What went wrong.
    public let message: String
    package init(message: String) { self.message = message }
    /// A description of the failure.
    public var description: String { message }
}
