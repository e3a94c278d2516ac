// Timers for durations longer than Node's setTimeout allows. setTimeout and AbortSignal.timeout take at most
// 2^31-1 ms (24.8 days); a longer delay prints a TimeoutOverflowWarning and fires after 1 ms. kubectl takes any Go
// duration (`--timeout 1000h`), so long delays are waited for in steps.

export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LongTimer {
  clear(): void;
}

/** Calls `fn` once after `ms` (any length); `unref` lets the process exit while it is pending. */
export function setLongTimeout(fn: () => void, ms: number, options: { unref?: boolean } = {}): LongTimer {
  const deadline = Date.now() + ms;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const left = deadline - Date.now();
    if (left <= 0) return fn();
    timer = setTimeout(left > MAX_TIMER_MS ? arm : fn, Math.min(left, MAX_TIMER_MS));
    if (options.unref) timer.unref();
  };
  arm();
  return { clear: () => clearTimeout(timer) };
}

/** An AbortSignal that aborts with a TimeoutError DOMException after `ms` (any length), like AbortSignal.timeout. */
export function timeoutSignal(ms: number): AbortSignal {
  if (ms <= MAX_TIMER_MS) return AbortSignal.timeout(ms);
  const controller = new AbortController();
  setLongTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
    { unref: true },
  );
  return controller.signal;
}
