import Foundation

extension TokenCacheDocument {
    /// Reads a cache document written by MSAL for Python, .NET, Node or ObjC (document shape).
    ///
    /// Credential sections are matched without regard to case. Entries that cannot be read are kept
    /// verbatim and reported in ``parseWarnings``. Empty data reads as an empty document.
    ///
    /// - Throws: ``MSALErrorInfo`` (`.internal`, ``MSALInternalError/internalErrorUnexpected``) when the data
    ///   is not JSON, its top level is not an object, or one of the five credential sections is not an
    ///   object (MSAL could not add to it without losing it). The message never contains cache content.
    static func parse(_ data: Data) throws -> TokenCacheDocument {
        let document = TokenCacheDocument()
        if MSALCacheCodec.isBlank(data) { return document }
        do {
            try data.withUnsafeBytes { raw in
                var reader = CacheJSONReader(raw.bindMemory(to: UInt8.self))
                try document.read(&reader)
                try reader.expectEnd()
            }
        } catch let error as CacheJSONError {
            throw MSALErrorInfo.internal(
                .internalErrorUnexpected, "The token cache is not valid JSON (\(error.description)).")
        }
        return document
    }

    private func read(_ reader: inout CacheJSONReader) throws {
        guard try reader.beginObject() else {
            throw MSALErrorInfo.internal(
                .internalErrorUnexpected, "The token cache is not a JSON object at the top level.")
        }
        var first = true
        // One set of scratch storage for every entry of every section.
        var fields = RawEntryFields()
        var previous = [String?](repeating: nil, count: CacheField.allCases.count)
        while let name = try reader.nextMember(first: first) {
            first = false
            guard let section = CacheSection(documentName: name) else {
                let sectionName = name.string
                let value = try reader.readValue()
                if unknownSections.updateValue(value, forKey: sectionName) == nil { sectionOrder.append(.unknown(sectionName)) }
                continue
            }
            touch(section)
            guard try reader.beginObject() else {
                throw MSALErrorInfo.internal(
                    .internalErrorUnexpected, "The \(section.rawValue) section of the token cache is not a JSON object.")
            }
            try readSection(section, &reader, &fields, &previous)
        }
    }

    private func readSection(
        _ section: CacheSection, _ reader: inout CacheJSONReader, _ fields: inout RawEntryFields,
        _ previous: inout [String?]
    ) throws {
        var first = true
        var skipped = 0
        while let name = try reader.nextMember(first: first) {
            first = false
            let key = name.string
            guard try reader.beginObject() else {
                unreadableEntries[section, default: [:]][key] = try reader.readValue()
                skipped += 1
                continue
            }
            fields.reset()
            var firstField = true
            while let fieldName = try reader.nextMember(first: firstField) {
                firstField = false
                guard case .raw(let bytes) = fieldName, let field = CacheField.match(bytes) else {
                    fields.set(name: fieldName.string, try reader.readValue())
                    continue
                }
                if field.repeatsAcrossEntries, let token = try reader.readStringToken() {
                    fields.set(field, .string(Self.reuse(token, &previous[field.rawValue])))
                } else {
                    fields.set(field, try reader.readValue())
                }
            }
            do {
                try insertParsed(section, key: key, fields: fields)
            } catch is CacheEntryError {
                unreadableEntries[section, default: [:]][key] = .object(fields.leftovers(usedMask: 0))
                skipped += 1
            }
        }
        if skipped > 0 {
            parseWarnings.append(
                "\(skipped) \(section.rawValue) entr\(skipped == 1 ? "y" : "ies") of the token cache could not be read; "
                    + "kept unchanged and ignored.")
        }
    }

    /// The string of `token`, reusing `previous` when it holds the same text.
    @inline(__always)
    private static func reuse(_ token: CacheJSONReader.Name, _ previous: inout String?) -> String {
        guard case .raw(let bytes) = token else { return token.string }
        if let last = previous {
            let same = last.utf8.withContiguousStorageIfAvailable { stored in
                stored.count == bytes.count && (bytes.isEmpty || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
            } ?? false
            if same { return last }
        }
        let made = String(decoding: bytes, as: UTF8.self)
        previous = made
        return made
    }

    private func insertParsed(_ section: CacheSection, key: String, fields: RawEntryFields) throws {
        switch section {
        case .accessToken:
            accessTokens.insert(try AccessTokenEntry(key: key, fields: fields, scopeLookup: scopeSet(forTarget:)))
        case .refreshToken:
            refreshTokenEntries.insert(try RefreshTokenEntry(key: key, fields: fields))
        case .idToken:
            idTokenEntries.insert(try IdTokenEntry(key: key, fields: fields))
        case .account:
            accountEntries.insert(try AccountEntry(key: key, fields: fields))
        case .appMetadata:
            appMetadataEntries[key] = try AppMetadataEntry(key: key, fields: fields)
        }
        if !unreadableEntries.isEmpty { unreadableEntries[section]?[key] = nil }
    }
}
