import Testing
@testable import MSALEmulator
