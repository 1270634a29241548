//! Context by attention (A.1): which deep reads a turn carries, and why.
//!
//! Every turn carries the index — every participant and published read,
//! with version and origin. The full content of reads ("deep reads") is
//! pulled by the person's attention: reads of a participant holding focus
//! first, then those on screen, then the rest, until a byte budget is
//! spent. The host measures attention and gathers the content; this module
//! decides, and the decision is journalled so the person can see, per turn,
//! what the acting party saw and why ([`JournalEntry::ReadsPulled`]).
//!
//! [`JournalEntry::ReadsPulled`]: crate::JournalEntry::ReadsPulled

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::ReadStamp;

/// The most deep-read content one turn carries, in bytes of JSON text.
pub const DEEP_READ_BYTES: u64 = 64 * 1024;

/// Where a participant stands in the person's attention, most attended
/// first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Attention {
    /// The participant's element holds focus.
    Focus,
    /// Its element is on screen.
    Viewport,
    /// Neither, or it has no element.
    Elsewhere,
}

/// A published read the host offers for a turn, with its content as the
/// participant's `read` gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadCandidate {
    /// The read as the turn's context has it.
    pub stamp: ReadStamp,
    /// Its participant's place in the person's attention.
    pub attention: Attention,
    /// Its content with its size in bytes of JSON text, or why there is
    /// none (no `read`, or it failed).
    pub content: Result<(Value, u64), crate::host_failure::HostFailure>,
}

/// What became of one read of a turn's context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum ReadFate {
    /// Its content went with the turn.
    Pulled {
        /// Its size in bytes of JSON text.
        bytes: u64,
    },
    /// Left to its index entry: more attended reads had spent the budget.
    OverBudget {
        /// Its size in bytes of JSON text.
        bytes: u64,
        /// The budget.
        budget: u64,
    },
    /// Left to its index entry: the participant gave no content.
    Unavailable {
        /// Why.
        reason: String,
    },
}

/// One read of a turn's context, as the person may see it afterwards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PulledRead {
    /// The read, its version and origin.
    pub stamp: ReadStamp,
    /// Its participant's place in the person's attention.
    pub attention: Attention,
    /// Whether its content went, and why.
    pub fate: ReadFate,
}

/// Chooses a turn's deep reads: in attention order (then by read, so the
/// choice is deterministic), each read that still fits the budget. Returns
/// the reads to send and, for every candidate, what became of it.
pub fn select_deep_reads(
    candidates: Vec<ReadCandidate>,
    budget: u64,
) -> (Vec<DeepRead>, Vec<PulledRead>) {
    // Ordered by placing each where it belongs (a handful of reads): a sort
    // would cost the browser runtime its own copy for this type.
    let mut ordered: Vec<ReadCandidate> = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        let key = (candidate.attention, &candidate.stamp.read);
        let at = ordered.partition_point(|placed| (placed.attention, &placed.stamp.read) <= key);
        ordered.insert(at, candidate);
    }
    let candidates = ordered;
    let mut spent = 0;
    let mut reads = Vec::new();
    let mut account = Vec::new();
    for candidate in candidates {
        let fate = match candidate.content {
            Err(failure) => ReadFate::Unavailable {
                reason: failure.message,
            },
            Ok((_, bytes)) if spent + bytes > budget => ReadFate::OverBudget { bytes, budget },
            Ok((content, bytes)) => {
                spent += bytes;
                reads.push(DeepRead {
                    id: candidate.stamp.read.to_string(),
                    stamp: candidate.stamp.clone(),
                    content,
                });
                ReadFate::Pulled { bytes }
            }
        };
        account.push(PulledRead {
            stamp: candidate.stamp,
            attention: candidate.attention,
            fate,
        });
    }
    (reads, account)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::{Origin, ReadRef};

    fn candidate(read: &str, attention: Attention, bytes: u64) -> ReadCandidate {
        ReadCandidate {
            stamp: ReadStamp {
                read: ReadRef::new("p", read),
                version: 1,
                origin: Origin::Author,
            },
            attention,
            content: Ok((json!({ "read": read }), bytes)),
        }
    }

    fn fates(account: &[PulledRead]) -> Vec<(String, ReadFate)> {
        account
            .iter()
            .map(|read| (read.stamp.read.read.clone(), read.fate.clone()))
            .collect()
    }

    #[test]
    fn attention_orders_the_pull_and_the_budget_cuts_it() {
        let (reads, account) = select_deep_reads(
            vec![
                candidate("elsewhere", Attention::Elsewhere, 10),
                candidate("screen", Attention::Viewport, 60),
                candidate("focus", Attention::Focus, 30),
            ],
            100,
        );
        let sent: Vec<&str> = reads.iter().map(|read| read.id.as_str()).collect();
        assert_eq!(sent, ["p.focus", "p.screen", "p.elsewhere"]);
        let (reads, account_tight) = select_deep_reads(
            vec![
                candidate("elsewhere", Attention::Elsewhere, 10),
                candidate("screen", Attention::Viewport, 80),
                candidate("focus", Attention::Focus, 30),
            ],
            100,
        );
        assert_eq!(reads.len(), 2, "the focused and the small one fit");
        assert_eq!(
            fates(&account_tight),
            [
                ("focus".to_owned(), ReadFate::Pulled { bytes: 30 }),
                (
                    "screen".to_owned(),
                    ReadFate::OverBudget {
                        bytes: 80,
                        budget: 100
                    }
                ),
                ("elsewhere".to_owned(), ReadFate::Pulled { bytes: 10 }),
            ]
        );
        assert_eq!(account.len(), 3, "every candidate is accounted for");
    }

    #[test]
    fn a_read_without_content_is_left_to_the_index_and_says_why() {
        let mut broken = candidate("broken", Attention::Focus, 0);
        broken.content = Err("read threw: boom".into());
        let (reads, account) = select_deep_reads(vec![broken], DEEP_READ_BYTES);
        assert!(reads.is_empty());
        assert_eq!(
            account[0].fate,
            ReadFate::Unavailable {
                reason: "read threw: boom".into()
            }
        );
    }
}

/// A read's full content, pulled into this turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DeepRead {
    /// The read, `participant.read`.
    pub id: String,
    /// Its version and origin.
    pub stamp: ReadStamp,
    /// Its content.
    pub content: Value,
}
