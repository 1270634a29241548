//! The subject: an engine under test behind a small adapter. The kit only
//! ever talks to an engine through this trait; [`crate::CoreSubject`] is
//! the adapter for `baton-core`, and the worked example a third party
//! copies for its own engine.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An engine under test.
pub trait ConformanceSubject {
    /// Starts a fresh engine with these settings and participants mounted.
    /// Time starts at 1,000 ms and moves only with [`Command::Advance`].
    fn start(&mut self, setup: &Setup) -> Result<(), SubjectError>;

    /// Carries out one command and everything it sets off (participants
    /// answer at once, as their behaviour says). `Err` carries the engine's
    /// own error code.
    fn command(&mut self, command: &Command) -> Result<(), SubjectError>;

    /// What can be observed now, as JSON in the shape the kit's README
    /// documents (`runs`, `invocations`, `reverts`, `questions`,
    /// `announcements`, `findings`, `texts`).
    fn observe(&mut self) -> Value;
}

/// Why a command failed: the engine's stable error code, and its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct SubjectError {
    /// The stable code (`stale-revision`, `digest-mismatch`, …).
    pub code: String,
    /// What the engine said.
    pub message: String,
}

impl SubjectError {
    /// An error with this code and message.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        SubjectError {
            code: code.into(),
            message: message.into(),
        }
    }
}

/// What a fixture sets up before its first step.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Setup {
    /// Engine settings that differ from the defaults, as the fixture gives
    /// them (`ceiling`, `escalationTimeoutMs`, `authorizationTtlMs`,
    /// `hourlyQuota`, `presence`).
    pub engine: Map<String, Value>,
    /// The participants to mount, in order.
    pub participants: Vec<ParticipantSetup>,
}

/// One participant to mount.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParticipantSetup {
    /// Its manifest, as an application registers it.
    pub manifest: Value,
    /// The instance name, for a second mount of one manifest.
    #[serde(default)]
    pub instance: Option<String>,
    /// How it answers the engine.
    #[serde(default)]
    pub behaviour: Behaviour,
}

/// How a participant answers the engine's requests, all at once.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Behaviour {
    /// Capability calls: applied (the result is `{"ok": true}`), failed, or
    /// declined.
    pub invoke: Reply,
    /// History marks: a fresh token, or a failure.
    pub mark: Reply,
    /// Reverts to a mark.
    pub revert: Reply,
    /// Previews, when the manifest renders them: `{"preview": arguments}`.
    pub preview: Reply,
}

/// One kind of answer: `"ok"`, `{"fail": message}` or `{"decline": message}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "Value", into = "Value")]
pub enum Reply {
    /// As asked.
    #[default]
    Ok,
    /// A failure, with its message.
    Fail(String),
    /// A refusal of the call, with its message (invoke only).
    Decline(String),
}

impl TryFrom<Value> for Reply {
    type Error = String;

    fn try_from(value: Value) -> Result<Self, Self::Error> {
        match &value {
            Value::String(text) if text == "ok" => Ok(Reply::Ok),
            Value::Object(map) if map.len() == 1 => match map.iter().next() {
                Some((key, Value::String(message))) if key == "fail" => {
                    Ok(Reply::Fail(message.clone()))
                }
                Some((key, Value::String(message))) if key == "decline" => {
                    Ok(Reply::Decline(message.clone()))
                }
                _ => Err(format!("not a reply: {value}")),
            },
            _ => Err(format!("not a reply: {value}")),
        }
    }
}

impl From<Reply> for Value {
    fn from(reply: Reply) -> Value {
        match reply {
            Reply::Ok => Value::from("ok"),
            Reply::Fail(message) => serde_json::json!({ "fail": message }),
            Reply::Decline(message) => serde_json::json!({ "decline": message }),
        }
    }
}

/// One thing the kit asks the subject to do. Runs are named by the
/// fixture's aliases (`r1`); questions by their position in the order they
/// were asked (0 first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum Command {
    /// `engine.delegate(request)`; the run is called `alias` from then on.
    Delegate {
        /// The run's alias.
        #[serde(rename = "as")]
        alias: String,
        /// The delegation request as the JS API takes it: `intent`,
        /// `initiative`, `autonomy`, `budget`, `plan`.
        #[serde(flatten)]
        request: Map<String, Value>,
    },
    /// The acting party's traffic on the run's open turn, as `baton/1`
    /// events; a turn not yet started is started first. An event
    /// `{"type": "call", "call", "tool", "arguments"}` stands for
    /// `tool-call-start`, one `tool-call-args` with the arguments' JSON,
    /// and `tool-call-end`.
    Turn {
        /// The run.
        run: String,
        /// The events, in order.
        events: Vec<Value>,
    },
    /// The transport's stream closes before the turn ended.
    CloseTurn {
        /// The run.
        run: String,
    },
    /// `engine.authorize(run, revision, authorization)`.
    Authorize {
        /// The run.
        run: String,
        /// `current`, or `previous`: one before, as a person who looked at
        /// an older sheet would.
        #[serde(default)]
        revision: Revision,
        /// The authorization (`allowlist`, `budget`), as the JS API takes it.
        #[serde(flatten)]
        authorization: Map<String, Value>,
    },
    /// `engine.reject(run, revision, note)` at the current revision.
    Reject {
        /// The run.
        run: String,
        /// Why.
        #[serde(default)]
        note: String,
    },
    /// `engine.resolveEscalation(run, revision, resolution)` at the current revision.
    Resolve {
        /// The run.
        run: String,
        /// The resolution, as the JS API takes it.
        resolution: Value,
    },
    /// `engine.stop(run)`.
    Stop {
        /// The run.
        run: String,
    },
    /// `engine.pause(run)`.
    Pause {
        /// The run.
        run: String,
    },
    /// `engine.resume(run)`; the new run is called `alias`.
    Resume {
        /// The paused run.
        run: String,
        /// The new run's alias.
        #[serde(rename = "as")]
        alias: String,
    },
    /// `engine.killAll()`.
    KillAll,
    /// `engine.disable()`.
    Disable,
    /// `engine.enable()`.
    Enable,
    /// `engine.answer(question, digest, value)`.
    Answer {
        /// Which question.
        question: usize,
        /// The answer.
        value: Value,
        /// `given`: the question's own digest; `forged`: another.
        #[serde(default)]
        digest: DigestChoice,
    },
    /// `engine.decline(question)`.
    Decline {
        /// Which question.
        question: usize,
    },
    /// `engine.dismiss(question)`.
    Dismiss {
        /// Which question.
        question: usize,
    },
    /// `engine.postpone(question, now + ms)`.
    Postpone {
        /// Which question.
        question: usize,
        /// For how long.
        ms: u64,
    },
    /// `engine.undo(run)`.
    Undo {
        /// The run.
        run: String,
    },
    /// Time moves on; due timers fire.
    Advance {
        /// By how much.
        ms: u64,
    },
    /// A participant publishes a read's version and origin.
    Publish {
        /// The participant.
        participant: String,
        /// The read.
        read: String,
        /// Its version.
        version: u64,
        /// Its origin.
        #[serde(default = "author")]
        origin: String,
    },
}

fn author() -> String {
    "author".into()
}

/// Which revision a fenced command names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Revision {
    /// The run's current one.
    #[default]
    Current,
    /// One before it.
    Previous,
}

/// Which digest an answer carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DigestChoice {
    /// The question's own.
    #[default]
    Given,
    /// Another one.
    Forged,
}

impl Command {
    /// The command's verb, as fixtures write it.
    pub fn verb(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|value| value.get("do")?.as_str().map(str::to_owned))
            .unwrap_or_default()
    }
}
