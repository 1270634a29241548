// A React app on baton-engine/react, as an app team writes one: the engine
// given by <BatonProvider>, the board mounted as a participant by the
// component that owns its state (useParticipant), the run, the presence
// counters and the questions read as state, and the default surfaces used
// as custom elements. The test drives it through the page; what the hooks
// gave is rendered into data- attributes, and the engine is `window.app`'s.

import init, { Engine, ScriptedTransport, type Manifest, type Run, type WireEvent } from "baton-engine";
import type { BatonPresence, BatonReview } from "baton-engine/elements";
import "baton-engine/elements";
import { BatonProvider, useEngine, useParticipant, usePresence, useQuestions, useRun } from "baton-engine/react";
import { StrictMode, useRef, useState, version } from "react";
import { createRoot } from "react-dom/client";

const manifest: Manifest = {
  id: "tasks",
  label: "Task board",
  description: "The team's task board: cards with titles.",
  tier: "reversible-acts",
  history: "native",
  reads: [{ name: "board", description: "The cards and their titles.", origin: "author" }],
  capabilities: [
    {
      name: "rename",
      description: "Give one card a new title.",
      arguments: {
        type: "object",
        required: ["id", "title"],
        additionalProperties: false,
        properties: { id: { type: "string" }, title: { type: "string", minLength: 1 } },
      },
      argumentLimits: { id: 16, title: 120 },
      effects: [{ name: "retitle", reversible: true }],
      reads: ["board"],
    },
  ],
};

interface Board {
  version: number;
  titles: Record<string, string>;
}

function TaskBoard() {
  const [board, setBoard] = useState<Board>({ version: 1, titles: { "card-1": "Draft", "card-2": "Plan" } });
  const list = useRef<HTMLUListElement>(null);
  const participant = useParticipant(
    manifest,
    {
      invoke(_capability, args) {
        const { id, title } = args as { id: string; title: string };
        if (!(id in board.titles)) throw new Error(`declined: there is no card ${id}`);
        if (board.titles[id] === title) return { renamed: id, changed: false };
        setBoard((now) => ({ version: now.version + 1, titles: { ...now.titles, [id]: title } }));
        return { renamed: id };
      },
      history: {
        mark: () => JSON.stringify(board.titles),
        revertTo(token) {
          setBoard((now) => ({ version: now.version + 1, titles: JSON.parse(String(token)) }));
        },
      },
      read: () => board,
      // Set from the second render on: the hook reads it when it is needed.
      element: list.current ?? undefined,
    },
    { board: board.version },
  );
  // The person's own edit: published without an actor, so it is theirs.
  const edit = () => setBoard((now) => ({ version: now.version + 1, titles: { ...now.titles, "card-1": "Edited" } }));
  return (
    <>
      <ul id="board" ref={list} data-mounted={participant ? participant.id : ""}>
        {Object.entries(board.titles).map(([id, title]) => (
          <li key={id} data-card={id}>
            {title}
          </li>
        ))}
      </ul>
      <button id="edit-card-1" onClick={edit}>
        Edit card 1 yourself
      </button>
    </>
  );
}

function RunStatus({ run }: { run: Run | null }) {
  const view = useRun(run);
  return (
    <p id="run" data-state={view?.state.state ?? "none"} data-outcome={view?.state.state === "returned" ? view.state.outcome : ""} data-reviewing={view?.review ? "yes" : "no"}>
      {view ? `${run?.id}: ${view.state.state}` : "No run yet"}
    </p>
  );
}

function Badge() {
  const presence = usePresence();
  const questions = useQuestions();
  return (
    <p id="badge" data-awaiting-review={presence.counters.awaitingReview} data-questions={questions.length} data-said={presence.said?.kind ?? ""}>
      {presence.counters.awaitingReview} waiting for review
    </p>
  );
}

/** The acting party's open questions, each answered in place. */
function Questions() {
  const engine = useEngine();
  const open = useQuestions().filter((question) => question.state.state === "open");
  return (
    <ul id="questions">
      {open.map((question) => (
        <li key={question.id} data-question={question.id}>
          {question.prompt}
          <button data-answer={question.id} onClick={() => engine.answer(question.id, question.digest, "done")}>
            Done
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Gives a default surface its engine where React did not (React 18). */
function attach(engine: Engine) {
  return (surface: BatonPresence | BatonReview | null) => {
    if (surface && surface.engine !== engine) surface.engine = engine;
  };
}

function App({ engine }: { engine: Engine }) {
  const [run, setRun] = useState<Run | null>(null);
  const [showBoard, setShowBoard] = useState(true);
  const rename = (id: string, title: string) =>
    setRun(
      engine.delegate({
        intent: `Rename ${id} to ${title}`,
        initiative: "user",
        autonomy: "review",
        plan: [{ capability: "tasks.rename", arguments: { id, title } }],
      }),
    );
  return (
    <BatonProvider engine={engine}>
      {/* React 19 sets `engine` as a property; React 18 only as an attribute, so the ref does. */}
      <baton-presence engine={engine} ref={attach(engine)} />
      <baton-review engine={engine} ref={attach(engine)} />
      <button id="rename" onClick={() => rename("card-1", "Ship")}>
        Rename card 1
      </button>
      <button id="rename-2" onClick={() => rename("card-2", "Later")}>
        Rename card 2
      </button>
      <button id="ask" onClick={() => setRun(engine.delegate({ intent: "Tidy the board", initiative: "user", autonomy: "review" }))}>
        Ask the assistant
      </button>
      <button id="toggle-board" onClick={() => setShowBoard((shown) => !shown)}>
        {showBoard ? "Hide the board" : "Show the board"}
      </button>
      {showBoard && <TaskBoard />}
      <RunStatus run={run} />
      <Questions />
      <Badge />
    </BatonProvider>
  );
}

await init();
// The acting party, scripted: asked to tidy the board, it asks which column.
const at = (event: WireEvent) => ({ atMs: 0, event });
const transport = new ScriptedTransport({
  protocol: "baton/1",
  turns: [
    {
      events: [
        at({ type: "turn-started" }),
        at({ type: "elicitation", request: "q1", prompt: "Which column?", schema: { enum: ["todo", "done"] } }),
        at({ type: "turn-finished", outcome: "interrupted" }),
      ],
    },
    { events: [at({ type: "turn-started" }), at({ type: "turn-finished", outcome: "completed" })] },
  ],
});
const engine = await Engine.open({ appName: "React app", transport });
Object.assign(window, { app: { engine, framework: `react ${version}` } });
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App engine={engine} />
  </StrictMode>,
);
document.documentElement.dataset.ready = "true";
