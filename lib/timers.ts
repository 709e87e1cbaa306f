// Every timer pstlab sets goes through here (timers_test.ts reads the sources). A delay
// past 2^31 − 1 ms (24.8 days) makes setTimeout fire at once — `record --timeout 700h`
// killed its program the moment it started, and a script's `sleep 700h` did not sleep —
// so a longer delay is waited in steps.

/** The longest delay one setTimeout keeps (Bun, Deno and Node fire a longer one at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A pending call; clear() cancels it (a cleared or fired timer keeps nothing alive). */
export interface Timer {
  clear(): void;
}

/** Calls `fn` after `ms` milliseconds, however long (NaN or negative: at the next turn). */
export function later(fn: () => void, ms: number): Timer {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const arm = (left: number) => {
    const step = Math.min(left > 0 ? left : 0, MAX_TIMER_MS);
    handle = setTimeout(() => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : fn()), step);
  };
  arm(ms);
  return { clear: () => clearTimeout(handle) };
}

/** Resolves after `ms` milliseconds, however long. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => later(r, ms));
}
