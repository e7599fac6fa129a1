import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { EventType } from '@noetl/event-kernel';
import { startE2eApp, type E2eApp } from '../support/e2e-app';
import { ofType } from '../support/ledger-checks';
import { withAdminClient } from '../support/postgres';
import { createEmptyDatabase, type TestDatabase } from '../support/test-database';

// One app boot, three short executions.
jest.setTimeout(60_000);

/** A playbook of one postgres step on `{{ dsn }}` running `command`. */
const stepOn = (name: string, command: string): string => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: ${name}, path: e2e/${name}}
workflow:
  - step: reach
    tool:
      kind: postgres
      connection: "{{ dsn }}"
      command: ${JSON.stringify(command)}
`;

/**
 * The probe's attacks of issue 25 item 2, as a playbook author runs them on a
 * server with the default NOETL_TOOLS_LEDGER_ACCESS: from another database of
 * the ledger's cluster, logged in as the cluster superuser, `CREATE EXTENSION
 * dblink` (then dblink into the ledger) and `COPY ... FROM PROGRAM 'psql ...'`
 * reached the ledger and deleted a past event. Both are now refused before
 * any statement runs; an ordinary role keeps working there.
 */
describe('postgres steps on the cluster of the ledger, as a hostile playbook author', () => {
  let app: E2eApp;
  let userDatabase: TestDatabase;
  const ordinary = `noetl_t_author_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    [app, userDatabase] = await Promise.all([startE2eApp({ NOETL_TOOLS_LEDGER_ACCESS: 'refuse' }), createEmptyDatabase()]);
    await withAdminClient((admin) => admin.query(`CREATE ROLE ${ordinary} LOGIN`));
  });

  afterAll(async () => {
    await Promise.all([app?.close(), userDatabase?.drop()]);
    await withAdminClient((admin) => admin.query(`DROP ROLE IF EXISTS ${ordinary}`));
  });

  const ledgerName = (): string => new URL(app.databaseUrl).pathname.slice(1);

  const refused = async (name: string, command: string): Promise<void> => {
    const detail = await app.client.run(stepOn(name, command), { dsn: userDatabase.url });
    expect(detail).toMatchObject({
      status: 'FAILED',
      error: {
        step: 'reach',
        kind: 'auth',
        message: expect.stringMatching(
          /^postgres: refusing to connect as role "[^"]+" to the cluster of this runtime's ledger: it is a superuser;/,
        ),
      },
    });
    const exit = ofType(await app.client.events(detail.execution_id), EventType.StepExit).find((e) => e.step === 'reach');
    expect(exit?.payload).toMatchObject({ status: 'FAILED', error: { code: 'PROTECTED_DATABASE', retryable: false } });
  };

  it('refuses the superuser CREATE EXTENSION dblink and a dblink_exec into the ledger', async () => {
    await refused(
      'dblink_into_ledger',
      `CREATE EXTENSION IF NOT EXISTS dblink; SELECT dblink_exec('dbname=${ledgerName()}', 'SET LOCAL session_replication_role = replica; DELETE FROM noetl.event')`,
    );
    const check = new Client({ connectionString: userDatabase.url });
    await check.connect();
    try {
      expect((await check.query("SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'dblink'")).rows).toEqual([{ n: 0 }]);
    } finally {
      await check.end();
    }
  });

  it('refuses the superuser COPY FROM PROGRAM', async () => {
    await refused(
      'copy_from_program',
      `CREATE TEMP TABLE out (line text); COPY out FROM PROGRAM 'psql -d ${ledgerName()} -c "DELETE FROM noetl.event"'`,
    );
  });

  it('runs the same kind of step as an ordinary role of that cluster', async () => {
    const dsn = new URL(userDatabase.url);
    dsn.username = ordinary;
    dsn.password = '';
    const detail = await app.client.run(stepOn('ordinary_role', 'SELECT current_user AS who'), { dsn: dsn.toString() });
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { rows: [{ who: ordinary }] } });
  });
});
