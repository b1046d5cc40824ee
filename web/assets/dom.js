// Building the page from data without HTML strings: text always becomes a text node, so
// nothing read from the database can turn into markup or script.

/**
 * Creates an element. `props`: `class`, `text`, `on<Event>` handlers, `dataset`, `style`
 * (an object of CSS properties), booleans for boolean attributes, anything else as an
 * attribute. Children: nodes, strings (as text), arrays, or null/false (skipped).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  applyProps(el, props);
  append(el, children);
  return el;
}

/** Creates an SVG element with attributes and children. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") el.textContent = String(v);
    else if (k === "class") el.setAttribute("class", v);
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function applyProps(el, props) {
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = String(v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "style") Object.assign(el.style, v);
    else if (k.startsWith("on") && typeof v === "function") {
      el.addEventListener(k.slice(2).toLowerCase(), v);
    } else if (k === "value") el.value = v;
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
}

/** Appends children (nodes, strings, arrays; null and false are skipped). */
export function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
  return el;
}

/** Replaces an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** Text with [start, end) ranges wrapped in <mark> (search snippets). */
export function highlighted(text, ranges) {
  const out = [];
  let at = 0;
  for (const [start, end] of [...(ranges ?? [])].sort((a, b) => a[0] - b[0])) {
    if (start < at || end <= start) continue;
    if (start > at) out.push(text.slice(at, start));
    out.push(h("mark", {}, text.slice(start, end)));
    at = end;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/**
 * Asks a question in a modal <dialog> (focus moves in, Escape cancels); resolves with the
 * form's values when confirmed, or null.
 */
export function ask({ title, body = [], confirm = "OK", danger = false, fields = [] }) {
  return new Promise((resolve) => {
    const inputs = fields.map((f) => {
      const id = `f-${Math.random().toString(36).slice(2)}`;
      const input = f.type === "checkbox"
        ? h("input", { id, type: "checkbox", name: f.name, checked: f.value === true })
        : h("input", {
          id,
          type: "text",
          name: f.name,
          value: f.value ?? "",
          required: f.required,
          maxlength: f.maxlength,
        });
      const label = h("label", { for: id }, f.label);
      return f.type === "checkbox"
        ? h("p", { class: "check" }, input, " ", label)
        : h("p", {}, label, input);
    });
    const form = h(
      "form",
      { method: "dialog" },
      h("h2", { id: "dialog-title" }, title),
      h("div", { class: "dialog-body" }, body),
      inputs,
      h(
        "p",
        { class: "actions" },
        h("button", { type: "submit", value: "cancel", formnovalidate: true }, "Cancel"),
        h("button", { type: "submit", value: "ok", class: danger ? "danger" : "primary" }, confirm),
      ),
    );
    const dialog = h("dialog", { "aria-labelledby": "dialog-title" }, form);
    document.body.appendChild(dialog);
    dialog.addEventListener("close", () => {
      const ok = dialog.returnValue === "ok";
      const values = Object.fromEntries(
        fields.map((f) => [
          f.name,
          f.type === "checkbox" ? form.elements[f.name].checked : form.elements[f.name].value,
        ]),
      );
      dialog.remove();
      resolve(ok ? values : null);
    });
    dialog.showModal();
    const first = form.querySelector("input[type=text]");
    if (first) first.select();
  });
}

/** Announces a message to assistive technology and shows it briefly. */
export function toast(message, kind = "info") {
  let region = document.getElementById("toasts");
  if (!region) {
    region = h("div", { id: "toasts", role: "status", "aria-live": "polite" });
    document.body.appendChild(region);
  }
  const item = h("p", { class: `toast ${kind}` }, message);
  region.appendChild(item);
  setTimeout(() => item.remove(), 6000);
}
