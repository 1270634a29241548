// Helpers of the browser tests (crates/baton-wasm/src/engine/*tests.rs):
// participants with recorded behaviour, transports, and patches of browser
// APIs that simulate failures. One module, so the test page loads one file.

export function participant(element, delayMs, failOn) {
  const state = { titles: {}, applied: 0, marks: 0, reverted: [] };
  return {
    element,
    state,
    history: {
      mark() { state.marks += 1; return 'mark-' + state.marks; },
      revertTo(token) { state.reverted.push(token); state.titles = {}; },
    },
    invoke(capability, args, actor) {
      if (typeof actor !== 'string' || !actor.startsWith('baton1.')) throw new Error('no actor reference');
      const apply = () => {
        state.applied += 1;
        if (state.applied === failOn) throw new Error('the server said no');
        state.titles[args.id] = args.title;
        return { renamed: args.id };
      };
      if (delayMs === 0) return apply();
      return new Promise((resolve, reject) => setTimeout(() => { try { resolve(apply()); } catch (e) { reject(e); } }, delayMs));
    },
  };
}
export function stateOf(p) { return p.state; }
export function spyOnKeydown() {
  // Counts the keydown listeners added and not removed, wherever they go.
  const spy = { live: 0 };
  const proto = EventTarget.prototype;
  const add = proto.addEventListener, remove = proto.removeEventListener;
  proto.addEventListener = function (type, fn, opts) { if (type === 'keydown') spy.live += 1; return add.call(this, type, fn, opts); };
  proto.removeEventListener = function (type, fn, opts) { if (type === 'keydown') spy.live -= 1; return remove.call(this, type, fn, opts); };
  spy.restore = () => { proto.addEventListener = add; proto.removeEventListener = remove; };
  return spy;
}
export function pressEscapeIn(element, consume) {
  // Presses Escape in `element`, whose own handler uses it up when
  // `consume` (a widget closing); returns whether its default was prevented.
  const handler = (event) => { if (consume) event.preventDefault(); };
  element.addEventListener('keydown', handler);
  const event = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
  element.dispatchEvent(event);
  element.removeEventListener('keydown', handler);
  return event.defaultPrevented;
}
export function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

export function keepActors(p) {
  const seen = [];
  const invoke = p.invoke;
  p.invoke = function (capability, args, actor) { seen.push(actor); return invoke.call(p, capability, args, actor); };
  return seen;
}

export function pushingTransport(turns, after) {
  // Plays `turns` (arrays of baton/1 events), then settles as `after` says:
  // 'resolve', 'reject', or 'hang' (waits for the abort signal).
  const log = { requests: [], aborted: 0 };
  let index = 0;
  return {
    log,
    protocolVersion: 'baton/1',
    openTurn(request, sink, signal) {
      log.requests.push(request);
      signal.addEventListener('abort', () => { log.aborted += 1; });
      const events = turns[index++] || [];
      for (const event of events) sink.push(typeof event === 'string' ? event : event);
      if (after === 'reject') return Promise.reject(new Error('connection reset by peer'));
      if (after === 'hang') return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
      // Reports into the sink from inside the abort, as a transport may.
      if (after === 'report') return new Promise((_, reject) => signal.addEventListener('abort', () => { sink.report('aborted'); reject(new Error('aborted')); }));
      return Promise.resolve();
    },
  };
}
export function logOf(transport) { return transport.log; }
export function readable(p, content) {
  p.read = (name) => Promise.resolve({ name, content });
  return p;
}
export function focusInside(element) {
  const input = document.createElement('input');
  element.appendChild(input);
  input.focus();
  return input;
}

export function hangingTransport() {
  return {
    protocolVersion: 'baton/1',
    openTurn(request, sink, signal) {
      sink.push({ type: 'turn-started' });
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    },
  };
}
export function countReadwriteTransactions() {
  const counter = { count: 0 };
  const original = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (names, mode, ...rest) {
    if (mode === 'readwrite') counter.count += 1;
    return original.call(this, names, mode, ...rest);
  };
  counter.restore = () => { IDBDatabase.prototype.transaction = original; };
  return counter;
}
export function afterReadwriteTransactions(count, callback) {
  // Calls `callback` once, right after the `count`th readwrite transaction
  // from now is opened (while it is still to commit).
  const original = IDBDatabase.prototype.transaction;
  let seen = 0;
  IDBDatabase.prototype.transaction = function (names, mode, ...rest) {
    const transaction = original.call(this, names, mode, ...rest);
    if (mode === 'readwrite' && ++seen === count) {
      IDBDatabase.prototype.transaction = original;
      callback();
    }
    return transaction;
  };
}
export function hideIndexedDb() {
  const descriptor = Object.getOwnPropertyDescriptor(window, 'indexedDB')
    || Object.getOwnPropertyDescriptor(Object.getPrototypeOf(window), 'indexedDB');
  Object.defineProperty(window, 'indexedDB', { configurable: true, get() { throw new DOMException('storage is disabled', 'SecurityError'); } });
  return () => { delete window.indexedDB; if (!('indexedDB' in window)) Object.defineProperty(window, 'indexedDB', descriptor); };
}
export function silenceIndexedDb() {
  // A browser's storage that hangs: an open request no event ever comes to.
  const descriptor = Object.getOwnPropertyDescriptor(window, 'indexedDB')
    || Object.getOwnPropertyDescriptor(Object.getPrototypeOf(window), 'indexedDB');
  Object.defineProperty(window, 'indexedDB', { configurable: true, value: { open() { return {}; } } });
  return () => { delete window.indexedDB; if (!('indexedDB' in window)) Object.defineProperty(window, 'indexedDB', descriptor); };
}
export function fillTheDisk() {
  const put = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function () { throw new DOMException('the quota is used up', 'QuotaExceededError'); };
  return () => { IDBObjectStore.prototype.put = put; };
}
export function uniqueName(prefix) { return prefix + '-' + crypto.randomUUID(); }

export function upgradeDatabase(name, version) {
  // Another page asks for a newer version of the database; resolves once it
  // got it (every older connection closed).
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, version);
    request.onsuccess = () => { request.result.close(); resolve(true); };
    request.onerror = () => reject(request.error);
  });
}

export function databaseExists(name) {
  // Requests on one name are answered in order: an open that has to create
  // the database finds none, and its creation is undone.
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name);
    let found = true;
    request.onupgradeneeded = (event) => {
      found = event.oldVersion !== 0;
      request.transaction.abort();
    };
    request.onsuccess = () => {
      request.result.close();
      resolve(found);
    };
    request.onerror = () => (found ? reject(request.error) : resolve(false));
  });
}

export function holdOldConnection(name) {
  // Another page's connection at version 1 that never lets a version change
  // through (it has no `versionchange` handler); resolves with its closer.
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, 1);
    request.onsuccess = () => resolve(() => request.result.close());
    request.onerror = () => reject(request.error);
  });
}

// A participant whose history hands out `token` as its mark.
export function markingWith(element, token) {
  const p = participant(element, 0, 0);
  p.history.mark = () => token;
  return p;
}

// A mail participant whose `send` previews the message after `delayMs`.
export function previewingMail(delayMs) {
  const p = participant(null, 0, 0);
  p.preview = (capability, args) =>
    new Promise((resolve) => setTimeout(() => resolve({ to: args.to, subject: 'Weekly summary' }), delayMs));
  p.invoke = (capability, args) => { p.state.applied += 1; return { sent: args.to }; };
  return p;
}

// A task board whose history takes `delayMs` to revert.
export function slowToRevert(element, delayMs) {
  const p = participant(element, 0, 0);
  const revertTo = p.history.revertTo;
  p.history.revertTo = (token) => new Promise((resolve) => setTimeout(() => { revertTo(token); resolve(); }, delayMs));
  return p;
}

// Another tab of the origin, as the kill channel sees it.
export function listenForKills() {
  const seen = { kills: 0 };
  const channel = new BroadcastChannel('baton-engine');
  channel.onmessage = (event) => { if (event.data && event.data.type === 'baton/kill-all') seen.kills += 1; };
  seen.close = () => channel.close();
  return seen;
}
export function killFromAnotherTab(message) {
  const channel = new BroadcastChannel('baton-engine');
  channel.postMessage(message);
  channel.close();
}

export function countTransactions() {
  // Counts the IndexedDB transactions the page opens until stopped.
  const proto = IDBDatabase.prototype;
  const original = proto.transaction;
  const counter = { count: 0, stop() { proto.transaction = original; } };
  proto.transaction = function (...args) { counter.count += 1; return original.apply(this, args); };
  return counter;
}
function withDb(name, body) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const request = body(db);
      request.onsuccess = () => { db.close(); resolve(request.result); };
      request.onerror = () => { db.close(); reject(request.error); };
    };
  });
}
export function journalRows(name, run) {
  // The journal store's rows of one run, as stored.
  return withDb(name, (db) => db.transaction('journal').objectStore('journal').getAll(IDBKeyRange.bound([run, 0], [run, Infinity])));
}
export function putJournalRow(name, key, text) {
  return withDb(name, (db) => db.transaction('journal', 'readwrite').objectStore('journal').put(text, key));
}
export function countingParticipant(element, heard) {
  // Notes, at each call, how many events the page had heard by then.
  const seen = [];
  return {
    element,
    seen,
    history: { mark() { return 'm'; }, revertTo() {} },
    invoke(capability, args) { seen.push({ id: args.id, heard: heard.length }); return { ok: true }; },
  };
}
export function publishingBoard(element) {
  // A board with a read: each call publishes its change with the call's
  // actor reference (the run's own); `editAsPerson` publishes without one.
  const state = { version: 1, handle: null, contexts: [], reverted: 0 };
  return {
    element,
    state,
    history: {
      mark() { return 'v' + state.version; },
      revertTo() { state.reverted += 1; state.version += 1; state.handle.publish('board', { version: state.version }); },
    },
    invoke(capability, args, actor, context) {
      state.contexts.push(context);
      state.version += 1;
      state.handle.publish('board', { version: state.version, actor });
      return { ok: true };
    },
  };
}
export function attachHandle(board, handle) {
  board.state.handle = handle;
  handle.publish('board', { version: board.state.version });
}
export function editAsPerson(board) {
  board.state.version += 1;
  board.state.handle.publish('board', { version: board.state.version });
}
export function bigIntParticipant(element) {
  // Applies every call and answers with something JSON cannot hold.
  return { element, history: { mark() { return 'm'; }, revertTo() {} }, invoke() { return { count: 1n }; } };
}
export function hearRegion() {
  // Every message written into the page's polite live region from now on,
  // in order, read from the DOM: the engine keeps no copy of what it said.
  const heard = [];
  const take = (records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.parentElement && node.parentElement.hasAttribute('data-baton-live-region')) heard.push(node.textContent);
      }
    }
  };
  const observer = new MutationObserver(take);
  observer.observe(document.body, { childList: true, subtree: true });
  return {
    messages() { take(observer.takeRecords()); return heard.slice(); },
    stop() { observer.disconnect(); },
  };
}

// `promise`'s value, or `false` if it has not settled within `ms`.
export function within(promise, ms) {
  return Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(false), ms))]);
}
