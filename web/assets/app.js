// The web view's entry: the header, and a small router over the History API. Each page
// module exports `mount(main, params) -> unmount`.
import { api, toLogin } from "./api.js";
import { h, replace, toast } from "./dom.js";
import { navigate } from "./nav.js";
import * as sessions from "./sessions.js";
import * as session from "./session.js";
import * as usage from "./usage.js";

const ROUTES = [
  { pattern: /^\/(?:sessions)?$/, page: sessions, nav: "/" },
  { pattern: /^\/session\/([0-9A-Za-z]+)$/, page: session, nav: "/" },
  { pattern: /^\/usage$/, page: usage, nav: "/usage" },
];

const main = document.getElementById("main");
let unmount = () => {};

function render() {
  unmount();
  unmount = () => {};
  const route = ROUTES.find((r) => r.pattern.test(location.pathname));
  for (const a of document.querySelectorAll("header nav a")) {
    if (route && a.getAttribute("href") === route.nav) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (!route) {
    replace(main, h("h1", {}, "Not found"), h("p", {}, h("a", { href: "/" }, "All sessions")));
    return;
  }
  const params = route.pattern.exec(location.pathname).slice(1);
  main.replaceChildren();
  const done = route.page.mount(main, params, new URLSearchParams(location.search));
  unmount = typeof done === "function" ? done : () => {};
  main.focus({ preventScroll: true });
}

// Links inside the app change the page without a reload (new tab and downloads excepted).
document.addEventListener("click", (e) => {
  const a = e.target.closest?.("a[href]");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  if (a.target || a.hasAttribute("download")) return;
  const url = new URL(a.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
  e.preventDefault();
  if (url.pathname === location.pathname && url.search === location.search && url.hash) {
    document.getElementById(url.hash.slice(1))?.scrollIntoView();
    return;
  }
  navigate(url.pathname + url.search + url.hash);
});
addEventListener("popstate", render);

document.getElementById("logout").addEventListener("click", async () => {
  try {
    await api("/api/logout", { method: "POST" });
  } catch (err) {
    toast(`Logout failed: ${err.message}`, "error");
    return;
  }
  toLogin();
});

render();
