//! Writing the engine's steps to IndexedDB: where they are written
//! ([`Persistence`]) and group commit.
//!
//! One transaction is in flight at a time. Every step that happens while it
//! commits is queued, and all of them are written together, in one
//! transaction, as soon as it has committed — so under load the number of
//! transactions follows the speed of the disk, not the number of steps. A
//! run's closing message is said once the transaction holding its records
//! has committed. Whatever the store then holds, the core may let go of
//! (finished runs past the most recent ones).

use baton_core::{ReleaseFinished, Written};
use std::collections::BTreeMap;

use baton_core::{HostEvent, RunId};

use std::rc::Rc;

use wasm_bindgen::JsValue;

use super::persist::{self, Journalled, StorageStatus};
use super::{emit, Inner, Shared};
use crate::store::Store;
use crate::store::StoreError;

/// Where an engine's steps are written, and the state of that writing:
/// the store (none in memory), what the engine reports of it, the session's
/// Web Lock, the one transaction in flight and the steps queued behind it
/// (group commit, `writes.rs`), and the waits for sessions still going away.
pub(super) struct Persistence {
    /// Where state is persisted; `None` in memory (by choice or fallen back).
    store: Option<Rc<Store>>,
    storage: StorageStatus,
    /// Releases this session's Web Lock.
    release: Option<js_sys::Function>,
    /// Step transactions not yet committed (one at most: see `writes`).
    writes_in_flight: u32,
    /// Steps that happened while a transaction was in flight, written
    /// together when it commits (group commit).
    queued: Option<Queued>,
    /// Aborts the waits for sessions left behind by engines still going away.
    sweeping: Option<web_sys::AbortController>,
    /// The rows found unreadable, as `store/key`: each is said once.
    unreadable: Vec<String>,
}

impl Persistence {
    pub(super) fn new(
        store: Option<Rc<Store>>,
        storage: StorageStatus,
        release: Option<js_sys::Function>,
    ) -> Persistence {
        Persistence {
            store,
            storage,
            release,
            writes_in_flight: 0,
            unreadable: Default::default(),
            queued: None,
            sweeping: None,
        }
    }

    /// Whether the row `key` of `store` is found unreadable for the first
    /// time (and so is to be said).
    pub(super) fn first_unreadable(&mut self, store: &str, key: &str) -> bool {
        let row = format!("{store}/{key}");
        let first = !self.unreadable.contains(&row);
        if first {
            self.unreadable.push(row);
        }
        first
    }

    /// The store, unless the engine keeps its state in memory.
    pub(super) fn store(&self) -> Option<Rc<Store>> {
        self.store.clone()
    }

    /// What the engine reports of its storage.
    pub(super) fn status(&self) -> &StorageStatus {
        &self.storage
    }

    /// Why storage fell back to memory, if it did.
    pub(super) fn degraded(&self) -> Option<String> {
        self.storage.degraded.clone()
    }

    /// Runs of other sessions swept late were ended.
    pub(super) fn reconciled(&mut self, ended: u32) {
        self.storage.reconciled += ended;
    }

    /// Transactions in flight (one at most).
    #[cfg(test)]
    pub(super) fn in_flight(&self) -> u32 {
        self.writes_in_flight
    }

    /// Whether steps wait behind the transaction in flight.
    #[cfg(test)]
    pub(super) fn has_queued(&self) -> bool {
        self.queued.is_some()
    }

    /// `controller` aborts the waits for sessions still going away.
    pub(super) fn sweeping(&mut self, controller: web_sys::AbortController) {
        self.sweeping = Some(controller);
    }
}

impl Persistence {
    /// What lets go of the session without the engine's state: releases its
    /// lock and closes the connection (transactions already started still
    /// complete). Doing it twice does nothing more.
    pub(super) fn let_go(&self) -> Box<dyn FnOnce()> {
        let release = self.release.clone();
        let store = self.store.clone();
        Box::new(move || {
            if let Some(release) = release {
                let _ = release.call0(&JsValue::NULL);
            }
            if let Some(store) = store {
                store.close();
            }
        })
    }
}

impl Drop for Persistence {
    /// The engine went away: the waits stop, the session's lock goes (after
    /// the last steps were handed to the store, `write_queued_on_close`),
    /// and the connection closes once its transactions complete.
    fn drop(&mut self) {
        if let Some(sweeping) = self.sweeping.take() {
            sweeping.abort();
        }
        if let Some(release) = self.release.take() {
            let _ = release.call0(&JsValue::NULL);
        }
        if let Some(store) = self.store.take() {
            // Transactions already started still complete.
            store.close();
        }
    }
}

/// Steps waiting for the transaction in flight to commit.
#[derive(Default)]
pub(super) struct Queued {
    records: Vec<Journalled>,
    header: bool,
    closings: Vec<String>,
}

/// Writes a step and then says what closes its runs: at once if no
/// transaction is in flight, else together with every other step queued
/// behind it. In memory, or with nothing to write, the messages are said at
/// once. A failed write falls back to memory and says so; nothing already
/// in memory is lost.
pub(super) fn persist_step(inner: &Shared, records: Vec<Journalled>, closings: Vec<String>) {
    // Written again only when the core says it changed (asked only with a
    // store: in memory there is nothing to write).
    let header = inner.persistence(|persistence| persistence.store.is_some())
        && inner.outputs(baton_core::Engine::take_header_changed);
    let now = inner.persistence(|persistence| {
        if persistence.store.is_some() && persistence.writes_in_flight > 0 {
            let queued = persistence.queued.get_or_insert_with(Queued::default);
            queued.records.extend(records);
            queued.header |= header;
            queued.closings.extend(closings);
            return None;
        }
        Some((header, records, closings))
    });
    // Not queued behind a transaction in flight: written now.
    if let Some((header, records, closings)) = now {
        write(inner, records, header, closings);
    }
}

/// Opens and fills one transaction for `records` (and the header, if it
/// changed), and on its commit writes whatever queued up meanwhile.
fn write(inner: &Shared, records: Vec<Journalled>, header: bool, closings: Vec<String>) {
    let store = inner.persistence(|persistence| persistence.store());
    let prepared = match store {
        Some(store) if header || !records.is_empty() => Some((
            store,
            inner.core(|core| persist::batch(core, &records, header)),
        )),
        _ => None,
    };
    let Some((store, batch)) = prepared else {
        say_closings(inner, closings);
        return;
    };
    // A step that cannot be written whole is not written in part: storage
    // falls back to memory, which still holds everything, and says why.
    let batch = match batch {
        Ok(batch) if batch.is_empty() => {
            say_closings(inner, closings);
            return;
        }
        Ok(batch) => batch,
        Err(cause) => {
            degrade(inner, cause);
            say_closings(inner, closings);
            return;
        }
    };
    let count = u32::try_from(records.len()).unwrap_or(u32::MAX);
    // How far each run's journal this write takes the store.
    let mut reach: BTreeMap<RunId, u64> = BTreeMap::new();
    for Journalled { record, .. } in &records {
        let held = reach.entry(record.run.clone()).or_default();
        *held = (*held).max(record.revision);
    }
    // The transaction is opened and filled now; only its commit is awaited.
    let pending = match store.write(batch) {
        Ok(pending) => pending,
        Err(cause) => {
            degrade(inner, cause);
            say_closings(inner, closings);
            return;
        }
    };
    inner.persistence(|persistence| persistence.writes_in_flight += 1);
    let weak = inner.downgrade();
    let region = inner.page(|page| page.region());
    weak.clone().spawn(async move {
        let written = pending.await;
        let Some(inner) = weak.upgrade() else {
            // Closed while it committed: what the step said is still said
            // (AG-39), by the page's region, which outlives the engine.
            say_to(&region, closings);
            return;
        };
        inner.persistence(|persistence| persistence.writes_in_flight -= 1);
        match written {
            Ok(()) => {
                inner.persistence(|persistence| {
                    persistence.storage.transactions += 1;
                    persistence.storage.records += count;
                });
                // What the store now holds may leave memory: the core
                // decides which finished runs go. Not once the store is gone
                // (another page upgraded the database while this
                // committed): nothing could read them back.
                // (Walked by reference: consuming the map would instantiate
                // its `IntoIter` for this alone, 0.6 KB.)
                if inner.persistence(|persistence| persistence.store.is_some()) {
                    for (run, revision) in &reach {
                        inner.feed(Written {
                            run: run.clone(),
                            revision: *revision,
                        });
                    }
                    inner.feed(ReleaseFinished {
                        keep: baton_core::FINISHED_RUNS_KEPT,
                    });
                }
            }
            Err(cause) => degrade(&inner, cause),
        }
        say_closings(&inner, closings);
        // The steps that queued up behind it, in one transaction. After a
        // failure there is no store: their messages are said at once.
        let queued = inner.persistence(|persistence| persistence.queued.take());
        if let Some(queued) = queued {
            write(&inner, queued.records, queued.header, queued.closings);
        }
    });
}

/// The engine is going away: the steps still queued behind the transaction
/// in flight are written now, in a transaction of their own, which commits
/// after the engine is gone (IndexedDB completes transactions it started).
/// Nothing a step recorded is left behind by `close()`.
pub(super) fn write_queued_on_close(inner: &mut Inner) {
    let (Some(queued), Some(store)) = (
        inner.persistence.queued.take(),
        inner.persistence.store.as_ref(),
    ) else {
        return;
    };
    let region = inner.page.region();
    let pending = persist::batch(&inner.core, &queued.records, queued.header)
        .ok()
        .filter(|batch| !batch.is_empty())
        .and_then(|batch| store.write(batch).ok());
    // Opened and filled now; awaited by nobody but itself, so that its
    // callbacks live until it completes. Its closings are said once it
    // has, as every step's are (AG-39). A task of no engine (this one is
    // closing): a panic in it poisons nothing, but it is guarded as every
    // task is.
    crate::panic::spawn(
        Box::pin(async move {
            if let Some(pending) = pending {
                let _ = pending.await;
            }
            say_to(&region, queued.closings);
        }),
        std::rc::Rc::new(|| {}),
    );
}

fn say_closings(inner: &Shared, closings: Vec<String>) {
    say_to(&inner.page(|page| page.region()), closings);
}

fn say_to(region: &crate::live_region::LiveRegion, closings: Vec<String>) {
    // Several runs closed in one step are one message: the region keeps only
    // its last write of a task.
    if !closings.is_empty() {
        // A failed DOM write leaves nobody to tell; the run itself goes on.
        let _ = region.announce(closings.join(" "));
    }
}

/// IndexedDB failed: the engine goes on in memory, keeps everything it has,
/// and tells subscribers why — once.
pub(super) fn degrade(inner: &Shared, cause: StoreError) {
    let cause = cause.to_string();
    let degraded = inner.persistence(|persistence| {
        let Some(store) = persistence.store.take() else {
            return false;
        };
        store.close();
        persistence.storage.mode = baton_core::StorageMode::Memory;
        persistence.storage.degraded = Some(cause.clone());
        true
    });
    if !degraded {
        return;
    }
    emit(inner, &HostEvent::StorageDegraded { cause });
}
