import { Subjects } from '@noetl/runtime';
import { connect, type NatsConnection } from 'nats';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { e2ePlaybook } from '../support/e2e-app';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { requireNats } from '../support/services';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

jest.setTimeout(150_000);

/** How often the flood publishes a round of notifications: a boot's few milliseconds between listening on NATS and the app's init see dozens. */
const FLOOD_INTERVAL_MS = 1;

/**
 * Issue 30: a `noetl server` with the api and the scheduler and worker roles
 * over NATS receives notifications while it boots (a restart under load: the
 * rest of the deployment keeps offering work). The HTTP app's guards and its
 * error filter must not run on them, nor may a notification reach a handler
 * before the app has initialised; either crashed the process. Unknown ids and
 * malformed bodies are what a booting process gets from a busy deployment too.
 */
describe('noetl server booting while notifications arrive', () => {
  const tenant = `boot_race_${process.pid}`;
  let database: TestDatabase;
  let nats: NatsConnection;
  let server: CliServerProcess | undefined;

  beforeAll(async () => {
    [database, nats] = await Promise.all([createTestDatabase(), requireNats().then((url) => connect({ servers: url }))]);
  });

  afterAll(async () => {
    await server?.stop();
    await Promise.all([database?.drop(), nats?.close()]);
  });

  it('becomes ready, stays up and runs a playbook while a flood of notifications arrives from its first millisecond', async () => {
    const scope = { tenant_id: tenant, organization_id: 'default' };
    const subjects = [Subjects.execution(tenant), Subjects.work(tenant), Subjects.frames(tenant)];
    const encoder = new TextEncoder();
    let published = 0;
    const flood = setInterval(() => {
      for (const subject of subjects) {
        nats.publish(
          subject,
          encoder.encode(JSON.stringify({ ...scope, execution_id: `${published}`, command_id: `${published}`, stage_id: `${published}` })),
        );
        nats.publish(subject, encoder.encode('{not json'));
        published += 2;
      }
    }, FLOOD_INTERVAL_MS);

    try {
      server = await startCliServer({
        DATABASE_URL: database.url,
        NATS_URL: await requireNats(),
        NOETL_TENANT_ID: tenant,
        NOETL_ROLES: 'api,scheduler,worker',
        LOG_LEVEL: 'warn',
      });
      const client = new NoetlHttpClient(server.url, server.apiKey);
      await client.register(e2ePlaybook('linear'));
      const id = await client.execute('e2e/linear');
      // What this asserts is that the process survives the flood and still does real work, not how soon: the
      // flood's junk offers and notifications queue ahead of the real ones (18-38 s on a 2-core machine).
      expect((await client.waitForTerminal(id, 90_000)).status).toBe('COMPLETED');
    } finally {
      clearInterval(flood);
    }
    await nats.flush();

    expect(published).toBeGreaterThan(100);
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    expect(server.output()).not.toMatch(/TypeError|is not a function|is not iterable/);
    // A body that is not JSON is dropped with a line that says so (the sweep offers real work again).
    expect(server.output()).toMatch(new RegExp(`dropped a notification on noetl\\.${tenant}\\.`));
  });
});
