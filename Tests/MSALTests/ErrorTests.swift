import Testing
@testable import MSAL
