import { Client } from 'pg';
import { EventType } from '@noetl/event-kernel';
import { e2ePlaybook, startE2eApp, type E2eApp } from '../support/e2e-app';
import { ofType } from '../support/ledger-checks';
import { createEmptyDatabase, type TestDatabase } from '../support/test-database';

// One app boot per file plus executions with loops, frames and paginated calls.
jest.setTimeout(60_000);

/**
 * The seed-004 table sink `{tool: {kind: postgres, auth, table, mode, args | key}}`
 * (issue 13 item 5) writes real rows: on a loop step, inside a `process: frame`
 * loop, and per page in a retry policy's `per_iteration`; `upsert` updates the
 * rows an earlier execution wrote. The tables live in a database of their own,
 * reached through a stored credential, as a pipeline's target would.
 */
describe('table sinks over the REST API', () => {
  let app: E2eApp;
  let target: TestDatabase;
  let db: Client;

  beforeAll(async () => {
    [app, target] = await Promise.all([startE2eApp(), createEmptyDatabase()]);
    db = new Client({ connectionString: target.url });
    await db.connect();
    await db.query(`
      CREATE TABLE sink_users (id int PRIMARY KEY, name text NOT NULL, tags jsonb NOT NULL, written_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE sink_scores (user_id int NOT NULL, score int NOT NULL, frame int NOT NULL);
      CREATE TABLE sink_page_items (id int NOT NULL, label text NOT NULL);
      CREATE TABLE sink_page_summary (name text PRIMARY KEY, last_page int NOT NULL, item_count int NOT NULL);
    `);
    const url = new URL(target.url);
    await app.client.createCredential('sink_pg', 'postgres', {
      db_host: url.hostname,
      db_port: Number(url.port || 5432),
      db_user: decodeURIComponent(url.username),
      db_password: decodeURIComponent(url.password),
      db_name: url.pathname.slice(1),
    });
    await app.client.register(e2ePlaybook('table-sinks'));
  });

  afterAll(async () => {
    await db?.end();
    await Promise.all([app?.close(), target?.drop()]);
  });

  const rows = async (sql: string): Promise<unknown[]> => (await db.query(sql)).rows;

  it('inserts and upserts the rows of a loop step, a frame loop and every page of a continuation', async () => {
    const first = await app.client.waitForTerminal(await app.client.execute('e2e/table_sinks'), 30_000);
    expect(first.status).toBe('COMPLETED');

    expect(await rows('SELECT id, name, tags FROM sink_users ORDER BY id')).toEqual([
      { id: 1, name: 'ADA', tags: ['math'] },
      { id: 2, name: 'GRACE', tags: ['navy', 'cobol'] },
      { id: 3, name: 'LINUS', tags: [] },
    ]);
    expect(await rows('SELECT user_id, score, frame FROM sink_scores ORDER BY user_id')).toEqual([
      { user_id: 1, score: 30, frame: 0 },
      { user_id: 2, score: 50, frame: 0 },
      { user_id: 3, score: 50, frame: 1 },
    ]);
    expect(await rows('SELECT id, label FROM sink_page_items ORDER BY id')).toEqual([
      { id: 11, label: 'a1' },
      { id: 12, label: 'b1' },
      { id: 21, label: 'a2' },
      { id: 22, label: 'b2' },
      { id: 31, label: 'a3' },
      { id: 32, label: 'b3' },
    ]);
    expect(await rows('SELECT name, last_page, item_count FROM sink_page_summary')).toEqual([
      { name: 'summary', last_page: 2, item_count: 4 },
    ]);
    const events = await app.client.events(first.execution_id);
    expect(ofType(events, EventType.LoopDone).map((e) => e.step)).toEqual(['each_user', 'scores']);

    const second = await app.client.waitForTerminal(await app.client.execute('e2e/table_sinks', { suffix: '!!' }), 30_000);
    expect(second.status).toBe('COMPLETED');
    expect(await rows('SELECT id, name FROM sink_users ORDER BY id')).toEqual([
      { id: 1, name: 'ADA!!' },
      { id: 2, name: 'GRACE!!' },
      { id: 3, name: 'LINUS!!' },
    ]);
    expect(await rows('SELECT count(*)::int AS n FROM sink_scores')).toEqual([{ n: 6 }]);
    expect(await rows('SELECT count(*)::int AS n FROM sink_page_items')).toEqual([{ n: 12 }]);
    expect(await rows('SELECT name, last_page, item_count FROM sink_page_summary')).toEqual([
      { name: 'summary', last_page: 2, item_count: 6 },
    ]);
  });

  it('fails every row of a frame whose statement the table refuses, writing none of them', async () => {
    const before = await rows('SELECT count(*)::int AS n FROM sink_scores');
    // Only frame 0's first row (score 30) would pass: the frame's one statement writes all of its rows or none.
    await db.query('ALTER TABLE sink_scores ADD CONSTRAINT small_scores CHECK (score < 40) NOT VALID');
    const detail = await app.client.waitForTerminal(await app.client.execute('e2e/table_sinks'), 30_000);
    await db.query('ALTER TABLE sink_scores DROP CONSTRAINT small_scores');

    expect(detail.loops.find((loop) => loop.step === 'scores')).toMatchObject({ total: 3, done: 0, failed: 3, completed: true });
    expect(await rows('SELECT count(*)::int AS n FROM sink_scores')).toEqual(before);
    const committed = ofType(await app.client.events(detail.execution_id), EventType.FrameCommitted).filter((e) => e.step === 'scores');
    const errors = committed.flatMap(
      (e) => (e.payload as { failed_rows: { status: string; error?: { kind: string; message: string } }[] }).failed_rows,
    );
    expect(errors).toHaveLength(3);
    for (const row of errors) {
      expect(row).toMatchObject({ status: 'error', error: { kind: 'db', message: expect.stringContaining('small_scores') } });
    }
  });
});
