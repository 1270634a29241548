//! The context a turn opens with: a snapshot of the reads participants
//! publish, each versioned and origin-tagged.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ids::ParticipantId;

/// Where a read's content came from (AG-27), ordered from most to least
/// trusted. Anything but `author` is untrusted content as far as autonomy
/// is concerned (AG-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Produced by the person or the application's own authors.
    Author,
    /// Imported by the person from elsewhere (a pasted document, an upload).
    Imported,
    /// Written by third parties (emails, web pages, other users).
    ThirdParty,
}

/// The address of a read: which participant, which of its reads.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ReadRef {
    /// The participant that exposes the read.
    pub participant: ParticipantId,
    /// The read's name inside that participant's manifest.
    pub read: String,
}

impl ReadRef {
    /// Builds a reference from its two parts.
    pub fn new(participant: impl Into<String>, read: impl Into<String>) -> Self {
        ReadRef {
            participant: ParticipantId::new(participant),
            read: read.into(),
        }
    }
}

impl fmt::Display for ReadRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.participant, self.read)
    }
}

/// A read as it stood at one moment: its version and origin (AG-20, AG-27).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReadStamp {
    /// Which read.
    pub read: ReadRef,
    /// Its version; an act planned against another version is stale.
    pub version: u64,
    /// Where its content came from.
    pub origin: Origin,
}

/// The snapshot of reads taken when a turn opens, ordered by read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Context {
    /// Every published read, ordered by [`ReadRef`].
    pub reads: Vec<ReadStamp>,
}

impl Context {
    /// The stamp of one read, if it was in the snapshot.
    pub fn get(&self, read: &ReadRef) -> Option<&ReadStamp> {
        self.reads
            .binary_search_by(|stamp| stamp.read.cmp(read))
            .ok()
            .map(|index| &self.reads[index])
    }

    /// Whether any read in the snapshot is not author-produced (AG-28).
    pub fn has_untrusted_origin(&self) -> bool {
        self.reads
            .iter()
            .any(|stamp| stamp.origin != Origin::Author)
    }
}

/// Serialises a map of read stamps keyed by their read as the list of stamps
/// (each names its read): JSON object keys must be strings, and a
/// [`ReadRef`] is not one. For `#[serde(with = "crate::context::stamps")]`.
pub(crate) mod stamps {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serializer};

    use super::{ReadRef, ReadStamp};

    pub(crate) fn serialize<S: Serializer>(
        map: &BTreeMap<ReadRef, ReadStamp>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(map.values())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<ReadRef, ReadStamp>, D::Error> {
        Ok(keyed(Vec::<ReadStamp>::deserialize(deserializer)?))
    }

    /// The stamps of a map, serialised as their list.
    pub(crate) struct List<'a>(pub(crate) &'a BTreeMap<ReadRef, ReadStamp>);

    impl serde::Serialize for List<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serialize(self.0, serializer)
        }
    }

    /// A list of stamps keyed by their read.
    pub(crate) fn keyed(list: Vec<ReadStamp>) -> BTreeMap<ReadRef, ReadStamp> {
        list.into_iter()
            .map(|stamp| (stamp.read.clone(), stamp))
            .collect()
    }
}
