// Baton against agent frameworks no one here wrote: a pydantic-ai agent
// (its own AG-UI adapter) and a LangGraph graph (served by the official
// `ag-ui-langgraph`), each with a deterministic offline model
// (`tests/peers/pydantic_agent.py`, `tests/peers/langgraph_agent.py`).
// `cargo xtask test` installs both into a venv with pinned versions
// (`tests/peers/frameworks-requirements.txt`) and passes its Python in
// `BATON_FRAMEWORKS_PYTHON`; each test starts the servers itself. The built
// package runs in Chromium and reaches them with `AgUiTransport`.
//
//   BATON_FRAMEWORKS_PYTHON=…/bin/python node --test frameworks.test.mjs

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

import { TASKS, packagePages } from "./harness.mjs";

const TIMEOUT = 60_000;
const PYTHON = process.env.BATON_FRAMEWORKS_PYTHON;
const PEERS = fileURLToPath(new URL("../peers/", import.meta.url));

const { withPage } = packagePages(() => {
  if (!PYTHON) throw new Error("BATON_FRAMEWORKS_PYTHON is not set: `cargo xtask test` installs the frameworks' venv and sets it");
});

/** Starts a framework's server and resolves with its base URL once it listens. */
function start(script) {
  const child = spawn(PYTHON, [PEERS + script, "0"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const url = new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => {
      const port = /^PORT (\d+)$/.exec(line.trim())?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
      else reject(new Error(`${script} did not start: ${line}\n${stderr}`));
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}) before listening:\n${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

const FRAMEWORKS = [
  { name: "pydantic-ai", script: "pydantic_agent.py" },
  { name: "LangGraph", script: "langgraph_agent.py" },
];
const servers = new Map();

before(async () => {
  for (const framework of FRAMEWORKS) {
    const server = start(framework.script);
    servers.set(framework.name, { ...server, base: await server.url });
  }
});

after(() => {
  for (const { child } of servers.values()) child.kill();
});

/**
 * In the page: an engine on `url` (a framework's scenario) with the shared
 * task board mounted (its `invoke` answers at once), then `delegations`
 * intents delegated one after another on the same thread. Returns each
 * run's end, its journal's kinds, the agent's words, and the board.
 */
function delegate(page, url, { delegations = 1, stopOnText = false } = {}) {
  return page.evaluate(
    async ({ url, manifest, delegations, stopOnText }) => {
      const baton = await import("baton-engine");
      await baton.default();
      const transport = new baton.AgUiTransport({ url });
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      const titles = {};
      const invoked = [];
      engine.register(manifest, {
        invoke: (capability, args) => {
          invoked.push([capability, args]);
          titles[args.id] = args.title;
          return { renamed: args.id, title: args.title };
        },
        history: { mark: () => "m", revertTo() {} },
      });
      const runs = [];
      for (let i = 0; i < delegations; i++) {
        const run = engine.delegate({ intent: "Rename card 7", initiative: "user", autonomy: "auto" });
        let stoppedAfter = null;
        if (stopOnText) {
          await new Promise((resolve) => {
            const unsubscribe = run.subscribe((event) => {
              if (event.type === "text") {
                unsubscribe();
                resolve();
              }
            });
          });
          const asked = performance.now();
          run.stop();
          await run.returned;
          stoppedAfter = performance.now() - asked;
        }
        const ended = await run.returned;
        const journal = engine.journal(run.id);
        runs.push({
          ended,
          stoppedAfter,
          kinds: journal.map((record) => record.entry.kind),
          said: journal.filter((record) => record.entry.kind === "said").map((record) => record.entry.text),
          acted: journal.filter((record) => record.entry.kind === "agent-acted").map((record) => [record.entry.tool, record.entry.result]),
          refused: journal.filter((record) => record.entry.kind === "call-refused").map((record) => record.entry.refusal.code),
        });
      }
      engine.close();
      return { runs, titles, invoked: invoked.length };
    },
    { url, manifest: TASKS, delegations, stopOnText },
  );
}

test("the package README's approval-record check is the one the framework servers run", async () => {
  const readme = await readFile(new URL("../../pkg/README.md", import.meta.url), "utf8");
  const snippet = /```python\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(snippet, "the README shows the check");
  const unindented = snippet.split("\n").map((line) => line.replace(/^  /, "")).join("\n");
  const source = await readFile(new URL("../peers/approval_record.py", import.meta.url), "utf8");
  assert.ok(source.includes(unindented), "approval_record.py holds the README's snippet verbatim");
});

for (const { name } of FRAMEWORKS) {
  const url = (scenario) => `${servers.get(name).base}/${scenario}`;

  test(`${name}: a frontend tool end to end — the call invoked in the page, its result read by the framework, which answers`, { timeout: TIMEOUT }, async () => {
    const seen = await withPage((page) => delegate(page, url("frontend")));
    const [run] = seen.runs;
    assert.equal(run.ended.state, "returned", `${JSON.stringify(run.ended)}\n${servers.get(name).stderr()}`);
    assert.equal(run.ended.outcome, "completed");
    assert.deepEqual(seen.titles, { "card-7": "Ship the release" });
    assert.ok(run.said.some((text) => text.startsWith("Renamed:")), `the framework answered: ${run.said}`);
  });

  test(`${name}: a tool of the framework's own — its result recorded as the agent's act, the run going on to the page's call (AG-21)`, { timeout: TIMEOUT }, async () => {
    const seen = await withPage((page) => delegate(page, url("own_tool")));
    const [run] = seen.runs;
    assert.equal(run.ended.outcome, "completed", `${JSON.stringify(run)}\n${servers.get(name).stderr()}`);
    assert.deepEqual(run.acted, [["web_search", "Ship the release"]]);
    assert.deepEqual(run.refused, [], "nothing refused: the agent's own tool is not the page's to refuse");
    assert.deepEqual(seen.titles, { "card-7": "Ship the release" });
    assert.ok(run.said.includes("Renamed after searching."), `${run.said}`);
  });

  test(`${name}: invalid arguments refused before invoke, and the framework told (AG-15)`, { timeout: TIMEOUT }, async () => {
    const seen = await withPage((page) => delegate(page, url("invalid")));
    const [run] = seen.runs;
    assert.equal(seen.invoked, 0, "nothing ran");
    assert.deepEqual(run.refused, ["invalid-arguments"]);
    assert.equal(run.ended.state, "returned", `${JSON.stringify(run)}\n${servers.get(name).stderr()}`);
    assert.equal(run.ended.outcome, "completed");
    assert.equal(run.ended.refused, 1, "the run's end says a call was refused");
    assert.ok(run.said.some((text) => text.startsWith("Understood:") && text.includes("invalid-arguments")), `the framework heard why: ${run.said}`);
  });

  test(`${name}: the person stops mid-stream — a typed end within 2 s, and the server's stream closed (AG-4)`, { timeout: TIMEOUT }, async () => {
    const seen = await withPage((page) => delegate(page, url("slow"), { stopOnText: true }));
    const [run] = seen.runs;
    assert.deepEqual(run.ended, { state: "returned", outcome: "aborted", reason: { kind: "user-interrupt" } });
    assert.ok(run.stoppedAfter < 2_000, `returned ${run.stoppedAfter} ms after the stop`);
    // The HTTP stream is closed on the server too, long before the model's
    // 200 chunks (tests/peers/streams.py watches the connection).
    const base = servers.get(name).base;
    let ended = [];
    for (let i = 0; i < 50 && ended.length === 0; i++) {
      ended = await (await fetch(`${base}/streams`)).json();
      if (ended.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(ended.length, 1, `the server's stream ended within 5 s of the stop: ${JSON.stringify(ended)}\n${servers.get(name).stderr()}`);
    assert.equal(ended[0].closed, true, `closed by the client going away, not run out: ${JSON.stringify(ended)}`);
    assert.ok(ended[0].chunks < 150, `${ended[0].chunks} chunks sent`);
  });

  // The follow-up after an instant `invoke` is where the transcript used to
  // lose the call it answers (pydantic-ai then refuses the history): a
  // hundred delegations on one thread, every one of them completed.
  test(`${name}: a hundred delegations on one thread, every follow-up carrying the call it answers`, { timeout: 180_000 }, async () => {
    const seen = await withPage((page) => delegate(page, url("frontend"), { delegations: 100 }));
    const completed = seen.runs.filter((run) => run.ended.outcome === "completed" && run.said.some((text) => text.startsWith("Renamed:")));
    assert.equal(completed.length, 100, `${JSON.stringify(seen.runs.find((run) => !completed.includes(run)))}\n${servers.get(name).stderr()}`);
  });

  // The framework asks the person to approve one of its own consequential
  // calls (RUN_FINISHED with an interrupt naming the call): the person sees
  // the call as streamed, and the resume carries `{approved, editedArgs}`.
  for (const approved of [true, false]) {
    test(`${name}: an approval interrupt about the framework's own call, ${approved ? "approved with edits" : "rejected"}`, { timeout: TIMEOUT }, async () => {
      const seen = await withPage((page) =>
        page.evaluate(
          async ({ url, base, manifest, approved }) => {
            const baton = await import("baton-engine");
            await baton.default();
            // The app publishes its approval key to the agent's server.
            const key = await baton.approvalKey();
            await fetch(`${base}/approval-key`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(key) });
            const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport: new baton.AgUiTransport({ url }) });
            engine.register(manifest, { invoke: () => ({}), history: { mark: () => "m", revertTo() {} } });
            const asked = new Promise((resolve) => engine.subscribe((event) => event.type === "question" && resolve(event)));
            const run = engine.delegate({ intent: "Tell ops the release ships", initiative: "user", autonomy: "auto" });
            const question = await asked;
            const arguments_ = question.asker.approval.arguments;
            const answer = approved
              ? { approved: true, editedArgs: { ...arguments_, body: "The release ships today, at five." } }
              : { approved: false, reason: "not today" };
            engine.answer(question.id, question.digest, answer);
            const ended = await run.returned;
            const journal = engine.journal(run.id);
            engine.close();
            return {
              approval: question.asker.approval,
              ended,
              said: journal.filter((record) => record.entry.kind === "said").map((record) => record.entry.text),
              refused: journal.filter((record) => record.entry.kind === "call-refused").map((record) => record.entry.refusal.code),
            };
          },
          { url: url("approval"), base: servers.get(name).base, manifest: TASKS, approved },
        ),
      );
      // The framework's server verified the signed record of the decision
      // (tests/peers/approval_record.py): the key the page published signed
      // exactly what the person was shown and decided, and no record with
      // any one byte changed verifies.
      const verdicts = await (await fetch(`${servers.get(name).base}/approval-verdicts`)).json();
      const verdict = verdicts.at(-1);
      assert.ok(verdict, `the server saw a signed record: ${JSON.stringify(verdicts)}`);
      assert.equal(verdict.verified, true, JSON.stringify(verdict));
      assert.equal(verdict.matches, true, `the record names the call, the interrupt and the decision sent: ${JSON.stringify(verdict)}`);
      assert.ok(verdict.bytes > 200, `a whole record: ${verdict.bytes} bytes`);
      assert.equal(verdict.tamperedVerified, 0, "a record with any byte changed does not verify");
      assert.equal(verdict.decision.answer.approved, approved);
      assert.equal(seen.approval.tool, "send_email", "the person reviews the framework's own call");
      assert.equal(seen.approval.arguments.to, "ops@example.com");
      assert.deepEqual(seen.refused, [], "the call is the question's, not refused as undeclared");
      const expected = approved ? "Approved: sent to ops@example.com." : "Rejected: the email to ops@example.com was not sent.";
      assert.ok(seen.said.includes(expected), `${JSON.stringify(seen)}\n${servers.get(name).stderr()}`);
    });
  }
}
