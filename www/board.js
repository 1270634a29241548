// A set-shaped participant: a task board of cards in columns, with its own
// history (snapshots) that Baton marks and reverts to. Framework-free.

export const COLUMNS = ["todo", "doing", "done"];

export const boardManifest = {
  id: "tasks",
  label: "Task board",
  description: "The team's task board: cards, each with a title, in the columns todo, doing and done.",
  tier: "reversible-acts",
  history: "native",
  preview: true,
  capabilities: [
    {
      name: "rename",
      description: "Give one card a new title.",
      arguments: {
        type: "object", required: ["id", "title"], additionalProperties: false,
        properties: { id: { type: "string" }, title: { type: "string", minLength: 1 } },
      },
      argumentLimits: { id: 16, title: 120 },
      effects: [{ name: "retitle", reversible: true }],
      reads: ["board"],
    },
    {
      name: "move",
      description: "Move one card to another column.",
      arguments: {
        type: "object", required: ["id", "column"], additionalProperties: false,
        properties: { id: { type: "string" }, column: { enum: COLUMNS } },
      },
      argumentLimits: { id: 16, column: 8 },
      effects: [{ name: "reorder", reversible: true }],
      reads: ["board"],
    },
    {
      name: "add",
      description: "Add one card, with a title, to a column.",
      arguments: {
        type: "object", required: ["title"], additionalProperties: false,
        properties: { title: { type: "string", minLength: 1 }, column: { enum: COLUMNS } },
      },
      argumentLimits: { title: 120, column: 8 },
      effects: [{ name: "insert", reversible: true }],
    },
    {
      name: "delete",
      description: "Remove one card from the board.",
      arguments: {
        type: "object", required: ["id"], additionalProperties: false,
        properties: { id: { type: "string" } },
      },
      argumentLimits: { id: 16 },
      effects: [{ name: "remove", reversible: true }],
      reads: ["board"],
    },
  ],
  reads: [{ name: "board", description: "Every card with its id, title and column.", origin: "author" }],
};

export class Board {
  constructor(element) {
    this.element = element;
    this.cards = [
      { id: "c1", title: "Draft the release notes", column: "todo" },
      { id: "c2", title: "Fix the login bug", column: "doing" },
      { id: "c3", title: "Book the retro room", column: "done" },
    ];
    this.next = 4;
    this.snapshots = [];
    this.version = 1;
    this.onChange = () => {};
  }

  card(id) {
    return this.cards.find((card) => card.id === id);
  }

  /** The behaviour Baton calls: invoke, preview, read and the native history. */
  behaviour() {
    return {
      element: this.element,
      invoke: (capability, args) => this.apply(capability, args),
      preview: (capability, args) => this.preview(capability, args),
      read: () => ({ cards: this.cards }),
      history: {
        mark: () => {
          this.snapshots.push(structuredClone({ cards: this.cards, next: this.next }));
          return this.snapshots.length - 1;
        },
        revertTo: (token) => {
          const saved = this.snapshots[token];
          if (!saved) throw new Error(`no snapshot ${token}`);
          this.cards = structuredClone(saved.cards);
          this.next = saved.next;
          this.changed();
        },
      },
    };
  }

  apply(capability, args) {
    const card = args.id && this.card(args.id);
    if (args.id && !card) throw new Error(`declined: there is no card ${args.id}`);
    switch (capability) {
      case "rename": card.title = args.title; break;
      case "move": card.column = args.column; break;
      case "add": this.cards.push({ id: `c${this.next++}`, title: args.title, column: args.column ?? "todo" }); break;
      case "delete": this.cards = this.cards.filter((other) => other !== card); break;
      default: throw new Error(`declined: the board cannot ${capability}`);
    }
    this.changed();
    return { ok: true };
  }

  preview(capability, args) {
    const card = args.id && this.card(args.id);
    switch (capability) {
      case "rename": return { card: args.id, title: { from: card?.title ?? null, to: args.title } };
      case "move": return { card: args.id, title: card?.title ?? null, column: { from: card?.column ?? null, to: args.column } };
      case "add": return { add: { title: args.title, column: args.column ?? "todo" } };
      case "delete": return { remove: { card: args.id, title: card?.title ?? null } };
      default: return { capability, args };
    }
  }

  changed() {
    this.version += 1;
    this.onChange();
  }
}
