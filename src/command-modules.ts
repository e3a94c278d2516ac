// Every command, by id, as a loader of its module: the executable loads only the module of the command it runs
// (src/entry.ts); src/commands.ts is the same table with the classes loaded.
import type { Command } from '@oclif/core';

export const COMMAND_MODULES = {
  'enable-gate': () => import('./commands/enable-gate.ts'),
  'disable-gate': () => import('./commands/disable-gate.ts'),
  status: () => import('./commands/status.ts'),
  'why-stalled': () => import('./commands/why-stalled.ts'),
  doctor: () => import('./commands/doctor.ts'),
  drill: () => import('./commands/drill.ts'),
  __complete: () => import('./commands/__complete.ts'),
} satisfies Record<string, () => Promise<{ default: Command.Class }>>;

export type CommandId = keyof typeof COMMAND_MODULES;
