// What scripts/build.js embeds in the bundle at build time (see its `embedOclif`).
declare module 'kubectl-haptic:oclif' {
  import type { Interfaces } from '@oclif/core';
  /** package.json's name, version and oclif settings */
  export const pjson: Interfaces.PJSON;
  /** oclif's manifest of src/commands.ts */
  export const manifest: Interfaces.Manifest;
}
