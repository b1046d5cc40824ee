import type { ToolSpec } from "../../providers/types.ts";
import { editTool } from "./edit.ts";
import { execTool } from "./exec.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { peersTool } from "./peers_tool.ts";
import { inputJsonSchema } from "../../json_schema.ts";
import { readTool } from "./read.ts";
import { recallTool, setSessionTitleTool, todoWriteTool } from "./session_tools.ts";
import { taskTool } from "./task.ts";
import type { Tool } from "./tool.ts";
import { writeTool } from "./write.ts";

/** Every built-in tool, in the order the model sees them. */
export const BUILTIN_TOOLS: readonly Tool[] = [
  readTool,
  writeTool,
  editTool,
  execTool,
  globTool,
  grepTool,
  setSessionTitleTool,
  todoWriteTool,
  recallTool,
  peersTool,
  taskTool,
] as unknown as readonly Tool[];

/** The tools of a run, by name, with the JSON Schemas sent to the model. */
export class ToolRegistry {
  readonly #tools: Map<string, Tool>;
  readonly specs: readonly ToolSpec[];

  constructor(tools: readonly Tool[] = BUILTIN_TOOLS) {
    this.#tools = new Map(tools.map((t) => [t.name, t]));
    this.specs = tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: inputJsonSchema(t.schema),
    }));
  }

  /** The tool with this name, or undefined. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** Tool names. */
  get names(): string[] {
    return [...this.#tools.keys()];
  }

  /** A registry of only these tools (names this one does not have are left out). */
  only(names: Iterable<string>): ToolRegistry {
    const wanted = new Set(names);
    return new ToolRegistry([...this.#tools.values()].filter((t) => wanted.has(t.name)));
  }
}
