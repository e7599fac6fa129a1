import { CallError } from '@noetl/dsl';

const SECRET_KEY = /pass|secret|token|key|auth|credential|dsn|connection|private|cookie|signature/i;
const MIN_LENGTH = 4;

/** Values of credential data that must never show up in a message: secret-looking keys, and every header value. */
export function secretValues(data: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string' && SECRET_KEY.test(key)) out.push(value);
    if (key === 'headers' && typeof value === 'object' && value !== null) {
      for (const header of Object.values(value)) if (typeof header === 'string') out.push(header);
    }
  }
  return out.filter((s) => s.length >= MIN_LENGTH);
}

/** Replaces each secret (and its URL-encoded form) with `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length < MIN_LENGTH) continue;
    out = out.split(secret).join('***');
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join('***');
  }
  return out;
}

/** The same error with secrets removed from its message (the data is left to the caller's redaction). */
export function redactCallError(err: CallError, secrets: readonly string[]): CallError {
  if (secrets.length === 0) return err;
  const message = redact(err.info.message, secrets);
  return message === err.info.message ? err : new CallError({ ...err.info, message }, err.data);
}
