// The login page: a token or the password for a session cookie, then back where we came from.
const form = document.getElementById("login");
const status = document.getElementById("login-status");

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const kind = form.elements.kind.value === "password" ? "password" : "token";
  const secret = form.elements.secret.value;
  status.textContent = "Logging in…";
  const res = await fetch("/api/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ [kind]: secret }),
  });
  if (!res.ok) {
    const body = await res.json().catch(() => null);
    status.textContent = body?.error?.message ?? `Login failed (${res.status})`;
    form.elements.secret.select();
    return;
  }
  const next = new URLSearchParams(location.search).get("next") ?? "/";
  // Only a path of this site: never another origin, never `//host`.
  location.assign(/^\/(?!\/)/.test(next) && !next.startsWith("/\\") ? next : "/");
});
