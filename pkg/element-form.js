// Forms built from a JSON Schema, for the default surfaces of
// `baton-engine/elements`: a question's answer (`<baton-question>`) and a
// planned call's arguments edited in review (`<baton-review>`).

import { make } from "./element-surface.js";

const INPUT_TYPES = { email: "email", date: "date", "date-time": "datetime-local", uri: "url", time: "time" };

/** One control of a form, for a primitive schema, holding `initial` if given. */
function control(name, schema, initial) {
  let node;
  if (Array.isArray(schema.enum)) {
    node = document.createElement("select");
    for (const choice of schema.enum) {
      const option = document.createElement("option");
      option.value = JSON.stringify(choice);
      option.textContent = String(choice);
      node.append(option);
    }
    node.dataset.kind = "enum";
  } else if (schema.type === "boolean") {
    node = document.createElement("input");
    node.type = "checkbox";
    node.dataset.kind = "boolean";
  } else if (schema.type === "number" || schema.type === "integer") {
    node = document.createElement("input");
    node.type = "number";
    if (schema.minimum !== undefined) node.min = String(schema.minimum);
    if (schema.maximum !== undefined) node.max = String(schema.maximum);
    if (schema.type === "integer") node.step = "1";
    node.dataset.kind = "number";
  } else {
    node = document.createElement("input");
    node.type = INPUT_TYPES[schema.format] ?? "text";
    node.dataset.kind = "string";
  }
  node.name = name;
  node.setAttribute("part", "field");
  if (initial !== undefined && initial !== null) {
    if (node.dataset.kind === "boolean") node.checked = initial === true;
    else if (node.dataset.kind === "enum") node.value = JSON.stringify(initial);
    else node.value = String(initial);
  }
  return node;
}

/** The value a primitive control holds, as JSON. */
function valueOf(node) {
  switch (node.dataset.kind) {
    case "enum": return JSON.parse(node.value);
    case "boolean": return node.checked;
    case "number": return node.value === "" ? null : Number(node.value);
    default: return node.value;
  }
}

/** An item of a list typed as its schema says; what does not parse stays text, for the validator to name. */
function itemOf(text, schema) {
  const type = schema?.type;
  if ((type === "number" || type === "integer") && text.trim() !== "" && !Number.isNaN(Number(text))) return Number(text);
  if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
  return text;
}

const PRIMITIVE = new Set(["string", "number", "integer", "boolean"]);
/** How deep the form follows nested objects; deeper values are typed as JSON text. */
const MAX_FORM_DEPTH = 4;

/**
 * An editor for one value of a schema (a question's answer, a planned
 * call's arguments): its element, and `value()` reading it back as JSON
 * (`undefined`: left empty), starting from `initial` if given. Objects
 * become fieldsets of their properties, arrays of primitives a set of
 * checkboxes (enums) or a list, one item per line; anything else is typed
 * as JSON text.
 */
export function editor(name, schema, initial, depth = 0) {
  const title = schema?.title ?? name;
  if (schema?.type === "object" && schema.properties && depth < MAX_FORM_DEPTH) {
    const group = make("fieldset", "group");
    group.append(make("legend", "legend", title));
    const required = new Set(schema.required ?? []);
    // The schema reaches the page with its keys sorted; required members
    // come first, in the order `required` lists them, then the rest.
    const order = [...(schema.required ?? []).filter((key) => key in schema.properties), ...Object.keys(schema.properties).filter((key) => !required.has(key))];
    const members = order.map((key) => [key, editor(key, schema.properties[key], initial?.[key], depth + 1)]);
    group.append(...members.map(([, member]) => member.element));
    const value = () => {
      const entries = members
        .map(([key, member]) => [key, member.value()])
        // An optional member left empty is left out, not sent as "".
        .filter(([key, v]) => v !== undefined && (required.has(key) || (v !== "" && v !== null && !(Array.isArray(v) && v.length === 0))));
      return Object.fromEntries(entries);
    };
    return { element: group, value };
  }
  if (schema?.type === "array" && schema.items && Array.isArray(schema.items.enum)) {
    const group = make("fieldset", "group");
    group.append(make("legend", "legend", title));
    const boxes = schema.items.enum.map((choice) => {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.setAttribute("part", "field");
      box.name = name;
      box.value = JSON.stringify(choice);
      box.checked = Array.isArray(initial) && initial.some((item) => JSON.stringify(item) === box.value);
      label.append(box, ` ${String(choice)}`);
      group.append(label);
      return box;
    });
    return { element: group, value: () => boxes.filter((box) => box.checked).map((box) => JSON.parse(box.value)) };
  }
  const label = document.createElement("label");
  if (schema?.type === "array" && PRIMITIVE.has(schema.items?.type)) {
    label.textContent = `${title} (one per line) `;
    const list = document.createElement("textarea");
    list.name = name;
    list.rows = 3;
    list.setAttribute("part", "field");
    if (Array.isArray(initial)) list.value = initial.join("\n");
    label.append(list);
    const value = () => list.value.split("\n").filter((line) => line.trim() !== "").map((line) => itemOf(line.trim(), schema.items));
    return { element: label, value };
  }
  const structured = schema && (schema.type === "object" || schema.type === "array") && !Array.isArray(schema.enum);
  if (structured) {
    // Deeper than the form goes, or a shape it does not render: typed as JSON.
    label.textContent = `${title} (JSON) `;
    const text = document.createElement("textarea");
    text.name = name;
    text.rows = 3;
    text.setAttribute("part", "field");
    if (initial !== undefined) text.value = JSON.stringify(initial);
    label.append(text);
    const value = () => {
      if (text.value.trim() === "") return undefined;
      try {
        return JSON.parse(text.value);
      } catch {
        return text.value; // the engine's validator says what is wrong
      }
    };
    return { element: label, value };
  }
  label.textContent = `${title} `;
  const node = control(name, schema ?? {}, initial);
  label.append(node);
  return { element: label, value: () => valueOf(node) };
}

