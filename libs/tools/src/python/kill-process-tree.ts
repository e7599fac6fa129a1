import { readdir, readFile } from 'node:fs/promises';

/** The fields of /proc/<pid>/stat this module needs. */
export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
}

/** `pid (comm) state ppid ...`; the command name may hold spaces and parentheses, so fields are read after the last `)`. */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(')');
  if (close === -1) return undefined;
  const pid = Number(text.slice(0, text.indexOf(' ')));
  const [state, ppid] = text.slice(close + 2).split(' ');
  if (!Number.isInteger(pid) || state === undefined || ppid === undefined) return undefined;
  return { pid, state, ppid: Number(ppid) };
}

/** Living (not zombie) descendants of `root` among `stats`, parents before children. */
export function descendantsOf(root: number, stats: readonly ProcStat[]): number[] {
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (child.state !== 'Z') out.push(child.pid);
      queue.push(child.pid);
    }
  }
  return out;
}

async function processTable(): Promise<ProcStat[]> {
  const names = await readdir('/proc').catch(() => [] as string[]);
  const stats = await Promise.all(
    names.filter((name) => /^\d+$/.test(name)).map((name) => readFile(`/proc/${name}/stat`, 'utf8').then(parseProcStat, () => undefined)),
  );
  return stats.filter((stat): stat is ProcStat => stat !== undefined);
}

/**
 * SIGKILLs every living descendant of `root` (Linux, through /proc), round after round until
 * none is left: a process forked while a round ran, or orphaned by one (and so reparented to
 * `root`, a child subreaper), is found by the next. `root` itself is left to the caller.
 * Where /proc is missing this does nothing; the caller kills the process group anyway.
 */
export async function killDescendants(root: number, maxRounds = 20): Promise<void> {
  for (let round = 0; round < maxRounds; round++) {
    const pids = descendantsOf(root, await processTable());
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }
}
