import Foundation

/// One field of a native-authentication form.
package struct NativeAuthField: Sendable, Equatable {
    package var name: String
    package var value: String
    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// What a sign-up or password-reset state machine asks its driver to do next, or tells the app.
package enum NativeFlowStep: Sendable, Equatable {
    /// `POST {authority}/{endpoint}` with the fields (and `client_id`); the answer goes back to the machine.
    case post(String, [NativeAuthField])
    /// Wait `seconds` on the app's clock, then post.
    case wait(seconds: Int, then: String, [NativeAuthField])
    /// Ask the app for the code sent to `sentTo`.
    case codeRequired(sentTo: String, channel: String, codeLength: Int)
    /// Ask the app for a password.
    case passwordRequired
    /// Ask the app for these attributes.
    case attributesRequired([NativeAuthAttribute])
    /// The service rejected these attributes; `canRetry`: submit them again on the same state.
    case attributesInvalid([String], canRetry: Bool)
    /// The flow is done; this token signs the user in (`grant_type=continuation_token`).
    case completed(continuationToken: String)
    /// The flow failed; `canRetry`: the state the call was made on is still usable.
    case failed(NativeAuthErrorKind, String?, canRetry: Bool)
}

/// A sign-up or password-reset state machine: a value type, tested without I/O.
package protocol NativeFlowMachine: Sendable {
    /// The answer of the request the machine last asked for.
    mutating func received(_ answer: NativeAuthAnswer) -> NativeFlowStep
}

extension NativeFlowStep {
    /// The general error for an answer that does not fit the flow's step.
    static let unexpected = NativeFlowStep.failed(.general, "An answer that does not fit this step.", canRetry: false)

    /// The form of a `challenge` call.
    static func challenge(_ endpoint: String, token: String, types: NativeAuthChallengeTypes) -> NativeFlowStep {
        .post(endpoint, [NativeAuthField("continuation_token", token), NativeAuthField("challenge_type", types.parameter)])
    }
}

/// One sign-up or password reset in progress: its machine driven against the service. The state objects of the
/// flow share it; an actor, so that two calls on one state cannot interleave.
actor NativeFlowSession<Machine: NativeFlowMachine> {
    /// Where a call left the flow, with the error codes and URI of the service's last error.
    struct Outcome: Sendable {
        var step: NativeFlowStep
        var service: NativeServiceErrorDetails
    }

    let client: NativeAuthClient
    let correlationId: UUID
    private var machine: Machine
    private var lastService = NativeServiceErrorDetails()

    init(client: NativeAuthClient, machine: Machine, correlationId: UUID) {
        self.client = client
        self.machine = machine
        self.correlationId = correlationId
    }

    /// Applies the app's input to the machine, then runs the requests it asks for (at most
    /// ``NativeAuthLimits/requestsPerCall``).
    func advance(_ input: @Sendable (inout Machine) -> NativeFlowStep) async -> Outcome {
        lastService = NativeServiceErrorDetails()
        var step = input(&machine)
        var sent = 0
        while true {
            if case .post = step { sent += 1 } else if case .wait = step { sent += 1 }
            guard sent <= NativeAuthLimits.requestsPerCall else {
                return Outcome(step: .failed(.general, NativeAuthLimits.message, canRetry: false), service: lastService)
            }
            switch step {
            case .post(let endpoint, let fields):
                step = machine.received(await post(endpoint, fields))
            case .wait(let seconds, let endpoint, let fields):
                do {
                    try await client.engine.clock.sleep(seconds: TimeInterval(seconds))
                } catch {
                    return Outcome(step: .failed(.general, "The wait was cancelled.", canRetry: false), service: NativeServiceErrorDetails())
                }
                step = machine.received(await post(endpoint, fields))
            default:
                return Outcome(step: step, service: lastService)
            }
        }
    }

    private func post(_ endpoint: String, _ fields: [NativeAuthField]) async -> NativeAuthAnswer {
        let answer = await client.post(endpoint, fields.map { ($0.name, $0.value) }, correlationId: correlationId)
        if case .error(let error) = answer { lastService = error.details }
        return answer
    }
}

/// The bounds of native authentication against a service that never settles.
enum NativeAuthLimits {
    /// One call on a flow's state (a code, a password, attributes, a start) sends at most this many requests,
    /// however the service answers; a flow takes three at most.
    static let requestsPerCall = 16

    static let message = "The service did not settle within \(requestsPerCall) requests."
}
