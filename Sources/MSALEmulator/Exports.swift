// The emulator's logic (requests, tokens, clock, faults, configuration) lives in MSALEmulatorCore, which needs no
// server stack; this module adds the HTTP(S) server (Hummingbird) and re-exports the rest, so that `import
// MSALEmulator` gives the whole emulator.
@_exported public import MSALEmulatorCore
