// The package's <baton-question> (`baton-engine/elements`) in headless
// Chromium, as an app mounts it on a real engine: a form built from the
// question's schema, nested members, the validator's message inline, and
// the acting party's own call put before the person to approve. Needs the
// built package (`cargo xtask pkg`); `cargo xtask test` runs this after
// building it, with `surfaces.test.mjs`, in each engine.
//
//   node --test question.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";

import { TASKS, packagePages } from "./harness.mjs";

const TIMEOUT = 30_000;

const { withPage } = packagePages();

/**
 * Puts a question before the person, in the page: an engine whose scripted
 * agent's first turn streams `events` (the question among them) and stops,
 * its second ends the run, and a mounted <baton-question> showing it once
 * it has its form. What the test does next finds `globalThis.asked`:
 * `{ engine, run, root, part, wait }`.
 */
function asked(page, { intent, events }) {
  return page.evaluate(
    async ({ manifest, intent, events }) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const at = (event) => ({ atMs: 0, event });
      const transport = new baton.ScriptedTransport({
        protocol: "baton/1",
        turns: [
          { events: [{ type: "turn-started" }, ...events, { type: "turn-finished", outcome: "interrupted" }].map(at) },
          { events: [at({ type: "turn-started" }), at({ type: "turn-finished", outcome: "completed" })] },
        ],
      });
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      engine.register(manifest, { invoke: () => ({}), history: { mark: () => "m", revertTo() {} } });
      const asking = document.createElement("baton-question");
      document.body.append(asking);
      asking.engine = engine;
      const run = engine.delegate({ intent, initiative: "user", autonomy: "review" });
      const root = asking.shadowRoot;
      const part = (name) => root.querySelector(`[part=${name}]`);
      const wait = async (done) => {
        const deadline = Date.now() + 3000;
        while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      };
      await wait(() => !part("form").hasAttribute("data-empty"));
      globalThis.asked = { engine, run, root, part, wait };
    },
    { manifest: TASKS, intent, events },
  );
}

/** A question the agent asks in its own words (an `elicitation`), with `schema`. */
const elicitation = (prompt, schema) => [{ type: "elicitation", request: "q1", prompt, schema }];

test("AG-41: <baton-question> builds a non-modal form from the question's schema, shows the validator's message inline, and answers", { timeout: TIMEOUT }, async () => {
  const schema = {
    type: "object", required: ["column", "count"], additionalProperties: false,
    properties: { column: { enum: ["todo", "done"], title: "Column" }, count: { type: "integer", minimum: 1, maximum: 5, title: "How many" } },
  };
  const result = await withPage(async (page) => {
    await asked(page, { intent: "Tidy", events: elicitation("Where, and how many?", schema) });
    return page.evaluate(async () => {
      const { engine, run, root, part, wait } = globalThis.asked;
      const fields = [...root.querySelectorAll("[part=field]")];
      const shown = {
        prompt: part("prompt").textContent,
        fields: fields.map((f) => `${f.name}:${f.tagName.toLowerCase()}:${f.type}`),
        options: [...fields[0].options].map((o) => o.textContent),
        deadline: part("deadline").textContent,
        focusMoved: document.activeElement !== document.body,
      };
      fields[0].value = JSON.stringify("done");
      fields[1].value = "9";
      part("answer").click();
      const refused = { error: part("error").textContent, stillOpen: !part("form").hasAttribute("data-empty") };
      fields[1].value = "2";
      part("answer").click();
      await wait(() => engine.state(run).state === "cancelled");
      const after = { closed: part("form").hasAttribute("data-empty"), state: engine.state(run).state };
      engine.close();
      return { shown, refused, after };
    });
  });
  assert.equal(result.shown.prompt, "Where, and how many?");
  assert.deepEqual(result.shown.fields, ["column:select:select-one", "count:input:number"]);
  assert.deepEqual(result.shown.options, ["todo", "done"]);
  assert.match(result.shown.deadline, /^Open for \d+ minutes\.$/);
  assert.equal(result.shown.focusMoved, false, "never modal, never takes focus");
  assert.match(result.refused.error, /^AG-41: /, `the engine's validator, inline: ${JSON.stringify(result)}`);
  assert.equal(result.refused.stillOpen, true);
  assert.deepEqual(result.after, { closed: true, state: "cancelled" });
});

test("AG-41: <baton-question> renders nested objects and arrays of primitives, leaves empty optional members out, and answers with typed JSON", { timeout: TIMEOUT }, async () => {
  const schema = {
    type: "object", required: ["card", "labels"], additionalProperties: false,
    properties: {
      card: {
        type: "object", title: "Card", required: ["title"], additionalProperties: false,
        properties: { title: { type: "string", minLength: 1, title: "Title" }, due: { type: "string", format: "date", title: "Due" } },
      },
      labels: { type: "array", title: "Labels", items: { enum: ["bug", "ux", "docs"] } },
      estimates: { type: "array", title: "Estimates", items: { type: "integer" } },
    },
  };
  const result = await withPage(async (page) => {
    await asked(page, { intent: "Plan", events: elicitation("Which card?", schema) });
    return page.evaluate(() => {
      const { engine, root, part } = globalThis.asked;
      const shown = {
        legends: [...root.querySelectorAll("legend")].map((legend) => legend.textContent),
        fields: [...root.querySelectorAll("[part=field]")].map((f) => `${f.name}:${f.tagName.toLowerCase()}:${f.type}`),
      };
      const named = (name) => [...root.querySelectorAll(`[part=field][name=${name}]`)];
      named("title")[0].value = "Ship";
      for (const box of named("labels")) box.checked = ["\"bug\"", "\"docs\""].includes(box.value);
      named("estimates")[0].value = "3\nlots";
      part("answer").click();
      const refused = part("error").textContent;
      named("estimates")[0].value = "3\n5\n";
      part("answer").click();
      const question = engine.questions()[0];
      engine.close();
      return { shown, refused, state: question.state.state, answer: question.state.answer };
    });
  });
  assert.deepEqual(result.shown.legends, ["Card", "Labels"], "the root's legend is the prompt itself");
  assert.deepEqual(result.shown.fields, [
    "title:input:text", "due:input:date",
    "labels:input:checkbox", "labels:input:checkbox", "labels:input:checkbox",
    "estimates:textarea:textarea",
  ]);
  assert.match(result.refused, /^AG-41: .*estimates/, "an item that is not an integer is named by the engine's validator");
  assert.equal(result.state, "answered");
  assert.deepEqual(result.answer, { card: { title: "Ship" }, labels: ["bug", "docs"], estimates: [3, 5] });
});

/**
 * The agent streams its own call (`send_email`) and asks the person to
 * approve it; the person does `act` in <baton-question>: approve, reject
 * with a note, or edit the arguments as JSON, in the form `schema` gives
 * them, or as JSON that is not an object.
 */
async function approveOwnCall(page, { act, schema }) {
  await asked(page, {
    intent: "Tell ops",
    events: [
      { type: "tool-call-start", call: "e1", tool: "send_email" },
      { type: "tool-call-args", call: "e1", delta: '{"to":"ops@example.com","body":"Ships today"}' },
      { type: "tool-call-end", call: "e1" },
      { type: "elicitation", request: "int-e1", prompt: "Send the email?", call: "e1", ...(schema ? { schema } : {}) },
    ],
  });
  return page.evaluate((act) => {
    const { engine, root, part } = globalThis.asked;
    const visible = (name) => part(name).checkVisibility();
    const shown = {
      call: part("call").textContent,
      buttons: [...root.querySelectorAll("button")].filter((b) => b.checkVisibility()).map((b) => b.textContent),
      argumentsVisible: visible("fields"),
    };
    let editor = null;
    if (act.startsWith("edit")) {
      part("edit").click();
      editor = { visible: visible("fields"), approve: part("approve").textContent, fields: [...root.querySelectorAll("[part=fields] [part=field]")].map((f) => f.name) };
      const field = root.querySelector("[part=fields] [part=field]");
      if (act === "edit-json") field.value = JSON.stringify({ to: "dev@example.com", body: "Ships today" });
      if (act === "edit-bad") field.value = "to: dev";
      if (act === "edit-form") root.querySelector("[part=fields] [part=field][name=to]").value = "dev@example.com";
      part("approve").click();
    } else if (act === "reject") {
      part("note").value = "not today";
      part("reject").click();
    } else {
      part("approve").click();
    }
    const question = engine.questions()[0];
    const error = part("error").textContent;
    engine.close();
    return { shown, editor, error, state: question.state.state, answer: question.state.answer, approval: question.asker.approval };
  }, act);
}

test("<baton-question> puts the acting party's own call before the person when it asks to approve it: Approve, Edit, Reject, answered with AG-UI's {approved}", { timeout: TIMEOUT }, async () => {
  const approved = await withPage((page) => approveOwnCall(page, { act: "approve" }));
  assert.match(approved.shown.call, /^send_email \{/, "the call, as streamed, is what the person reviews");
  assert.match(approved.shown.call, /ops@example\.com/);
  assert.deepEqual(approved.shown.buttons, ["Approve", "Edit", "Reject", "Dismiss", "Later"]);
  assert.equal(approved.shown.argumentsVisible, false, "the arguments' editor waits for Edit");
  assert.deepEqual(approved.approval, { call: "e1", tool: "send_email", arguments: { to: "ops@example.com", body: "Ships today" } });
  assert.equal(approved.state, "answered");
  assert.deepEqual(approved.answer, { approved: true });

  const rejected = await withPage((page) => approveOwnCall(page, { act: "reject" }));
  assert.deepEqual(rejected.answer, { approved: false, reason: "not today" }, "the person's note goes with the rejection");
});

test("<baton-question>'s Edit offers the call's arguments as JSON when their schema is unknown, and as a form when the answer's schema describes them; what is not an object is refused before it is sent", { timeout: TIMEOUT }, async () => {
  const json = await withPage((page) => approveOwnCall(page, { act: "edit-json" }));
  assert.deepEqual(json.editor, { visible: true, approve: "Approve with edits", fields: ["editedArgs"] });
  assert.deepEqual(json.answer, { approved: true, editedArgs: { to: "dev@example.com", body: "Ships today" } });

  const schema = {
    type: "object",
    required: ["approved"],
    properties: {
      approved: { type: "boolean" },
      editedArgs: { type: "object", properties: { to: { type: "string", format: "email" }, body: { type: "string" } }, required: ["to", "body"] },
    },
  };
  const form = await withPage((page) => approveOwnCall(page, { act: "edit-form", schema }));
  assert.deepEqual(form.editor.fields, ["to", "body"], "a field per argument, filled with the call's");
  assert.deepEqual(form.answer, { approved: true, editedArgs: { to: "dev@example.com", body: "Ships today" } });

  const bad = await withPage((page) => approveOwnCall(page, { act: "edit-bad" }));
  assert.equal(bad.state, "open", "nothing was sent");
  assert.match(bad.error, /must be a JSON object/);
});

