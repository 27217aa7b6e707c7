import Foundation

extension TokenCacheDocument {
    /// The document as JSON text in MSAL Python's shape: `json.dumps(cache, indent=4)`.
    ///
    /// Sections appear in the order they were read or first written; entries within a section are sorted
    /// by key (code-point order), so the output is deterministic; fields follow MSAL Python's write order,
    /// then fields MSAL does not model, by name. Unreadable entries and unknown sections are written back.
    func serialize() -> Data {
        var writer = CacheJSONWriter(capacity: 1024 + accessTokens.count * 900 + refreshTokenEntries.count * 1200
            + idTokenEntries.count * 1600 + accountEntries.count * 600)
        writer.beginObject()
        for slot in sectionOrder {
            switch slot {
            case .unknown(let name):
                guard let value = unknownSections[name] else { continue }
                writer.key(name, indent: 1)
                writer.value(value, indent: 1)
            case .known(let section):
                writer.key(section.rawValue, indent: 1)
                writeSection(section, to: &writer)
            }
        }
        writer.endObject(indent: 0)
        return Data(writer.bytes)
    }

    private func writeSection(_ section: CacheSection, to writer: inout CacheJSONWriter) {
        switch section {
        case .accessToken: write(accessTokens.all, section, to: &writer)
        case .refreshToken: write(Array(refreshTokenEntries.all), section, to: &writer)
        case .idToken: write(Array(idTokenEntries.all), section, to: &writer)
        case .account: write(Array(accountEntries.all), section, to: &writer)
        case .appMetadata: write(Array(appMetadataEntries.values), section, to: &writer)
        }
    }

    private func write<Entry: CacheEntry>(_ entries: [Entry], _ section: CacheSection, to writer: inout CacheJSONWriter) {
        let unreadable = unreadableEntries[section] ?? [:]
        writer.beginObject()
        if unreadable.isEmpty {
            let keys = entries.map(\.key)
            let order = keys.withUnsafeBufferPointer { keys in
                (0..<keys.count).sorted { CacheStrings.codePointLess(keys[$0], keys[$1]) }
            }
            for index in order {
                writer.key(keys[index], indent: 2)
                entries[index].write(to: &writer, indent: 2)
            }
        } else {
            var all: [(String, Entry?, JSONValue?)] = entries.map { ($0.key, $0, nil) }
            for (key, value) in unreadable { all.append((key, nil, value)) }
            // Keys are unique across readable and unreadable entries (parsing keeps a key's last entry; saving an
            // entry drops an unreadable one under its key), so ordering by key is total.
            all.sort { CacheStrings.codePointLess($0.0, $1.0) }
            for (key, entry, value) in all {
                writer.key(key, indent: 2)
                if let entry { entry.write(to: &writer, indent: 2) } else if let value { writer.value(value, indent: 2) }
            }
        }
        writer.endObject(indent: 1)
    }
}
