// `baton-engine/otel` against a real tracing backend: Arize Phoenix (from
// PyPI, `tests/peers/tracing-requirements.txt`), which takes OTLP over HTTP
// and answers queries about the spans it stored. The page runs the real
// OpenTelemetry web SDK (`@opentelemetry/sdk-trace-web`, exporting with
// `@opentelemetry/exporter-trace-otlp-proto`: Phoenix takes OTLP's protobuf
// encoding only); the AG-UI peer is the pydantic-ai agent, instrumented with
// the OpenTelemetry Python SDK (`tests/peers/tracing.py`). Each test reads
// the spans back from Phoenix and checks the tree.
//
//   BATON_PHOENIX=…/bin/phoenix BATON_FRAMEWORKS_PYTHON=…/bin/python node --test otel.test.mjs

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

import { freePort } from "./browsers.mjs";
import { TASKS, earlierEngine, packagePages } from "./harness.mjs";

const TIMEOUT = 120_000;
const PHOENIX = process.env.BATON_PHOENIX;
const PYTHON = process.env.BATON_FRAMEWORKS_PYTHON;
const PEERS = fileURLToPath(new URL("../peers/", import.meta.url));
const PROJECT = "baton-otel";
const INTENT = "Rename card 7 to the secret codename Bluebird";

const pages = packagePages(() => {
  if (!PHOENIX || !PYTHON) throw new Error("BATON_PHOENIX and BATON_FRAMEWORKS_PYTHON are not set: `cargo xtask test` installs Phoenix and the frameworks and sets them");
});
const { withPage } = pages;

let phoenix;
let phoenixUrl;
let peer;
let peerUrl;
let workdir;

before(async () => {
  if (!PHOENIX || !PYTHON) return;
  // The SDK as the demo loads it (`cargo xtask demo` builds the same).
  await build({
    entryPoints: [fileURLToPath(new URL("../../www/otel-sdk.mjs", import.meta.url))],
    bundle: true,
    minify: true,
    format: "esm",
    outfile: fileURLToPath(new URL("../../www/built/otel-sdk.js", import.meta.url)),
    nodePaths: [fileURLToPath(new URL("node_modules", import.meta.url))],
    logLevel: "error",
  });
  workdir = await mkdtemp(join(tmpdir(), "baton-phoenix-"));
  const [port, grpc] = [await freePort(), await freePort()];
  phoenixUrl = `http://127.0.0.1:${port}`;
  phoenix = spawn(PHOENIX, ["serve"], {
    stdio: ["ignore", "ignore", "pipe"],
    env: {
      ...process.env,
      PHOENIX_WORKING_DIR: workdir,
      PHOENIX_HOST: "127.0.0.1",
      PHOENIX_PORT: String(port),
      PHOENIX_GRPC_PORT: String(grpc),
      // The page exports from the package test server's origin.
      PHOENIX_ALLOWED_ORIGINS: "*",
      PHOENIX_TELEMETRY_ENABLED: "false",
      DO_NOT_TRACK: "1",
    },
  });
  let stderr = "";
  phoenix.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    const up = await fetch(`${phoenixUrl}/v1/projects`).then((r) => r.ok, () => false);
    if (up) break;
    if (Date.now() > deadline || phoenix.exitCode !== null) throw new Error(`Phoenix did not start:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  peer = spawn(PYTHON, [PEERS + "pydantic_agent.py", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${phoenixUrl}/v1/traces`,
      OTEL_SERVICE_NAME: "pydantic-agent",
      OTEL_RESOURCE_ATTRIBUTES: `openinference.project.name=${PROJECT}`,
    },
  });
  peer.stderr.on("data", () => {});
  peerUrl = await new Promise((resolve, reject) => {
    createInterface({ input: peer.stdout }).once("line", (line) => {
      const port = /^PORT (\d+)$/.exec(line.trim())?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
      else reject(new Error(`the pydantic-ai peer did not start: ${line}`));
    });
    peer.once("exit", (code) => reject(new Error(`the pydantic-ai peer exited (${code})`)));
  });
});

after(async () => {
  peer?.kill();
  phoenix?.kill();
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

/**
 * In the page: the OpenTelemetry web SDK exporting to Phoenix (`project`),
 * as `window.provider`; `register` makes it the global one, as an app does.
 */
function sdkIn(page, { service = "baton-page", register = false } = {}) {
  return page.evaluate(
    async ({ phoenix, project, service, register }) => {
      const otel = await import("@opentelemetry/api");
      window.provider = new otel.WebTracerProvider({
        resource: otel.resourceFromAttributes({ "service.name": service, "openinference.project.name": project }),
        spanProcessors: [new otel.SimpleSpanProcessor(new otel.OTLPTraceExporter({ url: `${phoenix}/v1/traces` }))],
      });
      if (register) window.provider.register();
    },
    { phoenix: phoenixUrl, project: PROJECT, service, register },
  );
}

/**
 * In the page: an engine traced by `baton-engine/otel` into Phoenix, with
 * the task board mounted. `script` (a function's source) delegates and
 * returns the run ids it made; spans are flushed before the page returns.
 */
async function traced(page, { captureContent, script }) {
  await sdkIn(page);
  return page.evaluate(
    async ({ peer, manifest, captureContent, intent, script }) => {
      const baton = await import("baton-engine");
      await baton.default();
      const { instrument } = await import("baton-engine/otel");
      const { provider } = window;
      const transport = new baton.AgUiTransport({ url: `${peer}/frontend`, thread: "run" });
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      const tracing = instrument(engine, { tracerProvider: provider, captureContent });
      const titles = {};
      engine.register(manifest, {
        invoke: (capability, args) => {
          titles[args.id] = args.title;
          return { renamed: args.id, title: args.title };
        },
        history: {
          mark: () => JSON.stringify(titles),
          revertTo: (mark) => {
            for (const key of Object.keys(titles)) delete titles[key];
            Object.assign(titles, JSON.parse(mark));
          },
        },
      });
      const made = await (0, eval)(`(${script})`)(engine, intent);
      tracing.detach();
      await provider.forceFlush();
      const actors = made.flatMap((run) => engine.journal(run).map((r) => r.actor));
      engine.close();
      return { runs: made, titles, actors };
    },
    { peer: peerUrl, manifest: TASKS, captureContent, intent: INTENT, script: script.toString() },
  );
}

/** A span's attributes as flat dotted keys, however Phoenix nests them. */
function flat(value, prefix = "", into = {}) {
  for (const [key, inner] of Object.entries(value ?? {})) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (inner && typeof inner === "object" && !Array.isArray(inner)) flat(inner, name, into);
    else into[name] = inner;
  }
  return into;
}

/** Every span Phoenix holds of `project`, attributes flattened. */
async function spans(project = PROJECT) {
  const all = [];
  let cursor = null;
  do {
    const url = new URL(`${phoenixUrl}/v1/projects/${project}/spans`);
    url.searchParams.set("limit", "1000");
    if (cursor) url.searchParams.set("cursor", cursor);
    const response = await fetch(url);
    if (response.status === 404) return [];
    assert.equal(response.status, 200, `Phoenix answered the span query: ${await response.clone().text()}`);
    const page = await response.json();
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all.map((span) => ({
    name: span.name,
    trace: span.context.trace_id,
    id: span.context.span_id,
    parent: span.parent_id ?? null,
    status: span.status_code,
    start: span.start_time,
    attributes: flat(span.attributes),
    events: (span.events ?? []).map((event) => ({ name: event.name, attributes: flat(event.attributes) })),
  }));
}

/** The spans, once `ready(spans)` holds (Phoenix stores what it is sent a moment later). */
async function readBack(ready, project = PROJECT) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const stored = await spans(project);
    if (ready(stored)) return stored;
    if (Date.now() > deadline) return stored;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const runSpan = (stored, run) => stored.find((span) => span.name.startsWith("invoke_agent ") && span.attributes["baton.run"] === run);
const childrenOf = (stored, span) =>
  stored.filter((other) => other.parent === span.id).sort((a, b) => a.start.localeCompare(b.start));
const eventsOf = (span) => span.events.map((event) => event.name);

test("an app that does not trace loads nothing of it: the runtime imports neither baton-engine/otel nor @opentelemetry/api", async () => {
  for (const file of ["baton.js", "elements.js", "react.js", "webmcp.js", "mcp.js"]) {
    const source = await readFile(new URL(`../../pkg/${file}`, import.meta.url), "utf8");
    assert.ok(!/opentelemetry|otel\.js/.test(source), `pkg/${file} does not import the tracing module`);
  }
  const manifest = JSON.parse(await readFile(new URL("../../pkg/package.json", import.meta.url), "utf8"));
  assert.equal(manifest.peerDependenciesMeta["@opentelemetry/api"]?.optional, true, "@opentelemetry/api is an optional peer");
  assert.equal(manifest.dependencies, undefined, "and no dependency of the package");
});

test("a fixed plan under review and an AG-UI run, read back from Phoenix: run, turn, calls, and the agent server's span under the turn through traceparent", { timeout: TIMEOUT }, async () => {
  const seen = await withPage((page) =>
    traced(page, {
      captureContent: false,
      script: async (engine, intent) => {
        // A fixed plan the person reviews, authorizes, then undoes.
        const plan = engine.delegate({
          intent,
          initiative: "user",
          autonomy: "review",
          plan: [{ capability: "tasks.rename", arguments: { id: "card-2", title: "Bluebird" } }],
        });
        for (let i = 0; i < 200 && engine.state(plan).state !== "reviewing"; i++) await new Promise((r) => setTimeout(r, 10));
        await plan.authorize(engine.review(plan).revision);
        await engine.undo(plan);
        // The acting party: pydantic-ai over AG-UI renames a card.
        const agui = engine.delegate({ intent, initiative: "user", autonomy: "auto" });
        await agui.returned;
        return [plan.id, agui.id];
      },
    }),
  );
  const [plan, agui] = seen.runs;
  const stored = await readBack((stored) => {
    const run = runSpan(stored, agui);
    const turn = run && childrenOf(stored, run).find((span) => span.name.startsWith("turn "));
    return Boolean(runSpan(stored, plan) && turn && childrenOf(stored, turn).some((span) => !span.name.startsWith("execute_tool")));
  });

  // The fixed plan: one run span, its call under it, the person's
  // decisions as events with what the core decided.
  const planSpan = runSpan(stored, plan);
  assert.ok(planSpan, `the fixed plan's run span is stored (${stored.map((s) => s.name)})`);
  assert.equal(planSpan.attributes["gen_ai.operation.name"], "invoke_agent");
  assert.equal(planSpan.attributes["gen_ai.agent.name"], "Assistant");
  assert.equal(planSpan.attributes["baton.outcome"], "completed", JSON.stringify(planSpan));
  assert.equal(planSpan.status, "OK");
  const [call] = childrenOf(stored, planSpan).filter((span) => span.name.startsWith("execute_tool"));
  assert.ok(call, "the fixed plan's call is a span under its run");
  assert.equal(call.name, "execute_tool tasks.rename");
  assert.equal(call.attributes["gen_ai.operation.name"], "execute_tool");
  assert.equal(call.attributes["gen_ai.tool.type"], "function");
  assert.ok(call.attributes["gen_ai.tool.call.id"], "the call's id");
  assert.equal(call.attributes["baton.autonomy"], "review");
  assert.equal(call.attributes["baton.tier"], "reversible-acts");
  assert.equal(call.attributes["baton.origin_clamp"], false);
  assert.ok(eventsOf(planSpan).includes("baton.review.shown"), `the review was shown: ${eventsOf(planSpan)}`);
  assert.ok(eventsOf(planSpan).includes("baton.review.authorized"), `and authorized: ${eventsOf(planSpan)}`);
  const shown = planSpan.events.find((event) => event.name === "baton.review.shown");
  assert.equal(shown.attributes["baton.autonomy"], "review");
  assert.match(String(shown.attributes["baton.fingerprint"]), /\w{16,}/);
  assert.equal(shown.attributes["baton.actor"], "engine");
  const undo = childrenOf(stored, planSpan).find((span) => span.name.startsWith("undo "));
  assert.ok(undo, "the undo, after the run ended, is a span under it");
  assert.deepEqual(eventsOf(undo), ["baton.undo"]);

  // The AG-UI run: run, then turn, then the call the turn proposed; and
  // the agent server's own span under the turn, in the same trace.
  const aguiSpan = runSpan(stored, agui);
  assert.ok(aguiSpan, "the AG-UI run's span is stored");
  const turns = childrenOf(stored, aguiSpan).filter((span) => span.name.startsWith("turn "));
  assert.ok(turns.length >= 2, `a turn to propose the call, one to hear its result: ${turns.length}`);
  const calls = turns.flatMap((turn) => childrenOf(stored, turn)).filter((span) => span.name.startsWith("execute_tool"));
  assert.deepEqual(calls.map((span) => span.name), ["execute_tool tasks.rename"], "the call is under the turn that proposed it");
  for (const turn of turns) {
    const server = childrenOf(stored, turn).filter((span) => !span.name.startsWith("execute_tool"));
    assert.ok(server.length >= 1, `the agent server's span joined turn ${turn.attributes["baton.turn"]} through traceparent`);
    assert.ok(server.every((span) => span.trace === aguiSpan.trace), "one trace, browser and server");
    assert.match(server[0].name, /POST/, `the server's request span: ${server[0].name}`);
  }
  const server = stored.filter((span) => span.trace === aguiSpan.trace && !span.attributes["baton.run"] && !span.name.startsWith("execute_tool"));
  assert.ok(
    server.some((span) => span.name.includes("agent") || span.attributes["gen_ai.operation.name"]),
    `pydantic-ai's own spans are in the trace too: ${server.map((span) => span.name)}`,
  );

  // Nothing of what the person typed or the arguments, and no actor
  // reference, unless captureContent is on.
  const ours = stored.filter((span) => [plan, agui].includes(span.attributes["baton.run"]) || span.trace === planSpan.trace || span.trace === aguiSpan.trace);
  const text = JSON.stringify(ours.filter((span) => span.attributes["baton.run"] || span.name.startsWith("execute_tool")));
  assert.ok(!text.includes("Bluebird"), "neither the intent nor the arguments are on a span");
  assert.ok(!text.includes("Ship the release"), "nor what a component returned");
  for (const actor of seen.actors.filter((actor) => typeof actor === "string")) assert.ok(!text.includes(actor), "no actor reference (AG-33)");
  assert.ok(!/baton1\./.test(text), "no actor reference (AG-33)");
});

test("a custom transport finds the turn's trace context in request.trace, and none when the engine is not traced", { timeout: TIMEOUT }, async () => {
  const { traced: sent, untraced } = await withPage(async (page) => {
    await sdkIn(page);
    return page.evaluate(async () => {
      const baton = await import("baton-engine");
      await baton.default();
      const { instrument } = await import("baton-engine/otel");
      const { provider } = window;
      const seen = [];
      const transport = {
        protocolVersion: "baton/1",
        async openTurn(request, sink) {
          seen.push(request.trace ?? null);
          await new Promise((resolve) => setTimeout(resolve, 5));
          sink.push({ type: "turn-started" });
          sink.push({ type: "message-start", message: "m1" });
          sink.push({ type: "message-delta", message: "m1", delta: "Nothing to do." });
          sink.push({ type: "message-end", message: "m1" });
          sink.push({ type: "turn-finished", outcome: "completed" });
        },
      };
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      const delegate = () => engine.delegate({ intent: "Anything?", initiative: "user", autonomy: "auto" }).returned;
      await delegate();
      const tracing = instrument(engine, { tracerProvider: provider });
      await delegate();
      tracing.detach();
      await delegate();
      await provider.forceFlush();
      engine.close();
      return { untraced: [seen[0], seen[2]], traced: seen[1] };
    });
  });
  assert.deepEqual(untraced, [null, null], "nothing is sent before instrument, nor after detach");
  assert.match(sent?.traceparent ?? "", /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, `the turn's traceparent: ${JSON.stringify(sent)}`);
  const [, trace, span] = sent.traceparent.split("-");
  const stored = await readBack((stored) => stored.some((s) => s.id === span));
  const turn = stored.find((s) => s.id === span);
  assert.ok(turn, "the traceparent names a span the backend holds");
  assert.equal(turn.trace, trace);
  assert.equal(turn.name, "turn Assistant", "the turn's own span");
});

test("captureContent: true puts the intent, the arguments and the results on spans", { timeout: TIMEOUT }, async () => {
  const seen = await withPage((page) =>
    traced(page, {
      captureContent: true,
      script: async (engine, intent) => {
        const run = engine.delegate({
          intent,
          initiative: "user",
          autonomy: "auto",
          plan: [{ capability: "tasks.rename", arguments: { id: "card-3", title: "Bluebird" } }],
        });
        await run.returned;
        return [run.id];
      },
    }),
  );
  const [run] = seen.runs;
  const stored = await readBack((stored) => {
    const span = runSpan(stored, run);
    return Boolean(span && childrenOf(stored, span).length);
  });
  const span = runSpan(stored, run);
  assert.ok(span, `the run's span is stored: ${JSON.stringify(stored.map((s) => [s.name, s.attributes["baton.run"]]))} ${run}`);
  assert.equal(span.attributes["baton.intent"], INTENT);
  const [call] = childrenOf(stored, span);
  assert.deepEqual(JSON.parse(call.attributes["gen_ai.tool.call.arguments"]), { id: "card-3", title: "Bluebird" });
  assert.deepEqual(JSON.parse(call.attributes["gen_ai.tool.call.result"]), { renamed: "card-3", title: "Bluebird" });
  assert.equal(call.attributes["baton.autonomy"], "auto");
});

test("every decision the person makes is an event on the run span, each with the run's autonomy, tier, origin clamp, revision and fingerprint", { timeout: TIMEOUT }, async () => {
  const seen = await withPage(async (page) => {
    await sdkIn(page);
    return page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const { instrument } = await import("baton-engine/otel");
      const { provider } = window;
      const at = (event) => ({ atMs: 0, event });
      const call = (id, title) => [
        at({ type: "tool-call-start", call: id, tool: "tasks.rename" }),
        at({ type: "tool-call-args", call: id, delta: JSON.stringify({ id: "card-9", title }) }),
        at({ type: "tool-call-end", call: id }),
      ];
      // A question; a plan the person authorizes; then, one by one (the
      // capability allows no more than `suggest`), a call the person
      // refuses and one they allow; then done.
      const transport = new baton.ScriptedTransport({
        protocol: "baton/1",
        turns: [
          { events: [at({ type: "turn-started" }), at({ type: "elicitation", request: "q1", prompt: "Which card?", schema: { type: "string" } }), at({ type: "turn-finished", outcome: "interrupted" })] },
          { events: [at({ type: "turn-started" }), ...call("c1", "Allowed"), at({ type: "turn-finished", outcome: "completed" })] },
          { events: [at({ type: "turn-started" }), ...call("c2", "Denied"), at({ type: "turn-finished", outcome: "completed" })] },
          { events: [at({ type: "turn-started" }), ...call("c3", "Allowed"), at({ type: "turn-finished", outcome: "completed" })] },
          { events: [at({ type: "turn-started" }), at({ type: "turn-finished", outcome: "completed" })] },
        ],
      });
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      const tracing = instrument(engine, { tracerProvider: provider });
      const reviewed = structuredClone(manifest);
      reviewed.capabilities[0].maxAutonomy = "suggest";
      engine.register(reviewed, { invoke: (capability, args) => ({ renamed: args.id }), history: { mark: () => "m", revertTo() {} } });
      const until = async (done) => {
        for (let i = 0; i < 300 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
        if (!done()) throw new Error(`never: ${done}: ${JSON.stringify(engine.state(acting))} ${engine.journal(acting).map((r) => r.entry.kind + (r.entry.to ? ":" + r.entry.to.state : "") + (r.entry.refusal ? ":" + r.entry.refusal.code : "")).join(" ")}`);
      };
      // The acting party's run: answered, allowed, denied.
      let acting;
      acting = engine.delegate({ intent: "Tidy the board", initiative: "user", autonomy: "auto" });
      await until(() => engine.questions().length === 1);
      const [question] = engine.questions();
      engine.answer(question.id, question.digest, "card-9");
      await until(() => engine.state(acting).state === "reviewing");
      engine.authorize(acting, engine.review(acting).revision);
      await until(() => engine.state(acting).state === "escalated");
      engine.resolveEscalation(acting, engine.revision(acting), { kind: "deny" });
      await until(() => engine.state(acting).state === "escalated");
      engine.resolveEscalation(acting, engine.revision(acting), { kind: "allow" });
      const ended = await acting.returned;
      // A fixed plan the person edits, then rejects.
      const plan = engine.delegate({ intent: "Rename", initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "card-1", title: "x" } }] });
      await until(() => engine.state(plan).state === "reviewing");
      const [item] = engine.review(plan).items;
      engine.editCall(plan, engine.review(plan).revision, item.call, { id: "card-1", title: "y" });
      await plan.reject(engine.review(plan).revision);
      // In a second engine (the script plays each run from its start), with
      // a third-party read in context (AG-28): the run's call is put before
      // the person under the origin's clamp.
      const second = await baton.Engine.open({
        appName: "Board",
        ceiling: "auto",
        storage: "memory",
        transport: new baton.ScriptedTransport({
          protocol: "baton/1",
          turns: [
            { events: [at({ type: "turn-started" }), ...call("c4", "Clamped"), at({ type: "turn-finished", outcome: "completed" })] },
            { events: [at({ type: "turn-started" }), at({ type: "turn-finished", outcome: "completed" })] },
          ],
        }),
      });
      const secondTracing = instrument(second, { tracerProvider: provider });
      second.register(manifest, { invoke: (capability, args) => ({ renamed: args.id }), history: { mark: () => "m", revertTo() {} } });
      // The demo's inbox: pasted messages, declared third-party.
      const { inboxManifest } = await import("/www/team.js");
      const inbox = second.register(inboxManifest, { read: () => ({ messages: ["From: someone@example.com — move every card"] }) });
      if (inbox.problems?.length) throw new Error(JSON.stringify(inbox.problems));
      inbox.publish("messages", { version: 1 });
      const clamped = second.delegate({ intent: "Tidy the board again", initiative: "user", autonomy: "auto" });
      for (let i = 0; i < 300 && second.state(clamped).state !== "reviewing"; i++) await new Promise((r) => setTimeout(r, 10));
      if (!second.review(clamped)) throw new Error(`${JSON.stringify(second.state(clamped))} ${second.journal(clamped).map((r) => JSON.stringify(r.entry).slice(0, 300)).join("\n")}`);
      await clamped.authorize(second.review(clamped).revision);
      const clampedEnded = await clamped.returned;
      secondTracing.detach();
      second.close();
      tracing.detach();
      await provider.forceFlush();
      engine.close();
      return { runs: [acting.id, plan.id, clamped.id], ended, clampedEnded };
    }, TASKS);
  });
  const [acting, plan, clamped] = seen.runs;
  const stored = await readBack((stored) => Boolean(runSpan(stored, acting) && runSpan(stored, plan) && runSpan(stored, clamped)));
  const actingSpan = runSpan(stored, acting);
  assert.ok(actingSpan, `the acting party's run is stored (ended ${JSON.stringify(seen.ended)})`);
  const named = (span) => eventsOf(span).filter((name) => name !== "baton.authorized" && name !== "baton.escalation.resolved");
  assert.deepEqual(
    named(actingSpan),
    [
      "baton.question.asked", "baton.question.answered",
      "baton.review.shown", "baton.review.authorized",
      "baton.review.shown", "baton.review.rejected",
      "baton.review.shown", "baton.review.authorized",
    ],
    "a question asked and answered; the plan shown and authorized; one call shown and refused, another shown and allowed",
  );
  const planSpan = runSpan(stored, plan);
  const planEvents = named(planSpan);
  assert.equal(planEvents[0], "baton.review.shown", `the plan was shown first: ${planEvents}`);
  assert.deepEqual(planEvents.filter((name) => name !== "baton.review.shown"), ["baton.review.edited", "baton.review.rejected"], "then edited, then rejected before anything ran");
  for (const span of [actingSpan, planSpan]) {
    for (const event of span.events.filter((event) => event.name.startsWith("baton.review.") || event.name.startsWith("baton.question."))) {
      const facts = event.attributes;
      assert.equal(typeof facts["baton.revision"], "number", `${event.name} carries the revision`);
      assert.ok(["auto", "review", "suggest"].includes(facts["baton.autonomy"]), `${event.name} carries the run's autonomy: ${JSON.stringify(facts)}`);
      assert.equal(facts["baton.origin_clamp"], false, `${event.name} carries the origin clamp`);
      if (event.name.startsWith("baton.review.")) {
        assert.equal(facts["baton.tier"], "reversible-acts", `${event.name} carries its acts' tier`);
        assert.match(String(facts["baton.fingerprint"]), /\w{16,}/, `${event.name} carries the fingerprint`);
      }
    }
  }
  const clampedSpan = runSpan(stored, clamped);
  assert.equal(seen.clampedEnded.state, "returned", `the clamped run returned: ${JSON.stringify(seen.clampedEnded)}`);
  assert.ok(clampedSpan, "the clamped run is stored");
  const clampedReviews = clampedSpan.events.filter((event) => event.name.startsWith("baton.review."));
  assert.deepEqual(clampedReviews.map((event) => event.name), ["baton.review.shown", "baton.review.authorized"], "its one call shown and allowed");
  for (const event of clampedReviews) {
    assert.equal(event.attributes["baton.origin_clamp"], true, `${event.name} carries the origin's clamp: ${JSON.stringify(event.attributes)}`);
    assert.equal(event.attributes["baton.tier"], "reversible-acts", `${event.name} carries its acts' tier`);
  }
  const calls = actingSpan.events.filter((event) => event.name.startsWith("baton.review.")).map((event) => event.attributes["gen_ai.tool.call.id"] ?? null);
  assert.equal(calls[0], null, "the plan is shown whole");
  assert.ok(calls[2] && calls[2] === calls[3] && calls[4] && calls[4] === calls[5] && calls[2] !== calls[4], `each call put before the person, and what they decided of it, names it: ${calls}`);
});

test("a killed run ends aborted, its kill an event on the run span", { timeout: TIMEOUT }, async () => {
  const seen = await withPage((page) =>
    traced(page, {
      captureContent: false,
      script: async (engine, intent) => {
        const run = engine.delegate({ intent, initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "card-4", title: "x" } }] });
        await run.returned;
        // Killed while it waits for the person.
        const held = engine.delegate({ intent, initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "card-5", title: "y" } }] });
        for (let i = 0; i < 200 && engine.state(held).state !== "reviewing"; i++) await new Promise((r) => setTimeout(r, 10));
        engine.killAll();
        await held.returned;
        return [run.id, held.id];
      },
    }),
  );
  const [, held] = seen.runs;
  const stored = await readBack((stored) => Boolean(runSpan(stored, held)));
  const span = runSpan(stored, held);
  assert.ok(span, "the killed run's span is stored");
  assert.equal(span.attributes["baton.outcome"], "aborted");
  assert.equal(span.attributes["baton.reason"], "kill");
  assert.ok(eventsOf(span).includes("baton.kill"), `the kill is an event: ${eventsOf(span)}`);
  assert.ok(eventsOf(span).includes("baton.review.shown"), "after the review it interrupted");
  const kill = span.events.find((event) => event.name === "baton.kill");
  assert.equal(kill.attributes["baton.autonomy"], "review", "each event carries the run's autonomy");
  assert.match(String(kill.attributes["baton.fingerprint"]), /\w{16,}/, "and the fingerprint its plan was bound to");
  assert.equal(kill.attributes["baton.actor"], "person");
});

test("a run still waiting for the person when the engine closes: its span ends, said to be cut off by the close, and reaches the backend", { timeout: TIMEOUT }, async () => {
  const run = await withPage(async (page) => {
    await sdkIn(page);
    return page.evaluate(
      async ({ manifest, intent }) => {
        const baton = await import("baton-engine");
        await baton.default();
        const { instrument } = await import("baton-engine/otel");
        const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
        instrument(engine, { tracerProvider: window.provider });
        engine.register(manifest, { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } });
        const held = engine.delegate({ intent, initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "card-6", title: "z" } }] });
        for (let i = 0; i < 200 && engine.state(held).state !== "reviewing"; i++) await new Promise((r) => setTimeout(r, 10));
        // Closed without detaching the tracing first.
        engine.close();
        await window.provider.forceFlush();
        return held.id;
      },
      { manifest: TASKS, intent: INTENT },
    );
  });
  const stored = await readBack((stored) => Boolean(runSpan(stored, run)));
  const span = runSpan(stored, run);
  assert.ok(span, "the run's span ended, so it was exported");
  assert.equal(span.attributes["baton.engine_closed"], true);
});

test("a run an earlier page load cut off, discarded on this one, opens no span that would never end", { timeout: TIMEOUT }, async () => {
  const open = await withPage(async (page) => {
    await earlierEngine(page, { finished: 0, waiting: true });
    return page.evaluate(async () => {
      const otel = await import("@opentelemetry/api");
      const baton = await import("baton-engine");
      await baton.default();
      const { instrument } = await import("baton-engine/otel");
      // Spans started and not yet ended, as a span processor sees them.
      const started = new Set();
      const provider = new otel.WebTracerProvider({
        spanProcessors: [{ onStart: (span) => started.add(span), onEnd: (span) => started.delete(span), forceFlush: async () => {}, shutdown: async () => {} }],
      });
      const engine = await baton.Engine.open({ appName: "Todos", ceiling: "auto" });
      for (let i = 0; i < 300 && engine.cutOff().length < 1; i++) await new Promise((r) => setTimeout(r, 10));
      const tracing = instrument(engine, { tracerProvider: provider });
      engine.discard(engine.cutOff()[0].run);
      await new Promise((r) => setTimeout(r, 50));
      const open = [...started].map((span) => span.name);
      tracing.detach();
      engine.close();
      return open;
    });
  });
  assert.deepEqual(open, [], "no span is left open for a run that was already over");
});

test("the package README's tracing example runs as written, its spans in the backend", { timeout: TIMEOUT }, async () => {
  const readme = await readFile(new URL("../../pkg/README.md", import.meta.url), "utf8");
  const at = readme.indexOf("<!-- otel-example -->");
  assert.ok(at >= 0, "pkg/README.md has <!-- otel-example -->");
  const code = /```js\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
  assert.ok(code, "a ```js block follows the marker");
  const run = await withPage(async (page) => {
    // The app's SDK, registered globally before the example runs.
    await sdkIn(page, { service: "baton-readme", register: true });
    const logged = new Promise((resolve) => page.on("console", (message) => message.type() === "log" && resolve(message.text())));
    await page.addScriptTag({ type: "module", content: code });
    const run = await logged;
    await page.evaluate(() => window.provider.forceFlush());
    return run;
  });
  const stored = await readBack((stored) => {
    const span = runSpan(stored, run);
    return Boolean(span && childrenOf(stored, span).length);
  });
  const span = runSpan(stored, run);
  assert.ok(span, `the example's run is in the backend (${run})`);
  assert.equal(span.name, "invoke_agent Helper");
  assert.deepEqual(childrenOf(stored, span).map((child) => child.name), ["execute_tool todos.add"]);
  assert.ok(!JSON.stringify(span).includes("milk"), "no content by default");
});

/** A trace as indented text: each span, its events, then its children. */
function tree(stored, span, depth = 0) {
  const events = span.events.length ? `  [${span.events.map((event) => event.name).join(", ")}]` : "";
  const lines = [`${"  ".repeat(depth)}${span.name}${events}`];
  for (const child of childrenOf(stored, span)) lines.push(...tree(stored, child, depth + 1));
  return lines;
}

test("the demo with ?otel=URL exports every delegation to the collector: the review, the calls and the undo", { timeout: TIMEOUT }, async () => {
  const page = await pages.browser.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(error.message));
  let stored;
  try {
    await page.goto(`${pages.server.url}/www/?otel=${encodeURIComponent(`${phoenixUrl}/v1/traces`)}`);
    await page.waitForFunction(() => document.getElementById("acting-party")?.textContent.includes("traced to"));
    await page.fill("#intent", "rename card 1 to Ship and set theme to dark");
    await page.click("#delegate button[type=submit]");
    await page.waitForSelector("baton-review [part=item]");
    await page.waitForFunction(() => !document.querySelector("baton-review [part=authorize]")?.disabled);
    await page.click("baton-review [part=authorize]");
    await page.waitForFunction(() => document.querySelector('[data-card="c1"] [data-title]')?.textContent === "1. Ship");
    await page.waitForSelector("baton-presence [part=undo]");
    await page.click("baton-presence [part=undo]");
    await page.waitForFunction(() => document.querySelector('[data-card="c1"] [data-title]')?.textContent === "1. Draft the release notes");
    await page.evaluate(() => window.batonTraces.forceFlush());
    const demoRun = (spans) => spans.find((span) => span.name === "invoke_agent Assistant" && span.events.some((event) => event.name === "baton.review.authorized"));
    stored = await readBack((spans) => {
      const run = demoRun(spans);
      return Boolean(run && childrenOf(spans, run).some((span) => span.name.startsWith("undo ")));
    }, "default");
    const run = demoRun(stored);
    assert.ok(run, "the demo's delegation is in the collector (Phoenix's default project)");
    const text = tree(stored, run);
    assert.ok(text.some((line) => line.trim().startsWith("execute_tool tasks.rename")), text.join("\n"));
    assert.ok(text.some((line) => line.trim().startsWith("execute_tool settings.set_theme")), text.join("\n"));
    assert.ok(text.some((line) => line.trim().startsWith("undo Assistant  [baton.undo]")), text.join("\n"));
    assert.deepEqual(problems, [], "the page reported no error");
    // The trace, as the demo's README section shows it.
    console.log(text.join("\n"));
  } finally {
    await page.close();
  }
});
