// A set-shaped participant: a task board of cards in columns, with its own
// history (snapshots) that Baton marks and reverts to. Framework-free.

export const COLUMNS = ["todo", "doing", "done"];

export const boardManifest = {
  id: "tasks",
  label: "Task board",
  description: "The team's task board: cards, each with a title and tags, in the columns todo, doing and done.",
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
      name: "tag",
      description: "Put one tag (a short lowercase word such as urgent) on one card.",
      arguments: {
        type: "object", required: ["id", "tag"], additionalProperties: false,
        properties: { id: { type: "string" }, tag: { type: "string", pattern: "^[a-z0-9-]{1,24}$" } },
      },
      argumentLimits: { id: 16, tag: 24 },
      effects: [{ name: "label", reversible: true }],
      reads: ["board"],
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
  reads: [{ name: "board", description: "Every card with its id, title, tags and column.", origin: "author" }],
};

export class Board {
  constructor(element) {
    this.element = element;
    this.cards = [
      { id: "c1", title: "Draft the release notes", column: "todo", tags: [] },
      { id: "c2", title: "Fix the login bug", column: "doing", tags: ["urgent"] },
      { id: "c3", title: "Book the retro room", column: "done", tags: [] },
    ];
    this.next = 4;
    this.snapshots = [];
    this.version = 1;
    this.onChange = () => {};
  }

  card(id) {
    return this.cards.find((card) => card.id === id);
  }

  /**
   * The person's own edit, outside any delegation. A plan under review that
   * was made on the board as it was is superseded by it (A.2).
   */
  edit(id, title) {
    const card = this.card(id);
    if (!card || !title.trim()) return;
    card.title = title.trim();
    this.changed();
  }

  /** The behaviour Baton calls: invoke, preview, read and the native history. */
  behaviour() {
    return {
      element: this.element,
      // `actor` goes with the change it made: the run's own, not the person's.
      invoke: (capability, args, actor) => this.apply(capability, args, actor),
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

  apply(capability, args, actor) {
    const card = args.id && this.card(args.id);
    if (args.id && !card) throw new Error(`declined: there is no card ${args.id}`);
    switch (capability) {
      case "rename": card.title = args.title; break;
      case "move": card.column = args.column; break;
      case "tag": if (!card.tags.includes(args.tag)) card.tags.push(args.tag); break;
      case "add": this.cards.push({ id: `c${this.next++}`, title: args.title, column: args.column ?? "todo", tags: [] }); break;
      case "delete": this.cards = this.cards.filter((other) => other !== card); break;
      default: throw new Error(`declined: the board cannot ${capability}`);
    }
    this.changed(actor);
    return { ok: true };
  }

  preview(capability, args) {
    const card = args.id && this.card(args.id);
    switch (capability) {
      case "rename": return { card: args.id, title: { from: card?.title ?? null, to: args.title } };
      case "move": return { card: args.id, title: card?.title ?? null, column: { from: card?.column ?? null, to: args.column } };
      case "tag": return { card: args.id, title: card?.title ?? null, tags: { from: card?.tags ?? [], to: [...new Set([...(card?.tags ?? []), args.tag])] } };
      case "add": return { add: { title: args.title, column: args.column ?? "todo" } };
      case "delete": return { remove: { card: args.id, title: card?.title ?? null } };
      default: return { capability, args };
    }
  }

  /** `actor`: the reference of the call that made the change; none for the person's own. */
  changed(actor) {
    this.version += 1;
    this.onChange(actor);
  }
}
