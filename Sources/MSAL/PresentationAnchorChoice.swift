/// Which window an authentication session is presented over, as MSAL for iOS/macOS chooses it: the presenting view
/// controller's window; else the key window of a scene in the foreground and active (else that scene's first
/// window); else none. Pure, generic over the window type, so that the choice is tested on every platform.
struct PresentationAnchorChoice<Window> {
    /// One connected scene, as far as the choice needs it.
    struct Scene {
        var isForegroundActive: Bool
        var keyWindow: Window?
        var windows: [Window]
    }

    /// The window of the presenting view controller's view, if any.
    var controllerWindow: Window?
    /// The connected scenes (on macOS one pseudo-scene holding the key, else main, window).
    var scenes: [Scene]

    /// The chosen window, or nil when there is none to present over.
    var anchor: Window? {
        if let controllerWindow { return controllerWindow }
        let active = scenes.filter(\.isForegroundActive)
        if let key = active.lazy.compactMap(\.keyWindow).first { return key }
        return active.lazy.compactMap(\.windows.first).first
    }
}
