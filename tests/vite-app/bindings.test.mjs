// The framework bindings in apps built with Vite from the packed package:
// `baton-engine/react` (react/: a TypeScript React app, on React 19 and 18),
// `baton-engine/vue` (vue/: a TypeScript Vue 3 app) and
// `baton-engine/svelte` (svelte/: a Svelte 5 app in runes mode), each
// type-checked against the package's declarations and its framework's own
// types (tsc; svelte-check), then
// built and run in headless Chromium. Both apps keep one page contract, so
// the same scenarios drive each: the person delegates from the app, reviews
// in <baton-review>, authorizes, sees the component's state change and
// undoes it from <baton-presence>; a question is answered in the app; the
// person's own edit is held back from undo; a participant unmounted mid-run
// leaves nothing behind.
//
//   npm ci && node --test bindings.test.mjs

import { after, before, describe, test } from "node:test";
import { readFile } from "node:fs/promises";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { chromium } from "playwright-core";

import { CHROMIUM, FLAGS } from "../pkg/chromium.mjs";
import { buildApp } from "./build-app.mjs";

const TIMEOUT = 90_000;
const exec = promisify(execFile);

/** Each app: its sources, the framework packages as this directory installed them, and what `window.app.framework` says. */
const APPS = [
  { name: "React 19", from: "react", sources: ["index.html", "main.tsx", "tsconfig.json"], packages: { react: "react", "react-dom": "react-dom" }, framework: /^react 19\./ },
  { name: "React 18", from: "react", sources: ["index.html", "main.tsx", "tsconfig.json"], packages: { react: "react-18", "react-dom": "react-dom-18" }, framework: /^react 18\./ },
  { name: "Vue 3", from: "vue", sources: ["index.html", "main.ts", "tsconfig.json"], packages: { vue: "vue" }, framework: /^vue 3\./ },
  {
    name: "Svelte 5",
    from: "svelte",
    sources: ["index.html", "main.ts", "App.svelte", "TaskBoard.svelte", "RunStatus.svelte", "RunHandle.svelte", "Badge.svelte", "Questions.svelte", "board.ts", "elements.d.ts", "vite.config.js", "tsconfig.json"],
    packages: { svelte: "svelte" },
    tools: ["@sveltejs/vite-plugin-svelte"],
    framework: /^svelte 5\./,
  },
];

let built;
let browser;

before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
});

after(async () => {
  await browser?.close();
});

/** Opens the app; fails the test on any error the page reports. */
async function open() {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console.${message.type()}: ${message.text()}`);
  });
  await page.goto(built.url);
  await page.waitForSelector("html[data-ready=true]");
  await page.waitForSelector("#board[data-mounted=tasks]");
  return { page, problems };
}

async function title(page, card) {
  return page.locator(`[data-card="${card}"]`).textContent();
}

for (const { name, from, sources, packages, tools, framework } of APPS) {
  describe(name, () => {
    before(
      async () => {
        built = await buildApp({ from, sources, packages, tools });
      },
      { timeout: TIMEOUT },
    );
    after(async () => {
      await built?.close();
    });

    test(`the app runs on ${name}, and builds without a warning`, { timeout: TIMEOUT }, async () => {
      assert.deepEqual(built.said, [], "Vite reported no warning or error");
      const { page, problems } = await open();
      try {
        assert.match(await page.evaluate(() => window.app.framework), framework);
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });

    test("a delegation from the app: reviewed in <baton-review>, authorized, the component's state changed by the run, undone in one step (A.2, AG-19)", { timeout: TIMEOUT }, async () => {
      const { page, problems } = await open();
      try {
        await page.click("#rename");
        // useRun and usePresence follow the run into review.
        await page.waitForSelector("#run[data-state=reviewing][data-reviewing=yes]");
        await page.waitForSelector("#badge[data-awaiting-review='1']");
        // Svelte's useRun takes the `Run` handle itself too.
        if (from === "svelte") await page.waitForSelector("#run-handle[data-state=reviewing]");
        assert.equal(await title(page, "card-1"), "Draft", "nothing before the person authorizes");
        await page.click("baton-review [part=authorize]");
        await page.waitForSelector("#run[data-state=returned][data-outcome=completed]");
        await page.waitForSelector("#badge[data-awaiting-review='0']");
        assert.equal(await title(page, "card-1"), "Ship", "the run changed the component's state");
        // The change the call made was published as the run's own: the undo
        // is not held back as if the person had changed the board since.
        await page.click("baton-presence [part=undo]");
        await page.waitForFunction(() => document.querySelector('[data-card="card-1"]')?.textContent === "Draft");
        const after = await page.evaluate(() => ({
          tools: window.app.engine.tools().map((tool) => tool.name),
          said: document.querySelector("#badge").dataset.said,
        }));
        assert.deepEqual(after.tools, ["tasks.rename"]);
        assert.ok(after.said.length > 0, "usePresence heard what was said");
        assert.equal(await page.locator("baton-presence [part=undo-choice]").isVisible(), false, "no conflict offered");
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });

    test("useQuestions: the acting party's question is state in the app, answered there, and the run goes on", { timeout: TIMEOUT }, async () => {
      const { page, problems } = await open();
      try {
        await page.click("#ask");
        await page.waitForSelector("#questions [data-question]");
        assert.match(await page.locator("#questions [data-question]").textContent(), /^Which column\?/);
        await page.click("#questions [data-answer]");
        await page.waitForSelector("#questions [data-question]", { state: "detached" });
        // useRun followed the run to its end: a question and no plan.
        await page.waitForSelector("#run[data-state=cancelled]");
        const closed = await page.evaluate(() => window.app.engine.questions().map((q) => [q.prompt, q.state.state, q.state.answer]));
        assert.deepEqual(closed, [["Which column?", "answered", "done"]]);
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });

    /**
     * In the page: a run renaming card 1 to `title`, authorized; then the
     * person's own edit of the card; then the run's undo. What the undo
     * answered: `undone`, or its error's code.
     */
    const editThenUndo = (page, title) =>
      page.evaluate(async (title) => {
        const { engine } = window.app;
        const run = engine.delegate({
          intent: "Rename card 1", initiative: "user", autonomy: "review",
          plan: [{ capability: "tasks.rename", arguments: { id: "card-1", title } }],
        });
        await run.authorize(run.review().revision);
        await new Promise((r) => setTimeout(r, 250));
        document.querySelector("#edit-card-1").click();
        await new Promise((r) => setTimeout(r, 50));
        try {
          await run.undo();
          return "undone";
        } catch (error) {
          return error.code;
        }
      }, title);

    test("a call that changed nothing leaves no actor behind: the person's later edit stays theirs, and undo of the run holds back (A.2)", { timeout: TIMEOUT }, async () => {
      const { page, problems } = await open();
      try {
        // A run whose one call finds the card as asked already: it changes nothing.
        const code = await editThenUndo(page, "Draft");
        assert.equal(code, "undo-conflict", "the edit is the person's, so the run's undo does not revert it blindly");
        assert.equal(await title(page, "card-1"), "Edited");
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });

    test("the person's own edit after a run changed the card is held back from the run's undo: undo-conflict, and the edit stays (A.2)", { timeout: TIMEOUT }, async () => {
      const { page, problems } = await open();
      try {
        const code = await editThenUndo(page, "Ship");
        assert.equal(code, "undo-conflict", "the run's undo would revert the person's edit: it is held back");
        assert.equal(await title(page, "card-1"), "Edited", "the person's edit stays");
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });

    test("the element a ref gives is the participant's: busy exactly while a call changes it (AG-40)", { timeout: TIMEOUT }, async () => {
      const { page, problems } = await open();
      try {
        const busy = await page.evaluate(async () => {
          const { engine } = window.app;
          const board = document.querySelector("#board");
          const seen = [];
          const observer = new MutationObserver((records) => {
            for (const record of records) seen.push(record.oldValue === "true" ? "was-busy" : "set");
          });
          observer.observe(board, { attributes: true, attributeFilter: ["aria-busy"], attributeOldValue: true });
          const run = engine.delegate({
            intent: "Rename card 2", initiative: "user", autonomy: "review",
            plan: [{ capability: "tasks.rename", arguments: { id: "card-2", title: "Busy" } }],
          });
          await run.authorize(run.review().revision);
          seen.push(...observer.takeRecords().map((record) => (record.oldValue === "true" ? "was-busy" : "set")));
          observer.disconnect();
          return { seen, now: board.getAttribute("aria-busy") };
        });
        assert.ok(busy.seen.includes("was-busy"), `aria-busy was set while the call ran: ${JSON.stringify(busy)}`);
        assert.equal(busy.now, null, "and cleared after");
        // The framework renders the state the call set on its own schedule (React 18
        // batches it after the run returns): wait for the card to show it.
        await page.waitForFunction(() => document.querySelector('[data-card="card-2"]')?.textContent === "Busy", null, { timeout: 5_000 });
        assert.equal(await title(page, "card-2"), "Busy");
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });

    test("a participant unmounted mid-run: its capabilities leave with it, the plan under review is refused, not acted on, and control returns", { timeout: TIMEOUT }, async () => {
      const { page, problems } = await open();
      try {
        await page.click("#rename-2");
        await page.waitForSelector("#run[data-state=reviewing]");
        await page.click("#toggle-board");
        await page.waitForSelector("#board", { state: "detached" });
        assert.equal(await page.evaluate(() => window.app.engine.tools().length), 0, "the unmounted board offers nothing");
        const state = await page.evaluate(async () => {
          const { engine } = window.app;
          const [run] = (await engine.runs({ limit: 1 })).runs;
          engine.authorize(run.run, engine.revision(run.run));
          for (let i = 0; i < 200 && engine.state(run.run).state !== "returned"; i++) await new Promise((r) => setTimeout(r, 10));
          return engine.state(run.run);
        });
        assert.equal(state.state, "returned", "control returns");
        assert.equal(state.outcome, "error");
        assert.deepEqual([state.reason.kind, state.reason.refusal], ["plan-refused", "undeclared-capability"]);
        // useRun followed it to the end.
        await page.waitForSelector("#run[data-state=returned][data-outcome=error]");
        // Mounted again, the board is a participant again, untouched.
        await page.click("#toggle-board");
        await page.waitForSelector("#board[data-mounted=tasks]");
        assert.equal(await title(page, "card-2"), "Plan", "nothing was applied to the board that was gone");
        assert.deepEqual(await page.evaluate(() => window.app.engine.tools().map((tool) => tool.name)), ["tasks.rename"]);
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });

    test("the engine closing mid-review leaves the app standing: the hooks keep what they last read, the surfaces let the engine go, nothing throws", { timeout: TIMEOUT }, async () => {
      const { page, problems } = await open();
      try {
        await page.click("#rename");
        await page.waitForSelector("#run[data-state=reviewing]");
        await page.waitForSelector("#badge[data-awaiting-review='1']");
        await page.evaluate(() => {
          const returned = [];
          const run = window.app.engine.delegate({ intent: "Rename again", initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "card-2", title: "Now" } }] });
          run.returned.then(() => returned.push("resolved"), (error) => returned.push(error.code));
          window.returned = returned;
        });
        await page.waitForSelector("#badge[data-awaiting-review='2']");
        await page.evaluate(() => window.app.engine.close());
        await page.waitForFunction(() => window.returned.length === 1);
        assert.deepEqual(await page.evaluate(() => window.returned), ["closed"], "a run's returned rejects closed");
        await page.waitForFunction(() => document.querySelector("baton-presence").state === "idle");
        const after = await page.evaluate(() => ({
          badge: document.querySelector("#badge")?.dataset.awaitingReview,
          kill: document.querySelector("baton-presence").shadowRoot.querySelector("[part=kill]").disabled,
        }));
        assert.equal(after.badge, "2", "the badge keeps what it last counted");
        assert.equal(after.kill, true, "no control of an engine that is gone");
        // Anything rendered again reads nothing new, and throws nothing.
        await page.click("#toggle-board");
        await page.waitForTimeout(100);
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });
  });
}

test("the svelte app checks against baton-engine/svelte and Svelte's own types (svelte-check)", { timeout: TIMEOUT }, async () => {
  const check = await exec("node_modules/.bin/svelte-check", ["--tsconfig", "svelte/tsconfig.json", "--fail-on-warnings"]).catch((error) => error);
  assert.equal(check.code ?? 0, 0, `svelte-check: ${check.stdout ?? ""}${check.stderr ?? ""}`);
  assert.match(check.stdout, /found 0 errors and 0 warnings/);
});

for (const [app, binding] of [["react", "baton-engine/react"], ["vue", "baton-engine/vue"]]) {
  test(`the ${app} app type-checks against ${binding} and its framework's own types`, { timeout: TIMEOUT }, async () => {
    const tsc = await exec("node_modules/.bin/tsc", ["-p", `${app}/tsconfig.json`]).catch((error) => error);
    assert.equal(tsc.code ?? 0, 0, `tsc: ${tsc.stdout ?? ""}${tsc.stderr ?? ""}`);
  });
}

test("the package README's Vue example is the tested app's own code", async () => {
  const readme = await readFile(new URL("../../pkg/README.md", import.meta.url), "utf8");
  const marker = readme.indexOf("<!-- vue-example -->");
  assert.ok(marker >= 0, "the README marks its Vue example");
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(marker));
  assert.ok(block && block[1].trim().length > 0, "a ```ts block follows the marker");
  const app = await readFile(new URL("./vue/main.ts", import.meta.url), "utf8");
  assert.ok(app.includes(block[1]), "the README's example appears verbatim in vue/main.ts");
});

test("the package README's React example is the tested app's own code", async () => {
  const readme = await readFile(new URL("../../pkg/README.md", import.meta.url), "utf8");
  const marker = readme.indexOf("<!-- react-example -->");
  assert.ok(marker >= 0, "the README marks its React example");
  const block = /```tsx\n([\s\S]*?)```/.exec(readme.slice(marker));
  assert.ok(block && block[1].trim().length > 0, "a ```tsx block follows the marker");
  const app = await readFile(new URL("./react/main.tsx", import.meta.url), "utf8");
  assert.ok(app.includes(block[1]), "the README's example appears verbatim in react/main.tsx");
});
