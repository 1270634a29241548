//! Persistence in IndexedDB (through the `idb` crate; the database is
//! opened, and its schema made, by `openDatabase` in `page_apis.js`).
//!
//! One database holds every session of an origin:
//!
//! | store       | key                 | value                                         |
//! | ---         | ---                 | ---                                           |
//! | `meta`      | `"secret"`          | the actor-reference key, hex                  |
//! | `sessions`  | session id          | the engine's header (counters, quota, grants) |
//! | `runs`      | `id` (in the row)   | `{id, session, live, data}`: a run's snapshot |
//! | `journal`   | `[run, revision]`   | a run's records of one step, a JSON array (*) |
//! | `questions` | `id` (in the row)   | `{id, session, open, data}`: one question     |
//!
//! (*) keyed by the first record's revision. A row written before steps were
//! kept together holds one record, a JSON object; both read back alike.
//!
//! `runs.live` and `questions.open` are indexed, so opening reads what is
//! live — never the history. Every engine step is one transaction over the
//! stores it touches (group commit); the values are built before the
//! transaction opens, so nothing but IndexedDB requests happens inside it.
//! Rows are keyed, so writing a step twice never duplicates a record.

use baton_core::ActorSecret;
use idb::{Database, Factory, KeyRange, Query, TransactionMode};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The schema's version; bumping it is a migration.
const VERSION: u32 = 2;
const META: &str = "meta";
const SESSIONS: &str = "sessions";
const RUNS: &str = "runs";
const JOURNAL: &str = "journal";
const QUESTIONS: &str = "questions";
/// The runs' index on `[created, id]` (version 2).
const CREATED: &str = "created";
/// How long an open may stay blocked by another connection's version
/// change before the engine gives up and runs in memory.
const BLOCKED_GRACE_MS: u32 = 1_000;

/// An open request, sent: dropped before its answer was taken — the engine
/// gave up, or failed before it waited — it closes the connection that
/// arrives, so none is left holding version changes up.
struct Opening(Option<js_sys::Promise>);

impl Opening {
    /// The answer: `{ db, created }` or `{ failed, cause }` (`openDatabase`).
    async fn answer(mut self) -> JsValue {
        let Some(promise) = self.0.clone() else {
            return JsValue::UNDEFINED;
        };
        let answer = wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .unwrap_or(JsValue::UNDEFINED);
        // Taken only now: dropped while it waited, it still closes what comes.
        self.0 = None;
        answer
    }
}

impl Drop for Opening {
    fn drop(&mut self) {
        if let Some(promise) = self.0.take() {
            close_when_open(&promise);
        }
    }
}

/// An open database.
#[derive(Debug)]
pub(crate) struct Store {
    db: Database,
    /// The same connection, for closing it from its own callbacks.
    raw: web_sys::IdbDatabase,
    /// The `versionchange` handler, kept as long as the connection.
    on_version_change: std::cell::RefCell<Option<Closure<dyn FnMut()>>>,
    /// The key this open created the database with: a new database holds
    /// nothing else, so opening has nothing to read.
    created: Option<[u8; 32]>,
}

/// A row of the `runs` or `questions` store.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The run or question id.
    pub(crate) id: String,
    /// A run's creation time (ms), which the history's index orders by.
    pub(crate) created: Option<u64>,
    /// The session that owns it.
    pub(crate) session: String,
    /// Whether it is live (an active run, an open question).
    pub(crate) live: bool,
    /// Its serde JSON.
    pub(crate) data: String,
}

/// What one engine step writes.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    /// The session header, as JSON.
    pub(crate) header: Option<(String, String)>,
    /// `(run, first revision, the run's records of the step as a JSON array)`.
    pub(crate) records: Vec<(String, u64, String)>,
    pub(crate) runs: Vec<Row>,
    pub(crate) questions: Vec<Row>,
}

impl Batch {
    pub(crate) fn is_empty(&self) -> bool {
        self.header.is_none()
            && self.records.is_empty()
            && self.runs.is_empty()
            && self.questions.is_empty()
    }
}

/// What opening an engine reads first ([`Store::first_look`]).
#[derive(Debug)]
pub(crate) struct FirstLook {
    /// The database's actor-reference key.
    pub(crate) key: [u8; 32],
    /// This session's header, if it was ever written.
    pub(crate) header: Option<String>,
    /// Every session with live rows (this one included), with its rows.
    pub(crate) leftovers: Vec<(String, Leftover)>,
}

/// What a session left behind: its header and its live rows.
#[derive(Debug, Default)]
pub(crate) struct Leftover {
    pub(crate) header: Option<String>,
    /// Its live runs, as `(id, JSON text)`.
    pub(crate) runs: Vec<(String, String)>,
    /// Its open questions, as `(id, JSON text)`.
    pub(crate) questions: Vec<(String, String)>,
}

/// Why storage failed: the cause the engine reports (`storage.degraded`,
/// `storage-degraded`, a `storage-failed` error) when it goes on in memory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StoreError {
    /// No IndexedDB here (private mode, a sandboxed frame).
    #[error("IndexedDB is unavailable: {0}")]
    Unavailable(String),
    /// The open request itself was refused.
    #[error("IndexedDB refused to open `{name}`: {cause}")]
    Refused { name: String, cause: String },
    /// The open request failed.
    #[error("IndexedDB could not open: {0}")]
    NotOpened(String),
    /// Another connection holds the version change up.
    #[error("IndexedDB is blocked by a version change another page has not let through")]
    Blocked,
    /// The open request never settled.
    #[error("IndexedDB did not answer")]
    NoAnswer,
    /// A newer page upgraded the database; this connection was closed.
    #[error("another page upgraded the database; this one closed its connection")]
    Upgraded,
    /// The database was written by a newer Baton: its schema is a version
    /// this one does not know, so nothing of it is read (or misread).
    #[error(
        "the database `{name}` was written by a newer Baton (schema version {found}; this one \
         reads version {VERSION}): it is left as it is, and nothing of it is read"
    )]
    Newer { name: String, found: u32 },
    /// A request or transaction failed.
    #[error("{0}")]
    Request(String),
    /// A transaction aborted, with the DOMException that says why
    /// (`QuotaExceededError` when the disk is full), if there was one.
    #[error("the transaction was aborted{}", .0.as_ref().map(|(name, message)| format!(": {name}: {message}")).unwrap_or_default())]
    Aborted(Option<(String, String)>),
    /// A value could not be written as JSON.
    #[error("{what} could not be written as JSON: {cause}")]
    Encode { what: &'static str, cause: String },
    /// A stored row could not be read back.
    #[error("a stored {what}: {cause}")]
    Decode { what: &'static str, cause: String },
    /// Live rows of a session whose header is missing.
    #[error("live rows of a session without a header")]
    Headless,
}

fn cause(error: impl std::fmt::Display) -> StoreError {
    StoreError::Request(error.to_string())
}

/// The version of database `name` as it is, when it is above the one this
/// Baton reads (opened without asking for a version, which changes nothing).
async fn newer_version(name: &str) -> Option<u32> {
    let db = Factory::new().ok()?.open(name, None).ok()?.await.ok()?;
    let version = db.version().ok();
    db.close();
    version.filter(|found| *found > VERSION)
}

impl Store {
    /// Opens (creating or upgrading) the database; a new one keeps `fresh`
    /// as its key for actor references. The error is the cause the engine
    /// reports when it falls back to memory; the promise beside the future
    /// is the request's answer, for closing the connection if the future is
    /// given up ([`abandon_opening`]). The request goes out now, not
    /// at the first poll: the engine sets itself up while the browser opens
    /// the database. (A version change held up by another connection gives
    /// up after a grace period: the engine then runs in memory.)
    pub(crate) fn open(
        name: &str,
        fresh: [u8; 32],
    ) -> (
        js_sys::Promise,
        impl std::future::Future<Output = Result<Store, StoreError>>,
    ) {
        let secret = ActorSecret::encode_key(&fresh);
        let connecting = open_database(name, VERSION, &secret, BLOCKED_GRACE_MS);
        let opening = Opening(Some(connecting.clone()));
        let name = name.to_owned();
        let opened = async move {
            let answer = opening.answer().await;
            let read = |key: &str| js_sys::Reflect::get(&answer, &key.into()).unwrap_or_default();
            if let Ok(raw) = read("db").dyn_into::<web_sys::IdbDatabase>() {
                return Ok(Store {
                    db: Database::from(raw.clone()),
                    raw,
                    on_version_change: Default::default(),
                    created: read("created").is_truthy().then_some(fresh),
                });
            }
            let cause = read("cause").as_string().unwrap_or_default();
            Err(match read("failed").as_string().as_deref() {
                Some("unavailable") => StoreError::Unavailable(cause),
                Some("refused") => StoreError::Refused { name, cause },
                Some("blocked") => StoreError::Blocked,
                Some("failed") => match crate::cold::cold(newer_version(&name)).await {
                    // Refused: if a newer Baton's schema is why, say so.
                    Some(found) => StoreError::Newer { name, found },
                    None => StoreError::NotOpened(cause),
                },
                _ => StoreError::NoAnswer,
            })
        };
        (connecting, opened)
    }

    /// Closes the connection when the database wants to upgrade, calling
    /// `lost` so the engine can fall back to memory.
    pub(crate) fn on_version_change(&self, lost: impl Fn() + 'static) {
        let raw = self.raw.clone();
        let handler = Closure::<dyn FnMut()>::new(move || {
            raw.close();
            lost();
        });
        self.raw
            .set_onversionchange(Some(handler.as_ref().unchecked_ref()));
        *self.on_version_change.borrow_mut() = Some(handler);
    }

    /// The actor-reference key of this database, created on first use.
    pub(crate) async fn secret(&self, fresh: [u8; 32]) -> Result<[u8; 32], StoreError> {
        let tx = self
            .db
            .transaction(&[META], TransactionMode::ReadWrite)
            .map_err(cause)?;
        let store = tx.object_store(META).map_err(cause)?;
        let key = JsValue::from_str("secret");
        let existing = store
            .get(Query::from(key.clone()))
            .map_err(cause)?
            .await
            .map_err(cause)?;
        let decoded = existing
            .and_then(|value| value.as_string())
            .and_then(|hex| ActorSecret::decode_key(&hex));
        let secret = match decoded {
            Some(secret) => secret,
            None => {
                store
                    .put(
                        &JsValue::from_str(&ActorSecret::encode_key(&fresh)),
                        Some(&key),
                    )
                    .map_err(cause)?;
                fresh
            }
        };
        tx.commit().map_err(cause)?.await.map_err(cause)?;
        Ok(secret)
    }

    /// What opening an engine reads, in one transaction rather than one per
    /// question: the database's key (written by a second transaction only
    /// if a database that was there lacks it), this session's header, and
    /// every session's live rows. A database this open created is not read:
    /// it holds its key and nothing else. (Another tab's session opened in
    /// the same moments of an origin's first visit is then not watched to
    /// be swept when it goes; the next engine to open sweeps it.)
    pub(crate) async fn first_look(
        &self,
        session: &str,
        fresh: [u8; 32],
    ) -> Result<FirstLook, StoreError> {
        // Created by this open: its key, and nothing else, is in it.
        if let Some(key) = self.created {
            return Ok(FirstLook {
                key,
                header: None,
                leftovers: Vec::new(),
            });
        }
        crate::cold::cold(self.look_in(session, fresh)).await
    }

    /// [`Store::first_look`] in a database that was there.
    async fn look_in(&self, session: &str, fresh: [u8; 32]) -> Result<FirstLook, StoreError> {
        let (stored, header, leftovers) = self.live_rows(Some(session)).await?;
        let key = match stored {
            Some(key) => key,
            None => self.secret(fresh).await?,
        };
        Ok(FirstLook {
            key,
            header,
            leftovers,
        })
    }

    /// The database's key, the header of `session` and every session's live
    /// runs and open questions with their headers, read in one transaction
    /// (`liveRows`).
    async fn live_rows(&self, session: Option<&str>) -> Result<LiveRows, StoreError> {
        let read = wasm_bindgen_futures::JsFuture::from(live_rows_js(&self.raw, session))
            .await
            .map_err(|error| cause(crate::calls::message_of(&error)))?;
        let read = js_sys::Array::from(&read);
        let key = read
            .get(0)
            .as_string()
            .and_then(|hex| ActorSecret::decode_key(&hex));
        let mut sessions: std::collections::BTreeMap<String, Leftover> = Default::default();
        for (rows, is_run) in [(read.get(2), true), (read.get(3), false)] {
            for row in js_sys::Array::from(&rows).iter() {
                let data = (field(&row, "id"), field(&row, "data"));
                let entry = sessions.entry(field(&row, "session")).or_default();
                if is_run {
                    entry.runs.push(data);
                } else {
                    entry.questions.push(data);
                }
            }
        }
        for pair in js_sys::Array::from(&read.get(4)).iter() {
            let pair = js_sys::Array::from(&pair);
            if let Some(leftover) = pair
                .get(0)
                .as_string()
                .and_then(|name| sessions.get_mut(&name))
            {
                leftover.header = header_of(pair.get(1));
            }
        }
        Ok((key, header_of(read.get(1)), sessions.into_iter().collect()))
    }

    /// What one session left behind, read now: its rows and its header, in
    /// one transaction.
    pub(crate) async fn leftover(&self, session: &str) -> Result<Leftover, StoreError> {
        let (_, header, all) = self.live_rows(Some(session)).await?;
        let mut found = all
            .into_iter()
            .find(|(other, _)| other == session)
            .map(|(_, leftover)| leftover)
            .unwrap_or_default();
        found.header = header;
        Ok(found)
    }

    /// A run's journal rows (or, with no run, every run's, run by run),
    /// oldest first, as JSON text: each an array of records (or, written
    /// by an earlier version, one record).
    pub(crate) async fn journal(&self, run: Option<&str>) -> Result<Vec<String>, StoreError> {
        let tx = self
            .db
            .transaction(&[JOURNAL], TransactionMode::ReadOnly)
            .map_err(cause)?;
        let range = match run {
            Some(run) => {
                let lower: JsValue =
                    js_sys::Array::of2(&run.into(), &JsValue::from_f64(0.0)).into();
                let upper: JsValue =
                    js_sys::Array::of2(&run.into(), &JsValue::from_f64(f64::MAX)).into();
                Some(Query::from(
                    KeyRange::bound(&lower, &upper, None, None).map_err(cause)?,
                ))
            }
            None => None,
        };
        let values = tx
            .object_store(JOURNAL)
            .map_err(cause)?
            .get_all(range, None)
            .map_err(cause)?
            .await
            .map_err(cause)?;
        // A row that is not text is kept, as text that does not read: its
        // reader says it could not be read, rather than it going unseen.
        Ok(values
            .into_iter()
            .map(|v| v.as_string().unwrap_or_default())
            .collect())
    }

    /// One page of the history: up to `count` run rows, newest first by
    /// creation time, as `(id, session, JSON text)`, from the run `after`
    /// on (itself included, so the page can be placed after it; its
    /// creation time given when the caller knows it, read here when not),
    /// of `session` only when given. Reads the page, not the history.
    pub(crate) async fn runs_page(
        &self,
        after: Option<(Option<u64>, &str)>,
        count: u32,
        session: Option<String>,
    ) -> Result<Vec<(String, String, String)>, StoreError> {
        let tx = self
            .db
            .transaction(&[RUNS], TransactionMode::ReadOnly)
            .map_err(cause)?;
        let runs = tx.object_store(RUNS).map_err(cause)?;
        let from = match after {
            None => JsValue::NULL,
            Some((known, id)) => {
                let created = match known {
                    Some(created) => Some(created),
                    None => runs
                        .get(Query::from(JsValue::from_str(id)))
                        .map_err(cause)?
                        .await
                        .map_err(cause)?
                        .and_then(|row| js_sys::Reflect::get(&row, &CREATED.into()).ok())
                        .and_then(|created| created.as_f64())
                        .map(|created| created as u64),
                };
                match created {
                    Some(created) => js_sys::Array::of2(
                        &JsValue::from_f64(created as f64),
                        &JsValue::from_str(id),
                    )
                    .into(),
                    None => return Ok(Vec::new()),
                }
            }
        };
        let rows =
            wasm_bindgen_futures::JsFuture::from(newest_runs(&runs.into(), &from, count, session))
                .await
                .map_err(|error| cause(crate::calls::message_of(&error)))?;
        Ok(js_sys::Array::from(&rows)
            .iter()
            .map(|row| {
                (
                    field(&row, "id"),
                    field(&row, "session"),
                    field(&row, "data"),
                )
            })
            .collect())
    }

    /// Writes one engine step in one transaction: every value is built, the
    /// transaction opened, every put issued and the commit requested now,
    /// synchronously — so a `close()` right after cannot lose the step — and
    /// the returned future says whether it committed.
    pub(crate) fn write(
        &self,
        batch: Batch,
    ) -> Result<impl std::future::Future<Output = Result<(), StoreError>>, StoreError> {
        let header = batch
            .header
            .map(|(session, json)| (JsValue::from_str(&session), JsValue::from_str(&json)));
        let records: Vec<(JsValue, JsValue)> = batch
            .records
            .iter()
            .map(|(run, revision, json)| {
                let key = js_sys::Array::of2(&run.into(), &JsValue::from_f64(*revision as f64));
                (key.into(), JsValue::from_str(json))
            })
            .collect();
        let runs: Vec<JsValue> = batch
            .runs
            .iter()
            .map(|row| row_value(row, "live"))
            .collect();
        let questions: Vec<JsValue> = batch
            .questions
            .iter()
            .map(|row| row_value(row, "open"))
            .collect();
        let tx = self
            .db
            .transaction(
                &[SESSIONS, RUNS, JOURNAL, QUESTIONS],
                TransactionMode::ReadWrite,
            )
            .map_err(cause)?;
        if let Some((key, value)) = &header {
            tx.object_store(SESSIONS)
                .and_then(|store| store.put(value, Some(key)))
                .map_err(cause)?;
        }
        let journal = tx.object_store(JOURNAL).map_err(cause)?;
        for (key, value) in &records {
            journal.put(value, Some(key)).map_err(cause)?;
        }
        let store = tx.object_store(RUNS).map_err(cause)?;
        for value in &runs {
            store.put(value, None).map_err(cause)?;
        }
        let store = tx.object_store(QUESTIONS).map_err(cause)?;
        for value in &questions {
            store.put(value, None).map_err(cause)?;
        }
        // A second handle on the same transaction, to read why it aborted.
        let watcher = store.transaction();
        // Listening starts here, before any completion event can fire.
        let pending = std::future::IntoFuture::into_future(tx.commit().map_err(cause)?);
        Ok(async move {
            let result = pending.await.map_err(cause)?;
            if result.is_committed() {
                return Ok(());
            }
            // `QuotaExceededError` when the disk is full.
            Err(StoreError::Aborted(
                watcher.error().map(|error| (error.name(), error.message())),
            ))
        })
    }

    pub(crate) fn close(&self) {
        self.db.close();
    }
}

fn row_value(row: &Row, flag: &str) -> JsValue {
    let object = js_sys::Object::new();
    let set = |key: &str, value: JsValue| {
        let _ = js_sys::Reflect::set(&object, &key.into(), &value);
    };
    set("id", JsValue::from_str(&row.id));
    set("session", JsValue::from_str(&row.session));
    set(flag, JsValue::from_f64(if row.live { 1.0 } else { 0.0 }));
    set("data", JsValue::from_str(&row.data));
    if let Some(created) = row.created {
        set(CREATED, JsValue::from_f64(created as f64));
    }
    object.into()
}

/// What `liveRows` read: the database's key, the asked session's header
/// and every session's live rows with its header.
type LiveRows = (Option<[u8; 32]>, Option<String>, Vec<(String, Leftover)>);

/// A stored header: absent (`undefined`, or `null` as a missing value is
/// read), or there (a header that is not text is there, and does not read).
fn header_of(value: JsValue) -> Option<String> {
    (!value.is_undefined() && !value.is_null()).then(|| value.as_string().unwrap_or_default())
}

fn field(row: &JsValue, key: &str) -> String {
    js_sys::Reflect::get(row, &key.into())
        .ok()
        .and_then(|value| value.as_string())
        .unwrap_or_default()
}

#[wasm_bindgen(module = "/src/page_apis.js")]
extern "C" {
    #[wasm_bindgen(js_name = openDatabase)]
    fn open_database(name: &str, version: u32, secret: &str, grace_ms: u32) -> js_sys::Promise;
    #[wasm_bindgen(js_name = closeWhenOpen)]
    fn close_when_open(opening: &js_sys::Promise);
    #[wasm_bindgen(js_name = newestRuns)]
    fn newest_runs(
        runs: &JsValue,
        from: &JsValue,
        count: u32,
        session: Option<String>,
    ) -> js_sys::Promise;
    #[wasm_bindgen(js_name = liveRows)]
    fn live_rows_js(db: &web_sys::IdbDatabase, session: Option<&str>) -> js_sys::Promise;
    #[wasm_bindgen(js_name = holdLock)]
    fn hold_lock_js(name: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = releaseWhenHeld)]
    fn release_when_held(asked: &js_sys::Promise);
    #[wasm_bindgen(js_name = waitLock)]
    fn wait_lock_js(name: &str, signal: &web_sys::AbortSignal) -> js_sys::Promise;
}

/// Waits for the Web Lock named `name`: `Some(release)` once its holder is
/// gone, `None` if `signal` aborted the wait.
pub(crate) async fn wait_lock(
    name: &str,
    signal: &web_sys::AbortSignal,
) -> Option<js_sys::Function> {
    let granted = wasm_bindgen_futures::JsFuture::from(wait_lock_js(name, signal))
        .await
        .ok()?;
    granted.dyn_into::<js_sys::Function>().ok()
}

/// Takes the Web Lock named `name` if it is free: `Some(release)` while
/// held, `None` when another live engine holds it. Asked for now, not at
/// the first poll, so the answer can be on its way while the caller waits
/// for something else.
pub(crate) fn hold_lock(name: &str) -> impl std::future::Future<Output = Option<js_sys::Function>> {
    AskedLock::ask(name).granted()
}

/// A Web Lock asked for ([`hold_lock`]), its answer not yet taken.
#[derive(Clone)]
pub(crate) struct AskedLock(js_sys::Promise);

impl AskedLock {
    pub(crate) fn ask(name: &str) -> AskedLock {
        AskedLock(hold_lock_js(name))
    }

    /// `Some(release)` once held, `None` when another engine holds it.
    pub(crate) fn granted(self) -> impl std::future::Future<Output = Option<js_sys::Function>> {
        let granted = wasm_bindgen_futures::JsFuture::from(self.0);
        async move { granted.await.ok()?.dyn_into::<js_sys::Function>().ok() }
    }

    /// Lets go of the lock as soon as it is held: what asked for it is gone.
    pub(crate) fn abandon(&self) {
        release_when_held(&self.0);
    }
}

/// Closes the connection an open request brings, whenever it comes: what
/// asked for it is gone ([`Store::open`]'s first half).
pub(crate) fn abandon_opening(connecting: &js_sys::Promise) {
    close_when_open(connecting);
}

/// The lock a live engine holds for its session.
pub(crate) fn lock_name(db: &str, session: &str) -> String {
    format!("baton:{db}:{session}")
}
