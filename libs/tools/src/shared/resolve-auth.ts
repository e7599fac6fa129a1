import { CallError } from '@noetl/dsl';
import type { ToolContext } from '../tool';
import { isRecord } from './read-config';
import { errorMessage } from './tool-errors';

/** Credential data plus the name it was resolved from (for messages; the name is not secret). */
export interface ResolvedAuth {
  data: Record<string, unknown>;
  /** `credential "pg_local"` or `inline auth`. */
  label: string;
}

/**
 * `auth` may be a credential name, `{credential|key: name, type?}` (the seeds' form), or the
 * credential data itself (e.g. a rendered `{{ keychain.x }}`). A `type` given beside the name
 * is kept when the stored data has none.
 */
export async function resolveAuth(tool: string, auth: unknown, ctx: ToolContext): Promise<ResolvedAuth> {
  if (typeof auth === 'string') {
    return { data: await fetchCredential(tool, auth, ctx), label: `credential "${auth}"` };
  }
  if (isRecord(auth)) {
    const name = typeof auth.credential === 'string' ? auth.credential : typeof auth.key === 'string' ? auth.key : undefined;
    if (name !== undefined) {
      const data = await fetchCredential(tool, name, ctx);
      const withType = data.type === undefined && typeof auth.type === 'string' ? { ...data, type: auth.type } : data;
      return { data: withType, label: `credential "${name}"` };
    }
    return { data: auth, label: 'inline auth' };
  }
  throw new CallError({
    kind: 'internal',
    message: `${tool}: auth must be a credential name or an object`,
    retryable: false,
    code: 'INVALID_CONFIG',
  });
}

async function fetchCredential(tool: string, name: string, ctx: ToolContext): Promise<Record<string, unknown>> {
  try {
    return await ctx.resolveCredential(name);
  } catch (err) {
    if (err instanceof CallError) throw err;
    throw new CallError({
      kind: 'auth',
      message: `${tool}: cannot resolve credential "${name}": ${errorMessage(err)}`,
      retryable: false,
      code: 'CREDENTIAL_UNAVAILABLE',
    });
  }
}
