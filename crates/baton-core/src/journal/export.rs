//! The journal as it leaves the browser, for an app that must keep an
//! audit trail elsewhere: JSON Lines, one journal record per line — its
//! run, revision, time, actor and entry (the decision, the fingerprint
//! authorized, …) exactly as journalled — each line chained to the one
//! before it by that line's SHA-256, between a header and a closing line
//! that counts the records.
//!
//! ```text
//! {"format":"baton-journal/1","session":"s","since":0}
//! {"prev":"<sha-256 of line 1>","record":{"run":"s/r1","revision":1,…}}
//! …
//! {"prev":"<sha-256 of the line before>","end":{"records":12,"runs":3}}
//! ```
//!
//! [`verify_export`] reads such a text back: a line altered, removed,
//! added or moved breaks the chain at the first line after it, and a text
//! cut short has no closing line, so a tampered or truncated export is
//! refused, naming the first line that is not as it was written.

use serde::Serialize;
use serde_json::Value;

use crate::{Digest, SessionId};

/// The format a Baton journal export declares in its first line.
pub const EXPORT_FORMAT: &str = "baton-journal/1";

/// Writes an export, line by line: [`ExportChain::start`], a
/// [`ExportChain::record`] per record, then [`ExportChain::finish`]. Each
/// method returns one line, without its line break.
#[derive(Debug)]
pub struct ExportChain {
    previous: Digest,
    records: u64,
    runs: u64,
    /// The run of the last record: records come run by run.
    last: String,
}

#[derive(Serialize)]
struct Header<'a> {
    format: &'a str,
    session: &'a SessionId,
    since: u64,
}

#[derive(Serialize)]
struct End {
    prev: String,
    end: Counts,
}

#[derive(Serialize)]
struct Counts {
    records: u64,
    runs: u64,
}

impl ExportChain {
    /// The chain and its header: the export of `session`'s engine, of the
    /// records journalled at or after `since` (ms).
    pub fn start(session: &SessionId, since: u64) -> (ExportChain, String) {
        let header = Header {
            format: EXPORT_FORMAT,
            session,
            since,
        };
        let line = serde_json::to_string(&header).unwrap_or_default();
        let chain = ExportChain {
            previous: Digest::of_bytes(line.as_bytes()),
            records: 0,
            runs: 0,
            last: String::new(),
        };
        (chain, line)
    }

    /// The line of one record of `run`, given as its JSON text (as the
    /// journal wrote it), chained to the line before.
    pub fn record(&mut self, run: &str, record: &str) -> String {
        let line = format!(
            "{{\"prev\":\"{}\",\"record\":{record}}}",
            self.previous.to_hex()
        );
        self.previous = Digest::of_bytes(line.as_bytes());
        self.records += 1;
        if self.last != run {
            self.runs += 1;
            self.last = run.to_owned();
        }
        line
    }

    /// The closing line: how many records and runs the export holds.
    pub fn finish(self) -> String {
        let end = End {
            prev: self.previous.to_hex(),
            end: Counts {
                records: self.records,
                runs: self.runs,
            },
        };
        serde_json::to_string(&end).unwrap_or_default()
    }
}

/// What a verified export holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ExportSummary {
    /// The session whose engine wrote it.
    pub session: String,
    /// The time it starts at (ms).
    pub since: u64,
    /// Its records.
    pub records: u64,
    /// The runs they belong to.
    pub runs: u64,
}

/// Why an export is refused; `line` counts from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The first line is not a Baton journal export's header.
    #[error("line 1 is not the header of a Baton journal export ({EXPORT_FORMAT})")]
    NotAnExport,
    /// A line that is not JSON, or not a record or closing line.
    #[error("line {line} is not a record of a Baton journal export")]
    NotARecord {
        /// The line.
        line: usize,
    },
    /// The digest a line carries of the line before does not match: that
    /// line was altered, or a line was removed, added or moved there.
    #[error(
        "line {line} is not as it was written: the digest line {next} carries of it does not \
         match (a line altered, removed, added or moved)"
    )]
    Broken {
        /// The first line that is not as written.
        line: usize,
        /// The line whose digest says so.
        next: usize,
    },
    /// The text ends without its closing line.
    #[error("the export was cut short after line {line}: its closing line is missing")]
    Truncated {
        /// The last line there is.
        line: usize,
    },
    /// The closing line's counts are not what the export holds.
    #[error("line {line}, the closing line, counts {said} records; the export holds {found}")]
    Miscounted {
        /// The closing line.
        line: usize,
        /// What it says.
        said: u64,
        /// What there is.
        found: u64,
    },
    /// Something follows the closing line.
    #[error("line {line} follows the closing line")]
    AfterTheEnd {
        /// The line.
        line: usize,
    },
}

/// Checks an export: its header, every record's link to the line before,
/// and the closing line's counts. Returns what it holds, or the first line
/// that is not as it was written.
pub fn verify_export(text: &str) -> Result<ExportSummary, ExportError> {
    let lines: Vec<&str> = text
        .strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .collect();
    let header: Value = serde_json::from_str(lines[0]).map_err(|_| ExportError::NotAnExport)?;
    if header["format"] != EXPORT_FORMAT {
        return Err(ExportError::NotAnExport);
    }
    let (Some(session), Some(since)) = (header["session"].as_str(), header["since"].as_u64())
    else {
        return Err(ExportError::NotAnExport);
    };
    let mut previous = Digest::of_bytes(lines[0].as_bytes());
    let mut runs = 0;
    let mut last = String::new();
    for (index, line) in lines.iter().enumerate().skip(1) {
        // Lines count from 1.
        let number = index + 1;
        let value: Value =
            serde_json::from_str(line).map_err(|_| ExportError::NotARecord { line: number })?;
        if value["prev"].as_str() != Some(previous.to_hex().as_str()) {
            return Err(ExportError::Broken {
                line: index,
                next: number,
            });
        }
        previous = Digest::of_bytes(line.as_bytes());
        if let Some(end) = value.get("end") {
            // Every line between the header and this one is a record.
            let records = index as u64 - 1;
            let said = end["records"].as_u64().unwrap_or(u64::MAX);
            if said != records || end["runs"].as_u64() != Some(runs) {
                return Err(ExportError::Miscounted {
                    line: number,
                    said,
                    found: records,
                });
            }
            if number < lines.len() {
                return Err(ExportError::AfterTheEnd { line: number + 1 });
            }
            return Ok(ExportSummary {
                session: session.to_owned(),
                since,
                records,
                runs,
            });
        }
        // A record names its run and its time; what it says is the chain's
        // to vouch for, not this reader's.
        let record = &value["record"];
        let (Some(run), Some(_)) = (record["run"].as_str(), record["at"].as_u64()) else {
            return Err(ExportError::NotARecord { line: number });
        };
        if last != run {
            runs += 1;
            last = run.to_owned();
        }
    }
    Err(ExportError::Truncated { line: lines.len() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Actor, JournalEntry, JournalRecord, RunId};

    fn record(run: &str, revision: u64) -> JournalRecord {
        JournalRecord {
            run: RunId::new(run),
            revision,
            at: 1_000 + revision,
            actor: Actor::Person,
            entry: JournalEntry::Said {
                turn: crate::TurnId(1),
                message: "m".into(),
                text: "Renamed.".into(),
            },
        }
    }

    fn export(records: &[JournalRecord]) -> String {
        let (mut chain, header) = ExportChain::start(&SessionId::new("s"), 5);
        let mut lines = vec![header];
        lines.extend(records.iter().map(|record| {
            chain.record(record.run.as_str(), &serde_json::to_string(record).unwrap())
        }));
        lines.push(chain.finish());
        lines.join("\n") + "\n"
    }

    fn three() -> String {
        export(&[record("s/r1", 1), record("s/r1", 2), record("s/r2", 1)])
    }

    #[test]
    fn an_export_round_trips_and_says_what_it_holds() {
        assert_eq!(
            verify_export(&three()),
            Ok(ExportSummary {
                session: "s".into(),
                since: 5,
                records: 3,
                runs: 2
            })
        );
        assert_eq!(verify_export(&export(&[])).map(|s| s.records), Ok(0));
    }

    #[test]
    fn every_single_changed_byte_is_caught() {
        let text = three();
        let bytes = text.as_bytes();
        for at in 0..bytes.len() - 1 {
            let mut changed = bytes.to_vec();
            changed[at] ^= 0x01;
            let Ok(changed) = String::from_utf8(changed) else {
                continue;
            };
            assert!(
                verify_export(&changed).is_err(),
                "a change at byte {at} passed: {changed}"
            );
        }
    }

    #[test]
    fn the_first_altered_line_is_named() {
        let text = three();
        let altered = text.replacen("\"revision\":2", "\"revision\":7", 1);
        assert_eq!(
            verify_export(&altered),
            Err(ExportError::Broken { line: 3, next: 4 })
        );
        let mut lines: Vec<&str> = text.lines().collect();
        lines.remove(2);
        assert_eq!(
            verify_export(&lines.join("\n")),
            Err(ExportError::Broken { line: 2, next: 3 }),
            "a removed line"
        );
    }

    #[test]
    fn a_truncated_export_is_refused_as_cut_short() {
        let text = three();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            verify_export(&lines[..4].join("\n")),
            Err(ExportError::Truncated { line: 4 })
        );
        assert_eq!(verify_export(""), Err(ExportError::NotAnExport));
        let after = format!("{text}{{}}\n");
        assert_eq!(
            verify_export(&after),
            Err(ExportError::AfterTheEnd { line: 6 })
        );
    }
}
