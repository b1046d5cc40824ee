// A classic script, run first and on its own (before the modules are even parsed): it starts
// the first API request of the page being opened while the rest of the app loads, so the
// two overlap. The modules use what it leaves in `globalThis.bonsaiBoot` (the URL builders
// below, and the response of that first request, handed over once when a page asks for the
// same URL); it has to be a classic script, as a module would run only after the others
// are compiled.
(() => {
  /** Rows of the sessions page, and messages of a transcript window. */
  const SESSIONS_PAGE = 50;
  const TRANSCRIPT_PAGE = 100;

  /** The browser's time zone (days and hours of the usage page). */
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

  /** A query string of the non-empty parameters, with its `?` (or nothing). */
  function query(params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
    }
    const s = q.toString();
    return s ? `?${s}` : "";
  }

  /** The sessions page's filters from its address. */
  function sessionsState(search) {
    return {
      q: search.get("q") ?? "",
      project: search.get("project") ?? "",
      status: search.get("status") ?? "",
      source: search.get("source") ?? "",
      page: Math.max(0, Number(search.get("page") ?? 0) || 0),
    };
  }

  /** One page of sessions (one more row than shown, to know whether there is a next page). */
  function sessionsUrl(state) {
    return `/api/user/sessions${
      query({
        project: state.project,
        status: state.status,
        source: state.source,
        limit: SESSIONS_PAGE + 1,
        offset: state.page * SESSIONS_PAGE,
      })
    }`;
  }

  /** The usage page's period and project from its address. */
  function usageState(search) {
    return {
      since: search.get("since") ?? "",
      until: search.get("until") ?? "",
      project: search.get("project") ?? "",
    };
  }

  /** One tab of the usage dashboard for a period and project, in the browser's zone. */
  function usageUrl(state, tab = "activity") {
    return `/api/user/usage${
      query({ tab, since: state.since, until: state.until, project: state.project, tz: timeZone })
    }`;
  }

  /** The first transcript window: the start, or around the message `target`. */
  function transcriptUrl(id, target) {
    return `/api/user/sessions/${encodeURIComponent(id)}/transcript${
      query(
        target ? { after: Math.max(0, target - 20), limit: TRANSCRIPT_PAGE } : {
          limit: TRANSCRIPT_PAGE,
        },
      )
    }`;
  }

  const early = new Map();

  /** The response of the request started at load for `url` (once), or null. */
  function takeEarly(url) {
    const response = early.get(url) ?? null;
    early.delete(url);
    return response;
  }

  function firstUrl() {
    const search = new URLSearchParams(location.search);
    const path = location.pathname;
    if (path === "/" || path === "/sessions") {
      const state = sessionsState(search);
      return state.q ? null : sessionsUrl(state);
    }
    if (path === "/usage") return usageUrl(usageState(search));
    const session = /^\/session\/([0-9A-Za-z]+)$/.exec(path);
    return session ? transcriptUrl(session[1], Number(search.get("seq")) || null) : null;
  }

  const url = firstUrl();
  if (url) {
    const response = fetch(url, { credentials: "same-origin" });
    // Not taken (the page asked for something else): its failure is nobody's business.
    response.catch(() => null);
    early.set(url, response);
  }

  globalThis.bonsaiBoot = Object.freeze({
    SESSIONS_PAGE,
    TRANSCRIPT_PAGE,
    timeZone,
    query,
    sessionsState,
    sessionsUrl,
    usageState,
    usageUrl,
    transcriptUrl,
    takeEarly,
  });
})();
