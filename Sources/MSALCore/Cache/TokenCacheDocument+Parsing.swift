import Foundation

extension TokenCacheDocument {
    /// Reads a cache document written by MSAL for Python, .NET, Node or ObjC (document shape).
    ///
    /// Credential sections are matched without regard to case. Entries that cannot be read are kept
    /// verbatim and reported in ``parseWarnings``. Empty data reads as an empty document. A key that appears twice
    /// in a section (or in two spellings of one section) keeps its last entry, as JSON readers such as Python's and
    /// Foundation's do: the document is then read a second time, dropping what a key held before each entry, so
    /// well-formed caches pay only a check of their access-token keys.
    ///
    /// - Throws: ``MSALErrorInfo`` (`.internal`, ``MSALInternalError/internalErrorUnexpected``) when the data
    ///   is not JSON, its top level is not an object, or one of the five credential sections is not an
    ///   object (MSAL could not add to it without losing it). The message never contains cache content.
    static func parse(_ data: Data) throws -> TokenCacheDocument {
        if MSALCacheCodec.isBlank(data) { return TokenCacheDocument() }
        let document = try parse(data, replacingDuplicates: false)
        // A key read twice: read again, each entry replacing what its key held.
        return document.sawDuplicateKeys ? try parse(data, replacingDuplicates: true) : document
    }

    private static func parse(_ data: Data, replacingDuplicates: Bool) throws -> TokenCacheDocument {
        let document = TokenCacheDocument()
        document.replacesDuplicateKeys = replacingDuplicates
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
        document.replacesDuplicateKeys = false
        return document
    }

    /// Before an unreadable entry is kept under `key`: a readable entry already there is a duplicate key (a readable
    /// entry read later replaces an unreadable one itself, and access-token keys are checked as they are read).
    private func noteUnreadable(_ section: CacheSection, key: String) {
        guard !replacesDuplicateKeys else { return }
        switch section {
        case .accessToken: return
        case .refreshToken: if refreshTokenEntries[key] != nil { sawDuplicateKeys = true }
        case .idToken: if idTokenEntries[key] != nil { sawDuplicateKeys = true }
        case .account: if accountEntries[key] != nil { sawDuplicateKeys = true }
        case .appMetadata: if appMetadataEntries[key] != nil { sawDuplicateKeys = true }
        }
    }

    /// Drops whatever `section` holds under `key`, readable or not (a later duplicate replaces it).
    private func dropEntry(_ section: CacheSection, key: String) {
        unreadableEntries[section]?[key] = nil
        switch section {
        case .accessToken: accessTokens.remove(key: key)
        case .refreshToken: refreshTokenEntries.remove(key: key)
        case .idToken: idTokenEntries.remove(key: key)
        case .account: accountEntries.remove(key: key)
        case .appMetadata: appMetadataEntries[key] = nil
        }
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
        // Access tokens are indexed by account, app and realm, not by key: their keys are checked as they are read.
        var accessTokenKeys = Set<String>()
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
            try readSection(section, &reader, &fields, &previous, &accessTokenKeys)
        }
    }

    private func readSection(
        _ section: CacheSection, _ reader: inout CacheJSONReader, _ fields: inout RawEntryFields,
        _ previous: inout [String?], _ accessTokenKeys: inout Set<String>
    ) throws {
        var first = true
        var skipped = 0
        let checksKeys = section == .accessToken && !replacesDuplicateKeys
        while let name = try reader.nextMember(first: first) {
            first = false
            let key = name.string
            if replacesDuplicateKeys {
                dropEntry(section, key: key)
            } else if checksKeys, !accessTokenKeys.insert(key).inserted {
                sawDuplicateKeys = true
            }
            guard try reader.beginObject() else {
                noteUnreadable(section, key: key)
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
                noteUnreadable(section, key: key)
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
