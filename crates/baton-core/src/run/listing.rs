//! A person's history of delegations: every run a store holds, listed
//! newest first, a page at a time (`engine.runs()` in JS).
//!
//! The store hands the runs over as they are (the engine's own first: what
//! is in memory is newer than what was last written); this module decides
//! what an entry says, the order, and where a page ends.

use serde::Serialize;

use crate::fields::{Fields, Refusal};
use crate::ids::RunId;
use crate::model::Initiative;
use crate::state::{Outcome, RunState};

/// The most runs one page lists.
pub const RUNS_PAGE_MAX: usize = 100;
/// How many runs a page lists when the query does not say.
pub const RUNS_PAGE_DEFAULT: usize = 20;

/// One run as a history lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RunListing {
    /// The run.
    pub run: RunId,
    /// The session that holds it now (a run a reload cut off is adopted by
    /// the session that offers it again).
    pub session: String,
    /// The person's intent, verbatim.
    pub intent: String,
    /// Who started it (AG-2).
    pub initiative: Initiative,
    /// Its state.
    pub state: RunState,
    /// How it ended, once it has returned.
    pub outcome: Option<Outcome>,
    /// When it was started, in milliseconds since the epoch.
    pub created_at: u64,
    /// When it ended, if it has (unknown for a run stored before this was
    /// kept).
    pub ended_at: Option<u64>,
    /// The run it chains to (AG-11), if any.
    pub resumes: Option<RunId>,
    /// Whether a reload cut it off while it waited for the person and it can
    /// be reviewed again (`engine.reviewAgain`).
    pub reviewable_again: bool,
    /// Whether it was paused and can be resumed (`engine.resume`).
    pub resumable: bool,
    /// Whether it was undone.
    pub undone: bool,
}

/// Which page of the history to list.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunsQuery {
    /// At most this many runs (1 to [`RUNS_PAGE_MAX`]).
    pub limit: usize,
    /// The runs listed after this one: the `next` of the page before.
    pub after: Option<RunId>,
    /// Only the runs this session holds.
    pub session: Option<String>,
}

impl Default for RunsQuery {
    fn default() -> Self {
        RunsQuery {
            limit: RUNS_PAGE_DEFAULT,
            after: None,
            session: None,
        }
    }
}

/// Why a listing query was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ListError {
    /// The options are not `{ limit?, after?, session? }` as documented.
    #[error("the options of runs(): {path}: {message}")]
    InvalidQuery {
        /// Where in the options.
        path: String,
        /// What is wrong there.
        message: String,
    },
    /// `after` names a run the history does not hold.
    #[error("unknown run {0}: runs() lists after a run it listed")]
    UnknownRun(RunId),
}

impl ListError {
    /// The stable code a host gives this refusal (a JS `BatonError.code`).
    pub fn code(&self) -> crate::ErrorCode {
        match self {
            ListError::InvalidQuery { .. } => crate::ErrorCode::InvalidValue,
            ListError::UnknownRun(_) => crate::ErrorCode::UnknownRun,
        }
    }

    /// The requirement this refusal enforces: none.
    pub fn requirement(&self) -> Option<&'static str> {
        None
    }
}

impl From<Refusal> for ListError {
    fn from(refusal: Refusal) -> Self {
        ListError::InvalidQuery {
            path: refusal.path,
            message: refusal.message,
        }
    }
}

impl RunsQuery {
    /// The query JS options give: `{ limit?, after?, session? }`; unknown
    /// fields are refused, as is a limit outside 1 to [`RUNS_PAGE_MAX`].
    pub fn from_options(options: &serde_json::Value) -> Result<RunsQuery, ListError> {
        if options.is_null() {
            return Ok(RunsQuery::default());
        }
        let fields = Fields::of(options, "$".into(), &["limit", "after", "session"])?;
        let limit: Option<u64> = fields.optional("limit")?;
        let limit = match limit {
            None => RUNS_PAGE_DEFAULT,
            Some(n) if (1..=RUNS_PAGE_MAX as u64).contains(&n) => n as usize,
            Some(n) => {
                return Err(ListError::InvalidQuery {
                    path: "$.limit".into(),
                    message: format!("{n} is not between 1 and {RUNS_PAGE_MAX}"),
                })
            }
        };
        Ok(RunsQuery {
            limit,
            after: fields.optional("after")?,
            session: fields.optional("session")?,
        })
    }
}

/// One page of the history.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RunsPage {
    /// Newest first.
    pub runs: Vec<RunListing>,
    /// Where the next page starts (its query's `after`), if there is one.
    pub next: Option<RunId>,
}

/// The page `query` asks for, of `runs` in any order. A run listed twice
/// keeps its first entry, so a caller passes what is in memory before what
/// it read from its store.
pub fn page_of_runs(
    runs: impl IntoIterator<Item = RunListing>,
    query: &RunsQuery,
) -> Result<RunsPage, ListError> {
    let all: Vec<RunListing> = runs
        .into_iter()
        .filter(|listing| query.session.as_ref().is_none_or(|s| *s == listing.session))
        .collect();
    // Newest first; runs started in the same millisecond by their ids, so
    // the order is total and a page boundary is stable. (The keys are the
    // retention's, `(u64, &RunId)`: one sort in the module for both.)
    let mut order: Vec<(u64, &RunId)> = all.iter().map(|l| (l.created_at, &l.run)).collect();
    order.sort();
    // Two entries of one run are neighbours now; the first given is found
    // first below.
    order.dedup();
    order.reverse();
    let start = match &query.after {
        None => 0,
        Some(after) => {
            order
                .iter()
                .position(|(_, run)| *run == after)
                .ok_or_else(|| ListError::UnknownRun(after.clone()))?
                + 1
        }
    };
    let page: Vec<RunId> = order
        .iter()
        .skip(start)
        .take(query.limit)
        .map(|(_, run)| (*run).clone())
        .collect();
    let more = order.len() > start + page.len();
    let mut all = all;
    let mut runs = Vec::with_capacity(page.len());
    for run in &page {
        // The first entry of the run given: what was in memory.
        if let Some(at) = all.iter().position(|listing| listing.run == *run) {
            runs.push(all.remove(at));
        }
    }
    let next = more.then(|| page.last().cloned()).flatten();
    Ok(RunsPage { runs, next })
}
