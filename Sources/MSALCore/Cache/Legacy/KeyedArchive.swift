package import Foundation

/// A value of a keyed archive (`NSKeyedArchiver`'s format), with references resolved: Foundation's own classes as
/// values, any other class as an ``ArchivedObject`` with its fields.
package indirect enum ArchivedValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    case data(Data)
    /// `NSDate`: seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    case array([ArchivedValue])
    /// `NSDictionary` (`mutable`: `NSMutableDictionary`), in the archive's order; keys may be objects.
    case dictionary([ArchivedEntry], mutable: Bool)
    case object(ArchivedObject)

    package var stringValue: String? { if case .string(let text) = self { text } else { nil } }
    package var objectValue: ArchivedObject? { if case .object(let object) = self { object } else { nil } }
    package var entries: [ArchivedEntry]? { if case .dictionary(let entries, _) = self { entries } else { nil } }

    /// The value of a dictionary's string key `key`.
    package subscript(key: String) -> ArchivedValue? {
        entries?.first { $0.key == .string(key) }?.value
    }
}

/// One key and value of an archived dictionary.
package struct ArchivedEntry: Sendable, Equatable {
    package var key: ArchivedValue
    package var value: ArchivedValue

    package init(_ key: ArchivedValue, _ value: ArchivedValue) {
        self.key = key
        self.value = value
    }
}

/// An archived instance of a class that is not Foundation's: its class name (as archived, e.g.
/// `ADTokenCacheStoreItem`) and the fields it encoded. A field encoded as nil is absent.
package struct ArchivedObject: Sendable, Equatable {
    package var className: String
    package var fields: [String: ArchivedValue]

    package init(className: String, fields: [String: ArchivedValue]) {
        self.className = className
        self.fields = fields
    }

    package func string(_ key: String) -> String? { fields[key]?.stringValue }
}

/// Reads and writes keyed archives with our own code: the `bplist00` top dictionary `$archiver` `NSKeyedArchiver`,
/// `$version` 100000, `$top` (the root under `root`) and `$objects` (index 0 `$null`), objects as dictionaries whose
/// `$class` refers to `{ $classname, $classes }`, and references as UIDs. Outside data: a reference out of range, a
/// cycle, nesting deeper than ``maximumDepth``, more than ``maximumResolved`` references, or a Foundation class not
/// encoded as Foundation encodes it is a ``BinaryPropertyList/Failure``.
package enum KeyedArchive {
    static let maximumDepth = 32
    /// The most references resolved in one archive.
    static let maximumResolved = 100_000

    /// The root object of `data`.
    package static func decode(_ data: Data) throws(BinaryPropertyList.Failure) -> ArchivedValue {
        guard case .dictionary(let top) = try BinaryPropertyList.parse(data),
              top["$archiver"] == .string("NSKeyedArchiver"),
              case .array(let objects)? = top["$objects"],
              case .dictionary(let roots)? = top["$top"] else {
            throw BinaryPropertyList.Failure(reason: "not a keyed archive")
        }
        guard let root = roots["root"] ?? (roots.count == 1 ? roots.first?.value : nil) else {
            throw BinaryPropertyList.Failure(reason: "a keyed archive without a root object")
        }
        var resolver = Resolver(objects: objects)
        return try resolver.value(root, depth: 0)
    }

    private struct Resolver {
        let objects: [PropertyListValue]
        var open: Set<UInt64> = []
        /// References resolved so far, shared ones counted each time: a small archive whose objects refer to each
        /// other many times over cannot make the resolution run away.
        var resolved = 0

        mutating func value(_ plain: PropertyListValue, depth: Int) throws(BinaryPropertyList.Failure) -> ArchivedValue {
            guard depth <= KeyedArchive.maximumDepth else { throw BinaryPropertyList.Failure(reason: "nested too deeply") }
            switch plain {
            case .uid(let reference): return try resolve(reference, depth: depth)
            case .null: return .null
            case .bool(let flag): return .bool(flag)
            case .integer(let number): return .integer(number)
            case .real(let number): return .real(number)
            case .date(let seconds): return .date(seconds)
            case .data(let data): return .data(data)
            case .string(let text): return .string(text)
            case .array(let elements):
                var result: [ArchivedValue] = []
                for element in elements { result.append(try value(element, depth: depth + 1)) }
                return .array(result)
            case .dictionary:
                throw BinaryPropertyList.Failure(reason: "an object inline instead of referenced")
            }
        }

        mutating func resolve(_ reference: UInt64, depth: Int) throws(BinaryPropertyList.Failure) -> ArchivedValue {
            guard reference < UInt64(objects.count) else { throw BinaryPropertyList.Failure(reason: "a reference is out of range") }
            // Reference 0 is `$null`, nil.
            if reference == 0 { return .null }
            guard open.insert(reference).inserted else { throw BinaryPropertyList.Failure(reason: "a reference cycle") }
            resolved += 1
            guard resolved <= KeyedArchive.maximumResolved else { throw BinaryPropertyList.Failure(reason: "too many references") }
            defer { open.remove(reference) }
            let stored = objects[Int(reference)]
            guard case .dictionary(let fields) = stored else { return try value(stored, depth: depth + 1) }
            guard case .uid(let classReference)? = fields["$class"], classReference < UInt64(objects.count),
                  case .dictionary(let classInfo) = objects[Int(classReference)],
                  case .string(let className)? = classInfo["$classname"] else {
                throw BinaryPropertyList.Failure(reason: "an object without a class")
            }
            func field(_ name: String) throws(BinaryPropertyList.Failure) -> ArchivedValue? {
                guard let plain = fields[name] else { return nil }
                return try value(plain, depth: depth + 1)
            }
            switch className {
            case "NSString", "NSMutableString":
                guard case .string(let text)? = try field("NS.string") else { throw BinaryPropertyList.Failure(reason: "a string without text") }
                return .string(text)
            case "NSDate":
                switch fields["NS.time"] {
                case .real(let seconds)?: return .date(seconds)
                case .integer(let seconds)?: return .date(Double(seconds))
                default: throw BinaryPropertyList.Failure(reason: "a date without a time")
                }
            case "NSData", "NSMutableData":
                guard case .data(let data)? = try field("NS.data") else { throw BinaryPropertyList.Failure(reason: "data without bytes") }
                return .data(data)
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet":
                guard case .array(let elements)? = try field("NS.objects") else {
                    throw BinaryPropertyList.Failure(reason: "an array without its objects")
                }
                return .array(elements)
            case "NSDictionary", "NSMutableDictionary":
                guard case .array(let keys)? = try field("NS.keys"), case .array(let values)? = try field("NS.objects"),
                      keys.count == values.count else {
                    throw BinaryPropertyList.Failure(reason: "a dictionary whose keys and objects do not pair")
                }
                return .dictionary(zip(keys, values).map { ArchivedEntry($0, $1) }, mutable: className == "NSMutableDictionary")
            case "NSURL":
                guard case .string(let relative)? = try field("NS.relative") else { throw BinaryPropertyList.Failure(reason: "a URL without text") }
                return .string(relative)
            default:
                var decoded: [String: ArchivedValue] = [:]
                for (name, plain) in fields where name != "$class" {
                    let item = try value(plain, depth: depth + 1)
                    if item != .null { decoded[name] = item }
                }
                return .object(ArchivedObject(className: className, fields: decoded))
            }
        }
    }

    /// `root` as a keyed archive, laid out as `NSKeyedArchiver` lays it out: `$null` first, each object before what
    /// it refers to, equal strings and class descriptions written once. `superclasses` names the `$classes` chain
    /// of an archived class (its own name and `NSObject` when absent).
    package static func encode(_ root: ArchivedValue, superclasses: [String: [String]] = [:]) -> Data {
        var writer = Writer(superclasses: superclasses)
        let reference = writer.add(root)
        let top: [String: PropertyListValue] = [
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
            "$top": .dictionary(["root": reference]), "$objects": .array(writer.objects),
        ]
        return BinaryPropertyList.serialize(.dictionary(top))
    }

    private struct Writer {
        let superclasses: [String: [String]]
        var objects: [PropertyListValue] = [.string("$null")]
        var strings: [String: UInt64] = [:]
        var classes: [String: UInt64] = [:]

        /// What refers to `value`: a UID for objects and strings, the value itself for numbers.
        mutating func add(_ value: ArchivedValue) -> PropertyListValue {
            switch value {
            case .null: return .uid(0)
            case .bool(let flag): return .bool(flag)
            case .integer(let number): return .integer(number)
            case .real(let number): return .real(number)
            case .string(let text):
                if let known = strings[text] { return .uid(known) }
                let index = append(.string(text))
                strings[text] = index
                return .uid(index)
            case .data(let data): return .uid(append(.data(data)))
            case .date(let seconds):
                let index = reserve()
                objects[Int(index)] = .dictionary(["NS.time": .real(seconds), "$class": classReference("NSDate")])
                return .uid(index)
            case .array(let elements):
                let index = reserve()
                let references = elements.map { add($0) }
                objects[Int(index)] = .dictionary(["NS.objects": .array(references), "$class": classReference("NSArray")])
                return .uid(index)
            case .dictionary(let entries, let mutable):
                let index = reserve()
                let keys = entries.map { add($0.key) }
                let values = entries.map { add($0.value) }
                let name = mutable ? "NSMutableDictionary" : "NSDictionary"
                objects[Int(index)] = .dictionary(["NS.keys": .array(keys), "NS.objects": .array(values),
                                                   "$class": classReference(name)])
                return .uid(index)
            case .object(let object):
                let index = reserve()
                var fields: [String: PropertyListValue] = [:]
                for (name, field) in object.fields.sorted(by: { $0.key < $1.key }) { fields[name] = add(field) }
                fields["$class"] = classReference(object.className)
                objects[Int(index)] = .dictionary(fields)
                return .uid(index)
            }
        }

        mutating func append(_ value: PropertyListValue) -> UInt64 {
            objects.append(value)
            return UInt64(objects.count - 1)
        }

        mutating func reserve() -> UInt64 { append(.null) }

        mutating func classReference(_ name: String) -> PropertyListValue {
            if let known = classes[name] { return .uid(known) }
            let chain: [String]
            switch name {
            case "NSMutableDictionary": chain = ["NSMutableDictionary", "NSDictionary", "NSObject"]
            default: chain = superclasses[name] ?? [name, "NSObject"]
            }
            let index = append(.dictionary(["$classname": .string(name), "$classes": .array(chain.map { .string($0) })]))
            classes[name] = index
            return .uid(index)
        }
    }
}
