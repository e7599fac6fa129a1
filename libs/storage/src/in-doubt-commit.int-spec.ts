import { createServer, connect, type Server, type Socket } from 'node:net';
import { buildEvent, EventType, SnowflakeIds } from '@noetl/event-kernel';
import { Database, InDoubtCommitError, PgEventStore } from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const ids = new SnowflakeIds(12, () => Date.now());

/**
 * A TCP proxy on loopback in front of the real PostgreSQL that, once armed,
 * forwards the client's next message holding COMMIT and cuts the connection
 * when the server's reply comes, without relaying it: the server committed,
 * the client never hears so.
 */
class CommitCutter {
  private armed = false;
  commitsSeen = 0;
  cuts = 0;
  private readonly sockets = new Set<Socket>();

  readonly server: Server;

  private constructor(target: { host: string; port: number }) {
    this.server = createServer((client) => this.forward(client, target));
  }

  static async start(target: { host: string; port: number }): Promise<CommitCutter> {
    const cutter = new CommitCutter(target);
    await new Promise<void>((resolve) => cutter.server.listen(0, '127.0.0.1', resolve));
    return cutter;
  }

  private forward(client: Socket, target: { host: string; port: number }): void {
    const upstream = connect(target.port, target.host);
    this.sockets.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    let swallowReply = false;
    upstream.on('data', (chunk: Buffer) => {
      if (swallowReply) drop();
      else client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => {
      // A simple-protocol message ('Q') carrying COMMIT: PipelinedTransaction sends its COMMIT so.
      const commit = chunk[0] === 0x51 && chunk.includes('COMMIT');
      if (commit) this.commitsSeen++;
      if (commit && this.armed) {
        this.armed = false;
        this.cuts++;
        // Forwarded whole; its reply is never relayed: both ends are cut when it comes.
        swallowReply = true;
      }
      upstream.write(chunk);
    });
  }

  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  arm(): void {
    this.armed = true;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Issue 29, the in-doubt commit: the connection dies after COMMIT went and
 * before its reply came. The append is settled by its event ids: run again,
 * it finds its event stored, and it ends exactly once, with no error.
 */
describe('a commit whose reply is lost', () => {
  let testDatabase: TestDatabase;
  let cutter: CommitCutter;
  let db: Database;
  let direct: Database;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    const url = new URL(testDatabase.url);
    cutter = await CommitCutter.start({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${cutter.port}`;
    db = await Database.connect(url.toString(), { poolSize: 2 });
    direct = await Database.connect(testDatabase.url, { poolSize: 1 });
  });
  afterAll(async () => {
    await db?.close();
    await direct?.close();
    await cutter?.close();
    await testDatabase?.drop();
  });

  const started = (executionId: string) =>
    buildEvent(
      { type: EventType.ExecutionStarted, executionId, payload: { path: 'in-doubt', version: 1, catalog_id: '1', workload: {} } },
      { ids, now: () => new Date(), producer: 'in-doubt-commit.int-spec', tenantId: 't', organizationId: 'o' },
    );

  it('ends an append exactly once: stored once, reported appended, no error', async () => {
    const event = started(ids.next());
    cutter.arm();
    const commitsBefore = cutter.commitsSeen;

    const [result] = await new PgEventStore(db).append([event]);

    expect(cutter.cuts).toBe(1);
    // The cut COMMIT, then the retry's.
    expect(cutter.commitsSeen - commitsBefore).toBe(2);
    expect(result).toMatchObject({ duplicate: false, event: { event_id: event.event_id, execution_id: event.execution_id } });
    const rows = await direct.query<{ n: number }>('SELECT count(*)::int AS n FROM noetl.event WHERE event_id = $1::bigint', [
      event.event_id,
    ]);
    expect(rows[0]!.n).toBe(1);
  });

  it('ends an append with an expected stream version exactly once: the version its own events moved is no conflict', async () => {
    const event = started(ids.next());
    cutter.arm();

    const [result] = await new PgEventStore(db).append([event], { expectedVersion: { streamId: event.stream_id, version: 0 } });

    expect(result).toMatchObject({ duplicate: false, event: { event_id: event.event_id, stream_version: 1 } });
    const rows = await direct.query<{ n: number }>('SELECT count(*)::int AS n FROM noetl.event WHERE stream_id = $1', [event.stream_id]);
    expect(rows[0]!.n).toBe(1);
  });

  it('reports a non-idempotent transaction cut during COMMIT as in doubt, not as a plain failure', async () => {
    const event = started(ids.next());
    cutter.arm();
    const store = new PgEventStore(db);

    const outcome = await db
      .transaction((q) => store.appendWithin(q, [event]))
      .then(
        () => 'committed',
        (error: unknown) => error,
      );

    expect(outcome).toBeInstanceOf(InDoubtCommitError);
    // It did commit: the server had the COMMIT; only its reply was lost.
    const rows = await direct.query<{ n: number }>('SELECT count(*)::int AS n FROM noetl.event WHERE event_id = $1::bigint', [
      event.event_id,
    ]);
    expect(rows[0]!.n).toBe(1);
    // And the pool goes on, on a fresh connection.
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
