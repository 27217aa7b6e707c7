// `import MSAL` is the one import an app needs: the platform-free core, the file token cache and, per platform,
// the transport and user agent that MSAL picks when an application is created.
@_exported import MSALCore
@_exported import MSALFileStorage
#if canImport(MSALHTTPTransport)
@_exported import MSALHTTPTransport
#endif
#if canImport(MSALSystemBrowser)
@_exported import MSALSystemBrowser
#endif
