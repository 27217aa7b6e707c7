"""An independent writer and reader of ADAL's archived cache items (NSKeyedArchiver's format, written with Python's
own binary property list module), to check the library against a second implementation of the documented format.

Formats (facts from MSAL's common core for Objective-C):
- an item: ADTokenCacheStoreItem with authority, clientId, resource, accessToken, refreshToken, accessTokenType,
  expiresOn, cachedAt, familyId, homeAccountId, additionalServer, and userInformation (ADUserInformation, rawIdToken)
  (MSIDLegacyTokenCacheItem.m, MSIDUserInformation.m);
- macOS' serialized cache: {"version": 1.0, "tokenCache": {"tokens": {userId: {ADTokenCacheKey: item}}}}
  (MSIDMacTokenCache.m).

Reads one JSON command on stdin, writes JSON on stdout:
  {"op": "item", "fields": {...}}                        -> {"data": base64 archive}
  {"op": "mac-cache", "users": {userId: [{"service", "authority", "clientId", "fields"}]}} -> {"data": ...}
  {"op": "read-item", "data": base64}                    -> {"fields": {...}}
  {"op": "read-mac-cache", "data": base64}               -> {"version": v, "users": {userId: [{"service", "fields"}]}}
"""
import base64
import json
import plistlib
import sys

EPOCH_2001 = 978307200.0


class Archiver:
    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def class_uid(self, name, chain=None):
        if name not in self.classes:
            self.objects.append({"$classname": name, "$classes": chain or [name, "NSObject"]})
            self.classes[name] = plistlib.UID(len(self.objects) - 1)
        return self.classes[name]

    def add(self, value):
        if value is None:
            return plistlib.UID(0)
        if isinstance(value, bool) or isinstance(value, (int, float)):
            return value
        if isinstance(value, str):
            self.objects.append(value)
            return plistlib.UID(len(self.objects) - 1)
        if isinstance(value, dict) and value.get("$date") is not None:
            index = len(self.objects)
            self.objects.append(None)
            self.objects[index] = {"NS.time": float(value["$date"]), "$class": self.class_uid("NSDate")}
            return plistlib.UID(index)
        if isinstance(value, dict) and "$object" in value:
            index = len(self.objects)
            self.objects.append(None)
            fields = {key: self.add(field) for key, field in value["fields"].items()}
            fields["$class"] = self.class_uid(value["$object"])
            self.objects[index] = fields
            return plistlib.UID(index)
        if isinstance(value, dict) and "$pairs" in value:
            index = len(self.objects)
            self.objects.append(None)
            keys = [self.add(key) for key, _ in value["$pairs"]]
            values = [self.add(item) for _, item in value["$pairs"]]
            name = "NSMutableDictionary" if value.get("mutable", True) else "NSDictionary"
            chain = ["NSMutableDictionary", "NSDictionary", "NSObject"] if name == "NSMutableDictionary" else None
            self.objects[index] = {"NS.keys": keys, "NS.objects": values, "$class": self.class_uid(name, chain)}
            return plistlib.UID(index)
        if isinstance(value, dict):
            return self.add({"$pairs": list(value.items())})
        raise ValueError("cannot archive %r" % (value,))

    def archive(self, root):
        top = self.add(root)
        return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": top},
                               "$objects": self.objects}, fmt=plistlib.FMT_BINARY)


def item_object(fields):
    archived = {}
    for key, value in fields.items():
        if key == "idToken":
            archived["userInformation"] = {"$object": "ADUserInformation", "fields": {"rawIdToken": value}}
        elif key in ("expiresOn", "cachedAt"):
            archived[key] = {"$date": value - EPOCH_2001}
        else:
            archived[key] = value
    archived.setdefault("additionalServer", {"$pairs": []})
    return {"$object": "ADTokenCacheStoreItem", "fields": archived}


def unarchive(data):
    top = plistlib.loads(data)
    assert top["$archiver"] == "NSKeyedArchiver"
    objects = top["$objects"]

    def resolve(value):
        if isinstance(value, plistlib.UID):
            value = objects[value.data]
            if value == "$null":
                return None
        if isinstance(value, dict) and "$class" in value:
            name = objects[value["$class"].data]["$classname"]
            if name in ("NSDictionary", "NSMutableDictionary"):
                return {"$pairs": [(resolve(k), resolve(v)) for k, v in zip(value["NS.keys"], value["NS.objects"])],
                        "class": name}
            if name == "NSDate":
                return {"$date": value["NS.time"] + EPOCH_2001}
            if name in ("NSString", "NSMutableString"):
                return value["NS.string"]
            return {"$object": name, "fields": {k: resolve(v) for k, v in value.items() if k != "$class"}}
        return value

    return resolve(top["$top"]["root"])


def item_fields(obj):
    assert obj["$object"] in ("ADTokenCacheStoreItem", "MSIDLegacyTokenCacheItem"), obj["$object"]
    fields = {}
    for key, value in obj["fields"].items():
        if value is None:
            continue
        if key == "userInformation":
            fields["idToken"] = value["fields"].get("rawIdToken")
            fields["userInformationClass"] = value["$object"]
        elif isinstance(value, dict) and "$date" in value:
            fields[key] = value["$date"]
        elif isinstance(value, dict) and "$pairs" in value:
            fields[key] = {str(k): v for k, v in value["$pairs"]}
        else:
            fields[key] = value
    return fields


def main():
    command = json.load(sys.stdin)
    op = command["op"]
    if op == "item":
        data = Archiver().archive(item_object(command["fields"]))
        out = {"data": base64.b64encode(data).decode()}
    elif op == "mac-cache":
        users = []
        for user, items in command["users"].items():
            pairs = []
            for entry in items:
                key = {"$object": "ADTokenCacheKey", "fields": {
                    "service": entry.get("service"), "authority": entry.get("authority"),
                    "clientId": entry.get("clientId"), "resource": entry.get("resource")}}
                pairs.append((key, item_object(entry["fields"])))
            users.append((user, {"$pairs": pairs}))
        root = {"$pairs": [("tokenCache", {"$pairs": [("tokens", {"$pairs": users})]}),
                           ("version", command.get("version", 1.0))], "mutable": False}
        out = {"data": base64.b64encode(Archiver().archive(root)).decode()}
    elif op == "read-item":
        out = {"fields": item_fields(unarchive(base64.b64decode(command["data"])))}
    elif op == "read-mac-cache":
        root = dict(unarchive(base64.b64decode(command["data"]))["$pairs"])
        tokens = dict(root["tokenCache"]["$pairs"]).get("tokens") or {"$pairs": []}
        users = {}
        for user, items in tokens["$pairs"]:
            users[user] = [{"service": key["fields"].get("service"), "fields": item_fields(item)}
                           for key, item in items["$pairs"]]
        out = {"version": root["version"], "users": users}
    else:
        raise SystemExit("unknown op " + op)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
