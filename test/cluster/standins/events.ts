// core/v1 Events as client-go's legacy recorder writes them: one object per (object, reason, message), whose
// count and lastTimestamp go up on repeats.
import { randomBytes } from 'node:crypto';
import { isApiError } from '../../../src/kube/errors.ts';
import type { Kube } from '../kube.ts';
import { errorText, log, rfc3339 } from './common.ts';

export type InvolvedObject = {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  fieldPath?: string;
};

export type EventSpec = { type: 'Normal' | 'Warning'; reason: string; message: string; count?: number };

export class EventRecorder {
  private readonly kube: Kube;
  private readonly component: string;
  private readonly host: string;
  private readonly recorded = new Map<string, { name: string; count: number; first: string }>();

  constructor(kube: Kube, component: string, host: string) {
    this.kube = kube;
    this.component = component;
    this.host = host;
  }

  /** Records an event; with `count`, brings the stored count up to it (no-op when already there). */
  async record(involved: InvolvedObject, event: EventSpec): Promise<void> {
    const key = [involved.uid, involved.fieldPath ?? '', event.type, event.reason, event.message].join('|');
    const previous = this.recorded.get(key);
    const count = event.count ?? (previous?.count ?? 0) + 1;
    if (previous && previous.count >= count) return;
    const now = rfc3339(Date.now());
    try {
      if (previous) {
        try {
          await this.kube.patch('v1', 'Event', previous.name, involved.namespace, { count, lastTimestamp: now });
          this.recorded.set(key, { ...previous, count });
          return;
        } catch (error) {
          if (!isApiError(error, 'NotFound')) throw error;
        }
      }
      const name = `${involved.name}.${randomBytes(8).toString('hex')}`;
      await this.kube.create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: involved.namespace },
        involvedObject: involved,
        reason: event.reason,
        message: event.message,
        type: event.type,
        count,
        firstTimestamp: previous?.first ?? now,
        lastTimestamp: now,
        source: { component: this.component, host: this.host },
        reportingComponent: this.component,
        reportingInstance: this.host,
      });
      this.recorded.set(key, { name, count, first: previous?.first ?? now });
    } catch (error) {
      log(
        this.component,
        `event ${event.reason} on ${involved.kind} ${involved.namespace}/${involved.name}: ${errorText(error)}`,
      );
    }
  }

  /** Forgets the events of an object that is gone. */
  forget(uid: string): void {
    for (const key of this.recorded.keys()) if (key.startsWith(`${uid}|`)) this.recorded.delete(key);
  }
}
