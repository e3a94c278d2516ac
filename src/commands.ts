// Every command class, by id: oclif's "explicit" discovery (package.json), the build's oclif manifest and the request
// benchmark read it. Importing it loads every command; the executable uses src/command-modules.ts instead.
import type { Command } from '@oclif/core';
import { COMMAND_MODULES, type CommandId } from './command-modules.ts';

export const COMMANDS = {} as Record<CommandId, Command.Class>;
for (const id of Object.keys(COMMAND_MODULES) as CommandId[]) COMMANDS[id] = (await COMMAND_MODULES[id]()).default;
