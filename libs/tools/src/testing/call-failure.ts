import { CallError } from '@noetl/dsl';

/** The CallError a call rejects with; fails when the call succeeds or rejects with something else. */
export async function callFailure(promise: Promise<unknown>): Promise<CallError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof CallError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}
