import { useEffect, useState } from 'react';
import type { RolloutUpdate } from '../../services/live-rollout.ts';

/** Subscribes to a rollout's updates while the component is mounted; `subscribe` returns how to stop. */
export type RolloutSubscription = (onUpdate: (update: RolloutUpdate) => void) => () => void;

/** The latest update of a followed rollout (undefined until the first one). */
export function useRollout(subscribe: RolloutSubscription): RolloutUpdate | undefined {
  const [update, setUpdate] = useState<RolloutUpdate | undefined>(undefined);
  useEffect(() => subscribe(setUpdate), [subscribe]);
  return update;
}
