import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where `noetl server` leaves the first admin key it makes, and where the CLI finds it. */
export function adminKeyPath(home: string): string {
  return join(home, 'admin.key');
}

/** Writes the key readable by its owner only (mode 0600, in a 0700 directory when it makes one). */
export function writeAdminKeyFile(home: string, key: string): string {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const path = adminKeyPath(home);
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  // A file that was there keeps its mode through writeFileSync.
  chmodSync(path, 0o600);
  return path;
}

/** The key `noetl server` left in `home`; undefined when there is none. */
export function readAdminKeyFile(home: string): string | undefined {
  const path = adminKeyPath(home);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() || undefined : undefined;
}
