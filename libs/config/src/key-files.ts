import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The keys a deployment may keep in NOETL_HOME: the admin key the CLI presents, the worker key a worker presents. */
export type KeyFileRole = 'admin' | 'worker';

/**
 * Where a key of `role` is kept in `home`: `admin.key` (made by the first
 * `noetl server`, or `noetl keys bootstrap --generate`; read by the CLI) or
 * `worker.key` (read by a worker given no NOETL_API_KEY).
 */
export function keyFilePath(home: string, role: KeyFileRole): string {
  return join(home, `${role}.key`);
}

/** Writes the key readable by its owner only (mode 0600, in a 0700 directory when it makes one). */
export function writeKeyFile(home: string, role: KeyFileRole, key: string): string {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const path = keyFilePath(home, role);
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  // A file that was there keeps its mode through writeFileSync.
  chmodSync(path, 0o600);
  return path;
}

/** The key of `role` kept in `home`; undefined when there is none. */
export function readKeyFile(home: string, role: KeyFileRole): string | undefined {
  const path = keyFilePath(home, role);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() || undefined : undefined;
}
