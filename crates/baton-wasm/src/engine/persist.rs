//! The engine's side of persistence: what a step writes, what opening reads
//! and reconciles, and falling back to memory when IndexedDB fails.

use baton_core::{Adopt, Reconcile, TakeOffered};
use std::collections::BTreeMap;
use std::rc::Rc;

use baton_core::{ActorSecret, EngineConfig, EngineSnapshot, JournalRecord, Run, RunId};
use wasm_bindgen::prelude::*;

use crate::errors::{error, Code};
use crate::store::{
    hold_lock, lock_name, AskedLock, Batch, FirstLook, Leftover, Row, Store, StoreError,
};

pub(crate) use baton_core::{StorageMode, StorageStatus};

/// The core engine an `Engine.open` starts with, and where it persists.
pub(crate) struct Opened {
    pub(crate) core: baton_core::Engine,
    pub(crate) store: Option<Rc<Store>>,
    pub(crate) status: StorageStatus,
    pub(crate) release: Option<js_sys::Function>,
    /// Sessions with runs left behind whose engine still held its lock when
    /// this one opened (a reload: the old page not yet gone), and the key.
    pub(crate) busy: Vec<String>,
    pub(crate) key: [u8; 32],
    /// The rows opening skipped because they could not be read.
    pub(crate) unreadable: Vec<Unreadable>,
}

/// What an opening asked for before an engine holds it: the database's
/// connection and the session's lock. A panic while opening lets go of
/// both, whether they came already or come later — the engine that would
/// have held them never comes, and the session's next engine (a retry,
/// another tab) would find its lock held for the page's life and a version
/// change held up. Once an engine holds them, a panic before `Engine.open`
/// resolves abandons that engine instead: poisoned, it lets go itself.
#[derive(Default)]
pub(crate) struct Held {
    connecting: std::cell::Cell<Option<js_sys::Promise>>,
    asked: std::cell::Cell<Option<AskedLock>>,
    engine: std::cell::Cell<Option<crate::panic::Struck>>,
}

impl Held {
    /// The database's open request went out (`Store::open`'s promise).
    pub(crate) fn connecting(&self, connecting: js_sys::Promise) {
        self.connecting.set(Some(connecting));
    }

    /// Closes the connection and lets go of the lock, as soon as each is
    /// there; or abandons the engine that holds them now. Letting go twice
    /// does nothing more.
    pub(crate) fn let_go(&self) {
        if let Some(connecting) = self.connecting.take() {
            crate::store::abandon_opening(&connecting);
        }
        if let Some(asked) = self.asked.take() {
            asked.abandon();
        }
        if let Some(abandon) = self.engine.take() {
            abandon();
        }
    }

    /// The engine holds the lock and the connection now; `abandon` is what
    /// a panic before it reaches the app does to it.
    pub(crate) fn handed_to(&self, abandon: crate::panic::Struck) {
        self.connecting.set(None);
        self.asked.set(None);
        self.engine.set(Some(abandon));
    }

    /// Asks for the session's lock, kept to let go of if opening is given up.
    fn ask(&self, lock: &str) -> impl std::future::Future<Output = Option<js_sys::Function>> {
        let asked = AskedLock::ask(lock);
        self.asked.set(Some(asked.clone()));
        asked.granted()
    }
}

fn in_memory(config: EngineConfig, key: [u8; 32], degraded: Option<String>) -> Opened {
    Opened {
        core: baton_core::Engine::new(config, ActorSecret::new(key)),
        store: None,
        status: StorageStatus {
            mode: StorageMode::Memory,
            degraded,
            ..StorageStatus::default()
        },
        release: None,
        busy: Vec::new(),
        key,
        unreadable: Vec::new(),
    }
}

/// Opens storage for a session. IndexedDB that is unavailable or fails
/// leaves the engine in memory with the cause; a session another live engine
/// holds is refused (two engines driving one session would interleave its
/// runs).
///
/// `opening` is the database's open request, sent by the caller before it
/// set up the rest of the engine (`None`: memory, by choice).
pub(crate) async fn open(
    opening: Option<impl std::future::Future<Output = Result<Store, StoreError>>>,
    db_name: &str,
    config: EngineConfig,
    key: [u8; 32],
    now: u64,
    held: &Held,
) -> Result<Opened, JsValue> {
    let Some(opening) = opening else {
        return Ok(in_memory(config, key, None));
    };
    // The session's lock is asked for while the database opens. An engine
    // of the same session closed just before lets go of it asynchronously,
    // so a refusal now is asked again once the database is open, as late as
    // a lock asked for only then.
    let session = config.session.to_string();
    let lock = lock_name(db_name, &session);
    let early = held.ask(&lock);
    crate::strike_here!("asked");
    let store = match opening.await {
        Ok(store) => store,
        Err(cause) => {
            held.let_go();
            return Ok(in_memory(config, key, Some(cause.to_string())));
        }
    };
    let lock = match early.await {
        Some(release) => Some(release),
        None => held.ask(&lock).await,
    };
    let Some(release) = lock else {
        held.let_go();
        return Err(error(
            Code::SessionInUse,
            &format!("another live engine drives session {session} in database {db_name}"),
        ));
    };
    match load(&store, db_name, config.clone(), key, now).await {
        Ok((core, reconciled, busy, key, unreadable)) => Ok(Opened {
            core,
            store: Some(Rc::new(store)),
            status: StorageStatus {
                mode: StorageMode::Indexeddb,
                degraded: None,
                db_name: Some(db_name.to_owned()),
                reconciled,
                ..StorageStatus::default()
            },
            release: Some(release),
            busy,
            key,
            unreadable,
        }),
        Err(cause) => {
            held.let_go();
            Ok(in_memory(config, key, Some(cause.to_string())))
        }
    }
}

/// What opening read: the core, how many runs and questions it reconciled,
/// the sessions still held, the database's key and the rows skipped.
type Loaded = (
    baton_core::Engine,
    u32,
    Vec<String>,
    [u8; 32],
    Vec<Unreadable>,
);

/// Reads the database's key, this session's live state and what sessions
/// that are gone left behind; reconciles the latter under their locks.
async fn load(
    store: &Store,
    db_name: &str,
    config: EngineConfig,
    fresh: [u8; 32],
    now: u64,
) -> Result<Loaded, StoreError> {
    let session = config.session.to_string();
    let FirstLook {
        key,
        header,
        leftovers,
    } = store.first_look(&session, fresh).await?;
    let mut reconciled = 0;
    let mut unreadable = Vec::new();
    let mut adopted = Vec::new();
    let mut busy = Vec::new();
    // Its own state first: a header that cannot be read sends the engine to
    // memory (`storage-degraded`) before it sweeps other sessions' runs into
    // a session it could not then restore. Starting afresh on IndexedDB
    // would mint its run ids again over the rows the header counted.
    let mut own = Leftover::default();
    let mut others = Vec::new();
    for (other, leftover) in leftovers {
        if other == session {
            own = leftover;
        } else {
            others.push((other, leftover));
        }
    }
    own.header = header;
    let restored = match &own.header {
        None => None,
        Some(_) => {
            let (snapshot, skipped) = snapshot_of(own)?;
            unreadable.extend(skipped);
            Some(snapshot)
        }
    };
    // Other sessions' leftovers: none in a database this open created.
    if !others.is_empty() {
        let others = crate::cold::cold(sweep_others(store, db_name, others, key, now, &session));
        let (ended, offered, busy_ones, skipped) = others.await;
        reconciled += ended;
        adopted.extend(offered);
        busy.extend(busy_ones);
        unreadable.extend(skipped);
    }
    let mut core = match restored {
        None => baton_core::Engine::new(config, ActorSecret::new(key)),
        Some(snapshot) => baton_core::Engine::restore(config, ActorSecret::new(key), snapshot),
    };
    core.handle(now, Adopt(adopted));
    Ok((core, reconciled, busy, key, unreadable))
}

/// Sweeps the sessions `others` left live rows of, each whose lock is free:
/// how many runs and questions it ended, the runs offered to this session,
/// the sessions a live engine holds, and the rows that could not be read.
async fn sweep_others(
    store: &Store,
    db_name: &str,
    others: Vec<(String, Leftover)>,
    key: [u8; 32],
    now: u64,
    session: &str,
) -> (u32, Vec<Run>, Vec<String>, Vec<Unreadable>) {
    let (mut reconciled, mut adopted, mut busy, mut unreadable) =
        (0, Vec::new(), Vec::new(), Vec::new());
    for (other, _) in others {
        // A live engine holds its session's lock: its runs are its own.
        let Some(release) = hold_lock(&lock_name(db_name, &other)).await else {
            busy.push(other);
            continue;
        };
        let swept = sweep_held(store, &other, release, key, now, session).await;
        // A session that cannot be swept (its header cannot be read) is
        // left as it is, and said; it does not take this engine's storage
        // down.
        match swept {
            Ok((ended, offered, skipped)) => {
                reconciled += ended;
                adopted.extend(offered);
                unreadable.extend(skipped);
            }
            Err(StoreError::Decode { cause, .. }) => {
                let why = format!("the session's header cannot be read ({cause}): its runs are left as they stood");
                unreadable.push(("sessions", other, why));
            }
            // Nor does any other failure (a session's rows without their
            // header, a full disk): said, and its rows left for a later sweep.
            Err(error) => unreadable.push(("sessions", other, left_as_they_stood(&error))),
        }
    }
    (reconciled, adopted, busy, unreadable)
}

/// Why a session's runs are left as they stood: its sweep failed.
pub(super) fn left_as_they_stood(error: &StoreError) -> String {
    format!("the session could not be swept ({error}): its runs are left as they stood")
}

/// Reconciles a session whose engine held its lock when this one opened,
/// once that lock frees up (the engine went away: a reload, a closed tab).
/// Returns how many of its runs and questions it ended and the runs it
/// offers again (moved to session `to`), or `None` if the wait was aborted
/// (this engine closed first).
pub(crate) async fn sweep_when_free(
    store: &Store,
    db_name: &str,
    (session, to): (&str, &str),
    key: [u8; 32],
    signal: &web_sys::AbortSignal,
) -> Option<Swept> {
    let release = crate::store::wait_lock(&lock_name(db_name, session), signal).await?;
    Some(sweep_held(store, session, release, key, super::now(), to).await)
}

/// Sweeps session `session`, whose lock this engine holds (`release`), and
/// lets go of the lock, even when a panic strikes the sweep: the session
/// stays another engine's to sweep, not held for the page's life.
async fn sweep_held(
    store: &Store,
    session: &str,
    release: js_sys::Function,
    key: [u8; 32],
    now: u64,
    to: &str,
) -> Swept {
    let let_go: crate::panic::Struck = Rc::new(move || {
        let _ = release.call0(&JsValue::NULL);
    });
    // Read again under the lock: the session may have moved on between a
    // first read and its engine going away.
    let swept = crate::panic::guarded(
        Box::pin(async {
            let fresh = store.leftover(session).await?;
            sweep(store, session, fresh, key, now, to).await
        }),
        Rc::clone(&let_go),
    )
    .await;
    let_go();
    swept
}

/// How many runs and questions a sweep ended, the runs it offers again,
/// and the rows it skipped because they could not be read.
pub(crate) type Swept = Result<(u32, Vec<Run>, Vec<Unreadable>), StoreError>;

/// Ends what a session that is gone left active, and writes the result.
/// What it cut off while waiting for the person moves, in the same
/// transaction, to session `to`, whose engine offers it again: two tabs
/// opening at once cannot both offer it.
async fn sweep(
    store: &Store,
    session: &str,
    leftover: Leftover,
    key: [u8; 32],
    now: u64,
    to: &str,
) -> Swept {
    let (snapshot, skipped) = snapshot_of(leftover)?;
    crate::strike_here!("sweeping");
    let mut ghost = baton_core::Engine::restore(
        EngineConfig::new(session.to_owned()),
        ActorSecret::new(key),
        snapshot,
    );
    let result = ghost.handle(now, Reconcile);
    let mut records = Vec::new();
    while let Some(event) = ghost.poll_event() {
        if let baton_core::Event::Journal(record) = event {
            records.push(Journalled::new(record));
        }
    }
    let mut rows = batch(&ghost, &records, true)?;
    let offered = ghost.handle(now, TakeOffered);
    rows.runs
        .retain(|row| !offered.iter().any(|run| run.id().as_str() == row.id));
    for run in &offered {
        rows.runs.push(Row {
            id: run.id().to_string(),
            created: Some(run.created_at()),
            session: to.to_owned(),
            live: true,
            data: serde_json::to_string(run).map_err(|error| StoreError::Encode {
                what: "a run",
                cause: error.to_string(),
            })?,
        });
    }
    store.write(rows)?.await?;
    Ok((result.interrupted + result.expired, offered, skipped))
}

/// A stored row read back: the text parsed to a value, then the value read
/// as `T`. Going through the one `Value` parser the module already has,
/// rather than a text deserializer per stored type, keeps the runtime small.
pub(crate) fn parsed<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    serde_json::from_value(serde_json::from_str(text)?)
}

/// A stored row that could not be read, skipped: its store, its key and
/// why (`unreadable-row`).
pub(crate) type Unreadable = (&'static str, String, String);

/// What a session left behind, as the core restores it: every row that
/// reads, and the ones that do not, skipped. A live run that cannot be read
/// is cut off where it stood: nothing reverts its participants, and the
/// finding says so. Without a readable header there is nothing to restore.
fn snapshot_of(leftover: Leftover) -> Result<(EngineSnapshot, Vec<Unreadable>), StoreError> {
    let header: EngineSnapshot = match &leftover.header {
        Some(text) => parsed(text).map_err(|error| StoreError::Decode {
            what: "header",
            cause: error.to_string(),
        })?,
        None => return Err(StoreError::Headless),
    };
    let mut unreadable = Vec::new();
    let runs = readable(&leftover.runs, "runs", &mut unreadable);
    let questions = readable(&leftover.questions, "questions", &mut unreadable);
    Ok((header.with_rows(runs, questions), unreadable))
}

/// The rows of `store` that read as `T`; each that does not is noted in
/// `unreadable`, with what skipping it means.
fn readable<T: serde::de::DeserializeOwned>(
    rows: &[(String, String)],
    store: &'static str,
    unreadable: &mut Vec<Unreadable>,
) -> Vec<T> {
    let mut read = Vec::new();
    for (id, text) in rows {
        match parsed(text) {
            Ok(row) => read.push(row),
            Err(error) => {
                let why = if store == "runs" {
                    format!(
                        "a run in progress that cannot be read ({error}): it is cut off, its \
                         participants left as they are"
                    )
                } else {
                    format!("an open question that cannot be read ({error})")
                };
                unreadable.push((store, id.clone(), why));
            }
        }
    }
    read
}

/// A journal record and its JSON text, written once for both of its readers:
/// the subscribers (as a `journal` event) and the store.
/// Written when first asked for: an engine in memory with nobody
/// listening writes no JSON at all.
pub(crate) struct Journalled {
    pub(crate) record: JournalRecord,
    json: std::cell::OnceCell<Result<String, String>>,
}

impl Journalled {
    pub(crate) fn new(record: JournalRecord) -> Journalled {
        Journalled {
            record,
            json: std::cell::OnceCell::new(),
        }
    }

    /// The record as JSON text, written once.
    fn json(&self) -> &Result<String, String> {
        self.json
            .get_or_init(|| serde_json::to_string(&self.record).map_err(|error| error.to_string()))
    }

    /// The `journal` event subscribers hear, as JSON text: the record's
    /// fields after the event's tag, exactly as the core's `Event` writes
    /// it (an internally tagged variant).
    pub(crate) fn event_json(&self) -> Option<String> {
        let text = self.json().as_deref().ok()?;
        let fields = text.strip_prefix('{').filter(|rest| rest.len() > 1)?;
        Some(format!("{{\"type\":\"journal\",{fields}"))
    }
}

/// What one step wrote, as rows: its journal records (one row per run), the
/// current snapshot of every run they belong to, those runs' questions, and (when asked) the
/// session's header.
pub(crate) fn batch(
    core: &baton_core::Engine,
    records: &[Journalled],
    header: bool,
) -> Result<Batch, StoreError> {
    let json = |what: &'static str, value: Result<String, serde_json::Error>| {
        value.map_err(|error| StoreError::Encode {
            what,
            cause: error.to_string(),
        })
    };
    let session = core.config().session.to_string();
    let mut out = Batch::default();
    // A step's records of one run are one row: IndexedDB's cost is per put,
    // and a run's records are read together anyway.
    let mut runs: BTreeMap<&RunId, Vec<&Journalled>> = BTreeMap::new();
    for journalled in records {
        runs.entry(&journalled.record.run)
            .or_default()
            .push(journalled);
    }
    for (id, chunk) in &runs {
        let first = chunk.first().map_or(0, |j| j.record.revision);
        let mut array = String::from("[");
        for (i, journalled) in chunk.iter().enumerate() {
            if i > 0 {
                array.push(',');
            }
            match journalled.json() {
                Ok(text) => array.push_str(text),
                Err(cause) => {
                    return Err(StoreError::Encode {
                        what: "a journal record",
                        cause: cause.clone(),
                    })
                }
            }
        }
        array.push(']');
        out.records.push((id.to_string(), first, array));
        if let Some(run) = core.run(id).map(|view| view.run()) {
            out.runs.push(Row {
                id: id.to_string(),
                created: Some(run.created_at()),
                session: session.clone(),
                live: !run.state().is_terminal() || run.is_offered(),
                data: json("a run", serde_json::to_string(run))?,
            });
        }
    }
    for question in core
        .questions()
        .iter()
        .filter(|q| runs.contains_key(&q.run))
    {
        out.questions.push(Row {
            id: question.id.to_string(),
            created: None,
            session: session.clone(),
            live: question.state.is_open(),
            data: json("a question", serde_json::to_string(question))?,
        });
    }
    if header || !out.records.is_empty() {
        out.header = Some((
            session,
            json("the session header", serde_json::to_string(&core.header()))?,
        ));
    }
    Ok(out)
}
