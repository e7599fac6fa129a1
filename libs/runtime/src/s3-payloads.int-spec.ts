import { randomUUID } from 'node:crypto';
import { EventType, LIST_PARTS_MEDIA_TYPE, type ListParts, type PayloadRef } from '@noetl/event-kernel';
import { getJson, PayloadReferenceRepository, S3PayloadStore } from '@noetl/storage';
import { startS3TestServer, type S3TestServer } from '../../../test/support/s3-test-server';
import { startTestEngine, type TestEngine } from '../../../test/support/test-engine';
import { waitFor } from '../../../test/support/wait-for';
import { collectUnreferencedObjects } from './admin/collect-unreferenced-objects';
import { openPayloadStores, type PayloadStores } from './payload-stores';

const MIN_BYTES = 4096;
const ONE_MB = 1024 * 1024;
const SCOPE = { tenantId: 'default', organizationId: 'default' };

const BIG_RESULT = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: s3_big, path: tests/s3-big}
workflow:
  - step: produce
    tool: {kind: javascript, code: "return {blob: input.salt + 'x'.repeat(2 * 1024 * 1024)}", input: {salt: "{{ workload.salt }}"}}
    next: [{step: summary}]
  - step: summary
    tool: {kind: javascript, code: "return {length: input.n, tail: 'y'.repeat(5000)}", input: {n: "{{ produce.blob | length }}"}}
`;

/** 5,000 items of about 120 bytes, salted per execution (content addressing would share them otherwise): the collection, each frame's outputs and the loop's result all exceed the bucket threshold. */
const LOOP = (path: string, mode: 'parallel' | 'sequential', maxRows: number): string => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: s3_loop, path: ${path}}
workflow:
  - step: start
    tool: {kind: javascript, code: "return {items: Array.from({length: 5000}, (_, i) => ({id: i, pad: input.salt + 'p'.repeat(64)}))}", input: {salt: "{{ workload.salt }}"}}
    next: [{step: each}]
  - step: each
    loop: {in: "{{ start.items }}", iterator: item, spec: {mode: ${mode}, max_in_flight: 4, frame: {max_rows: ${maxRows}}}}
    tool: {kind: noop, input: {id: "{{ item.id }}", pad: "{{ item.pad }}"}}
`;

/**
 * Issue 27: with NOETL_PAYLOAD_STORE=s3 (s3rver on loopback standing in for
 * MinIO or S3), what exceeds the inline limit and the bucket threshold lives
 * in the bucket, events stay small, loops complete through an outage of the
 * bucket, and retention deletes the objects a purge leaves unreferenced.
 */
describe('payloads in an S3 bucket', () => {
  let server: S3TestServer;
  let t: TestEngine;
  let objects: S3PayloadStore;
  /** The engine's own tiers, to read what lives in either. */
  let stores: PayloadStores;

  beforeAll(async () => {
    server = await startS3TestServer();
    t = await startTestEngine({
      env: { ...server.env, NOETL_S3_MIN_BYTES: String(MIN_BYTES), NOETL_PAYLOAD_INLINE_LIMIT: '1024', NOETL_S3_GC_GRACE_SECONDS: '0' },
    });
    objects = await S3PayloadStore.connect(t.config.payloads.s3!);
    stores = await openPayloadStores(t.config.payloads, t.database);
    await t.engine.own.catalog.register(BIG_RESULT);
  });
  afterAll(async () => {
    objects?.close();
    stores?.objects?.close();
    await t?.close();
    await server?.close();
  });

  const inBucket = async (ref: PayloadRef | undefined): Promise<boolean> =>
    Boolean(ref) && (await server.keys()).includes(`noetl/default/default/${ref!.sha256}`);
  const largestEvent = async (executionId: string): Promise<number> =>
    (
      await t.database.query<{ n: number }>(
        'SELECT coalesce(max(octet_length(payload::text)), 0)::int AS n FROM noetl.event WHERE execution_id = $1::bigint',
        [executionId],
      )
    )[0]!.n;
  const payloadRows = async (sha: string): Promise<number> =>
    (await t.database.query<{ n: number }>('SELECT count(*)::int AS n FROM noetl.payload WHERE sha256 = $1', [sha]))[0]!.n;
  const resultRefOf = async (executionId: string, step: string): Promise<PayloadRef | undefined> => {
    const { events } = await t.engine.own.executions.events(executionId, { type: [EventType.CommandCompleted], limit: 100 });
    return (events.find((e) => e.step === step)?.payload as unknown as { result_ref?: PayloadRef } | undefined)?.result_ref;
  };

  it('keeps a 2 MB step result in the bucket, out of noetl.event and noetl.payload', async () => {
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/s3-big', payload: { salt: randomUUID() } });
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 30_000 });

    expect(detail).toMatchObject({ status: 'COMPLETED', result: { length: 2 * ONE_MB + 36 } });
    const ref = await resultRefOf(execution_id, 'produce');
    expect(ref?.bytes).toBeGreaterThan(2 * ONE_MB);
    expect(await inBucket(ref)).toBe(true);
    expect(await payloadRows(ref!.sha256)).toBe(0);
    expect(await largestEvent(execution_id)).toBeLessThan(ONE_MB);
  });

  it('runs a 5,000-item loop whose collection and frame outputs are objects in the bucket', async () => {
    await t.engine.own.catalog.register(LOOP('tests/s3-loop', 'parallel', 1000));
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/s3-loop', payload: { salt: randomUUID() } });
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 120_000 });

    expect(detail.status).toBe('COMPLETED');
    const result = detail.result as { results: { id: number }[]; stats: { total: number; failed: number } };
    expect(result.stats).toMatchObject({ total: 5000, failed: 0 });
    expect(result.results.map((r) => r.id)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    const { events } = await t.engine.own.executions.events(execution_id, {
      type: [EventType.LoopStarted, EventType.FrameCommitted],
      limit: 100,
    });
    const started = events.find((e) => e.event_type === EventType.LoopStarted)?.payload as unknown as {
      size: number;
      collection_ref?: PayloadRef;
    };
    expect(started.size).toBe(5000);
    // Over NOETL_COLLECTION_OFFLOAD_ITEMS the collection is stored in parts of about 256 KiB, each an object; their manifest is small, so in the database.
    expect(started.collection_ref?.media_type).toBe(LIST_PARTS_MEDIA_TYPE);
    const manifest = await getJson<ListParts>(stores.store, started.collection_ref!, SCOPE);
    expect(manifest.items).toBe(5000);
    expect(manifest.parts.length).toBeGreaterThanOrEqual(1);
    for (const part of manifest.parts) expect('ref' in part && (await inBucket(part.ref))).toBe(true);
    const outputs = events
      .filter((e) => e.event_type === EventType.FrameCommitted)
      .map((e) => (e.payload as unknown as { output_ref?: PayloadRef }).output_ref);
    expect(outputs).toHaveLength(5);
    for (const ref of outputs) expect(await inBucket(ref)).toBe(true);
    expect(await largestEvent(execution_id)).toBeLessThan(ONE_MB);
  }, 150_000);

  it('finishes a loop through 5 s of the bucket being unreachable, losing no row', async () => {
    await t.engine.own.catalog.register(LOOP('tests/s3-outage', 'sequential', 100));
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/s3-outage', payload: { salt: randomUUID() } });
    await waitFor(
      async () => (await t.engine.own.executions.events(execution_id, { type: [EventType.FrameCommitted], limit: 1 })).events.length > 0,
      { timeoutMs: 60_000, description: 'the first frame commit' },
    );
    await server.stop();
    const restartedAt = await new Promise<number>((resolve, reject) =>
      setTimeout(() => server.start().then(() => resolve(Date.now()), reject), 5000),
    );

    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 120_000 });

    expect(detail.status).toBe('COMPLETED');
    const result = detail.result as { results: { id: number }[]; stats: { total: number; failed: number } };
    expect(result.stats).toMatchObject({ total: 5000, failed: 0 });
    expect(result.results.map((r) => r.id)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    const { events } = await t.engine.own.executions.events(execution_id, { type: [EventType.FrameCommitted], limit: 100 });
    expect(events).toHaveLength(50);
    // The loop was in flight through the outage: frames committed after the bucket came back.
    expect(events.some((e) => new Date(e.created_at).getTime() >= restartedAt)).toBe(true);
    for (const e of events) expect(await inBucket((e.payload as unknown as { output_ref?: PayloadRef }).output_ref)).toBe(true);
  }, 180_000);

  it('deletes, after a purge, the objects no remaining event references, once past the grace period', async () => {
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/s3-big', payload: { salt: randomUUID() } });
    expect(await t.engine.waitForTerminal(execution_id, { timeoutMs: 30_000 })).toMatchObject({ status: 'COMPLETED' });
    const intermediate = (await resultRefOf(execution_id, 'produce'))!;
    const final = (await resultRefOf(execution_id, 'summary'))!;
    expect(await inBucket(intermediate)).toBe(true);
    expect(await inBucket(final)).toBe(true);
    // Within the grace period nothing goes, referenced or not.
    const collection = { objects, payloads: stores.store, references: new PayloadReferenceRepository(), graceMs: 3_600_000 };
    expect(await collectUnreferencedObjects(t.database, SCOPE, collection, new Date())).toEqual([]);

    await t.engine.own.admin.purge(execution_id, { reason: 'retention spec' });

    // The 2 MB result was named only by purged events; the execution's result is still named by its row and kept terminal event.
    await t.engine.own.objectCollector!.idle();
    expect(await inBucket(intermediate)).toBe(false);
    expect(await inBucket(final)).toBe(true);
    expect(await t.engine.own.executions.get(execution_id)).toMatchObject({ status: 'COMPLETED', result: { length: 2 * ONE_MB + 36 } });
  }, 60_000);

  it('keeps, after a purge, the frame outputs a kept loop result names through its manifest', async () => {
    await t.engine.own.catalog.register(LOOP('tests/s3-loop-kept', 'parallel', 1000));
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/s3-loop-kept', payload: { salt: randomUUID() } });
    expect(await t.engine.waitForTerminal(execution_id, { timeoutMs: 120_000 })).toMatchObject({ status: 'COMPLETED' });
    const { events } = await t.engine.own.executions.events(execution_id, {
      type: [EventType.LoopStarted, EventType.FrameCommitted],
      limit: 100,
    });
    const started = events.find((e) => e.event_type === EventType.LoopStarted)?.payload as unknown as { collection_ref: PayloadRef };
    const parts = (await getJson<ListParts>(stores.store, started.collection_ref, SCOPE)).parts.flatMap((part) =>
      'ref' in part ? [part.ref] : [],
    );
    const outputs = events.flatMap((e) => (e.payload as unknown as { output_ref?: PayloadRef }).output_ref ?? []);
    expect(outputs).toHaveLength(5);

    await t.engine.own.admin.purge(execution_id, { reason: 'retention spec' });
    await t.engine.own.objectCollector!.idle();

    // Only the purged loop.started named the collection; the execution's result (a manifest of the frames' outputs) is kept.
    for (const part of parts) expect(await inBucket(part)).toBe(false);
    for (const output of outputs) expect(await inBucket(output)).toBe(true);
    const detail = await t.engine.own.executions.get(execution_id);
    expect((detail.result as { results: { id: number }[] }).results.map((r) => r.id)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  }, 150_000);
});
