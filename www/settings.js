// A schema-shaped participant: the workspace's settings form, with its own
// history of values.

export const THEMES = ["light", "dark"];

export const settingsManifest = {
  id: "settings",
  label: "Workspace settings",
  description: "The workspace's settings: its name and its colour theme.",
  tier: "reversible-acts",
  history: "native",
  preview: true,
  capabilities: [
    {
      name: "set_name",
      description: "Give the workspace a new name.",
      arguments: {
        type: "object", required: ["name"], additionalProperties: false,
        properties: { name: { type: "string", minLength: 1, maxLength: 60 } },
      },
      argumentLimits: { name: 80 },
      effects: [{ name: "rename-workspace", reversible: true }],
    },
    {
      name: "set_theme",
      description: "Switch the colour theme of the workspace.",
      arguments: {
        type: "object", required: ["theme"], additionalProperties: false,
        properties: { theme: { enum: THEMES } },
      },
      argumentLimits: { theme: 8 },
      effects: [{ name: "retheme", reversible: true }],
    },
  ],
  reads: [{ name: "form", description: "Every setting with its current value.", origin: "author" }],
};

export class Settings {
  constructor(element) {
    this.element = element;
    this.values = { name: "Team workspace", theme: "light" };
    this.history = [];
    this.version = 1;
    this.onChange = () => {};
  }

  behaviour() {
    return {
      element: this.element,
      // `actor` goes with the change it made: the run's own, not the person's.
      invoke: (capability, args, actor) => {
        if (capability === "set_name") this.values.name = args.name;
        else if (capability === "set_theme") this.values.theme = args.theme;
        else throw new Error(`declined: the settings cannot ${capability}`);
        this.changed(actor);
        return { ok: true };
      },
      preview: (capability, args) => {
        const field = capability === "set_name" ? "name" : "theme";
        return { [field]: { from: this.values[field], to: args[field] } };
      },
      read: () => ({ ...this.values }),
      history: {
        mark: () => {
          this.history.push({ ...this.values });
          return `v${this.history.length - 1}`;
        },
        revertTo: (token) => {
          const saved = this.history[Number(token.slice(1))];
          if (!saved) throw new Error(`no saved values ${token}`);
          this.values = { ...saved };
          this.changed();
        },
      },
    };
  }

  /** `actor`: the reference of the call that made the change; none for the person's own. */
  changed(actor) {
    this.version += 1;
    this.onChange(actor);
  }
}
