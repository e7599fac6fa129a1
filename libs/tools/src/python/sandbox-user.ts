import { readFileSync } from 'node:fs';

/** The unprivileged account a python step runs as when the worker is root. */
export interface SandboxUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * `spec` as `NOETL_PYTHON_USER` gives it: a user name (`nobody`), a uid (`65534`) or
 * `uid:gid`, looked up in `passwd` (the text of /etc/passwd). Undefined when no such user.
 */
export function findSandboxUser(spec: string, passwd: string): SandboxUser | undefined {
  const entries = passwd
    .split('\n')
    .map((line) => line.split(':'))
    .filter((fields) => fields.length >= 4 && /^\d+$/.test(fields[2] ?? '') && /^\d+$/.test(fields[3] ?? ''))
    .map(([name, , uid, gid]) => ({ name: name!, uid: Number(uid), gid: Number(gid) }));
  const numeric = /^(\d+)(?::(\d+))?$/.exec(spec.trim());
  if (!numeric) return entries.find((entry) => entry.name === spec.trim());
  const uid = Number(numeric[1]);
  const known = entries.find((entry) => entry.uid === uid);
  const gid = numeric[2] !== undefined ? Number(numeric[2]) : known?.gid;
  return gid === undefined ? undefined : { name: known?.name ?? String(uid), uid, gid };
}

/** `findSandboxUser` against this machine's /etc/passwd. */
export function sandboxUser(spec: string): SandboxUser | undefined {
  let passwd: string;
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    passwd = '';
  }
  return findSandboxUser(spec, passwd);
}
