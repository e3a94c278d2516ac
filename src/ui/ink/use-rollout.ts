import { useEffect, useRef, useState } from 'react';
import type { RolloutUpdate } from '../../model/rollout/report.ts';

/** Subscribes to a rollout's updates while the component is mounted; `subscribe` returns how to stop. */
export type RolloutSubscription = (onUpdate: (update: RolloutUpdate) => void) => () => void;

/** The latest update of a followed rollout (undefined until the first one); `onEach` sees every update. */
export function useRollout(
  subscribe: RolloutSubscription,
  onEach?: (update: RolloutUpdate) => void,
): RolloutUpdate | undefined {
  const [update, setUpdate] = useState<RolloutUpdate | undefined>(undefined);
  const each = useRef(onEach);
  each.current = onEach;
  useEffect(
    () =>
      subscribe((u) => {
        each.current?.(u);
        setUpdate(u);
      }),
    [subscribe],
  );
  return update;
}
