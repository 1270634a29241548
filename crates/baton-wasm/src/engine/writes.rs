//! Writing the engine's steps to IndexedDB: group commit.
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
use wasm_bindgen_futures::spawn_local;

use super::persist::{self, Journalled};
use super::{emit, Inner, Shared};
use crate::store::StoreError;

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
    let now = inner.with(|guard| {
        // Written again only when the core says it changed (asked only
        // with a store: in memory there is nothing to write).
        let header = guard.persistence.store.is_some() && guard.core.take_header_changed();
        if guard.persistence.store.is_some() && guard.persistence.writes_in_flight > 0 {
            let queued = guard.persistence.queued.get_or_insert_with(Queued::default);
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
    let prepared = inner.read(|guard| match guard.persistence.store.clone() {
        Some(store) if header || !records.is_empty() => {
            Some((store, persist::batch(&guard.core, &records, header)))
        }
        _ => None,
    });
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
    inner.with(|inner| inner.persistence.writes_in_flight += 1);
    let weak = inner.downgrade();
    spawn_local(async move {
        let written = pending.await;
        let Some(inner) = weak.upgrade() else {
            return;
        };
        inner.with(|inner| inner.persistence.writes_in_flight -= 1);
        match written {
            Ok(()) => inner.with(|guard| {
                guard.persistence.storage.transactions += 1;
                guard.persistence.storage.records += count;
                // What the store now holds may leave memory: the core
                // decides which finished runs go.
                for (run, revision) in &reach {
                    guard.core.handle(
                        crate::clock::now(),
                        Written {
                            run: run.clone(),
                            revision: *revision,
                        },
                    );
                }
                guard.core.handle(
                    crate::clock::now(),
                    ReleaseFinished {
                        keep: baton_core::FINISHED_RUNS_KEPT,
                    },
                );
            }),
            Err(cause) => degrade(&inner, cause),
        }
        say_closings(&inner, closings);
        // The steps that queued up behind it, in one transaction. After a
        // failure there is no store: their messages are said at once.
        let queued = inner.with(|inner| inner.persistence.queued.take());
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
    let Ok(batch) = persist::batch(&inner.core, &queued.records, queued.header) else {
        return;
    };
    if batch.is_empty() {
        return;
    }
    // Opened and filled now; awaited by nobody but itself, so that its
    // callbacks live until it completes.
    if let Ok(pending) = store.write(batch) {
        spawn_local(async move {
            let _ = pending.await;
        });
    }
}

fn say_closings(inner: &Shared, closings: Vec<String>) {
    // Several runs closed in one step are one message: the region keeps only
    // its last write of a task.
    if !closings.is_empty() {
        inner.with(|inner| inner.say(closings.join(" ")));
    }
}

/// IndexedDB failed: the engine goes on in memory, keeps everything it has,
/// and tells subscribers why — once.
pub(super) fn degrade(inner: &Shared, cause: StoreError) {
    let cause = cause.to_string();
    let degraded = inner.with(|guard| {
        let Some(store) = guard.persistence.store.take() else {
            return false;
        };
        store.close();
        guard.persistence.storage.mode = baton_core::StorageMode::Memory;
        guard.persistence.storage.degraded = Some(cause.clone());
        true
    });
    if !degraded {
        return;
    }
    emit(inner, &HostEvent::StorageDegraded { cause });
}
