export interface WaitForOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** What is awaited, for the timeout message. */
  description?: string;
}

/**
 * Polls `fn` until it returns something other than `undefined` or `false`,
 * and returns that. A throw counts as "not yet"; at the deadline the last
 * error (or result) is in the message. Tests use this instead of sleeps.
 */
export async function waitFor<T>(fn: () => Promise<T | undefined | false>, options: WaitForOptions = {}): Promise<T> {
  const { timeoutMs = 5_000, intervalMs = 25, description = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const result = await fn();
      if (result !== undefined && result !== false) return result;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError === undefined ? '' : `; last error: ${String(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
