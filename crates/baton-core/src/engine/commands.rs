//! The app's and the person's commands: each a value of its own, told to the
//! engine through the one door, [`Engine::handle`], with what it answers.
//!
//! Why a trait over values rather than one enum: the commands answer
//! different things — a new run's id, an undo's marks, how many runs a kill
//! ended, a typed refusal of their own — and one enum of answers would make
//! every caller match answers that cannot happen. Each input names its
//! answer ([`Input::Answer`]); the door and the alphabet are still one.

use super::*;
use crate::error::PublishError;
use crate::questions::{Acceptance, Reconciliation};
use crate::registry::RegisterError;

/// Something the engine is told through [`Engine::handle`], and what it
/// answers. Sealed: the alphabet is this crate's — the commands in this
/// module, a [`Signal`] and a [`Report`](crate::report::Report).
pub trait Input: sealed::Sealed {
    /// What the engine answers.
    type Answer;
    #[doc(hidden)]
    fn apply(self, engine: &mut Engine, now: u64) -> Self::Answer;
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// Defines a command's `Input` impl: `command!(Type => Answer, |self, engine, now| body)`.
macro_rules! command {
    ($input:ty => $answer:ty, |$this:ident, $engine:ident, $now:ident| $body:expr) => {
        impl sealed::Sealed for $input {}
        impl Input for $input {
            type Answer = $answer;
            #[inline]
            fn apply(self, $engine: &mut Engine, $now: u64) -> $answer {
                let $this = self;
                $body
            }
        }
    };
}

// ----- runs ------------------------------------------------------------------

/// Starts a run. With an acting party, its planning turn is reserved and
/// sent at once; with a fixed plan, the plan is proposed directly.
#[derive(Debug, Clone)]
pub struct Delegate(pub Delegation);
command!(Delegate => Result<RunId, DelegateError>, |this, engine, now| engine.delegate(now, this.0));

/// Resumes a paused run as a fresh run chained in the same session (AG-11).
/// Undelivered call results travel to the new run's first turn.
#[derive(Debug, Clone)]
pub struct Resume {
    /// The paused run.
    pub run: RunId,
    /// The new run's budget; the paused run's when `None`.
    pub budget: Option<Budget>,
}
command!(Resume => Result<RunId, DelegateError>, |this, engine, now| engine.resume(now, &this.run, this.budget));

/// Authorizes a reviewed plan: reviewing → authorized → acting. The revision
/// fence makes sure the person authorizes what they saw.
#[derive(Debug, Clone)]
pub struct Authorize {
    /// The run under review.
    pub run: RunId,
    /// The revision the person saw.
    pub revision: u64,
    /// What the person authorized, and for how long.
    pub authorization: Authorization,
}
command!(Authorize => Result<(), CommandError>, |this, engine, now| {
    engine.authorize(now, &this.run, this.revision, this.authorization)
});

/// Approve with edits: replaces the arguments of a planned call the person
/// is reviewing, at the revision they saw (AG-15, AG-16, AG-31).
#[derive(Debug, Clone)]
pub struct EditCall {
    /// The run under review.
    pub run: RunId,
    /// The revision the person saw.
    pub revision: u64,
    /// The planned call.
    pub call: CallId,
    /// Its new arguments.
    pub arguments: Value,
}
command!(EditCall => Result<(), CommandError>, |this, engine, now| {
    engine.edit_call(now, &this.run, this.revision, &this.call, this.arguments)
});

/// Rejects a plan under review: `cancelled` before anything was authorized,
/// `aborted` on re-review after acting.
#[derive(Debug, Clone)]
pub struct Reject {
    /// The run under review.
    pub run: RunId,
    /// The revision the person saw.
    pub revision: u64,
    /// The person's note, journalled.
    pub note: String,
}
command!(Reject => Result<(), CommandError>, |this, engine, now| {
    engine.reject(now, &this.run, this.revision, &this.note)
});

/// Resolves an escalation (AG-6, AG-7).
#[derive(Debug, Clone)]
pub struct ResolveEscalation {
    /// The escalated run.
    pub run: RunId,
    /// The revision the person saw.
    pub revision: u64,
    /// What the person decided.
    pub resolution: Resolution,
}
command!(ResolveEscalation => Result<(), CommandError>, |this, engine, now| {
    engine.resolve_escalation(now, &this.run, this.revision, this.resolution)
});

/// Undoes a finished run as one step (AG-8): answers the marks to revert to,
/// or refuses with the conflicts [`UndoScope::Checked`] holds back.
#[derive(Debug, Clone)]
pub struct Undo {
    /// The finished run.
    pub run: RunId,
    /// What to do about participants changed since.
    pub scope: UndoScope,
}
command!(Undo => Result<Vec<(ParticipantId, MarkToken)>, CommandError>, |this, engine, now| {
    engine.undo(now, &this.run, this.scope)
});

/// The person stops a run: `returned{aborted, user-interrupt}`, never an
/// error (AG-9). Works from every non-terminal state, without a fence.
#[derive(Debug, Clone)]
pub struct Stop(pub RunId);
command!(Stop => Result<(), CommandError>, |this, engine, now| engine.stop(now, &this.0));

/// Pauses a run: a return with resumable context (AG-11).
#[derive(Debug, Clone)]
pub struct Pause(pub RunId);
command!(Pause => Result<(), CommandError>, |this, engine, now| engine.pause(now, &this.0));

/// The person's keyboard exit (AG-42): every active run is stopped, each
/// announced as the person's act. Answers how many runs it stopped.
#[derive(Debug, Clone, Copy)]
pub struct InterruptAll;
command!(InterruptAll => usize, |_this, engine, now| engine.interrupt_all(now));

/// The global kill (AG-10): every active run returns `aborted`. Answers how
/// many runs of this engine it ended. [`Kill::ALL`] announces it here.
#[derive(Debug, Clone, Copy)]
pub struct Kill(pub KillScope);
impl Kill {
    /// A kill of this engine's runs, announced by this engine alone.
    pub const ALL: Kill = Kill(KillScope::Announcing { elsewhere: 0 });
}
command!(Kill => usize, |this, engine, now| engine.kill_all_in(now, this.0));

/// Refuses new runs until [`Enable`] (AG-10). Active runs go on; a [`Kill`]
/// ends them.
#[derive(Debug, Clone, Copy)]
pub struct Disable;
command!(Disable => (), |_this, engine, _now| engine.disable());

/// Accepts new runs again.
#[derive(Debug, Clone, Copy)]
pub struct Enable;
command!(Enable => (), |_this, engine, _now| engine.enable());

/// Reconciles a restored engine (startup, reconnect, wake): questions past
/// their deadline expire, and every run a previous instance left active
/// returns `aborted{interrupted}`. Idempotent.
#[derive(Debug, Clone, Copy)]
pub struct Reconcile;
command!(Reconcile => Reconciliation, |_this, engine, now| engine.reconcile(now));

/// Reviews a cut-off run again as a new run (AG-11).
#[derive(Debug, Clone)]
pub struct ReviewCutOff(pub RunId);
command!(ReviewCutOff => Result<RunId, DelegateError>, |this, engine, now| engine.review_again(now, &this.0));

/// Discards a cut-off run's offer.
#[derive(Debug, Clone)]
pub struct Discard(pub RunId);
command!(Discard => Result<(), DelegateError>, |this, engine, now| engine.discard(now, &this.0));

/// Takes in runs another session left cut off, to be offered here.
#[derive(Debug, Clone)]
pub struct Adopt(pub Vec<Run>);
command!(Adopt => (), |this, engine, _now| engine.adopt(this.0));

/// Hands over the cut-off runs offered here, to be written away.
#[derive(Debug, Clone, Copy)]
pub struct TakeOffered;
command!(TakeOffered => Vec<Run>, |_this, engine, _now| engine.take_offered());

/// The host gathered the candidate deep reads of a turn it is opening (A.1):
/// every read of the turn's context, with its participant's place in the
/// person's attention and its content. The engine chooses — attention
/// order, then [`crate::DEEP_READ_BYTES`] — and journals the choice
/// (`reads-pulled`). Answers the reads to send, or `None` when the turn is
/// no longer open (stopped while the reads were gathered): nothing is sent.
#[derive(Debug, Clone)]
pub struct PullReads {
    /// The run.
    pub run: RunId,
    /// The turn being opened.
    pub turn: TurnId,
    /// Every read of the turn's context.
    pub candidates: Vec<ReadCandidate>,
}
command!(PullReads => Option<Vec<DeepRead>>, |this, engine, now| {
    engine.pull_reads(now, &this.run, this.turn, this.candidates)
});

// ----- questions -------------------------------------------------------------

/// Answers a question at the digest the person saw.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The question.
    pub question: QuestionId,
    /// The digest of the question as shown.
    pub digest: Digest,
    /// The answer, validated against the question's schema.
    pub answer: Value,
}
command!(Answer => Result<Acceptance, AnswerError>, |this, engine, now| {
    engine.answer(now, &this.question, &this.digest, this.answer)
});

/// Declines a question.
#[derive(Debug, Clone)]
pub struct Decline(pub QuestionId);
command!(Decline => Result<(), AnswerError>, |this, engine, now| engine.decline(now, &this.0));

/// Dismisses a question.
#[derive(Debug, Clone)]
pub struct Dismiss(pub QuestionId);
command!(Dismiss => Result<(), AnswerError>, |this, engine, now| engine.dismiss(now, &this.0));

/// Postpones a question until `until`.
#[derive(Debug, Clone)]
pub struct Postpone {
    /// The question.
    pub question: QuestionId,
    /// When to ask again.
    pub until: u64,
}
command!(Postpone => Result<(), AnswerError>, |this, engine, now| {
    engine.postpone(now, &this.question, this.until)
});

// ----- participants and reads ----------------------------------------------

/// Parses a manifest's JSON text strictly (AG-12), compiling its schemas.
#[derive(Debug, Clone)]
pub struct ParseManifest(pub String);
command!(ParseManifest => Result<Manifest, ManifestError>, |this, engine, _now| engine.parse_manifest(&this.0));

/// Registers a parsed manifest, as `instance` of it when several mount.
#[derive(Debug, Clone)]
pub struct Register {
    /// The manifest.
    pub manifest: Manifest,
    /// The instance, when one manifest mounts several times.
    pub instance: Option<String>,
}
command!(Register => Result<ParticipantId, RegisterError>, |this, engine, _now| {
    engine.register(this.manifest, this.instance.as_deref())
});

/// Parses and registers a manifest's JSON text.
#[derive(Debug, Clone)]
pub struct RegisterText {
    /// The manifest's JSON text.
    pub text: String,
    /// The instance, when one manifest mounts several times.
    pub instance: Option<String>,
}
command!(RegisterText => Result<ParticipantId, RegistrationRefused>, |this, engine, _now| {
    engine.register_text(&this.text, this.instance.as_deref())
});

/// Unregisters a participant; answers whether it was registered.
#[derive(Debug, Clone)]
pub struct Unregister(pub ParticipantId);
command!(Unregister => bool, |this, engine, _now| engine.unregister(&this.0));

/// Publishes a read (AG-20), by `actor` when a call published it.
#[derive(Debug, Clone)]
pub struct PublishRead {
    /// The read as stamped by its participant.
    pub stamp: ReadStamp,
    /// Whose act published it, when not the person's.
    pub actor: Option<ActorRef>,
}
command!(PublishRead => Result<ReadStamp, PublishError>, |this, engine, now| {
    engine.publish_read(now, this.stamp, this.actor.as_ref())
});

/// Withdraws a read.
#[derive(Debug, Clone)]
pub struct WithdrawRead(pub ReadRef);
command!(WithdrawRead => (), |this, engine, _now| engine.withdraw_read(&this.0));

// ----- grants, state, presence, storage --------------------------------------

/// Gives a standing grant (a decision for a scope, for `ttl_ms`).
#[derive(Debug, Clone)]
pub struct AddGrant {
    /// What the grant covers.
    pub scope: GrantScope,
    /// Allow or deny.
    pub decision: Decision,
    /// How long it lasts.
    pub ttl_ms: u64,
}
command!(AddGrant => Result<Grant, GrantError>, |this, engine, now| {
    engine.grant(now, this.scope, this.decision, this.ttl_ms)
});

/// Revokes a grant; answers whether it existed.
#[derive(Debug, Clone, Copy)]
pub struct RevokeGrant(pub u64);
command!(RevokeGrant => bool, |this, engine, _now| engine.revoke_grant(this.0));

/// Replaces the shared agent state.
#[derive(Debug, Clone)]
pub struct SetAgentState(pub Value);
command!(SetAgentState => (), |this, engine, _now| engine.set_agent_state(this.0));

/// Applies a JSON Patch to the shared agent state.
#[derive(Debug, Clone)]
pub struct PatchAgentState(pub Value);
command!(PatchAgentState => Result<(), AgentStateError>, |this, engine, _now| {
    engine.patch_agent_state(&this.0)
});

/// A presence surface attached.
#[derive(Debug, Clone, Copy)]
pub struct AttachPresence;
command!(AttachPresence => (), |_this, engine, _now| engine.attach_presence());

/// A presence surface detached.
#[derive(Debug, Clone, Copy)]
pub struct DetachPresence;
command!(DetachPresence => (), |_this, engine, _now| engine.detach_presence());

/// A run's row was written at `revision`.
#[derive(Debug, Clone)]
pub struct Written {
    /// The run.
    pub run: RunId,
    /// The revision written.
    pub revision: u64,
}
command!(Written => (), |this, engine, _now| engine.written(&this.run, this.revision));

/// Releases finished runs beyond the `keep` newest; answers their ids.
#[derive(Debug, Clone, Copy)]
pub struct ReleaseFinished {
    /// How many finished runs stay in memory.
    pub keep: usize,
}
command!(ReleaseFinished => Vec<RunId>, |this, engine, _now| engine.release_finished(this.keep));
