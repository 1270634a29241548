// A Vue 3 app on baton-engine/vue, as an app team writes one (render
// functions, so plain TypeScript checks it against Vue's own types): the
// engine provided at the root, the board mounted as a participant by the
// component that owns its state (useParticipant), the run, the presence
// counters and the questions read as reactive state, and the default
// surfaces used as custom elements. The same page contract as the React
// app (tests/vite-app/react), so the same scenarios drive both.

import init, { Engine, ScriptedTransport, type Manifest, type Run, type WireEvent } from "baton-engine";
import type { BatonPresence, BatonReview } from "baton-engine/elements";
import "baton-engine/elements";
import { provideEngine, useEngine, useParticipant, usePresence, useQuestions, useRun } from "baton-engine/vue";
import { createApp, defineComponent, h, ref, version, type PropType } from "vue";

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

const TaskBoard = defineComponent({
  setup() {
    const board = ref<Board>({ version: 1, titles: { "card-1": "Draft", "card-2": "Plan" } });
    const list = ref<HTMLUListElement | null>(null);
    const participant = useParticipant(
      manifest,
      {
        invoke(_capability, args) {
          const { id, title } = args as { id: string; title: string };
          const { titles } = board.value;
          if (!(id in titles)) throw new Error(`declined: there is no card ${id}`);
          if (titles[id] === title) return { renamed: id, changed: false };
          board.value = { version: board.value.version + 1, titles: { ...titles, [id]: title } };
          return { renamed: id };
        },
        history: {
          mark: () => JSON.stringify(board.value.titles),
          revertTo(token) {
            board.value = { version: board.value.version + 1, titles: JSON.parse(String(token)) };
          },
        },
        read: () => board.value,
        element: list,
      },
      () => ({ board: board.value.version }),
    );
    // The person's own edit: published without an actor, so it is theirs.
    const edit = () => {
      board.value = { version: board.value.version + 1, titles: { ...board.value.titles, "card-1": "Edited" } };
    };
    return () => [
      h(
        "ul",
        { id: "board", ref: list, "data-mounted": participant.value ? participant.value.id : "" },
        Object.entries(board.value.titles).map(([id, title]) => h("li", { key: id, "data-card": id }, title)),
      ),
      h("button", { id: "edit-card-1", onClick: edit }, "Edit card 1 yourself"),
    ];
  },
});

const RunStatus = defineComponent({
  props: { run: { type: Object as PropType<Run | null>, default: null } },
  setup(props) {
    const view = useRun(() => props.run);
    return () => {
      const now = view.value;
      return h(
        "p",
        {
          id: "run",
          "data-state": now?.state.state ?? "none",
          "data-outcome": now?.state.state === "returned" ? now.state.outcome : "",
          "data-reviewing": now?.review ? "yes" : "no",
        },
        now ? `${props.run?.id}: ${now.state.state}` : "No run yet",
      );
    };
  },
});

const Badge = defineComponent({
  setup() {
    const presence = usePresence();
    const questions = useQuestions();
    return () =>
      h(
        "p",
        {
          id: "badge",
          "data-awaiting-review": presence.value.counters.awaitingReview,
          "data-questions": questions.value.length,
          "data-said": presence.value.said?.kind ?? "",
        },
        `${presence.value.counters.awaitingReview} waiting for review`,
      );
  },
});

/** The acting party's open questions, each answered in place. */
const Questions = defineComponent({
  setup() {
    const engine = useEngine();
    const questions = useQuestions();
    return () =>
      h(
        "ul",
        { id: "questions" },
        questions.value
          .filter((question) => question.state.state === "open")
          .map((question) =>
            h("li", { key: question.id, "data-question": question.id }, [
              question.prompt,
              h("button", { "data-answer": question.id, onClick: () => engine.answer(question.id, question.digest, "done") }, "Done"),
            ]),
          ),
      );
  },
});

const App = defineComponent({
  props: { engine: { type: Object as PropType<Engine>, required: true } },
  setup(props) {
    provideEngine(props.engine);
    const run = ref<Run | null>(null);
    const showBoard = ref(true);
    const rename = (id: string, title: string) => {
      run.value = props.engine.delegate({
        intent: `Rename ${id} to ${title}`,
        initiative: "user",
        autonomy: "review",
        plan: [{ capability: "tasks.rename", arguments: { id, title } }],
      });
    };
    // Custom elements: Vue sets `engine` as a property.
    const surface = (tag: "baton-presence" | "baton-review") => h(tag, { engine: props.engine } as Partial<BatonPresence & BatonReview>);
    return () => [
      surface("baton-presence"),
      surface("baton-review"),
      h("button", { id: "rename", onClick: () => rename("card-1", "Ship") }, "Rename card 1"),
      h("button", { id: "rename-2", onClick: () => rename("card-2", "Later") }, "Rename card 2"),
      h(
        "button",
        { id: "ask", onClick: () => (run.value = props.engine.delegate({ intent: "Tidy the board", initiative: "user", autonomy: "review" })) },
        "Ask the assistant",
      ),
      h("button", { id: "toggle-board", onClick: () => (showBoard.value = !showBoard.value) }, showBoard.value ? "Hide the board" : "Show the board"),
      showBoard.value ? h(TaskBoard) : null,
      h(RunStatus, { run: run.value }),
      h(Questions),
      h(Badge),
    ];
  },
});

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
const engine = await Engine.open({ appName: "Vue app", transport });
Object.assign(window, { app: { engine, framework: `vue ${version}` } });
createApp(App, { engine }).mount("#root");
document.documentElement.dataset.ready = "true";
