import Foundation

/// Microsoft Graph collection behaviour the stand-in reproduces: paging and counting, and creating an object.
extension EmulatorCore {
    /// One page of `items`: `$top` items (1…999, default 100) from the `$skiptoken` offset, with
    /// `@odata.nextLink` while items remain. `$count=true` adds `@odata.count` and, as Graph does for directory
    /// objects, needs the `ConsistencyLevel: eventual` header (else 400 `Request_BadRequest`).
    func graphPage(_ items: [[String: Any]], collection: String, _ request: EmulatorRequest) -> EmulatorResponse {
        let wantsCount = request.query["$count"]?.lowercased() == "true"
        if wantsCount, request.headers["consistencylevel"]?.lowercased() != "eventual" {
            return graphFailure(request, 400, "Request_BadRequest",
                                "$count is not currently supported without the ConsistencyLevel: eventual header.")
        }
        let top = request.query["$top"].flatMap(Int.init).map { min(max($0, 1), 999) } ?? 100
        let offset = request.query["$skiptoken"].flatMap(Int.init).map { min(max($0, 0), items.count) } ?? 0
        let end = min(offset + top, items.count)
        var body: [String: Any] = [
            "@odata.context": "\(request.baseURL)/v1.0/$metadata#\(collection)",
            "value": Array(items[offset..<end]),
        ]
        if wantsCount { body["@odata.count"] = items.count }
        if end < items.count {
            var next = "\(request.baseURL)/v1.0/\(collection)?$top=\(top)&$skiptoken=\(end)"
            if wantsCount { next += "&$count=true" }
            body["@odata.nextLink"] = next
        }
        return .json(body, headers: [("request-id", UUID().uuidString.lowercased()), ("client-request-id", request.correlationId)])
    }

    /// `POST /v1.0/me/todo/lists` with `{"displayName": ...}`: answers `201` with the new list, as Graph does
    /// (delegated `Tasks.ReadWrite`, or `User.Read` in the emulator, which keeps no lists).
    func graphCreateTodoList(_ request: EmulatorRequest) -> EmulatorResponse {
        switch graphCaller(request) {
        case .failure(let rejection): return graphFailure(request, rejection)
        case .success(.app): return graphFailure(request, 400, "BadRequest", "/me request is only valid with delegated authentication flow.")
        case .success(.user): break
        }
        guard request.headers["content-type"]?.lowercased().hasPrefix("application/json") == true,
              let object = (try? JSONSerialization.jsonObject(with: request.rawBody)) as? [String: Any],
              let name = object["displayName"] as? String, !name.isEmpty else {
            return graphFailure(request, 400, "invalidRequest", "A JSON body with a displayName is required.")
        }
        let list: [String: Any] = [
            "@odata.context": "\(request.baseURL)/v1.0/$metadata#users('me')/todo/lists/$entity",
            "id": UUID().uuidString.lowercased(), "displayName": String(name.prefix(256)),
            "isOwner": true, "isShared": false, "wellknownListName": "none",
        ]
        return .json(list, status: 201, headers: [("request-id", UUID().uuidString.lowercased()), ("client-request-id", request.correlationId)])
    }
}
