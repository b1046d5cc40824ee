// Moving between the app's pages without a reload (app.js renders on popstate).

/** Goes to a path inside the app. */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  dispatchEvent(new PopStateEvent("popstate"));
}
