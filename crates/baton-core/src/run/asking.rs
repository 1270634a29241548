//! The acting party's questions to the person (AG-41, AG-48), as one run
//! keeps them: those waiting to be put, the one the run waits on, the
//! request ids used (never reused), and what became of each for the next
//! turn. The fields are this module's; every change goes through a method
//! that keeps the rules below.
//!
//! - A question is put once: taking the next pending one records its
//!   request id as used, so a later question with that id is a duplicate.
//! - The run waits on at most one question at a time.
//! - What became of a question is reported to the acting party once: the
//!   next turn takes the reports, and they are gone.

use std::collections::VecDeque;

use crate::questions::AnswerReport;

use super::row::columns;
use super::{AskedQuestion, OpenQuestion};

columns! {
    /// The questions of one run.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub(super) struct Asking {
        /// The question the run waits on.
        question: Option<OpenQuestion> => "question",
        /// Questions the acting party asked, put to the person one at a time
        /// once the calls of their turn are done; the next turn is sent only
        /// when every one of them is closed.
        pending: VecDeque<AskedQuestion> => "pendingQuestions" (default),
        /// What became of the acting party's questions, for the next turn.
        answers: Vec<AnswerReport> => "answers",
        /// Request ids of the acting party's questions, never reused.
        asked: Vec<String> => "asked",
    }
}

impl Asking {
    /// The request ids used so far.
    pub(super) fn asked(&self) -> impl Iterator<Item = &str> {
        self.asked.iter().map(String::as_str)
    }

    /// The question the run waits on, if any.
    pub(super) fn open(&self) -> Option<&OpenQuestion> {
        self.question.as_ref()
    }

    /// Whether questions wait to be put to the person.
    pub(super) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Queues questions the acting party asked, after those already waiting.
    pub(super) fn queue(&mut self, questions: impl IntoIterator<Item = AskedQuestion>) {
        self.pending.extend(questions);
    }

    /// The next question to put, its request id now used.
    pub(super) fn take_next(&mut self) -> Option<AskedQuestion> {
        let next = self.pending.pop_front()?;
        self.asked.push(next.request.clone());
        Some(next)
    }

    /// The questions waiting to be put, taken out in order: to be put by
    /// a chained run, or put back by [`Asking::set_pending`].
    pub(super) fn take_pending(&mut self) -> VecDeque<AskedQuestion> {
        std::mem::take(&mut self.pending)
    }

    /// The questions to put, in place of any waiting (a run that has none:
    /// one cut off, or chained). Their ids are recorded as they are put.
    pub(super) fn set_pending(&mut self, pending: VecDeque<AskedQuestion>) {
        self.pending = pending;
    }

    /// The run now waits on `question`.
    pub(super) fn wait_on(&mut self, question: OpenQuestion) {
        self.question = Some(question);
    }

    /// The question waited on is closed: it is returned, and nothing is
    /// waited on any more.
    pub(super) fn close_open(&mut self) -> Option<OpenQuestion> {
        self.question.take()
    }

    /// What became of a question, for the next turn.
    pub(super) fn report(&mut self, report: AnswerReport) {
        self.answers.push(report);
    }

    /// The reports for the turn being opened: each is sent once.
    pub(super) fn take_reports(&mut self) -> Vec<AnswerReport> {
        std::mem::take(&mut self.answers)
    }

    /// The run ended: nothing more is put to the person. Returns the
    /// question it waited on, for the caller to close.
    pub(super) fn end(&mut self) -> Option<OpenQuestion> {
        self.pending.clear();
        self.question.take()
    }
}
