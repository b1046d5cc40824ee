import { closest } from "../../core/suggest.ts";
import type { SlashCommand } from "./command.ts";
import {
  ctxCommand,
  helpCommand,
  perfCommand,
  quitCommand,
  settingsCommand,
  usageCommand,
} from "./info_commands.ts";
import { exportCommand } from "./export_command.ts";
import { claimsCommand, peersCommand } from "./peer_commands.ts";
import { permissionsCommand } from "./permissions_command.ts";
import { rewindCommand } from "./rewind_command.ts";
import {
  clearCommand,
  forgetCommand,
  newCommand,
  pinCommand,
  resumeCommand,
  searchCommand,
  sessionsCommand,
  titleCommand,
  unpinCommand,
} from "./session_commands.ts";

/** Every slash command, in /help order. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  helpCommand,
  sessionsCommand,
  resumeCommand,
  newCommand,
  clearCommand,
  titleCommand,
  rewindCommand,
  pinCommand,
  unpinCommand,
  searchCommand,
  forgetCommand,
  exportCommand,
  perfCommand,
  usageCommand,
  ctxCommand,
  settingsCommand,
  permissionsCommand,
  peersCommand,
  claimsCommand,
  quitCommand,
];

/** The command a typed name refers to (name or alias), or null. */
export function findCommand(
  name: string,
  commands: readonly SlashCommand[] = SLASH_COMMANDS,
): SlashCommand | null {
  return commands.find((c) => c.name === name || c.aliases?.includes(name)) ?? null;
}

/** The likely intended command for an unknown name, or null. */
export function suggestCommand(
  name: string,
  commands: readonly SlashCommand[] = SLASH_COMMANDS,
): string | null {
  return closest(name, commands.flatMap((c) => [c.name, ...(c.aliases ?? [])]));
}
