// Faults at the package's surface, in headless Chromium: each test is one
// scenario (`fault_<scenario>`). Each asserts that control returns with a
// typed reason, that nothing already acknowledged is lost, and that the
// engine goes on working afterwards. This file: what participants,
// subscribers, values and actor references can do wrong.
//
//   node --test faults/

import { test } from "node:test";
import assert from "node:assert/strict";

import { packagePages } from "../harness.mjs";
import { TIMEOUT, scenario } from "./scenario.mjs";

const { withPage } = packagePages();

test("fault_json_nested_10000_deep: in arguments, results, agent state, values, schemas, events and answers it is refused typed, and the engine goes on", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, engine, until, codeOf, plan }) => {
      const deep = () => {
        let value = 1;
        for (let i = 0; i < 10_000; i += 1) value = [value];
        return value;
      };
      const refused = {
        arguments: codeOf(() => engine.delegate(plan(deep())).id),
        state: codeOf(() => engine.setAgentState(deep())),
        value: codeOf(() => baton.Schema.compile({}).validate(deep())),
        schema: codeOf(() => baton.Schema.compile({ items: deep() })),
      };
      // The participant's result is nested 10,000 deep.
      const run = engine.delegate(plan()).id;
      await until(() => engine.state(run).state === "returned");
      const finished = engine.journal(run).find((r) => r.entry.kind === "call-finished")?.entry.result;
      const valid = baton.Schema.compile({ type: "array" }).validate([[1]]).valid;
      // In an acting party's event, as an object or as JSON text: the turn breaks, typed.
      const events = {};
      for (const form of ["object", "text"]) {
        const transport = {
          protocolVersion: "baton/1",
          openTurn(request, sink) {
            sink.push({ type: "turn-started" });
            // The text written out, not stringified: Firefox's JSON.stringify
            // itself gives up at this depth (too much recursion).
            const text = `{"type":"custom","name":"deep","value":${"[".repeat(10_000)}1${"]".repeat(10_000)}}`;
            sink.push(form === "text" ? text : { type: "custom", name: "deep", value: deep() });
            sink.push({ type: "turn-finished", outcome: "completed" });
          },
        };
        const agent = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
        const turn = agent.delegate({ intent: "Think", initiative: "user", autonomy: "auto" }).id;
        await until(() => ["returned", "cancelled"].includes(agent.state(turn).state));
        events[form] = agent.state(turn).reason?.kind ?? null;
        agent.close();
      }
      // In an answer to the acting party's question.
      const at = (event) => ({ atMs: 0, event });
      const asking = await baton.Engine.open({
        appName: "Board", ceiling: "auto", storage: "memory",
        transport: new baton.ScriptedTransport({ protocol: "baton/1", turns: [{ events: [at({ type: "turn-started" }), at({ type: "elicitation", request: "q1", prompt: "Anything?" }), at({ type: "turn-finished", outcome: "interrupted" })] }] }),
      });
      const asked = asking.delegate({ intent: "Tidy", initiative: "user", autonomy: "review" }).id;
      await until(() => asking.questions().some((q) => q.run === asked));
      const question = asking.questions().find((q) => q.run === asked);
      const answer = codeOf(() => asking.answer(question.id, question.digest, deep()));
      const stillOpen = asking.questions().some((q) => q.id === question.id);
      asking.close();
      return { refused, deepResult: { outcome: engine.state(run).outcome, result: finished?.kind, value: finished?.value }, valid, events, answer: { answer, stillOpen } };
    }, { behaviour: { invoke: () => { let value = 1; for (let i = 0; i < 10_000; i += 1) value = [value]; return value; } } }),
  );
  assert.deepEqual(result.refused, {
    arguments: "BatonError/invalid-delegation",
    state: "BatonError/invalid-state",
    value: "BatonError/invalid-value",
    schema: "BatonError/invalid-schema",
  });
  assert.deepEqual(result.deepResult, { outcome: "completed", result: "applied", value: null }, "a result JSON cannot hold is recorded as null; the call was applied");
  assert.equal(result.valid, true);
  assert.deepEqual(result.events, { object: "integrity-violation", text: "integrity-violation" }, "an event nested 10,000 deep breaks the turn, typed");
  assert.deepEqual(result.answer, { answer: "BatonError/invalid-answer", stillOpen: true }, "the answer is refused and the question stays open");
  assert.equal(result.goesOn, true);
});

test("fault_subscriber_throws: a listener that throws stops nothing; the run ends and other listeners hear everything", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ engine, until, plan }) => {
      const heard = [];
      engine.subscribe(() => {
        throw new Error("a broken listener");
      });
      engine.subscribe((event) => heard.push(event.type));
      const run = engine.delegate(plan()).id;
      await until(() => engine.state(run).state === "returned");
      return { outcome: engine.state(run).outcome, heardJournal: heard.filter((t) => t === "journal").length === engine.journal(run).length };
    }),
  ).catch((error) => ({ error: String(error) }));
  assert.deepEqual(result, { outcome: "completed", heardJournal: true, goesOn: true });
});

for (const [name, invoke, expected] of [
  ["fault_invoke_throws", () => { throw new Error("the board is gone"); }, "failed"],
  ["fault_invoke_rejects", () => Promise.reject(new Error("the board is gone")), "failed"],
  ["fault_invoke_returns_garbage", () => { const cyclic = {}; cyclic.self = cyclic; return cyclic; }, "applied"],
]) {
  test(`${name}: the call ends typed, the run returns, nothing is left acting`, { timeout: TIMEOUT }, async () => {
    const result = await withPage((page) =>
      scenario(page, async ({ engine, until, plan }) => {
        const run = engine.delegate(plan()).id;
        const returned = await until(() => engine.state(run).state === "returned");
        const finished = engine.journal(run).find((r) => r.entry.kind === "call-finished");
        const revisions = engine.journal(run).map((r) => r.revision);
        return { returned, result: finished?.entry.result.kind, gapFree: revisions.every((r, i) => r === i + 1) };
      }, { behaviour: { invoke } }),
    );
    assert.deepEqual(result, { returned: true, result: expected, gapFree: true, goesOn: true });
  });
}

test("fault_invoke_hangs: a call that never settles is cut off — the run's deadline starts a rollback, whose own deadline (10 s) returns control, typed", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ engine, until, plan }) => {
      const run = engine.delegate(plan("T", { maxTurns: 1, maxCalls: 1, runDeadlineMs: 300, turnDeadlineMs: 300 })).id;
      const returned = await until(() => engine.state(run).state === "returned", 15_000);
      const state = engine.state(run);
      return { returned, outcome: state.outcome, reason: state.reason?.kind, cause: state.reason?.cause?.kind, unreverted: state.reason?.participants };
    }, { behaviour: { invoke: () => new Promise(() => {}) } }),
  );
  assert.deepEqual(result, { returned: true, outcome: "error", reason: "rollback-failed", cause: "run-deadline", unreverted: ["tasks"], goesOn: true });
});

test("fault_forged_altered_and_foreign_actor_references: none resolves; the genuine one names its run", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, engine, until, plan }) => {
      const run = engine.delegate(plan()).id;
      await until(() => engine.state(run).state === "returned");
      const actor = window.actor;
      const altered = actor.slice(0, -2) + (actor.endsWith("00") ? "11" : "00");
      const other = await baton.Engine.open({ appName: "Other", storage: "memory" });
      const foreign = other.resolveActor(actor);
      other.close();
      return {
        genuine: engine.resolveActor(actor)?.run === run,
        forged: engine.resolveActor("baton1.forged.reference"),
        altered: engine.resolveActor(altered),
        foreign,
        empty: engine.resolveActor(""),
      };
    }, { behaviour: { invoke: (_name, _args, reference) => { window.actor = reference; return {}; } } }),
  );
  assert.deepEqual(result, { genuine: true, forged: null, altered: null, foreign: null, empty: null, goesOn: true });
});

test("fault_oversized_argument: a 10 MB argument is refused to the plan, typed, before any participant sees it", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ engine, until, plan }) => {
      const huge = "x".repeat(10 * 1024 * 1024);
      let thrown = "no error";
      let run = null;
      try {
        run = engine.delegate(plan(huge)).id;
      } catch (error) {
        thrown = `${error.name}/${error.code}`;
      }
      if (run) await until(() => engine.state(run).state === "returned");
      const state = run ? engine.state(run) : null;
      const refused = run ? engine.journal(run).find((r) => r.entry.kind === "call-refused")?.entry.refusal.code ?? null : null;
      return { thrown, refused, outcome: state?.outcome ?? null, reason: state?.reason ?? null, invoked: window.invoked ?? 0 };
    }, { behaviour: { invoke: () => { window.invoked = (window.invoked ?? 0) + 1; return {}; } } }),
  );
  // Refused when delegated, or refused to the plan: a fixed plan has no one
  // to correct it, so the run is an error, never completed (AG-3, AG-8).
  const refusedToThePlan = result.refused === "invalid-arguments" && result.outcome === "error" && result.reason?.kind === "plan-refused" && result.reason?.refusal === "invalid-arguments";
  assert.ok(result.thrown !== "no error" || refusedToThePlan, JSON.stringify({ ...result, reason: result.reason }));
  assert.equal(result.invoked, 0);
  assert.equal(result.goesOn, true);
});

for (const [name, mark, reason] of [
  ["fault_mark_throws", () => { throw new Error("no history today"); }, "mark-failed"],
  ["fault_mark_rejects", () => Promise.reject(new Error("no history today")), "mark-failed"],
  ["fault_mark_returns_garbage", () => { const cyclic = {}; cyclic.self = cyclic; return cyclic; }, "mark-failed"],
  // Cut off by the run's own deadline.
  ["fault_mark_hangs", () => new Promise(() => {}), "run-deadline"],
]) {
  test(`${name}: a participant without a mark to return to is never changed; the run returns typed`, { timeout: TIMEOUT }, async () => {
    const result = await withPage((page) =>
      scenario(page, async ({ engine, until, plan }) => {
        const run = engine.delegate(plan("T", { maxTurns: 1, maxCalls: 1, runDeadlineMs: 500, turnDeadlineMs: 500 })).id;
        const returned = await until(() => engine.state(run).state === "returned", 15_000);
        const state = engine.state(run);
        return { returned, outcome: state.outcome, reason: state.reason?.kind, invoked: window.invoked ?? 0 };
      }, { behaviour: {
        invoke: () => { window.invoked = (window.invoked ?? 0) + 1; return {}; },
        history: { mark, revertTo: () => {} },
      } }),
    );
    assert.deepEqual(result, { returned: true, outcome: "error", reason, invoked: 0, goesOn: true }, "nothing is changed without a mark to return to");
  });
}

// The undo's own deadline (10 s) cuts off a revert that never settles.
for (const [name, revertTo, what] of [
  ["fault_revert_throws", () => { throw new Error("cannot go back"); }, "throws"],
  ["fault_revert_hangs", () => new Promise(() => {}), "never settles, cut off at the rollback deadline (10 s),"],
]) {
  test(`${name}: an undo whose revert ${what} reports that participant as failed, and control returns`, { timeout: TIMEOUT }, async () => {
    const result = await withPage((page) =>
      scenario(page, async ({ engine, until, plan }) => {
        const run = engine.delegate(plan()).id;
        await until(() => engine.state(run).state === "returned");
        const report = await Promise.race([engine.undo(run), new Promise((resolve) => setTimeout(() => resolve("no answer"), 15_000))]);
        return { reverted: report.reverted, failed: report.failed?.map((f) => f.participant ?? f) };
      }, { behaviour: { history: { mark: () => "m", revertTo } } }),
    );
    assert.deepEqual(result, { reverted: [], failed: ["tasks"], goesOn: true });
  });
}

test("fault_answer_after_the_run_ended: an answer to a question whose run is over is refused typed", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, until, codeOf }) => {
      const at = (event) => ({ atMs: 0, event });
      const transport = new baton.ScriptedTransport({
        protocol: "baton/1",
        turns: [{ events: [at({ type: "turn-started" }), at({ type: "elicitation", request: "q1", prompt: "Which column?", schema: { enum: ["todo", "done"] } }), at({ type: "turn-finished", outcome: "interrupted" })] }],
      });
      const asking = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      const run = asking.delegate({ intent: "Tidy", initiative: "user", autonomy: "review" }).id;
      await until(() => asking.questions().some((q) => q.run === run));
      const question = asking.questions().find((q) => q.run === run);
      asking.stop(run);
      await until(() => ["returned", "cancelled"].includes(asking.state(run).state));
      const late = codeOf(() => asking.answer(question.id, question.digest, "done"));
      const forged = codeOf(() => asking.answer(question.id, "0".repeat(64), "done"));
      asking.close();
      return { late, forged };
    }),
  );
  assert.match(result.late, /^BatonError\/[a-z-]+$/, JSON.stringify(result));
  assert.match(result.forged, /^BatonError\/[a-z-]+$/);
  assert.equal(result.goesOn, true);
});

test("fault_turn_never_ends: an acting party that starts a turn and goes silent is cut off at the turn's deadline, typed", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, until }) => {
      // It starts a turn and never says anything more, nor closes the stream.
      const transport = { protocolVersion: "baton/1", openTurn: (request, sink) => { sink.push({ type: "turn-started" }); return new Promise(() => {}); } };
      const silent = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      const run = silent.delegate({ intent: "Tidy", initiative: "user", autonomy: "auto", budget: { maxTurns: 1, maxCalls: 1, runDeadlineMs: 5000, turnDeadlineMs: 300 } }).id;
      const ended = await until(() => ["returned", "cancelled"].includes(silent.state(run).state), 8000);
      const state = silent.state(run);
      silent.close();
      return { ended, state: state.state, reason: state.reason?.kind };
    }),
  );
  assert.deepEqual([result.ended, result.state, result.reason], [true, "returned", "turn-deadman"], JSON.stringify(result));
  assert.equal(result.goesOn, true);
});

test("fault_engine_used_after_close: every method and getter throws BatonError closed; closing twice is harmless", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, codeOf, plan, manifest }) => {
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      const participant = engine.register(manifest, { invoke: () => ({}), history: { mark: () => "m", revertTo() {} } });
      const run = engine.delegate(plan()).id;
      engine.close();
      return {
        state: codeOf(() => engine.state(run)),
        delegate: codeOf(() => engine.delegate({ intent: "x", initiative: "user" }).id),
        storage: codeOf(() => engine.storage),
        subscribe: codeOf(() => engine.subscribe(() => {})),
        closeAgain: codeOf(() => engine.close()),
        publish: codeOf(() => participant.publish("board", { version: 1 })),
      };
    }),
  );
  assert.deepEqual(result, {
    state: "BatonError/closed",
    delegate: "BatonError/closed",
    storage: "BatonError/closed",
    subscribe: "BatonError/closed",
    closeAgain: "no error",
    publish: "BatonError/closed",
    goesOn: true,
  });
});

test("fault_preview_throws_hangs_or_returns_garbage: the person reviews the arguments instead, or waits for a preview that never comes and can still reject", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, until, codeOf }) => {
      // Sending mail cannot be undone: every send is reviewed (AG-25), with a preview (AG-31).
      const mail = {
        id: "mail", label: "Mail", tier: "full-acts", history: "none", preview: true,
        description: "The messages this page sends on the person's behalf.",
        capabilities: [{
          name: "send", description: "Send one message.",
          arguments: { type: "object", required: ["to"], properties: { to: { type: "string" } }, additionalProperties: false },
          argumentLimits: { to: 200 },
          effects: [{ name: "send", reversible: false }],
        }],
      };
      const previews = {
        throws: () => { throw new Error("cannot draw it"); },
        rejects: () => Promise.reject(new Error("cannot draw it")),
        garbage: () => { const cyclic = {}; cyclic.self = cyclic; return cyclic; },
        hangs: () => new Promise(() => {}),
      };
      const cases = {};
      for (const [name, preview] of Object.entries(previews)) {
        const engine = await baton.Engine.open({ appName: "Mail", ceiling: "auto", storage: "memory" });
        let sent = 0;
        engine.register(mail, { invoke: () => { sent += 1; return {}; }, preview });
        const run = engine.delegate({ intent: "Send", initiative: "user", autonomy: "auto", plan: [{ capability: "mail.send", arguments: { to: "team@example.com" } }] }).id;
        await until(() => engine.state(run).state === "reviewing");
        const ready = await until(() => engine.review(run)?.ready === true, 1_000);
        const change = engine.review(run)?.items[0]?.change;
        const allow = codeOf(() => engine.authorize(run, engine.revision(run)));
        if (allow !== "no error") engine.reject(run, engine.revision(run), "no preview came");
        await until(() => ["returned", "cancelled"].includes(engine.state(run).state));
        cases[name] = { ready, change: change?.kind, note: change?.note ?? null, allow, ended: engine.state(run).state, sent };
        engine.close();
      }
      return { cases };
    }),
  );
  const failed = { ready: true, change: "arguments", allow: "no error", ended: "returned", sent: 1 };
  assert.deepEqual(result.cases.throws, { ...failed, note: "the preview failed: cannot draw it" });
  assert.deepEqual(result.cases.rejects, { ...failed, note: "the preview failed: cannot draw it" });
  assert.equal(result.cases.garbage.change, "arguments", "a preview JSON cannot hold is no preview: the arguments are shown");
  assert.match(result.cases.garbage.note, /^the preview failed: it is not JSON/, "with a note that says why");
  assert.deepEqual({ ...result.cases.garbage, note: null }, { ...failed, note: null });
  assert.deepEqual(result.cases.hangs, { ready: false, change: "pending", note: null, allow: "BatonError/preview-pending", ended: "cancelled", sent: 0 }, "approving unseen is refused; rejecting returns control");
  assert.equal(result.goesOn, true);
});

test("fault_replayed_and_cross_session_actor_references: a replayed reference names only its own past call; another session's, under the same key, names nothing here", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, engine, until, plan, manifest }) => {
      const first = engine.delegate(plan("One")).id;
      await until(() => engine.state(first).state === "returned");
      const replayed = window.actors[0];
      const second = engine.delegate(plan("Two")).id;
      await until(() => engine.state(second).state === "returned");
      // Another tab's session on the same database: the same actor key.
      const other = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "indexeddb", dbName: engine.storage.dbName, session: "another-tab" });
      other.register(manifest, { invoke: (_name, _args, actor) => { window.actors.push(actor); return {}; }, history: { mark: () => "m", revertTo() {} } });
      const theirs = other.delegate(plan("Three")).id;
      await until(() => other.state(theirs).state === "returned");
      const foreign = window.actors[2];
      const outcome = {
        replayed: engine.resolveActor(replayed),
        first,
        second,
        intoOther: other.resolveActor(replayed),
        fromOther: engine.resolveActor(foreign),
        theirsResolves: other.resolveActor(foreign)?.run === theirs,
        mode: other.storage.mode,
      };
      other.close();
      return outcome;
    }, { storage: "indexeddb", behaviour: { invoke: (_name, _args, actor) => { (window.actors ??= []).push(actor); return {}; } } }),
  );
  assert.equal(result.replayed.run, result.first, "a replayed reference names the call it was minted for");
  assert.notEqual(result.replayed.run, result.second);
  assert.equal(result.mode, "indexeddb");
  assert.equal(result.intoOther, null, "another session does not accept this one's reference");
  assert.equal(result.fromOther, null, "nor this one another's");
  assert.equal(result.theirsResolves, true);
  assert.equal(result.goesOn, true);
});

test("fault_answer_after_expiry: an answer after the question's deadline is refused typed, and the run returns", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, until, codeOf }) => {
      const at = (event) => ({ atMs: 0, event });
      const transport = new baton.ScriptedTransport({
        protocol: "baton/1",
        turns: [{ events: [at({ type: "turn-started" }), at({ type: "elicitation", request: "q1", prompt: "Which column?", schema: { enum: ["todo", "done"] }, expiresAt: Date.now() + 300 }), at({ type: "turn-finished", outcome: "interrupted" })] }],
      });
      const asking = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      const run = asking.delegate({ intent: "Tidy", initiative: "user", autonomy: "review" }).id;
      await until(() => asking.questions().some((q) => q.run === run));
      const question = asking.questions().find((q) => q.run === run);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const late = codeOf(() => asking.answer(question.id, question.digest, "done"));
      await until(() => ["returned", "cancelled"].includes(asking.state(run).state));
      const state = asking.state(run);
      asking.close();
      return { late, state: state.state, reason: state.reason?.kind ?? null };
    }),
  );
  assert.deepEqual(result, { late: "BatonError/question-expired", state: "returned", reason: "question-expired", goesOn: true });
});
