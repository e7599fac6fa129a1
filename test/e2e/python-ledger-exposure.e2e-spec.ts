import { Client } from 'pg';
import { EventType } from '@noetl/event-kernel';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { ofType } from '../support/ledger-checks';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// Two server boots and two short executions.
jest.setTimeout(90_000);

/**
 * The probe's attack (issue 25 item 2): a python step logs in to the ledger's PostgreSQL on
 * 127.0.0.1:5432 as the cluster superuser, with no password, as a cluster that trusts loopback
 * allows (this machine's does), and writes there. It uses `psql`, as python here has no driver.
 */
const HOSTILE = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: python_ledger_attack, path: e2e/python-ledger-attack}
workflow:
  - step: attack
    tool:
      kind: python
      input: {database: "{{ database }}"}
      code: |
        import subprocess
        def main(database):
            sql = "CREATE TABLE public.written_by_python ()"
            run = subprocess.run(["psql", "-h", "127.0.0.1", "-p", "5432", "-U", "postgres", "-d", database, "-c", sql], capture_output=True, text=True)
            return {"exit": run.returncode, "stderr": run.stderr}
`;

async function tableWritten(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ found: string | null }>("SELECT to_regclass('public.written_by_python')::text AS found");
    return rows[0]?.found != null;
  } finally {
    await client.end();
  }
}

async function serverOn(
  ledger: TestDatabase,
  env: Record<string, string>,
  log: string[],
): Promise<{ server: CliServerProcess; client: NoetlHttpClient }> {
  const server = await startCliServer({ DATABASE_URL: ledger.url, ...env }, { onOutput: (chunk) => void log.push(chunk) });
  const client = new NoetlHttpClient(server.url, server.apiKey);
  await client.register(HOSTILE);
  return { server, client };
}

describe("python steps on a worker whose ledger's cluster trusts its host", () => {
  const servers: CliServerProcess[] = [];
  const ledgers: TestDatabase[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(ledgers.map((ledger) => ledger.drop()));
  });

  it('`noetl server` with the default settings refuses the step before it runs, and said why at start', async () => {
    const ledger = await createTestDatabase();
    ledgers.push(ledger);
    const log: string[] = [];
    // The harness allows python on the test services; this is the default a user gets.
    const { server, client } = await serverOn(ledger, { NOETL_PYTHON_LEDGER_ACCESS: 'refuse' }, log);
    servers.push(server);

    const detail = await client.run(HOSTILE, { database: ledger.name }, 30_000);
    expect(detail).toMatchObject({
      status: 'FAILED',
      error: {
        step: 'attack',
        kind: 'auth',
        message: expect.stringContaining(
          "python: refused on this worker: the ledger's PostgreSQL cluster accepts a login without a password",
        ),
      },
    });
    const message = detail.error?.message ?? '';
    expect(message).toContain('postgres@127.0.0.1:5432');
    // The runtime's pool may not read unix_socket_directories: the usual directories are tried.
    expect(message).toContain('postgres@/var/run/postgresql:5432');
    expect(message).toContain('pg_hba.conf');
    expect(message).toContain('NOETL_SERVER_URL');
    expect(message).toContain('NOETL_PYTHON_LEDGER_ACCESS=allow');
    const exit = ofType(await client.events(detail.execution_id), EventType.StepExit).find((e) => e.step === 'attack');
    expect(exit?.payload).toMatchObject({ status: 'FAILED', error: { code: 'LEDGER_EXPOSED', retryable: false } });
    expect(await tableWritten(ledger.url)).toBe(false);

    const errors = log
      .join('')
      .split('\n')
      .filter((line) => line.includes('python steps are refused'));
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!)).toMatchObject({ level: 50, msg: expect.stringContaining('postgres@127.0.0.1:5432') });
  });

  it('with NOETL_PYTHON_LEDGER_ACCESS=allow the step runs, and the hole it closes is real', async () => {
    const ledger = await createTestDatabase();
    ledgers.push(ledger);
    const log: string[] = [];
    const { server, client } = await serverOn(ledger, { NOETL_PYTHON_LEDGER_ACCESS: 'allow' }, log);
    servers.push(server);

    const detail = await client.run(HOSTILE, { database: ledger.name }, 30_000);
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { exit: 0 } });
    expect(await tableWritten(ledger.url)).toBe(true);
    expect(log.join('')).not.toContain('python steps are refused');
  });
});
