package import Foundation

/// Parsing and serialization of the unified cache document, for the package's benchmark.
package enum MSALCacheCodec {
    /// A parsed, indexed cache document.
    package struct Document: @unchecked Sendable {
        let document: TokenCacheDocument
    }

    /// Parses and indexes `data`.
    package static func parse(_ data: Data) throws -> Document {
        Document(document: try TokenCacheDocument.parse(data))
    }

    /// Serializes `document` as MSAL for Python writes it.
    package static func serialize(_ document: Document) -> Data {
        document.document.serialize()
    }
}
