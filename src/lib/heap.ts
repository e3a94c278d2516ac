import { setFlagsFromString } from 'node:v8';

let asked = false;

/**
 * Asks V8 to keep the heap small: its memory saver mode, which collects garbage before the heap grows instead of
 * letting it grow up to four times what is live. A follower of a rollout (--wait, --watch) rebuilds a model of every
 * pod each second for minutes, and what it keeps is small (about 30 MiB, most of it the bundle's code), so the
 * heap's size is the garbage V8 lets pile up: following a 500-replica rollout, peak RSS fell from 255–280 MiB to
 * 127–131 MiB with this mode, for a few more seconds of CPU over minutes (bench/memory.ts). V8 reads the flag at each
 * collection, so setting it once the process runs takes effect (V8 may ignore it; nothing else changes).
 */
export function keepHeapSmall(): void {
  if (asked) return;
  asked = true;
  setFlagsFromString('--memory-saver-mode');
}
