// Every command, by id (oclif's "explicit" discovery: the bundle needs no directory scan at start-up).
import CompleteCommand from './commands/__complete.ts';
import DisableGate from './commands/disable-gate.ts';
import Doctor from './commands/doctor.ts';
import Drill from './commands/drill.ts';
import EnableGate from './commands/enable-gate.ts';
import Status from './commands/status.ts';
import WhyStalled from './commands/why-stalled.ts';

export const COMMANDS = {
  'enable-gate': EnableGate,
  'disable-gate': DisableGate,
  status: Status,
  'why-stalled': WhyStalled,
  doctor: Doctor,
  drill: Drill,
  __complete: CompleteCommand,
};
