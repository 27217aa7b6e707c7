import Foundation

/// The HTML pages of the emulated sign-in experience.
///
/// Element names and ids are stable so automated browsers can drive them:
/// - sign-in: form `#signin-form`, inputs `username`, `password`, buttons `action=signin` (`#next`),
///   `action=cancel` (`#cancel`), and on B2C `action=forgot` (`#forgotPassword`);
/// - sign-up (`prompt=create`): form `#signup-form`, inputs `username`, `password`, `displayName`;
/// - account picker: form `#picker-form`, buttons `account=<object id>` and `account=other` (`#otherAccount`);
/// - consent: form `#consent-form`, checkboxes `scope` (all checked), buttons `action=accept` (`#accept`), `action=cancel`;
/// - device code: form `#devicecode-form`, input `otc`;
/// - form_post answer: form `hiddenform` posting to the redirect URI.
/// Every form carries hidden `ctx` and `step` fields.
enum Pages {
    static func layout(_ title: String, _ body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(URLText.html(title))</title>
        <style>body{font-family:Segoe UI,Helvetica,Arial,sans-serif;background:#f2f2f2;margin:0}
        main{max-width:440px;margin:60px auto;background:#fff;padding:44px;box-shadow:0 2px 6px rgba(0,0,0,.2)}
        h1{font-size:24px;font-weight:600}input[type=text],input[type=password],input[type=email]{width:100%;padding:6px 0;margin:8px 0 16px;border:0;border-bottom:1px solid #666;font-size:15px}
        button{background:#0067b8;color:#fff;border:0;padding:8px 24px;margin:8px 8px 0 0;font-size:15px;cursor:pointer}
        button.secondary{background:#ccc;color:#000}.error{color:#e81123}.banner{font-size:12px;color:#666}
        .account{display:block;width:100%;text-align:left;background:#fff;color:#000;border:1px solid #ccc}</style></head>
        <body><main><p class="banner">Microsoft identity platform emulator &mdash; not a real sign-in page</p>
        \(body)
        </main></body></html>
        """
    }

    static func hidden(_ ctx: String, step: String) -> String {
        "<input type=\"hidden\" name=\"ctx\" value=\"\(URLText.html(ctx))\"><input type=\"hidden\" name=\"step\" value=\"\(step)\">"
    }

    static func errorLine(_ error: String?) -> String {
        error.map { "<p class=\"error\" id=\"error\" role=\"alert\">\(URLText.html($0))</p>" } ?? ""
    }

    static func signIn(ctx: String, action: String, username: String?, error: String?, tenantName: String, b2c: Bool) -> String {
        let forgot = b2c ? "<button type=\"submit\" class=\"secondary\" name=\"action\" value=\"forgot\" id=\"forgotPassword\" formnovalidate>Forgot your password?</button>" : ""
        return layout("Sign in to your account", """
        <h1 id="title">Sign in</h1><p>\(URLText.html(tenantName))</p>\(errorLine(error))
        <form method="post" action="\(action)" id="signin-form">\(hidden(ctx, step: "signin"))
        <label for="username">Email, phone, or Skype</label>
        <input type="email" name="username" id="username" value="\(URLText.html(username ?? ""))" autocomplete="username">
        <label for="password">Password</label>
        <input type="password" name="password" id="password" autocomplete="current-password">
        <button type="submit" name="action" value="signin" id="next">Sign in</button>
        <button type="submit" class="secondary" name="action" value="cancel" id="cancel" formnovalidate>Cancel</button>
        \(forgot)
        </form>
        """)
    }

    static func signUp(ctx: String, action: String, error: String?) -> String {
        layout("Create account", """
        <h1 id="title">Create account</h1>\(errorLine(error))
        <form method="post" action="\(action)" id="signup-form">\(hidden(ctx, step: "signup"))
        <label for="username">Email</label><input type="email" name="username" id="username">
        <label for="displayName">Name</label><input type="text" name="displayName" id="displayName">
        <label for="password">Password</label><input type="password" name="password" id="password">
        <button type="submit" name="action" value="signup" id="next">Create</button>
        <button type="submit" class="secondary" name="action" value="cancel" id="cancel">Cancel</button>
        </form>
        """)
    }

    static func accountPicker(ctx: String, action: String, users: [EmulatedUser]) -> String {
        let buttons = users.enumerated().map { index, user in
            "<button type=\"submit\" class=\"account\" name=\"account\" value=\"\(URLText.html(user.objectId))\" id=\"account-\(index)\" data-username=\"\(URLText.html(user.username))\">\(URLText.html(user.displayName))<br><small>\(URLText.html(user.username))</small></button>"
        }.joined(separator: "\n")
        return layout("Pick an account", """
        <h1 id="title">Pick an account</h1>
        <form method="post" action="\(action)" id="picker-form">\(hidden(ctx, step: "pick"))
        \(buttons)
        <button type="submit" class="account" name="account" value="other" id="otherAccount">Use another account</button>
        <button type="submit" class="secondary" name="account" value="cancel" id="cancel">Cancel</button>
        </form>
        """)
    }

    static func consent(ctx: String, action: String, appName: String, user: EmulatedUser, scopes: [String]) -> String {
        let items = scopes.enumerated().map { index, scope in
            "<label><input type=\"checkbox\" name=\"scope\" value=\"\(URLText.html(scope))\" id=\"scope-\(index)\" checked> \(URLText.html(scope))</label><br>"
        }.joined(separator: "\n")
        return layout("Permissions requested", """
        <h1 id="title">Permissions requested</h1>
        <p><strong>\(URLText.html(appName))</strong> wants to access resources for \(URLText.html(user.username)):</p>
        <form method="post" action="\(action)" id="consent-form">\(hidden(ctx, step: "consent"))
        \(items)
        <button type="submit" name="action" value="accept" id="accept">Accept</button>
        <button type="submit" class="secondary" name="action" value="cancel" id="cancel">Cancel</button>
        </form>
        """)
    }

    static func resetPassword(ctx: String, action: String, error: String?) -> String {
        layout("Reset password", """
        <h1 id="title">Reset your password</h1>\(errorLine(error))
        <form method="post" action="\(action)" id="reset-form">\(hidden(ctx, step: "reset"))
        <label for="username">Email</label><input type="email" name="username" id="username">
        <label for="newPassword">New password</label><input type="password" name="newPassword" id="newPassword">
        <button type="submit" name="action" value="reset" id="next">Continue</button>
        <button type="submit" class="secondary" name="action" value="cancel" id="cancel">Cancel</button>
        </form>
        """)
    }

    static func editProfile(ctx: String, action: String, user: EmulatedUser) -> String {
        layout("Edit profile", """
        <h1 id="title">Edit profile</h1>
        <form method="post" action="\(action)" id="profile-form">\(hidden(ctx, step: "profile"))
        <label for="displayName">Display name</label><input type="text" name="displayName" id="displayName" value="\(URLText.html(user.displayName))">
        <button type="submit" name="action" value="save" id="next">Save</button>
        <button type="submit" class="secondary" name="action" value="cancel" id="cancel">Cancel</button>
        </form>
        """)
    }

    /// The `response_mode=form_post` answer: an auto-submitting form.
    static func formPost(to redirectURI: String, _ parameters: [(String, String)]) -> String {
        let fields = parameters.map { "<input type=\"hidden\" name=\"\(URLText.html($0.0))\" value=\"\(URLText.html($0.1))\">" }.joined()
        return """
        <!DOCTYPE html><html><head><title>Working...</title></head><body onload="document.forms[0].submit()">
        <form method="POST" name="hiddenform" id="hiddenform" action="\(URLText.html(redirectURI))">\(fields)
        <noscript><p>Script is disabled. Click Submit to continue.</p><input type="submit" value="Submit"></noscript></form></body></html>
        """
    }

    static func error(code: String, message: String) -> String {
        layout("Sign in error", "<h1 id=\"title\">Sorry, but we're having trouble signing you in.</h1><p class=\"error\" id=\"error\" data-code=\"\(code)\">\(URLText.html(code)): \(URLText.html(message))</p>")
    }

    static func deviceCodeEntry(error: String?) -> String {
        layout("Enter code", """
        <h1 id="title">Enter code</h1><p>Enter the code displayed on your app or device.</p>\(errorLine(error))
        <form method="post" action="/devicelogin" id="devicecode-form"><input type="hidden" name="step" value="code">
        <input type="text" name="otc" id="otc" autocomplete="off" maxlength="20">
        <button type="submit" name="action" value="next" id="next">Next</button></form>
        """)
    }

    static func message(_ title: String, _ text: String, id: String) -> String {
        layout(title, "<h1 id=\"title\">\(URLText.html(title))</h1><p id=\"\(id)\">\(URLText.html(text))</p>")
    }

    static func home(baseURL: String, config: EmulatorConfiguration) -> String {
        layout("Identity platform emulator", """
        <h1>Identity platform emulator</h1>
        <p>Authority: <code>\(URLText.html(baseURL))/\(URLText.html(config.defaults.tenant))</code></p>
        <p>Client id: <code>\(URLText.html(config.defaults.clientId))</code></p>
        <p>User: <code>\(URLText.html(config.defaults.username))</code></p>
        <p><a href="/devicelogin">Device login</a></p>
        """)
    }
}
