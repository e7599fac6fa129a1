import { EventType } from '@noetl/event-kernel';
import { Client } from 'pg';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { e2ePlaybook } from '../support/e2e-app';
import { ofType } from '../support/ledger-checks';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../support/scripted-http-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

// Two server boots, a search for the moment to stop one, and the default 10 s idle-in-transaction timeout.
jest.setTimeout(120_000);

const CHAINS = 8;
const BUSY = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: e2e_busy_chain, path: e2e/busy_chain}
workflow:
${Array.from({ length: 25 }, (_, i) => `  - step: s${i}\n    tool: {kind: noop}\n${i < 24 ? `    next: s${i + 1}\n` : ''}`).join('')}`;

/**
 * Issue 15 defect 5: with one of two servers on one database SIGSTOPped, its
 * open transactions kept their locks (`idle in transaction`), the sweeper's
 * lock among them, and the healthy server made no progress and reaped no
 * lease. Here server A is stopped at a moment it has a transaction open with
 * a lock or a write in it, while it leads the sweep and holds a command's
 * lease: server B must go on running executions, take over the sweep and
 * reap A's lease, finish what A started, and A's stuck session must end
 * (the runtime's idle_in_transaction_session_timeout, default 10 s).
 */
describe('two servers on one database, one of them stopped', () => {
  let database: TestDatabase;
  let scripted: ScriptedHttpServer;
  let admin: Client;
  let a: CliServerProcess | undefined;
  let b: CliServerProcess | undefined;
  let stopped = false;

  const boot = (): Promise<CliServerProcess> =>
    startCliServer({ DATABASE_URL: database.url, NOETL_LEASE_SECONDS: '2', NOETL_SWEEP_MS: '200', LOG_LEVEL: 'warn' });

  /** A's sessions in pg_stat_activity that are idle inside a transaction holding a lock or a write. */
  const stuckSessionsOf = async (pid: number): Promise<number> => {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity s
        WHERE s.application_name = $1 AND s.state = 'idle in transaction'
          AND (s.backend_xid IS NOT NULL OR EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = s.pid AND l.locktype = 'advisory' AND l.granted))`,
      [`noetl-${pid}`],
    );
    return rows[0]!.n;
  };

  beforeAll(async () => {
    [database, scripted] = await Promise.all([createTestDatabase(), startScriptedHttpServer()]);
    admin = new Client({ connectionString: database.url });
    await admin.connect();
  });

  afterAll(async () => {
    if (stopped && a) process.kill(a.pid, 'SIGCONT');
    await Promise.all([a?.stop(), b?.stop()]);
    await admin?.end();
    await Promise.all([database?.drop(), scripted?.close()]);
  });

  it("keeps the other one running: it takes over the sweep, reaps the stopped one's lease and finishes its work", async () => {
    a = await boot();
    // The first server made the admin key; every server of the database takes it.
    const onA = new NoetlHttpClient(a.url, a.apiKey);
    await onA.register(BUSY);
    await onA.register(e2ePlaybook('crash-poison'));
    await onA.register(e2ePlaybook('linear'));
    // A holds a command's lease (a long call); its tenant's sweep is A's (it started first and renews its lease every sweep) before B starts.
    // What A ran when it stopped is re-run on B alone, one after another (DSL.md s3, suspected poison), behind this call's
    // second run: it outlasts A's stop by far, and leaves B the time to finish every chain.
    const held = await onA.execute('e2e/crash_poison', { echo: scripted.url, ms: 20_000 });
    const claim = await onA.waitForEvent(held, EventType.CommandClaimed, (event) => event.step === 'doomed');
    await waitFor(
      async () =>
        (await admin.query(`SELECT holder FROM noetl.leadership WHERE role LIKE 'sweeper:%'`)).rows[0]?.holder?.includes(`-${a!.pid}-`),
      {
        description: 'A to lead the sweep',
      },
    );
    b = await boot();
    const onB = new NoetlHttpClient(b.url, a.apiKey);
    // And it is busy with chains when it stops.
    expect(String((claim.payload as { worker_id: string }).worker_id)).toContain(`-${a.pid}-`);
    const chains = await Promise.all(Array.from({ length: CHAINS }, () => onA.execute('e2e/busy_chain')));

    // SIGSTOP A at a moment it has a transaction open with a lock or a write in it (try again until one is caught).
    await waitFor(
      async () => {
        process.kill(a!.pid, 'SIGSTOP');
        stopped = true;
        if ((await stuckSessionsOf(a!.pid)) > 0) return true;
        process.kill(a!.pid, 'SIGCONT');
        stopped = false;
        return false;
      },
      { timeoutMs: 30_000, intervalMs: 5, description: 'A stopped inside an open transaction' },
    );

    // B goes on: a new execution completes while A is stopped.
    const started = Date.now();
    expect(await onB.waitForTerminal(await onB.execute('e2e/linear'), 15_000)).toMatchObject({ status: 'COMPLETED', result: { n: 25 } });
    expect(Date.now() - started).toBeLessThan(15_000);

    // B takes over the sweep and reaps A's lease: the command is abandoned, issued again and claimed by B's worker.
    await waitFor(
      async () =>
        (await admin.query(`SELECT holder FROM noetl.leadership WHERE role LIKE 'sweeper:%'`)).rows[0]?.holder?.includes(`-${b!.pid}-`),
      {
        timeoutMs: 15_000,
        description: 'B to lead the sweep',
      },
    );
    await onB.waitForEvent(
      held,
      EventType.CommandClaimed,
      (event) => event.step === 'doomed' && String((event.payload as { worker_id: string }).worker_id).includes(`-${b!.pid}-`),
      20_000,
    );
    const heldBy = (claim.payload as { worker_id: string }).worker_id;
    expect(ofType(await onB.events(held), EventType.CommandAbandoned).map((event) => event.payload)).toEqual([
      expect.objectContaining({ worker_id: heldBy, worker_lost: true }),
    ]);

    // What A had open is let go by the server, and B finishes every chain A started.
    await waitFor(async () => (await stuckSessionsOf(a!.pid)) === 0, {
      timeoutMs: 20_000,
      intervalMs: 200,
      description: "A's idle transaction to be ended",
    });
    for (const id of chains) expect(await onB.waitForTerminal(id, 45_000)).toMatchObject({ status: 'COMPLETED' });
  });
});
