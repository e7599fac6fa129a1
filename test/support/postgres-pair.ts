import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../libs/storage/src/free-port';
import { waitFor } from './wait-for';

/**
 * A PostgreSQL primary and a streaming standby on loopback (issue 29), made
 * with the Debian server binaries: the embedded package ships no
 * pg_basebackup, and a pg_basebackup of another major version refuses the
 * server. The standby is a `pg_basebackup -R` of the primary (its
 * `standby.signal` and `primary_conninfo`), replication is synchronous (a
 * commit the primary acknowledged is on the standby, so a failover loses no
 * acknowledged commit), and `failover()` is the fault: the primary's whole
 * process group SIGKILLed (a machine lost), the standby promoted with
 * `pg_ctl promote`, and a new standby made from the new primary into the
 * lost node's directory and port, so the pair can fail over again.
 */
export interface PostgresPair {
  /** `postgres://postgres:…@127.0.0.1:a,127.0.0.1:b/<database>?target_session_attrs=read-write` */
  readonly url: string;
  /** The node that is primary now: its single-host URL. */
  primaryUrl(): string;
  /** The standby's single-host URL. */
  standbyUrl(): string;
  /** SIGKILL the primary, promote the standby; resolves once the new primary takes writes. Then `rebuildStandby`. */
  killPrimaryAndPromote(): Promise<void>;
  /** A fresh standby of the current primary in the lost node's directory and port, streaming synchronously. */
  rebuildStandby(): Promise<void>;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';

/** The newest Debian PostgreSQL with pg_basebackup, or undefined. */
export function debianPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_basebackup')) && existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

interface RunAs {
  uid: number;
  gid: number;
}

/** PostgreSQL refuses root: as root, the servers run as the OS user `postgres` (Debian's package made it). */
function serverUser(): RunAs | undefined {
  if (userInfo().uid !== 0) return undefined;
  const uid = spawnSync('id', ['-u', SUPERUSER], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', SUPERUSER], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) throw new Error('running as root, the PostgreSQL pair needs an OS user "postgres"');
  return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
}

interface Node {
  name: string;
  dir: string;
  port: number;
  child?: ChildProcess;
  output: string;
}

/** Starts the pair under `home` (it must be traversable by the server's OS user) with `database` created on the primary. */
export async function startPostgresPair(home: string, database: string): Promise<PostgresPair> {
  const bin = debianPostgresBin();
  if (!bin) throw new Error('no Debian PostgreSQL with pg_basebackup under /usr/lib/postgresql');
  const runAs = serverUser();
  const password = randomBytes(12).toString('hex');
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, LC_MESSAGES: 'C', PGPASSWORD: password };
  const nodes: [Node, Node] = [
    { name: 'a', dir: join(home, 'pg-a'), port: await freePort(), output: '' },
    { name: 'b', dir: join(home, 'pg-b'), port: await freePort(), output: '' },
  ];
  let primary = 0;

  // Never spawnSync: the chaos harness serves the workload's HTTP endpoint and measures recovery on this event loop.
  const run = (command: string, args: string[]): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = spawn(join(bin, command), args, { ...runAs, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const keep = (chunk: Buffer): void => void (output = (output + chunk.toString('utf8')).slice(-8_000));
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`${command} ${args.join(' ')} failed (${code}): ${output}`));
      });
    });
  const ownDir = (dir: string): void => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  };
  const urlOf = (node: Node, db = database): string => `postgres://${SUPERUSER}:${password}@127.0.0.1:${node.port}/${db}`;

  const start = async (node: Node): Promise<void> => {
    const child = spawn(
      join(bin, 'postgres'),
      [
        '-D',
        node.dir,
        '-p',
        String(node.port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        // Synchronous replication is set with ALTER SYSTEM (syncReplication), which a -c here would override.
        '-c',
        'wal_level=replica',
        '-c',
        'max_wal_senders=5',
        '-c',
        'hot_standby=on',
        '-c',
        'wal_sender_timeout=5s',
        '-c',
        'wal_receiver_status_interval=1s',
        // Nodes are thrown away, never recovered from a crash of the machine: durability to disk buys nothing here.
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
      ],
      { ...runAs, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env },
    );
    node.child = child;
    node.output = '';
    const keep = (chunk: Buffer): void => void (node.output = (node.output + chunk.toString('utf8')).slice(-8_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    await waitFor(async () => (await answers(urlOf(node, 'postgres'))) || (child.exitCode !== null ? 'exited' : false), {
      timeoutMs: 60_000,
      intervalMs: 100,
      description: `PostgreSQL ${node.name} on :${node.port}`,
    }).then((outcome) => {
      if (outcome === 'exited') throw new Error(`PostgreSQL ${node.name} exited: ${node.output}`);
    });
  };

  const kill = async (node: Node, signal: NodeJS.Signals): Promise<void> => {
    const child = node.child;
    node.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      // The whole process group: the postmaster and every backend, as when the machine goes.
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
    await exited;
    if (signal === 'SIGKILL') {
      // Backends die with the group; wait until none holds the port.
      await waitFor(async () => !(await answers(urlOf(node, 'postgres'))), {
        timeoutMs: 10_000,
        intervalMs: 50,
        description: `node ${node.name} gone`,
      });
    }
  };

  const makeStandby = async (node: Node, of: Node): Promise<void> => {
    rmSync(node.dir, { recursive: true, force: true });
    ownDir(node.dir);
    await run('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(of.port),
      '-U',
      SUPERUSER,
      '-D',
      node.dir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    await start(node);
    // Streaming, so synchronous commits on the primary go on.
    await waitFor(
      async () => {
        const rows = await queryOn(urlOf(of, 'postgres'), `SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'`);
        return (rows[0]?.n ?? 0) > 0;
      },
      { timeoutMs: 60_000, intervalMs: 100, description: `standby ${node.name} streaming from ${of.name}` },
    );
  };

  const [first, second] = nodes;
  ownDir(first.dir);
  const pwfile = join(home, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs) chownSync(pwfile, runAs.uid, runAs.gid);
  await run('initdb', [
    `--pgdata=${first.dir}`,
    `--username=${SUPERUSER}`,
    `--pwfile=${pwfile}`,
    '--auth=scram-sha-256',
    '--encoding=UTF8',
    '--locale=C',
  ]);
  rmSync(pwfile, { force: true });
  await start(first);
  await queryOn(urlOf(first, 'postgres'), `ALTER SYSTEM SET synchronous_standby_names = ''`);
  await queryOn(urlOf(first, 'postgres'), 'SELECT pg_reload_conf()');
  await queryOn(urlOf(first, 'postgres'), `CREATE DATABASE ${database}`);
  await makeStandby(second, first);
  await syncReplication(urlOf(first, 'postgres'), true);

  const stopAll = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => kill(node, 'SIGINT')));
  };
  process.once('exit', () => {
    for (const node of nodes) if (node.child?.pid) spawnSync('kill', ['-KILL', `-${node.child.pid}`]);
  });

  return {
    url: `postgres://${SUPERUSER}:${password}@127.0.0.1:${first.port},127.0.0.1:${second.port}/${database}?target_session_attrs=read-write`,
    primaryUrl: () => urlOf(nodes[primary]!),
    standbyUrl: () => urlOf(nodes[1 - primary]!),
    killPrimaryAndPromote: async () => {
      const lost = nodes[primary]!;
      const promoted = nodes[1 - primary]!;
      await kill(lost, 'SIGKILL');
      await run('pg_ctl', ['promote', '-D', promoted.dir, '-w', '-t', '60']);
      primary = 1 - primary;
      // Alone until a new standby streams: commits must not wait for one.
      await syncReplication(urlOf(promoted, 'postgres'), false);
    },
    rebuildStandby: async () => {
      const standby = nodes[1 - primary]!;
      await kill(standby, 'SIGINT');
      await makeStandby(standby, nodes[primary]!);
      await syncReplication(urlOf(nodes[primary]!, 'postgres'), true);
    },
    stop: stopAll,
  };
}

/** Synchronous replication on (`*`: any standby) or off on the primary at `url`. */
async function syncReplication(url: string, on: boolean): Promise<void> {
  await queryOn(url, `ALTER SYSTEM SET synchronous_standby_names = '${on ? '*' : ''}'`);
  await queryOn(url, 'SELECT pg_reload_conf()');
}

async function queryOn(url: string, sql: string): Promise<{ n?: number }[]> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql)).rows as { n?: number }[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    await queryOn(url, 'SELECT 1');
    return true;
  } catch {
    return false;
  }
}
