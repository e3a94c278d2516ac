// Every command, by id (oclif's "explicit" discovery: the bundle needs no directory scan at start-up).
import CompleteCommand from './commands/__complete.ts';

export const COMMANDS = {
  __complete: CompleteCommand,
};
