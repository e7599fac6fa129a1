import { CallError } from '@noetl/dsl';

/**
 * Keys whose values say where or as whom a credential connects, not what proves it: kept
 * readable in outputs. Every other string value of a credential or keychain entry is a secret.
 */
const NOT_SECRET = new Set([
  'type',
  'kind',
  'name',
  'host',
  'hostname',
  'db_host',
  'port',
  'db_port',
  'user',
  'username',
  'db_user',
  'database',
  'dbname',
  'db_name',
  'db',
  'sslmode',
  'db_sslmode',
  'ssl_mode',
  'token_type',
  'expires_in',
  'scope',
]);
const USER_KEYS = ['username', 'user', 'db_user', 'client_id'];
const PASSWORD_KEYS = ['password', 'db_password', 'client_secret'];

/** Shorter values are not replaced: masking every `ab` in a result would destroy it and protect nothing. */
export const MIN_SECRET_LENGTH = 4;
/**
 * Forms at least this long are matched whatever their case (`HUNTER2-pass` for `hunter2-PASS`):
 * a tool that upper-cases a value must not unmask it, and a false match at this length is rare.
 */
export const CASELESS_MIN_LENGTH = 8;
export const REDACTED = '***';

/**
 * A redaction set (DESIGN.md invariant 8): credential values join it, and text or JSON is
 * scrubbed of them: as written, URL-encoded (also with `+` for spaces), JSON-escaped (also
 * with every non-ASCII character as `\uXXXX`), in any case when 8 characters or longer, and
 * base64 (standard and URL-safe, at any alignment within a longer encoded text, so
 * `Basic base64(user:password)` is caught too), each replaced by `***`. A tool keeps its own
 * error messages clean with one; the worker keeps one per command or frame run, which every
 * credential and keychain entry the run resolves joins, and scrubs everything that leaves it.
 */
export class SecretSet {
  private readonly secrets = new Set<string>();
  /** Undefined until first needed after a change; empty when there is nothing to mask. */
  private patterns: RegExp[] | undefined;

  /** Adds the secret values of a credential's (or a resolved keychain entry's) data. */
  add(data: unknown): void {
    const before = this.secrets.size;
    collect(data, undefined, this.secrets);
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
      const record = data as Record<string, unknown>;
      // HTTP basic auth sends `user:password` base64-encoded as one piece.
      const user = USER_KEYS.map((k) => record[k]).find((v) => typeof v === 'string');
      const password = PASSWORD_KEYS.map((k) => record[k]).find((v) => typeof v === 'string');
      if (typeof user === 'string' && typeof password === 'string' && password.length > 0) this.secrets.add(`${user}:${password}`);
    }
    if (this.secrets.size !== before) this.patterns = undefined;
  }

  get size(): number {
    return this.secrets.size;
  }

  text(text: string): string {
    let scrubbed = text;
    for (const pattern of this.compiled()) scrubbed = scrubbed.replace(pattern, REDACTED);
    return scrubbed;
  }

  /** The same error with its message scrubbed (its data is left to the caller's redaction). */
  callError(err: CallError): CallError {
    const message = this.text(err.info.message);
    return message === err.info.message ? err : new CallError({ ...err.info, message }, err.data);
  }

  /** A copy of `value` with every string (values and keys) scrubbed; other values as they are. */
  scrub<T>(value: T): T {
    if (this.compiled().length === 0) return value;
    return this.scrubValue(value) as T;
  }

  private scrubValue(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    // A numeric secret (an account number, a PIN) may come back as a number: it becomes the mask.
    if (typeof value === 'number') return this.text(String(value)) === String(value) ? value : REDACTED;
    if (Array.isArray(value)) return value.map((item) => this.scrubValue(item));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.scrubValue(item)]));
    }
    return value;
  }

  /** The long forms, matched in any case, first (a short secret inside a long one then finds it masked), then the short ones. */
  private compiled(): RegExp[] {
    if (this.patterns !== undefined) return this.patterns;
    const forms = new Set<string>();
    for (const secret of this.secrets) for (const form of encodedForms(secret)) forms.add(form);
    const ordered = [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
    const caseless = ordered.filter((form) => form.length >= CASELESS_MIN_LENGTH);
    const exact = ordered.filter((form) => form.length < CASELESS_MIN_LENGTH);
    this.patterns = [
      ...(caseless.length > 0 ? [new RegExp(caseless.map(escapeRegExp).join('|'), 'gi')] : []),
      ...(exact.length > 0 ? [new RegExp(exact.map(escapeRegExp).join('|'), 'g')] : []),
    ];
    return this.patterns;
  }
}

/**
 * Strings and numbers are secrets (`{pin: 48151623}` is one as much as `"48151623"`).
 * Booleans are not: one bit, and masking every `true` in a result would destroy it.
 */
function collect(value: unknown, key: string | undefined, into: Set<string>): void {
  if (key !== undefined && NOT_SECRET.has(key.toLowerCase())) return;
  if (typeof value === 'number' && Number.isFinite(value)) {
    const digits = String(value);
    if (digits.length >= MIN_SECRET_LENGTH) into.add(digits);
    return;
  }
  if (typeof value === 'string') {
    if (value.length >= MIN_SECRET_LENGTH) into.add(value);
    // A DSN's password travels alone too (decoded, as a driver error may quote it).
    const password = urlPassword(value);
    if (password !== undefined && password.length >= MIN_SECRET_LENGTH) into.add(password);
    return;
  }
  if (Array.isArray(value)) for (const item of value) collect(item, undefined, into);
  else if (typeof value === 'object' && value !== null) for (const [k, item] of Object.entries(value)) collect(item, k, into);
}

function urlPassword(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(value)) return undefined;
  try {
    const password = new URL(value).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    // Not a WHATWG URL: a multi-host PostgreSQL DSN (`postgres://u:p@h1:5432,h2:5432/db`) is one; its userinfo reads the same.
    const password = /^[a-z][a-z0-9+.-]*:\/\/[^:/@]*:([^/@]*)@/i.exec(value)?.[1];
    if (!password) return undefined;
    try {
      return decodeURIComponent(password);
    } catch {
      return password;
    }
  }
}

/** Every spelling of `secret` a result, message or log line may carry. */
export function encodedForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  // JSON as Python's json.dumps writes it by default (ensure_ascii): every UTF-16 unit past ASCII as \uXXXX.
  const asciiJson = json.replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const forms = [secret, encodeURIComponent(secret), encodeURIComponent(secret).replace(/%20/g, '+'), json, asciiJson];
  const bytes = Buffer.from(secret, 'utf8');
  forms.push(bytes.toString('base64'), bytes.toString('base64url'));
  // Inside a longer base64 text the secret starts at byte offset 0, 1 or 2 of a 3-byte group: the
  // characters that depend on its bytes alone are the same wherever that text starts.
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    const core = encoded.slice(first, last);
    if (core.length >= 8) forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
