import Foundation
import MSAL

/// The configuration file of this process, read once.
enum ProcessConfiguration {
    static let environment = ProcessInfo.processInfo.environment
    static let file = CLIConfigFile.location(environment: environment)
    /// What `msal login` recorded (``SignInRecords``), read once.
    static let signInsFile = SignInRecords.location(environment: environment)
    static let signIns = SignInRecords.load(signInsFile)
    static let loaded: Result<CLIConfigFile, CLIError> = Result { () throws(CLIError) in
        do throws(ToolSettingsError) {
            return try CLIConfigFile.load(file)
        } catch {
            throw CLIError(message: error.message, exitCode: CLIExit.usage)
        }
    }
}
