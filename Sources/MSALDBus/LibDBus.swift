import Foundation

#if os(Linux)
/// The system's libdbus (`libdbus-1.so.3`), loaded with `dlopen` on first use — the library Microsoft's own broker
/// client uses — so that MSAL needs neither its headers to build nor the library to start. Only the non-variadic
/// calls are used: arguments go in and out through message iterators.
///
/// libdbus's structures that callers allocate (`DBusError`, `DBusMessageIter`) are opaque here: they get more room
/// than their documented size, and only `DBusError`'s first two fields (`name`, `message`) are read.
package final class LibDBus: @unchecked Sendable {
    package typealias Connection = OpaquePointer
    package typealias Message = OpaquePointer

    private typealias ErrorInit = @convention(c) (UnsafeMutableRawPointer?) -> Void
    private typealias ErrorIsSet = @convention(c) (UnsafeRawPointer?) -> UInt32
    private typealias OpenPrivate = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Connection?
    private typealias BusRegister = @convention(c) (Connection?, UnsafeMutableRawPointer?) -> UInt32
    private typealias ConnectionVoid = @convention(c) (Connection?) -> Void
    private typealias NewMethodCall = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                                      UnsafePointer<CChar>?) -> Message?
    private typealias IterInitAppend = @convention(c) (Message?, UnsafeMutableRawPointer?) -> Void
    private typealias IterAppendBasic = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?) -> UInt32
    private typealias SendBlocking = @convention(c) (Connection?, Message?, Int32, UnsafeMutableRawPointer?) -> Message?
    private typealias IterInit = @convention(c) (Message?, UnsafeMutableRawPointer?) -> UInt32
    private typealias IterArgType = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    private typealias IterGetBasic = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
    private typealias IterNext = @convention(c) (UnsafeMutableRawPointer?) -> UInt32
    private typealias MessageVoid = @convention(c) (Message?) -> Void
    private typealias MessageRef = @convention(c) (Message?) -> Message?
    private typealias RequestName = @convention(c) (Connection?, UnsafePointer<CChar>?, UInt32, UnsafeMutableRawPointer?) -> Int32
    private typealias ReadWrite = @convention(c) (Connection?, Int32) -> UInt32
    private typealias PopMessage = @convention(c) (Connection?) -> Message?
    private typealias MessageType = @convention(c) (Message?) -> Int32
    private typealias MessageString = @convention(c) (Message?) -> UnsafePointer<CChar>?
    private typealias NewReturn = @convention(c) (Message?) -> Message?
    private typealias NewError = @convention(c) (Message?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Message?
    private typealias Send = @convention(c) (Connection?, Message?, UnsafeMutablePointer<UInt32>?) -> UInt32
    private typealias ThreadsInit = @convention(c) () -> UInt32
    private typealias GetSocket = @convention(c) (Connection?, UnsafeMutablePointer<Int32>?) -> UInt32

    package static let libraryName = "libdbus-1.so.3"
    /// `DBUS_TYPE_STRING` ('s').
    static let typeString: Int32 = 115
    /// `DBUS_TYPE_UINT32` ('u').
    static let typeUInt32: Int32 = 117
    /// The longest string taken from a reply, in bytes: a longer one is refused before it is copied (libdbus itself
    /// accepts messages of up to 128 MiB).
    package static let maximumReplyString = 1 << 20
    /// The failure name of a reply whose string is longer than ``maximumReplyString``.
    package static let replyTooLarge = "com.microsoft.identity.msal.ReplyTooLarge"
    /// `DBUS_MESSAGE_TYPE_METHOD_CALL`.
    static let methodCall: Int32 = 1
    /// `DBUS_NAME_FLAG_DO_NOT_QUEUE`; `DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER` is 1.
    static let doNotQueue: UInt32 = 4
    /// `DBUS_TIMEOUT_INFINITE`.
    package static let infinite: Int32 = 0x7fff_ffff

    private let errorInit: ErrorInit
    private let errorIsSet: ErrorIsSet
    private let errorFree: ErrorInit
    private let openPrivate: OpenPrivate
    private let busRegister: BusRegister
    private let connectionClose: ConnectionVoid
    private let connectionUnref: ConnectionVoid
    private let connectionFlush: ConnectionVoid
    private let newMethodCall: NewMethodCall
    private let iterInitAppend: IterInitAppend
    private let iterAppendBasic: IterAppendBasic
    private let sendBlocking: SendBlocking
    private let iterInit: IterInit
    private let iterArgType: IterArgType
    private let iterGetBasic: IterGetBasic
    private let iterNext: IterNext
    private let messageUnref: MessageVoid
    private let messageRef: MessageRef
    private let requestName: RequestName
    private let readWrite: ReadWrite
    private let popMessage: PopMessage
    private let messageType: MessageType
    private let messageMember: MessageString
    private let messageInterface: MessageString
    private let newReturn: NewReturn
    private let newError: NewError
    private let send: Send
    private let getSocket: GetSocket

    /// The loaded library, or why it could not be loaded (once per process).
    package static let shared: Result<LibDBus, Failure> = Result { () throws(Failure) in try LibDBus() }

    private init() throws(Failure) {
        guard let handle = dlopen(Self.libraryName, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw Failure(name: Self.notLoaded, message: "\(Self.libraryName) could not be loaded (\(reason))")
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(Failure) -> T {
            guard let pointer = dlsym(handle, name) else {
                throw Failure(name: Self.notLoaded, message: "\(Self.libraryName) has no \(name)")
            }
            return unsafeBitCast(pointer, to: type)
        }
        errorInit = try symbol("dbus_error_init", as: ErrorInit.self)
        errorIsSet = try symbol("dbus_error_is_set", as: ErrorIsSet.self)
        errorFree = try symbol("dbus_error_free", as: ErrorInit.self)
        openPrivate = try symbol("dbus_connection_open_private", as: OpenPrivate.self)
        busRegister = try symbol("dbus_bus_register", as: BusRegister.self)
        connectionClose = try symbol("dbus_connection_close", as: ConnectionVoid.self)
        connectionUnref = try symbol("dbus_connection_unref", as: ConnectionVoid.self)
        connectionFlush = try symbol("dbus_connection_flush", as: ConnectionVoid.self)
        newMethodCall = try symbol("dbus_message_new_method_call", as: NewMethodCall.self)
        iterInitAppend = try symbol("dbus_message_iter_init_append", as: IterInitAppend.self)
        iterAppendBasic = try symbol("dbus_message_iter_append_basic", as: IterAppendBasic.self)
        sendBlocking = try symbol("dbus_connection_send_with_reply_and_block", as: SendBlocking.self)
        iterInit = try symbol("dbus_message_iter_init", as: IterInit.self)
        iterArgType = try symbol("dbus_message_iter_get_arg_type", as: IterArgType.self)
        iterGetBasic = try symbol("dbus_message_iter_get_basic", as: IterGetBasic.self)
        iterNext = try symbol("dbus_message_iter_next", as: IterNext.self)
        messageUnref = try symbol("dbus_message_unref", as: MessageVoid.self)
        messageRef = try symbol("dbus_message_ref", as: MessageRef.self)
        requestName = try symbol("dbus_bus_request_name", as: RequestName.self)
        readWrite = try symbol("dbus_connection_read_write", as: ReadWrite.self)
        popMessage = try symbol("dbus_connection_pop_message", as: PopMessage.self)
        messageType = try symbol("dbus_message_get_type", as: MessageType.self)
        messageMember = try symbol("dbus_message_get_member", as: MessageString.self)
        messageInterface = try symbol("dbus_message_get_interface", as: MessageString.self)
        newReturn = try symbol("dbus_message_new_method_return", as: NewReturn.self)
        newError = try symbol("dbus_message_new_error", as: NewError.self)
        send = try symbol("dbus_connection_send", as: Send.self)
        getSocket = try symbol("dbus_connection_get_socket", as: GetSocket.self)
        // Connections are used from more than one thread (a call, and its cancellation closing the connection).
        _ = try symbol("dbus_threads_init_default", as: ThreadsInit.self)()
    }

    /// The error name of a library that could not be loaded.
    package static let notLoaded = "com.microsoft.identity.msal.LibDBusNotLoaded"

    /// A failed libdbus call: the D-Bus error name (such as `org.freedesktop.DBus.Error.ServiceUnknown`) and text.
    package struct Failure: Error, Sendable {
        package var name: String
        package var message: String
        package init(name: String, message: String) {
            self.name = name
            self.message = message
        }
    }

    /// Runs `body` with an initialised `DBusError`; throws the error it holds afterwards, if any.
    private func withError<T>(_ body: (UnsafeMutableRawPointer) -> T) throws(Failure) -> T {
        let error = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        defer { error.deallocate() }
        errorInit(error)
        let result = body(error)
        if errorIsSet(error) != 0 {
            let name = error.load(as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? "unknown"
            let message = error.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: UnsafePointer<CChar>?.self)
                .map { String(cString: $0) } ?? ""
            errorFree(error)
            throw Failure(name: name, message: String(message.prefix(512)))
        }
        return result
    }

    /// A private connection to the bus at `address`, registered (it has a unique name).
    package func connect(address: String) throws(Failure) -> Connection {
        guard let connection = try withError({ openPrivate(address, $0) }) else {
            throw Failure(name: "org.freedesktop.DBus.Error.NoServer", message: "no connection")
        }
        do {
            _ = try withError { busRegister(connection, $0) }
        } catch {
            close(connection)
            throw error
        }
        return connection
    }

    /// Closes and releases a connection (a call blocked on it returns with an error).
    package func close(_ connection: Connection) {
        connectionClose(connection)
        connectionUnref(connection)
    }

    /// Ends a call blocked on `connection` from another thread, leaving the release to its owner: the connection's
    /// socket is shut down, so the blocked call sees the bus go away (closing the connection alone does not wake it).
    package func interrupt(_ connection: Connection) {
        var socket: Int32 = -1
        if getSocket(connection, &socket) != 0, socket >= 0 {
            _ = shutdown(socket, Int32(SHUT_RDWR))
        }
    }

    /// Calls `interface.method` on `path` at `destination` with string arguments and waits at most `timeout`
    /// milliseconds for the string arguments of the reply.
    package func call(_ connection: Connection, destination: String, path: String, interface: String, method: String,
              arguments: [String], timeout: Int32) throws(Failure) -> [String] {
        let reply = try send(connection, destination: destination, path: path, interface: interface, method: method,
                             arguments: arguments, timeout: timeout)
        defer { messageUnref(reply) }
        guard let strings = strings(of: reply) else {
            throw Failure(name: Self.replyTooLarge, message: "a reply string is larger than \(Self.maximumReplyString) bytes")
        }
        return strings
    }

    /// Calls `interface.method` with string arguments and returns the reply's first argument, a `uint32`
    /// (`GetConnectionUnixUser`, `StartServiceByName`).
    package func callForUInt32(_ connection: Connection, destination: String, path: String, interface: String, method: String,
                               arguments: [String], timeout: Int32) throws(Failure) -> UInt32 {
        let reply = try send(connection, destination: destination, path: path, interface: interface, method: method,
                             arguments: arguments, timeout: timeout)
        defer { messageUnref(reply) }
        let iterator = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
        defer { iterator.deallocate() }
        guard iterInit(reply, iterator) != 0, iterArgType(iterator) == Self.typeUInt32 else {
            throw Failure(name: "org.freedesktop.DBus.Error.InvalidSignature", message: "the reply is not a uint32")
        }
        var value: UInt32 = 0
        withUnsafeMutablePointer(to: &value) { iterGetBasic(iterator, UnsafeMutableRawPointer($0)) }
        return value
    }

    /// Sends a method call with string arguments and waits at most `timeout` milliseconds for its reply, which the
    /// caller releases.
    private func send(_ connection: Connection, destination: String, path: String, interface: String, method: String,
                      arguments: [String], timeout: Int32) throws(Failure) -> Message {
        guard let message = newMethodCall(destination, path, interface, method) else {
            throw Failure(name: "org.freedesktop.DBus.Error.NoMemory", message: "no message")
        }
        defer { messageUnref(message) }
        append(arguments, to: message)
        guard let reply = try withError({ sendBlocking(connection, message, timeout, $0) }) else {
            throw Failure(name: "org.freedesktop.DBus.Error.NoReply", message: "no reply")
        }
        return reply
    }

    private func append(_ strings: [String], to message: Message) {
        let iterator = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
        defer { iterator.deallocate() }
        iterInitAppend(message, iterator)
        for string in strings {
            string.withCString { text in
                var pointer: UnsafePointer<CChar>? = text
                _ = withUnsafePointer(to: &pointer) { iterAppendBasic(iterator, Self.typeString, $0) }
            }
        }
    }

    /// The leading string arguments of `message`; nil when one is longer than ``maximumReplyString`` (measured with
    /// `strnlen` up to the bound, never copied).
    private func strings(of message: Message) -> [String]? {
        let iterator = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
        defer { iterator.deallocate() }
        var result: [String] = []
        guard iterInit(message, iterator) != 0 else { return result }
        repeat {
            guard iterArgType(iterator) == Self.typeString else { break }
            var pointer: UnsafePointer<CChar>?
            withUnsafeMutablePointer(to: &pointer) { iterGetBasic(iterator, UnsafeMutableRawPointer($0)) }
            guard let pointer else { result.append(""); continue }
            let length = strnlen(pointer, Self.maximumReplyString + 1)
            guard length <= Self.maximumReplyString else { return nil }
            result.append(String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                                               count: length), as: UTF8.self))
        } while iterNext(iterator) != 0 && result.count < 16
        return result
    }

    // MARK: - Serving (the emulated broker)

    /// Asks for `name`; true when this connection now owns it.
    package func own(_ connection: Connection, name: String) throws(Failure) -> Bool {
        try withError { requestName(connection, name, Self.doNotQueue, $0) } == 1
    }

    /// One incoming method call, taken off the connection within `timeout` milliseconds.
    package struct Call: @unchecked Sendable {
        package var interface: String
        package var member: String
        package var arguments: [String]
        fileprivate var message: Message
    }

    /// Waits at most `timeout` ms for traffic, then takes the next method call, if any (other messages are dropped).
    /// Returns false once the connection is closed.
    package func next(_ connection: Connection, timeout: Int32, _ handle: (Call) -> Void) -> Bool {
        guard readWrite(connection, timeout) != 0 else { return false }
        while let message = popMessage(connection) {
            defer { messageUnref(message) }
            guard messageType(message) == Self.methodCall else { continue }
            let call = Call(interface: messageInterface(message).map { String(cString: $0) } ?? "",
                            member: messageMember(message).map { String(cString: $0) } ?? "",
                            arguments: strings(of: message) ?? [], message: message)
            // `org.freedesktop.DBus.Peer.Ping`, which clients send before using a service, is answered here.
            if call.interface == "org.freedesktop.DBus.Peer", call.member == "Ping" {
                reply(connection, to: call, [])
                continue
            }
            handle(call)
        }
        return true
    }

    /// Keeps `call` past the handler of ``next(_:timeout:_:)``, to be answered later from any thread (libdbus's
    /// connections are thread-safe once its threads are initialised); ``release(_:)`` after answering it.
    package func keep(_ call: Call) -> Call {
        _ = messageRef(call.message)
        return call
    }

    /// Lets go of a call kept with ``keep(_:)``.
    package func release(_ call: Call) {
        messageUnref(call.message)
    }

    /// Answers `call` with string arguments.
    package func reply(_ connection: Connection, to call: Call, _ strings: [String]) {
        guard let reply = newReturn(call.message) else { return }
        defer { messageUnref(reply) }
        append(strings, to: reply)
        _ = send(connection, reply, nil)
        connectionFlush(connection)
    }

    /// Answers `call` with a D-Bus error.
    package func fail(_ connection: Connection, call: Call, name: String, message: String) {
        guard let reply = newError(call.message, name, message) else { return }
        defer { messageUnref(reply) }
        _ = send(connection, reply, nil)
        connectionFlush(connection)
    }
}
#endif
