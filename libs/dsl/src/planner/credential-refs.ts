import type { Json, JsonObject } from '../model';
import { isJsonObject } from '../scope';

/** The credentials a piece of work may resolve (issue 15: a command resolves only what its step names). */
export interface CredentialRefs {
  /** Names given literally: `auth: name`, `auth: {credential|key: name}`, a keychain entry's `credential`. */
  names: string[];
  /** A name is a template (rendered at the worker): it cannot be bound before the call, so any of the tenant's may be asked for. */
  templated: boolean;
}

const TEMPLATE = /\{\{|\{%/;

/**
 * Every credential a command's spec, or a loop body's, names: every `auth`
 * anywhere in it (its tool, a pipeline's tasks, sinks on the step, the loop
 * or a retry policy's `per_iteration`, a cursor's claim) and its keychain
 * entries (DSL.md s7). The whole spec is searched, not a list of known
 * places, so a new place a sink may stand cannot be missed: at worst a name
 * the author wrote under `auth` in data is allowed too. The control plane
 * resolves no other name for the work's holder.
 */
export function credentialRefs(spec: JsonObject): CredentialRefs {
  const names = new Set<string>();
  let templated = false;
  const take = (value: Json | undefined): void => {
    if (typeof value !== 'string') return;
    if (TEMPLATE.test(value)) templated = true;
    else names.add(value);
  };
  const nameIn = (holder: JsonObject): void => take(holder['credential'] ?? holder['key']);
  const visit = (value: Json | undefined): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!isJsonObject(value)) return;
    const auth = value['auth'];
    if (typeof auth === 'string') take(auth);
    else if (isJsonObject(auth)) nameIn(auth);
    for (const child of Object.values(value)) visit(child);
  };
  visit(spec);
  const keychain = spec['keychain'];
  if (Array.isArray(keychain)) for (const entry of keychain) if (isJsonObject(entry)) nameIn(entry);
  return { names: [...names].sort(), templated };
}
