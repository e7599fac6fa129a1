import { SnowflakeIds } from '@noetl/event-kernel';
import { CatalogRepository } from '@noetl/storage';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { CatalogService } from './catalog.service';

const playbook = (note: string): string => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: expected_catalog, path: tests/expected-catalog}
workload: {note: ${note}}
workflow:
  - step: start
    tool: {kind: noop}
`;

/**
 * A start by path checks the path's latest version this process read
 * before (noetl.expect_latest_playbook) rather than reading the catalog
 * again: a version registered since, here or by another process, is the
 * one it starts. Observed through CatalogRepository.expectLatest (not
 * replaced) and the executions' rows.
 */
describe('a start by path that expects the latest version it read', () => {
  let t: TestEngine;
  const expectations = jest.spyOn(CatalogRepository.prototype, 'expectLatest');

  beforeAll(async () => {
    t = await startTestEngine({ roles: ['scheduler'] });
  });
  beforeEach(() => expectations.mockClear());
  afterAll(async () => {
    expectations.mockRestore();
    await t?.close();
  });

  const startedVersion = async (): Promise<{ version: number; workload: unknown }> => {
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/expected-catalog' });
    const [row] = await t.database.query<{ version: number; workload: unknown }>(
      'SELECT version, workload FROM noetl.execution WHERE execution_id = $1::bigint',
      [execution_id],
    );
    return row!;
  };

  it('reads the latest version once, then checks it in each start', async () => {
    await t.engine.own.catalog.register(playbook('first'));
    expect(await startedVersion()).toEqual({ version: 1, workload: { note: 'first' } });
    expect(await startedVersion()).toEqual({ version: 1, workload: { note: 'first' } });
    // The first start read it (the registration forgot what this process knew of the path); the second expected it.
    expect(expectations).toHaveBeenCalledTimes(1);
  });

  it('starts a version another process registered since it read the path', async () => {
    await startedVersion();
    const elsewhere = new CatalogService(t.database, new SnowflakeIds(7, Date.now), { tenantId: 'default', organizationId: 'default' });
    const { version } = await elsewhere.register(playbook('second'));
    expectations.mockClear();

    expect(await startedVersion()).toEqual({ version, workload: { note: 'second' } });
    // Expected the version it knew, refused by the guard, then read: the next start expects the new one.
    expect(expectations).toHaveBeenCalledTimes(1);
    expect(await startedVersion()).toEqual({ version, workload: { note: 'second' } });
    expect(expectations).toHaveBeenCalledTimes(2);
    const [counted] = await t.database.query<{ executions: number }>(
      `SELECT count(*)::int AS executions FROM noetl.execution WHERE path = 'tests/expected-catalog'`,
    );
    const [started] = await t.database.query<{ events: number }>(
      `SELECT count(*)::int AS events FROM noetl.event WHERE event_type = 'execution.started' AND payload->>'path' = 'tests/expected-catalog'`,
    );
    // The refused start left nothing behind: one row and one started event per start.
    expect(started?.events).toBe(counted?.executions);
  });
});
