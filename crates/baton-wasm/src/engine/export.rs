//! The journal as it leaves the browser (`engine.export`) and the check of
//! an export (`Engine.verifyExport`). The core writes and checks the chain
//! of records ([`baton_core::ExportChain`], [`baton_core::verify_export`]);
//! this reads the records from memory and IndexedDB.

use super::*;
use baton_core::ExportChain;

/// A record as the export carries it: its run, its time and its JSON text.
type Exported = (String, u64, String);

/// A stored journal row's records, as JSON text each: an array of them, or
/// (written by an earlier version) one record. Read as plain JSON, not as
/// typed records: the export carries them as the journal wrote them.
fn records_of(text: &str) -> Result<Vec<Exported>, serde_json::Error> {
    let one = |record: &serde_json::Value| {
        let run = record["run"].as_str().unwrap_or_default().to_owned();
        (
            run,
            record["at"].as_u64().unwrap_or_default(),
            record.to_string(),
        )
    };
    Ok(match serde_json::from_str(text)? {
        serde_json::Value::Array(many) => many.iter().map(one).collect(),
        record => vec![one(&record)],
    })
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
        let (session, mut journals) = live.core(|core| {
            let journals: Vec<(String, Vec<Exported>)> = core
                .runs()
                .map(|run| {
                    let id = run.id().to_string();
                    let records = run.journal().iter().map(|record| {
                        let text = serde_json::to_string(record).unwrap_or_default();
                        (id.clone(), record.at, text)
                    });
                    (id.clone(), records.collect())
                })
                .collect();
            (core.config().session.clone(), journals)
        });
        let store = live.persistence(|persistence| persistence.store());
        let engine = live.downgrade();
        Ok(wasm_bindgen_futures::future_to_promise(async move {
            let failed =
                |cause: crate::store::StoreError| error(Code::StorageFailed, &cause.to_string());
            if let Some(store) = store {
                // Every stored row, run by run; a run in memory is exported
                // as it is there.
                let rows = store.journal(None).await.map_err(failed)?;
                let mut stored = Vec::new();
                for (place, text) in rows.iter().enumerate() {
                    match records_of(text) {
                        Ok(records) => stored.extend(
                            records
                                .into_iter()
                                .filter(|(run, ..)| !journals.iter().any(|(held, _)| held == run)),
                        ),
                        Err(cause) => {
                            let key = format!("row {place}");
                            unreadable(&engine, "journal", &key, &cause.to_string());
                        }
                    }
                }
                journals.push((String::new(), stored));
            }
            let (mut chain, mut text) = ExportChain::start(&session, since);
            text.push('\n');
            for (run, at, record) in journals.iter().flat_map(|(_, records)| records) {
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
