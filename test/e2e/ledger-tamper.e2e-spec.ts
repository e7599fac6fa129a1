import type { AddressInfo } from 'node:net';
import { envelopeChecksum } from '@noetl/event-kernel';
import { EVENT_SELECT_LIST, toLedgerEvent, type EventRow as EventStoreRow } from '@noetl/storage';
import { Client } from 'pg';
import request from 'supertest';
import { startApiTestApp, type ApiTestApp } from '../../libs/roles/src/api/testing/api-test-app';
import { verifyAll } from '../../apps/cli/src/commands/verify.command';
import { ServerClient } from '../../apps/cli/src/shared/server-client';
import { captureOutput } from '../../apps/cli/src/shared/testing/capture-output';
import { waitFor } from '../support/wait-for';

const PLAYBOOK = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: tamper, path: tamper/chain}
workflow:
  - step: a
    tool: {kind: javascript, code: "return {n: 1}"}
    next: [{step: b}]
  - step: b
    tool: {kind: javascript, code: "return {n: input.n + 1}", input: {n: "{{ a.n }}"}}
    next: [{step: c}]
  - step: c
    tool: {kind: javascript, code: "return {n: input.n + 1}", input: {n: "{{ b.n }}"}}
`;

interface EventRow {
  event_id: string;
  event_type: string;
  node_name: string | null;
  stream_version: number;
}

/**
 * Issue 25 item 3, as an attacker with the cluster's superuser meets it: an
 * event edited or deleted under `session_replication_role = replica` (so the
 * append-only triggers do not fire) is found by `verify`, which names the
 * first bad position; a replay of a ledger with a hole answers 409
 * `ledger_corrupt`, never 500.
 */
describe('a ledger changed behind the runtime', () => {
  let api: ApiTestApp;
  let superuser: Client;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler,worker,projector' });
    superuser = new Client({ connectionString: api.config.database.url!.reveal() });
    await superuser.connect();
    await request(api.http).post('/api/catalog/register').send({ content: PLAYBOOK }).expect(201);
  });

  afterAll(async () => {
    await superuser?.end();
    await api?.close();
  });

  /** Runs the chain to COMPLETED and waits until its projection holds every event. */
  async function completedRun(): Promise<{ id: string; events: EventRow[] }> {
    const id: string = (await request(api.http).post('/api/execute').send({ path: 'tamper/chain' }).expect(201)).body.execution_id;
    await waitFor(async () => (await request(api.http).get(`/api/executions/${id}`).expect(200)).body.status === 'COMPLETED', {
      timeoutMs: 20_000,
    });
    const events = (
      await superuser.query<EventRow>(
        'SELECT event_id, event_type, node_name, stream_version FROM noetl.event WHERE execution_id = $1 ORDER BY stream_version',
        [id],
      )
    ).rows;
    await waitFor(
      async () =>
        (await superuser.query('SELECT 1 FROM noetl.projection WHERE projection_key = $1 AND version = $2', [id, events.length]))
          .rowCount === 1,
      {
        description: `the projection of ${id} at its last event`,
      },
    );
    return { id, events };
  }

  const asSuperuser = async (sql: string, params: unknown[]) => {
    await superuser.query('BEGIN');
    await superuser.query('SET LOCAL session_replication_role = replica');
    await superuser.query(sql, params);
    await superuser.query('COMMIT');
  };
  const verify = async (id: string) => (await request(api.http).get(`/api/executions/${id}/verify`).expect(200)).body;
  const completedOf = (events: EventRow[], step: string) =>
    events.find((e) => e.event_type === 'command.completed' && e.node_name === step)!;

  it('finds an untouched ledger intact', async () => {
    const { id, events } = await completedRun();
    expect(await verify(id)).toEqual({ execution_id: id, ok: true, events: events.length, first_bad_position: null, reason: null });
  });

  it('names an edited event, and, when its checksum was recomputed too, the same event by its chain link', async () => {
    const { id, events } = await completedRun();
    const target = completedOf(events, 'b');
    await asSuperuser(`UPDATE noetl.event SET payload = jsonb_set(payload, '{result}', '{"n": 999}') WHERE event_id = $1`, [
      target.event_id,
    ]);
    expect(await verify(id)).toMatchObject({
      ok: false,
      first_bad_position: target.event_id,
      reason: expect.stringContaining('its content does not match its checksum'),
    });
    // A careful attacker recomputes the checksum: the chain hash the database wrote no longer follows.
    const [stored] = (
      await superuser.query<EventStoreRow>(`SELECT ${EVENT_SELECT_LIST} FROM noetl.event WHERE event_id = $1`, [target.event_id])
    ).rows;
    await asSuperuser('UPDATE noetl.event SET checksum = $2 WHERE event_id = $1', [
      target.event_id,
      envelopeChecksum(toLedgerEvent(stored!)),
    ]);
    expect(await verify(id)).toMatchObject({
      ok: false,
      first_bad_position: target.event_id,
      reason: expect.stringContaining('its chain hash does not follow'),
    });
  });

  it('names the event after a deleted one, and a replay answers 409 ledger_corrupt', async () => {
    const { id, events } = await completedRun();
    const deleted = completedOf(events, 'a');
    const next = events.find((e) => e.stream_version === deleted.stream_version + 1)!;
    await asSuperuser('DELETE FROM noetl.event WHERE event_id = $1', [deleted.event_id]);
    expect(await verify(id)).toMatchObject({
      ok: false,
      first_bad_position: next.event_id,
      reason: expect.stringContaining(`version ${deleted.stream_version} of its stream is missing`),
    });
    const replay = await request(api.http).get('/api/replay/state').query({ execution_id: id, snapshots: 'false' });
    expect(replay.status).toBe(409);
    expect(replay.body).toMatchObject({ code: 'ledger_corrupt', details: { first_bad_position: next.event_id } });
  });

  it('finds the last event deleted from what its projection folded', async () => {
    const { id, events } = await completedRun();
    const last = events[events.length - 1]!;
    await asSuperuser('DELETE FROM noetl.event WHERE event_id = $1', [last.event_id]);
    expect(await verify(id)).toMatchObject({
      ok: false,
      reason: expect.stringContaining(`the ledger ends at version ${last.stream_version - 1}`),
    });
  });

  it('lists every execution with `noetl verify --all`, broken ones named', async () => {
    await api.app.listen(0, '127.0.0.1');
    const client = new ServerClient(`http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`);
    const output = captureOutput();
    expect(await verifyAll(client, output)).toBe(3);
    expect(output.stdout.filter((line) => line.includes(' ok ('))).toHaveLength(1);
    expect(output.stdout.filter((line) => line.includes(' BROKEN at position '))).toHaveLength(3);
    expect(output.stdout.at(-1)).toBe('4 execution(s) verified, 3 broken');
  });
});
