// The three browser engines the package's tests run in, each as Debian
// packages it, headless, behind the part of Playwright's page interface the
// tests use:
//
// - Chromium (`chromium`): Playwright, over the DevTools protocol;
// - Firefox ESR (`firefox-esr`): puppeteer-core, over WebDriver BiDi;
// - WebKitGTK's MiniBrowser (`webkit2gtk-driver`): WebDriver classic through
//   `WebKitWebDriver`, under `xvfb-run`; started with `--automation`, or the
//   session never starts.
//
// What a page reports reaches `page.on` in all three: uncaught errors and
// console lines; network events (`response`, `requestfailed`) in Chromium
// and Firefox only, WebDriver classic having none.
//
// `BATON_BROWSER` picks one (`chromium` by default). A test that needs what
// only one engine's tooling has (the accessibility tree over CDP) says so in
// its name and asks `ENGINE` before it runs.

import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { chromium } from "playwright-core";

import { CHROMIUM, FLAGS } from "./chromium.mjs";

/** The engine this run tests: `chromium`, `firefox` or `webkit`. */
export const ENGINE = process.env.BATON_BROWSER ?? "chromium";

const FIREFOX = process.env.FIREFOX ?? "/usr/bin/firefox-esr";
const MINIBROWSER = process.env.MINIBROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/**
 * Starts `engine` (Chromium with `flags` added to its own); resolves with
 * `{ newPage(), close() }`.
 */
export async function launch(engine = ENGINE, flags = []) {
  switch (engine) {
    case "chromium":
      return chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS, ...flags] });
    case "firefox":
      return firefox();
    case "webkit":
      return webkit();
    default:
      throw new Error(`BATON_BROWSER=${engine}: expected chromium, firefox or webkit`);
  }
}

// ----- what `evaluate` returns ------------------------------------------------

// The page's answer crosses as JSON text, `undefined` marked: protocols
// other than Playwright's own hand back shared references once (BiDi) or
// `undefined` as `null` (WebDriver classic), and tests compare answers
// exactly.
const UNDEFINED = "\u0000undefined";
const ENCODE = `(value) => JSON.stringify(value === undefined ? ${JSON.stringify(UNDEFINED)} : value, (key, inner) => (inner === undefined ? ${JSON.stringify(UNDEFINED)} : inner))`;

function decode(text) {
  const revive = (value) => {
    if (value === UNDEFINED) return undefined;
    if (Array.isArray(value)) return value.map(revive);
    if (value && typeof value === "object") {
      for (const key of Object.keys(value)) value[key] = revive(value[key]);
    }
    return value;
  };
  return text === undefined || text === null ? undefined : revive(JSON.parse(text));
}

/**
 * `fn(arg)` in the page, answered as JSON text. A string is a script, as
 * Playwright takes one: evaluated as it stands, its last value the answer.
 */
const encoded = (fn) =>
  `async (arg) => (${ENCODE})(await (${typeof fn === "function" ? fn.toString() : `() => (0, eval)(${JSON.stringify(fn)})`})(arg))`;

// ----- locators -----------------------------------------------------------------

// Playwright's locators as far as the tests use them, for the engines driven
// through another protocol: CSS whose descendant steps pierce open shadow
// roots (as Playwright's do), narrowed by text or position, acted on in the
// page. A click is the element's own `click()`, after waiting for it to be
// there and enabled; a fill sets the value and fires `input` and `change`.
const RESOLVE = `(chain) => {
  const split = (selector) => selector.match(/(?:[^\\s\\["']+|\\[[^\\]]*\\]|"[^"]*"|'[^']*')+/g) ?? [];
  const under = (root, css) => {
    const found = [];
    const walk = (node) => {
      for (const element of node.querySelectorAll("*")) {
        if (element.matches(css)) found.push(element);
        if (element.shadowRoot) walk(element.shadowRoot);
      }
    };
    if (root.shadowRoot) walk(root.shadowRoot);
    walk(root);
    return found;
  };
  const children = (root, css) =>
    [...root.children, ...(root.shadowRoot ? root.shadowRoot.children : [])].filter((element) => element.matches(css));
  const xpath = (root, path) => {
    const result = document.evaluate(path, root, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    return Array.from({ length: result.snapshotLength }, (_, i) => result.snapshotItem(i));
  };
  let found = [document];
  for (const step of chain) {
    if (step.css !== undefined && step.css.startsWith("xpath=")) {
      found = [...new Set(found.flatMap((root) => xpath(root, step.css.slice(6))))];
    } else if (step.css !== undefined) {
      let child = false;
      for (const css of split(step.css)) {
        if (css === ">") {
          child = true;
          continue;
        }
        const pick = child ? (root, css) => children(root === document ? document.documentElement : root, css) : under;
        found = [...new Set(found.flatMap((root) => pick(root, css)))];
        child = false;
      }
    } else if (step.hasText !== undefined) {
      found = found.filter((element) => (element.textContent ?? "").includes(step.hasText));
    } else if (step.nth !== undefined) {
      const at = step.nth < 0 ? found.length + step.nth : step.nth;
      found = found[at] ? [found[at]] : [];
    }
  }
  return found;
}`;

export class Locator {
  constructor(page, chain) {
    this.page = page;
    this.chain = chain;
  }

  locator(css) {
    return new Locator(this.page, [...this.chain, { css }]);
  }

  filter({ hasText }) {
    return new Locator(this.page, [...this.chain, { hasText }]);
  }

  first() {
    return new Locator(this.page, [...this.chain, { nth: 0 }]);
  }

  last() {
    return new Locator(this.page, [...this.chain, { nth: -1 }]);
  }

  nth(index) {
    return new Locator(this.page, [...this.chain, { nth: index }]);
  }

  /** `act(elements, arg)` in the page, on what the chain finds now. */
  on(act, arg) {
    // A function made from its source, so each driver sends it as it sends any.
    const fn = new Function(`return ({ chain, arg }) => (${act})((${RESOLVE})(chain), arg)`)();
    return this.page.evaluate(fn, { chain: this.chain, arg });
  }

  /** Waits (5 s) until the chain finds an element `ready` accepts. */
  async settled(ready = "() => true") {
    const deadline = Date.now() + 5_000;
    for (;;) {
      if (await this.on(`(found) => found.length > 0 && (${ready})(found[0])`)) return;
      if (Date.now() > deadline) throw new Error(`locator ${JSON.stringify(this.chain)}: nothing ready after 5 s`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async click() {
    await this.settled("(element) => !element.disabled");
    // Where the driver has a mouse, a real click at the element's centre
    // (focus moves as a person's click moves it); else the element's own.
    if (this.page.mouseClick) {
      const at = await this.on(`(found) => {
        found[0].scrollIntoView({ block: "center", inline: "center" });
        const box = found[0].getBoundingClientRect();
        return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
      }`);
      await this.page.mouseClick(at.x, at.y);
    } else {
      await this.on("(found) => found[0].click()");
    }
  }

  async fill(value) {
    await this.settled();
    await this.on(
      `(found, value) => {
        const element = found[0];
        element.focus();
        element.value = value;
        element.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
        element.dispatchEvent(new Event("change", { bubbles: true, composed: true }));
      }`,
      value,
    );
  }

  async textContent() {
    await this.settled();
    return this.on("(found) => found[0].textContent");
  }

  async inputValue() {
    await this.settled();
    return this.on("(found) => found[0].value");
  }

  async getAttribute(name) {
    await this.settled();
    return this.on("(found, name) => found[0].getAttribute(name)", name);
  }

  allTextContents() {
    return this.on("(found) => found.map((element) => element.textContent)");
  }

  count() {
    return this.on("(found) => found.length");
  }

  async isDisabled() {
    await this.settled();
    return this.on("(found) => found[0].disabled === true");
  }

  isVisible() {
    return this.on("(found) => found.length > 0 && found[0].checkVisibility()");
  }

  async isHidden() {
    return !(await this.isVisible());
  }

  async isEditable() {
    await this.settled();
    return this.on(`(found) => {
      const element = found[0];
      return ["INPUT", "TEXTAREA", "SELECT"].includes(element.tagName) ? !element.disabled && !element.readOnly : element.isContentEditable;
    }`);
  }

  /** `fn(element, arg)` on the first element found. */
  async evaluate(fn, arg) {
    await this.settled();
    return this.on(`(found, arg) => (${fn.toString()})(found[0], arg)`, arg);
  }
}

/** Playwright's page-level actions by selector, through the locators. */
const BY_SELECTOR = {
  locator: (page) => (css) => new Locator(page, [{ css }]),
  click: (page) => (css) => new Locator(page, [{ css }]).click(),
  fill: (page) => (css, value) => new Locator(page, [{ css }]).fill(value),
  waitForSelector: (page) => async (css, { state = "visible", timeout = 30_000 } = {}) => {
    const locator = new Locator(page, [{ css }]);
    const deadline = Date.now() + timeout;
    for (;;) {
      const count = await locator.count();
      if (state === "detached" ? count === 0 : count > 0) return;
      if (Date.now() > deadline) throw new Error(`waitForSelector ${css} (${state}) timed out`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  },
  waitForTimeout: () => (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  focus: (page) => (css) => new Locator(page, [{ css }]).on("(found) => found[0].focus()"),
  check: (page) => (css) => checked(page, css, true),
  uncheck: (page) => (css) => checked(page, css, false),
  selectOption: (page) => (css, { label }) =>
    new Locator(page, [{ css }]).on(
      `(found, label) => {
        const select = found[0];
        const option = [...select.options].find((option) => option.label === label);
        select.value = option.value;
        select.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
        select.dispatchEvent(new Event("change", { bubbles: true, composed: true }));
      }`,
      label,
    ),
};

/** Playwright's `check` / `uncheck`: a click, when the box is not as asked. */
async function checked(page, css, want) {
  const box = new Locator(page, [{ css }]);
  await box.settled();
  if ((await box.on("(found) => found[0].checked")) !== want) await box.click();
}

// ----- Firefox: puppeteer-core over WebDriver BiDi ----------------------------

/** Playwright's key names with modifiers (`Control+z`) on puppeteer's keyboard. */
const keyboard = (keys) => ({
  async press(combo) {
    const parts = combo.split("+");
    const key = parts.pop();
    for (const modifier of parts) await keys.down(modifier);
    await keys.press(key);
    for (const modifier of parts.reverse()) await keys.up(modifier);
  },
  type: (text) => keys.type(text),
});

async function firefox() {
  const { default: puppeteer } = await import("puppeteer-core");
  const browser = await puppeteer.launch({ browser: "firefox", executablePath: FIREFOX, headless: true });
  /** A context of its own (its own storage), as Playwright's `newContext` gives. */
  const newContext = async () => {
    const context = await browser.createBrowserContext();
    const wrapper = { newPage: async () => wrap(await sized(context), wrapper, false), close: () => context.close(), raw: context };
    return wrapper;
  };
  /** A page of Playwright's default size, so what is on screen is the same. */
  const sized = async (context) => {
    const page = await context.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    return page;
  };
  const wrap = (page, context, own) => {
      const facade = new Proxy(page, {
        get(target, name) {
          if (name in BY_SELECTOR) return BY_SELECTOR[name](facade);
          if (name === "context") return () => context;
          if (name === "keyboard") return keyboard(target.keyboard);
          if (name === "mouseClick") return (x, y) => target.mouse.click(x, y);
          if (name === "close") return () => (own ? context.close() : target.close());
          if (name === "addInitScript") return (script) => target.evaluateOnNewDocument(script);
          // Playwright's order: the function, its argument, then options.
          if (name === "waitForFunction") return (fn, arg, options = {}) => target.waitForFunction(fn, options, arg);
          if (name === "evaluate") {
            return async (fn, arg) => decode(await target.evaluate(`(${encoded(fn)})(${arg === undefined ? "undefined" : JSON.stringify(arg)})`));
          }
          const value = Reflect.get(target, name);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      return facade;
  };
  return {
    /** A page in a context of its own, as Playwright's `browser.newPage()` gives. */
    async newPage() {
      const context = await newContext();
      return wrap(await sized(context.raw), context, true);
    },
    newContext,
    close: () => browser.close(),
  };
}

// ----- WebKit: WebDriver classic ----------------------------------------------

/** A port no one listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function webkit() {
  const port = await freePort();
  const driver = spawn("xvfb-run", ["-a", "WebKitWebDriver", `--port=${port}`], { stdio: "ignore", detached: true });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (!(await fetch(`${base}/status`).then((r) => r.ok, () => false))) {
    if (Date.now() > deadline || driver.exitCode !== null) throw new Error("WebKitWebDriver did not start");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const contexts = new Set();
  /** A context: one WebDriver session (its own MiniBrowser and storage); its pages are its windows. */
  const newContext = async () => {
    // The driver holds one session at a time: one a failed test left open
    // is closed before the next begins.
    for (const stale of contexts) await stale.close();
    contexts.clear();
    const session = await WebKitSession.open(base);
    contexts.add(session);
    return {
      newPage: () => session.newPage(),
      close: () => session.close(),
    };
  };
  return {
    async newPage() {
      const context = await newContext();
      const page = await context.newPage();
      page.closes = context;
      return page;
    },
    newContext,
    async close() {
      for (const session of contexts) await session.close();
      // xvfb-run's group: the display and the driver with it.
      try {
        process.kill(-driver.pid, "SIGTERM");
      } catch {
        // Gone already.
      }
    },
  };
}

/** WebDriver classic's key codes for the keys the tests press. */
const KEYS = { Escape: "\uE00C", Tab: "\uE004", Enter: "\uE007", Control: "\uE009", Shift: "\uE008", Alt: "\uE00A", Meta: "\uE03D", Backspace: "\uE003", ArrowDown: "\uE015", ArrowUp: "\uE013" };

/** How long one WebDriver command may take: a script, as long as the session lets scripts run. */
const commandMs = (path) => (path.startsWith("/execute") ? 125_000 : 25_000);

/** How long a new session may take to come up: MiniBrowser started, its page blank (well under a second, as a rule). */
const SESSION_MS = 15_000;

/** One WebDriver session: its windows are the context's pages. */
class WebKitSession {
  static async open(base) {
    const capabilities = {
      alwaysMatch: {
        browserName: "MiniBrowser",
        "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] },
      },
    };
    const value = await WebKitSession.create(base, capabilities);
    const session = new WebKitSession(`${base}/session/${value.sessionId}`);
    await session.raw("POST", "/timeouts", { script: 120_000, pageLoad: 60_000 });
    // Playwright's default viewport, so what is on screen is the same.
    await session.raw("POST", "/window/rect", { width: 1280, height: 720 }).catch(() => {});
    session.current = await session.raw("GET", "/window");
    session.first = session.current;
    return session;
  }

  /**
   * A new session. Now and then MiniBrowser starts and the driver never
   * hears from it (3 in some 650 sessions here): the request
   * is given up after a while and made again, as a person reopens a
   * browser that did not come up; the driver takes the new one.
   */
  static async create(base, capabilities) {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const response = await fetch(`${base}/session`, {
          method: "POST",
          body: JSON.stringify({ capabilities }),
          signal: AbortSignal.timeout(SESSION_MS),
        });
        const { value } = await response.json();
        if (!response.ok) throw new Error(`WebKitWebDriver: ${JSON.stringify(value)}`);
        return value;
      } catch (error) {
        if (error.name !== "TimeoutError") throw error;
        if (attempt === 3) throw new Error(`WebKitWebDriver: no new session in ${attempt} tries of ${SESSION_MS / 1000} s`);
        console.error(`WebKitWebDriver: no new session in ${SESSION_MS / 1000} s; asking again`);
      }
    }
  }

  constructor(url) {
    this.url = url;
    this.closed = false;
    this.pages = 0;
  }

  /** One command at a time: WebKitWebDriver answers a session's commands in turn, and hangs on overlapping ones. */
  raw(method, path, body) {
    return this.serial(() => this.send(method, path, body));
  }

  /**
   * `body`'s commands, with no other command between them: a switch of
   * window and what is meant for that window go together, or another
   * page's switch could come between.
   */
  serial(body) {
    const next = (this.queue ?? Promise.resolve()).then(body);
    this.queue = next.catch(() => {});
    return next;
  }

  async send(method, path, body) {
    // A command the driver never answers fails, naming itself, rather than
    // leaving the test to time out without a word.
    const response = await fetch(this.url + path, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(commandMs(path)),
    }).catch((error) => {
      throw new Error(`WebKitWebDriver: ${method} ${path} ${error.name === "TimeoutError" ? `did not answer in ${commandMs(path) / 1000} s` : `failed: ${error.message}`}`);
    });
    const { value } = await response.json();
    if (!response.ok) throw new Error(`WebKitWebDriver: ${method} ${path}: ${value?.error ?? ""} ${value?.message || JSON.stringify(value)}`);
    return value;
  }

  async newPage() {
    this.pages += 1;
    const handle = this.pages === 1 ? this.first : await this.newWindow();
    this.open.add(handle);
    return new WebKitPage(this, handle);
  }

  /** The windows of the session still open: pages' and blank ones. */
  get open() {
    this.windows ??= new Set();
    return this.windows;
  }

  /** A new window, opened from a current one (the driver needs one). */
  newWindow() {
    return this.serial(async () => {
      if (!this.open.has(this.current)) {
        const [any] = this.open;
        if (any !== undefined) await this.send("POST", "/window", { handle: any });
        this.current = any;
      }
      return (await this.send("POST", "/window/new", { type: "window" })).handle;
    });
  }

  /**
   * Closes the window `handle`, as a person closes a tab. The session ends
   * with its last window, so closing that one opens a blank window first:
   * the context goes on, as a browser whose last tab was closed would not.
   */
  async closeWindow(handle) {
    if (this.open.size === 1) this.open.add(await this.newWindow());
    this.open.delete(handle);
    await this.serial(async () => {
      await this.send("POST", "/window", { handle });
      // Kept true if the delete fails: the window is still there, current.
      this.current = handle;
      await this.send("DELETE", "/window");
      // No current window now: the next command switches to its own.
      this.current = undefined;
    }).catch((error) => {
      this.open.add(handle);
      throw error;
    });
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.raw("DELETE", "").catch(() => {});
  }
}

/** In the page: what it reported since the last look (errors, console lines). */
const WATCH = `
if (!window.__batonWatch) {
  const seen = (window.__batonWatch = []);
  addEventListener("error", (event) => seen.push({ kind: "pageerror", text: event.message }));
  addEventListener("unhandledrejection", (event) => seen.push({ kind: "pageerror", text: String(event.reason?.message ?? event.reason) }));
  for (const type of ["log", "warn", "error", "info"]) {
    const original = console[type].bind(console);
    console[type] = (...args) => {
      seen.push({ kind: "console", type: type === "warn" ? "warning" : type, text: args.map(String).join(" ") });
      original(...args);
    };
  }
}
return window.__batonWatch.splice(0);
`;

class WebKitPage {
  constructor(session, handle) {
    this.session = session;
    this.handle = handle;
    this.listeners = { pageerror: [], console: [] };
    this.closed = false;
    this.initScripts = [];
  }

  /** A command to this page's window (switched to first: a session has one current window). */
  async command(method, path, body) {
    this.busy = (this.busy ?? 0) + 1;
    try {
      return await this.session.serial(async () => {
        if (this.session.current !== this.handle) {
          await this.session.send("POST", "/window", { handle: this.handle });
          this.session.current = this.handle;
        }
        return this.session.send(method, path, body);
      });
    } finally {
      this.busy -= 1;
    }
  }

  /** Real pointer and keys, through WebDriver's actions. */
  async mouseClick(x, y) {
    const pointer = { type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: [
      { type: "pointerMove", x: Math.round(x), y: Math.round(y), origin: "viewport" },
      { type: "pointerDown", button: 0 },
      { type: "pointerUp", button: 0 },
    ] };
    await this.command("POST", "/actions", { actions: [pointer] });
  }

  get keyboard() {
    const send = (actions) => this.command("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
    const code = (key) => KEYS[key] ?? key;
    return {
      press: (combo) => {
        const parts = combo.split("+").map(code);
        const key = parts.pop();
        return send([
          ...parts.map((value) => ({ type: "keyDown", value })),
          { type: "keyDown", value: key },
          { type: "keyUp", value: key },
          ...parts.reverse().map((value) => ({ type: "keyUp", value })),
        ]);
      },
      type: (text) => send([...text].flatMap((value) => [{ type: "keyDown", value }, { type: "keyUp", value }])),
    };
  }

  async screenshot({ path }) {
    const png = await this.command("GET", "/screenshot");
    const { writeFile } = await import("node:fs/promises");
    await writeFile(path, Buffer.from(png, "base64"));
  }

  on(event, listener) {
    // WebDriver classic has no events: what the page reports is collected
    // in the page and handed out each time the test talks to it, and every
    // 100 ms while it does not.
    this.listeners[event]?.push(listener);
    this.poll ??= setInterval(() => {
      if (!this.busy && !this.session.closed) this.drain();
    }, 100);
    // Never what keeps the test process alive once its context is closed.
    this.poll.unref();
  }

  async drain() {
    if (this.closed) return;
    const seen = await this.command("POST", "/execute/sync", { script: WATCH, args: [] }).catch(() => []);
    for (const { kind, type, text } of seen ?? []) {
      if (kind === "pageerror") for (const listener of this.listeners.pageerror) listener(new Error(text));
      else for (const listener of this.listeners.console) listener({ type: () => type, text: () => text });
    }
  }

  async goto(url) {
    await this.command("POST", "/url", { url });
    await this.arrived();
  }

  async reload() {
    await this.command("POST", "/refresh", {});
    await this.arrived();
  }

  async arrived() {
    for (const script of this.initScripts) await this.command("POST", "/execute/sync", { script, args: [] });
    await this.drain();
  }

  /** Playwright's `addInitScript`, as near as WebDriver classic allows: run as each page arrives. */
  async addInitScript(script) {
    this.initScripts.push(typeof script === "function" ? `(${script})()` : script.content ?? script);
  }

  async evaluate(fn, arg) {
    // A string is a script: put in the driver's own script as statements,
    // never through `eval` (a page under Trusted Types refuses that).
    const call = typeof fn === "function" ? `(${encoded(fn)})(arguments[0])` : `(async () => { ${fn}\n })().then(() => (${ENCODE})(undefined))`;
    const script = `
      const done = arguments[arguments.length - 1];
      Promise.resolve()
        .then(() => ${call})
        .then((value) => done({ value }), (error) => done({ error: String(error?.message ?? error) }));`;
    const result = await this.command("POST", "/execute/async", { script, args: [arg === undefined ? null : arg] });
    await this.drain();
    if (result?.error !== undefined) throw new Error(result.error);
    return decode(result?.value);
  }

  async waitForFunction(fn, arg, options = {}) {
    const deadline = Date.now() + (options.timeout ?? 30_000);
    const source = typeof fn === "function" ? fn.toString() : `() => (${fn})`;
    const check = new Function(`return (arg) => (${source})(arg)`)();
    for (;;) {
      const value = await this.evaluate(check, arg ?? null);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`waitForFunction timed out: ${source.slice(0, 80)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async addScriptTag({ type, content }) {
    await this.evaluate(
      ({ type, content }) => {
        const script = document.createElement("script");
        if (type) script.type = type;
        script.textContent = content;
        document.head.append(script);
      },
      { type, content },
    );
  }

  async close() {
    if (this.closed) return;
    clearInterval(this.poll);
    await this.drain();
    this.closed = true;
    if (this.closes) await this.closes.close();
    else await this.session.closeWindow(this.handle).catch(() => {});
  }
}

// Playwright's page-level actions by selector, as the other drivers' pages have them.
for (const [name, action] of Object.entries(BY_SELECTOR)) {
  Object.defineProperty(WebKitPage.prototype, name, {
    get() {
      return action(this);
    },
  });
}
