// The project an imported session belongs to, from the working directory its source
// recorded. Histories come from any platform: a Windows `cwd` (`D:\work\app`) is a project
// as much as a POSIX one, and is kept in Windows form (drive letter upper-cased, backslashes,
// no trailing separator) so that the same folder always maps to one project. POSIX paths are
// kept exactly as written.

const DRIVE = /^([A-Za-z]):(?:[\\/]|$)/;
const UNC = /^[\\/]{2}[^\\/]+[\\/]+[^\\/]+/;

/** The canonical project path for a recorded cwd, or null when it is not an absolute path. */
export function projectPathOf(cwd: string | null | undefined): string | null {
  if (typeof cwd !== "string") return null;
  let path = cwd.trim();
  if (path.startsWith("/")) return path;
  // Win32 namespace prefixes: \\?\D:\x is D:\x, \\?\UNC\server\share is \\server\share.
  const verbatim = /^\\\\[?.]\\(UNC\\)?/i.exec(path);
  if (verbatim) path = (verbatim[1] ? "\\\\" : "") + path.slice(verbatim[0].length);
  const drive = DRIVE.exec(path);
  if (drive) {
    const rest = path.slice(2).replace(/[\\/]+/g, "\\").replace(/\\+$/, "");
    return `${drive[1]!.toUpperCase()}:${rest || "\\"}`;
  }
  if (UNC.test(path)) {
    return `\\\\${path.slice(2).replace(/[\\/]+/g, "\\").replace(/\\+$/, "")}`;
  }
  return null;
}

/**
 * Best guess at a cwd from Claude Code's project folder name, which replaced every
 * separator (and `:`) with `-`: "-home-me-app" is /home/me/app, "C--Users-me-app" is
 * C:\Users\me\app. Lossy: a `-` in a folder name reads as a separator.
 */
export function decodeClaudeFolder(folder: string): string {
  const drive = /^([A-Za-z])--(.*)$/.exec(folder);
  if (drive) return `${drive[1]!.toUpperCase()}:\\${drive[2]!.replace(/-/g, "\\")}`;
  return folder.startsWith("-") ? folder.replace(/-/g, "/") : `/${folder}`;
}
