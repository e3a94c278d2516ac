// Runs a reconcile function per key, one at a time per key, coalescing triggers that arrive while it runs.
// The function returns when it wants to run again (epoch ms) for time-driven behaviour, or undefined to be
// forgotten until the next trigger.
import { errorText, log } from './common.ts';

type Slot = { running: boolean; dirty: boolean; timer?: NodeJS.Timeout; waiters: (() => void)[] };

export class Reconciler {
  private readonly slots = new Map<string, Slot>();
  private readonly fn: (key: string) => Promise<number | undefined>;
  private readonly name: string;
  private stopped = false;

  constructor(name: string, fn: (key: string) => Promise<number | undefined>) {
    this.name = name;
    this.fn = fn;
  }

  enqueue(key: string): void {
    if (this.stopped) return;
    const slot = this.slots.get(key) ?? { running: false, dirty: false, waiters: [] };
    this.slots.set(key, slot);
    if (slot.running) {
      slot.dirty = true;
      return;
    }
    void this.run(key, slot);
  }

  /** Triggers a pass and resolves once a pass that started after this call has finished. */
  settle(key: string): Promise<void> {
    return new Promise((resolve) => {
      this.enqueue(key);
      const slot = this.slots.get(key);
      if (slot) slot.waiters.push(resolve);
      else resolve(); // stopped
    });
  }

  stop(): void {
    this.stopped = true;
    for (const slot of this.slots.values()) clearTimeout(slot.timer);
  }

  private async run(key: string, slot: Slot): Promise<void> {
    slot.running = true;
    clearTimeout(slot.timer);
    let wake: number | undefined;
    do {
      slot.dirty = false;
      try {
        wake = await this.fn(key);
      } catch (error) {
        log(this.name, `${key}: ${errorText(error)}; retrying in 1 s`);
        wake = Date.now() + 1000;
      }
    } while (slot.dirty && !this.stopped);
    slot.running = false;
    for (const resolve of slot.waiters.splice(0)) resolve();
    if (wake === undefined || this.stopped) this.slots.delete(key);
    else slot.timer = setTimeout(() => this.enqueue(key), Math.max(0, wake - Date.now()));
  }
}
