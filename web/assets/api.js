// The one way the pages talk to `bonsai serve`: same-origin JSON with the login cookie.
const { query: bootQuery, takeEarly } = globalThis.bonsaiBoot;

/** A query string of the non-empty parameters, with its `?` (or nothing). */
export const query = bootQuery;

/** An error answer of the API. */
export class ApiError extends Error {
  constructor(status, code, message, data) {
    super(message);
    this.status = status;
    this.code = code;
    this.data = data;
  }
}

/** Sends a request to the API; returns its JSON (null for 204). A 401 goes to the login page. */
export async function api(path, { method = "GET", body, signal } = {}) {
  // The page's first request may already be on its way (boot.js); if it failed, ask again.
  const early = method === "GET" ? await takeEarly(path)?.catch(() => null) : null;
  const res = early ?? await fetch(path, {
    method,
    signal,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    toLogin();
    throw new ApiError(401, "UNAUTHENTICATED", "Logged out");
  }
  const text = await res.text();
  const value = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const err = value?.error ?? {};
    throw new ApiError(res.status, err.code ?? "HTTP", err.message ?? res.statusText, err.data);
  }
  return value;
}

/** Goes to the login page, coming back here after. */
export function toLogin() {
  const next = location.pathname + location.search;
  location.assign(`/login${query({ next })}`);
}
