// Every file of the web view, imported (not read from disk) so `deno compile` embeds them.
import apiJs from "./assets/api.js" with { type: "text" };
import appHtml from "./assets/app.html" with { type: "text" };
import appJs from "./assets/app.js" with { type: "text" };
import bootJs from "./assets/boot.js" with { type: "text" };
import chartsJs from "./assets/charts.js" with { type: "text" };
import domJs from "./assets/dom.js" with { type: "text" };
import formatJs from "./assets/format.js" with { type: "text" };
import iconSvg from "./assets/icon.svg" with { type: "text" };
import loginHtml from "./assets/login.html" with { type: "text" };
import loginJs from "./assets/login.js" with { type: "text" };
import markdownJs from "./assets/markdown.js" with { type: "text" };
import navJs from "./assets/nav.js" with { type: "text" };
import sessionJs from "./assets/session.js" with { type: "text" };
import sessionsJs from "./assets/sessions.js" with { type: "text" };
import styleCss from "./assets/style.css" with { type: "text" };
import transcriptJs from "./assets/transcript.js" with { type: "text" };
import usageJs from "./assets/usage.js" with { type: "text" };

/** One bundled file: its content type, its text, and whether it is served without a login. */
export interface Asset {
  readonly type: string;
  readonly body: string;
  /** The login page needs it, so it is served to anyone. */
  readonly public: boolean;
}

const JS = "text/javascript; charset=utf-8";

/** The files under /assets/, by name. */
export const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ["api.js", { type: JS, body: apiJs, public: false }],
  ["app.js", { type: JS, body: appJs, public: false }],
  ["boot.js", { type: JS, body: bootJs, public: false }],
  ["charts.js", { type: JS, body: chartsJs, public: false }],
  ["dom.js", { type: JS, body: domJs, public: false }],
  ["format.js", { type: JS, body: formatJs, public: false }],
  ["markdown.js", { type: JS, body: markdownJs, public: false }],
  ["nav.js", { type: JS, body: navJs, public: false }],
  ["session.js", { type: JS, body: sessionJs, public: false }],
  ["sessions.js", { type: JS, body: sessionsJs, public: false }],
  ["transcript.js", { type: JS, body: transcriptJs, public: false }],
  ["usage.js", { type: JS, body: usageJs, public: false }],
  ["login.js", { type: JS, body: loginJs, public: true }],
  ["style.css", { type: "text/css; charset=utf-8", body: styleCss, public: true }],
  ["icon.svg", { type: "image/svg+xml", body: iconSvg, public: true }],
]);

/** The two HTML documents: the app's shell (every page) and the login page. */
export const DOCUMENTS = {
  app: { type: "text/html; charset=utf-8", body: appHtml, public: false },
  login: { type: "text/html; charset=utf-8", body: loginHtml, public: true },
} as const satisfies Record<string, Asset>;
