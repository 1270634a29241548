//! The journal as it leaves the browser (`engine.export`) and the check of
//! an export (`Engine.verifyExport`). The core writes and checks the chain
//! of records ([`baton_core::ExportChain`], [`baton_core::verify_export`]);
//! this reads the records from memory and IndexedDB.

use super::*;
use baton_core::ExportChain;

/// A record as the export carries it: its run, its revision, its time and
/// its JSON text.
type Exported = (String, u64, u64, String);

/// A stored journal row's records, as JSON text each: an array of them, or
/// (written by an earlier version) one record. Read as plain JSON, not as
/// typed records (which would cost the module serde's code for every
/// journal entry); a row whose records do not name their run, revision and
/// time is not a journal row.
fn records_of(text: &str) -> Result<Vec<Exported>, String> {
    let one = |record: &serde_json::Value| match (
        record["run"].as_str(),
        record["revision"].as_u64(),
        record["at"].as_u64(),
    ) {
        (Some(run), Some(revision), Some(at)) => {
            Ok((run.to_owned(), revision, at, record.to_string()))
        }
        _ => Err("a record without its run, revision and time".to_owned()),
    };
    match serde_json::from_str(text).map_err(|error| error.to_string())? {
        serde_json::Value::Array(many) => many.iter().map(one).collect(),
        record => one(&record).map(|record| vec![record]),
    }
}

#[wasm_bindgen]
impl Engine {
    /// The journal of every run this engine holds or its IndexedDB
    /// database keeps, as JSON Lines, for an app that must keep an audit
    /// trail: a header, one line per record (its run, revision, time, actor
    /// and entry, the decisions and fingerprints among them), each carrying
    /// the SHA-256 of the line before, and a closing line that counts them.
    /// `{ since }` (ms) keeps the records journalled at or after it. Run by
    /// run, each run's records in order. A stored row that cannot be read is
    /// left out and said (`unreadable-row`).
    pub fn export(&self, options: JsValue) -> Result<js_sys::Promise, JsValue> {
        let since = if options.is_undefined() || options.is_null() {
            0
        } else if options.is_object() {
            match get(&options, "since") {
                since if since.is_undefined() => 0,
                since => convert::whole_arg(&since, "`since`")?,
            }
        } else {
            return Err(error(
                Code::InvalidValue,
                "export's options must be an object",
            ));
        };
        let live = self.live()?;
        // What memory holds of each run it holds: a run read back from
        // storage holds only what happened since, so its stored records
        // come first and memory adds what is newer.
        let (session, held) = live.core(|core| {
            let held: Vec<Exported> = core
                .runs()
                .flat_map(|run| run.journal())
                .map(|record| {
                    let text = serde_json::to_string(record).unwrap_or_default();
                    (record.run.to_string(), record.revision, record.at, text)
                })
                .collect();
            (core.config().session.clone(), held)
        });
        let store = live.persistence(|persistence| persistence.store());
        let engine = live.downgrade();
        Ok(engine.clone().promise(async move {
            let failed =
                |cause: crate::store::StoreError| error(Code::StorageFailed, &cause.to_string());
            // Every stored row, run by run (the journal's key order).
            let mut stored: Vec<Exported> = Vec::new();
            if let Some(store) = store {
                let rows = store.journal(None).await.map_err(failed)?;
                for (place, text) in rows.iter().enumerate() {
                    match records_of(text) {
                        Ok(records) => stored.extend(records),
                        Err(cause) => {
                            unreadable(&engine, "journal", &format!("row {place}"), &cause)
                        }
                    }
                }
            }
            // Each run's stored records, then what memory holds past them;
            // then the runs memory alone holds.
            let mut out: Vec<&Exported> = Vec::with_capacity(stored.len() + held.len());
            for (at, record) in stored.iter().enumerate() {
                out.push(record);
                let last_of_run = stored.get(at + 1).is_none_or(|next| next.0 != record.0);
                if last_of_run {
                    let (run, last) = (&record.0, record.1);
                    out.extend(held.iter().filter(|held| held.0 == *run && held.1 > last));
                }
            }
            for record in &held {
                if !stored.iter().any(|(run, ..)| *run == record.0) {
                    out.push(record);
                }
            }
            let (mut chain, mut text) = ExportChain::start(&session, since);
            text.push('\n');
            for (run, _, at, record) in out {
                if *at >= since {
                    text.push_str(&chain.record(run, record));
                    text.push('\n');
                }
            }
            text.push_str(&chain.finish());
            text.push('\n');
            Ok(text.into())
        }))
    }

    /// Checks an export of `engine.export()`: that it is whole and
    /// unaltered, each line carrying the digest of the one before and the
    /// closing line counting what is there. Returns `{ session, since,
    /// records, runs }`; an export altered by a single byte, cut short or
    /// not an export at all throws `invalid-export`, naming the first line
    /// that is not as it was written.
    #[wasm_bindgen(js_name = verifyExport)]
    pub fn verify_export(
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> Result<JsValue, JsValue> {
        let text = convert::text(&text, "the export")?;
        let summary = baton_core::verify_export(&text)
            .map_err(|why| error(Code::InvalidExport, &why.to_string()))?;
        to_js(&summary)
    }
}
