// The emulator's server is built on Hummingbird, which the package resolves only with its `Emulator` trait.
#if !Emulator
#error("MSALEmulator needs the package trait Emulator: .package(url: ..., from: ..., traits: [\"Emulator\"])")
#endif
