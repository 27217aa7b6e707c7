// The NIO transport is built on async-http-client, which the package resolves only with its `NIOTransport` trait.
#if !NIOTransport
#error("MSALNIOTransport needs the package trait NIOTransport: .package(url: ..., branch: ..., traits: [\"NIOTransport\"])")
#endif
