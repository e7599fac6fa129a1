import { EventType } from '@noetl/event-kernel';
import { ApiKeys, type Access, allows, type Role } from '@noetl/runtime';
import { Database } from '@noetl/storage';
import request from 'supertest';
import { TEST_ENCRYPTION_KEY } from '../../../../../test/support/test-engine';
import { waitFor } from '../../../../../test/support/wait-for';
import { startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

/**
 * The route-by-route authorization matrix (issue 11): every route Swagger
 * lists, called with no key, a malformed key, tenant A's viewer, another
 * tenant's key of the role the route asks for, and tenant A's key of that
 * role. The access each route asks for is this table's, written down here
 * on its own (not read back from the app), and the table must cover exactly
 * the routes Swagger lists. Another tenant's calls name tenant A's real ids
 * and must find nothing and change nothing: no answer to them carries any
 * of tenant A's ids, names or secrets.
 */

type Method = 'get' | 'post' | 'patch' | 'delete';

interface Route {
  access: Access;
  /** A valid body, so validation never answers before the tenant check does. */
  body?: (ids: Ids) => object;
  /** The query string. */
  query?: (ids: Ids) => Record<string, string>;
  /** The path parameter: tenant A's real id of the resource. */
  param?: (ids: Ids) => string;
  /** A mutation: tenant A's own call gets an id of nothing (a 404 still proves it was let in) instead of a real one. */
  mutates?: boolean;
  /** What another tenant's call on tenant A's id answers, when not 404. */
  otherTenant?: number;
}

/** Tenant A's resources (and its secrets), which no call of tenant B may see. */
interface Ids {
  execution: string;
  loopExecution: string;
  command: string;
  stage: string;
  frame: string;
  keyId: string;
  worker: string;
  schedule: string;
}

const holder = { worker_id: 'matrix-worker', lease_token: 'x'.repeat(43) };
const error = { kind: 'code', message: 'matrix' };

const ROUTES: Record<string, Route> = {
  'get /health/live': { access: 'public' },
  'get /health/ready': { access: 'public' },
  'get /metrics': { access: 'public' },
  'get /api/schema/playbook': { access: 'public' },
  'get /api/auth/sign-in-options': { access: 'public' },
  'post /api/catalog/register': { access: 'developer', body: () => ({ content: PLAYBOOK_B_LIKE }), mutates: true },
  'get /api/catalog': { access: 'viewer' },
  'get /api/catalog/versions': { access: 'viewer', query: () => ({ path: PATH_A }) },
  'get /api/catalog/playbook': { access: 'viewer', query: () => ({ path: PATH_A }) },
  'post /api/execute': { access: 'developer', body: () => ({ path: PATH_A }), mutates: true },
  'get /api/executions': { access: 'viewer' },
  'get /api/executions/counts': { access: 'viewer' },
  'get /api/executions/{id}': { access: 'viewer', param: (ids) => ids.execution },
  'get /api/executions/{id}/events': { access: 'viewer', param: (ids) => ids.execution },
  'post /api/executions/{id}/rerun': {
    access: 'developer',
    param: (ids) => ids.execution,
    body: () => ({ payload: { matrix: true } }),
    mutates: true,
  },
  'post /api/executions/{id}/cancel': {
    access: 'developer',
    param: (ids) => ids.execution,
    body: () => ({ reason: 'matrix' }),
    mutates: true,
  },
  'get /api/replay/state': { access: 'viewer', query: (ids) => ({ execution_id: ids.execution }) },
  'get /api/executions/{id}/verify': { access: 'viewer', param: (ids) => ids.execution },
  'get /api/executions/{id}/timeline': { access: 'viewer', param: (ids) => ids.execution },
  'get /api/replay/diff': { access: 'viewer', query: (ids) => ({ execution_id: ids.execution, from_position: '1', to_position: '1' }) },
  'get /api/workers': { access: 'viewer' },
  'post /api/workers/{id}/heartbeat': {
    access: 'worker',
    param: (ids) => ids.worker,
    body: () => ({ node: 'intruder', slots: 1, free_slots: 1, status: 'ACTIVE' }),
    mutates: true,
    // Worker ids are per tenant (issue 25 item 8): the same id from another tenant registers a worker of its own, and
    // says nothing of A's (the check after every route finds A's row untouched).
    otherTenant: 200,
  },
  // Names no tenant's data: the one ledger every tenant's workers must not reach.
  'get /api/workers/ledger': { access: 'worker', otherTenant: 200 },
  'post /api/commands/{id}/claim': {
    access: 'worker',
    param: (ids) => ids.command,
    body: () => ({ worker_id: 'matrix-worker' }),
    mutates: true,
  },
  'post /api/commands/{id}/heartbeat': { access: 'worker', param: (ids) => ids.command, body: () => holder, mutates: true },
  'post /api/commands/{id}/complete': {
    access: 'worker',
    param: (ids) => ids.command,
    body: () => ({ ...holder, result: { forged: true } }),
    mutates: true,
  },
  'post /api/commands/{id}/fail': { access: 'worker', param: (ids) => ids.command, body: () => ({ ...holder, error }), mutates: true },
  'post /api/commands/{id}/release': { access: 'worker', param: (ids) => ids.command, body: () => holder, mutates: true },
  'post /api/commands/{id}/partial': {
    access: 'worker',
    param: (ids) => ids.command,
    body: () => ({ ...holder, chunk_index: 0, has_more: false, columns: ['n'], rows: [{ n: 1 }] }),
    mutates: true,
  },
  // Answers only the lease's holder (409 lease_lost to the matrix's forged one), as a heartbeat does.
  'post /api/commands/{id}/stream-backlog': { access: 'worker', param: (ids) => ids.command, body: () => holder, mutates: true },
  'post /api/commands/{id}/child': {
    access: 'worker',
    param: (ids) => ids.command,
    body: () => ({ ...holder, path: PATH_A }),
    mutates: true,
  },
  'post /api/commands/{id}/credential': {
    access: 'worker',
    param: (ids) => ids.command,
    body: () => ({ ...holder, name: CREDENTIAL_A }),
    mutates: true,
  },
  'post /api/events': {
    access: 'worker',
    body: (ids) => ({ ...holder, command_id: ids.command, calls: [{ task: 't', attempts: 1, duration_ms: 1, status: 'ok' }] }),
    mutates: true,
  },
  'post /api/stages/{id}/frames/claim': {
    access: 'worker',
    param: (ids) => ids.stage,
    body: () => ({ worker_id: 'matrix-worker' }),
    mutates: true,
  },
  'post /api/frames/{id}/heartbeat': { access: 'worker', param: (ids) => ids.frame, body: () => holder, mutates: true },
  'post /api/frames/{id}/commit': {
    access: 'worker',
    param: (ids) => ids.frame,
    body: () => ({ ...holder, rows: [{ index: 0, status: 'ok' }] }),
    mutates: true,
  },
  'post /api/frames/{id}/fail': { access: 'worker', param: (ids) => ids.frame, body: () => ({ ...holder, error }), mutates: true },
  'post /api/frames/{id}/release': { access: 'worker', param: (ids) => ids.frame, body: () => holder, mutates: true },
  'post /api/frames/{id}/credential': {
    access: 'worker',
    param: (ids) => ids.frame,
    body: () => ({ ...holder, name: CREDENTIAL_A }),
    mutates: true,
  },
  'post /api/children': {
    access: 'worker',
    body: (ids) => ({ ...holder, path: PATH_A, holder: { kind: 'command', id: ids.command }, key: 'matrix' }),
    mutates: true,
  },
  // Not a mutation, but it asks for the lease of the call's command, which the matrix's worker does not hold: no 200 is due.
  'post /api/children/{id}/outcome': {
    access: 'worker',
    param: (ids) => ids.execution,
    body: (ids) => ({ ...holder, holder: { kind: 'command', id: ids.command } }),
    mutates: true,
  },
  'get /api/admin/stuck': { access: 'operator' },
  'post /api/admin/commands/{id}/reclaim': {
    access: 'operator',
    param: (ids) => ids.command,
    body: () => ({ reason: 'matrix' }),
    mutates: true,
  },
  'post /api/admin/commands/{id}/fail': {
    access: 'operator',
    param: (ids) => ids.command,
    body: () => ({ reason: 'matrix' }),
    mutates: true,
  },
  'post /api/admin/frames/{id}/reclaim': {
    access: 'operator',
    param: (ids) => ids.frame,
    body: () => ({ reason: 'matrix' }),
    mutates: true,
  },
  'post /api/admin/frames/{id}/fail': { access: 'operator', param: (ids) => ids.frame, body: () => ({ reason: 'matrix' }), mutates: true },
  'post /api/admin/executions/{id}/finalize': {
    access: 'operator',
    param: (ids) => ids.loopExecution,
    body: () => ({ reason: 'matrix' }),
    mutates: true,
  },
  'post /api/admin/executions/{id}/purge': {
    access: 'admin',
    param: (ids) => ids.loopExecution,
    body: () => ({ reason: 'matrix' }),
    mutates: true,
  },
  'post /api/admin/executions/{id}/cancel': {
    access: 'operator',
    param: (ids) => ids.loopExecution,
    body: () => ({ reason: 'matrix' }),
    mutates: true,
  },
  'post /api/credentials': {
    access: 'operator',
    body: () => ({ name: 'matrix_scratch', type: 'http', data: { token: 'scratch' } }),
    mutates: true,
  },
  'get /api/credentials': { access: 'developer' },
  'get /api/credentials/{name}': { access: 'developer', param: () => CREDENTIAL_A },
  'delete /api/credentials/{name}': { access: 'operator', param: () => CREDENTIAL_A, mutates: true },
  'get /api/credentials/{name}/uses': { access: 'operator', param: () => CREDENTIAL_A },
  'get /api/settings/credentials': { access: 'developer' },
  'put /api/settings/credentials': { access: 'admin', body: () => ({ require_binding: false }), mutates: true },
  'post /api/executions/{id}/signals/{name}': {
    access: 'developer',
    param: (ids) => ids.execution,
    body: () => ({ payload: { approved: true } }),
    mutates: true,
  },
  'post /api/schedules': { access: 'developer', body: () => ({ path: PATH_A, interval_seconds: 3600, paused: true }), mutates: true },
  'get /api/schedules': { access: 'viewer' },
  'get /api/schedules/{id}': { access: 'viewer', param: (ids) => ids.schedule },
  'patch /api/schedules/{id}': { access: 'developer', param: (ids) => ids.schedule, body: () => ({ paused: false }), mutates: true },
  'delete /api/schedules/{id}': { access: 'developer', param: (ids) => ids.schedule, mutates: true },
  'post /api/schedules/{id}/trigger': { access: 'developer', param: (ids) => ids.schedule, mutates: true },
  'get /api/auth/me': { access: 'authenticated' },
  'post /api/keys': { access: 'admin', body: () => ({ name: 'matrix scratch', role: 'viewer' }), mutates: true },
  'get /api/keys': { access: 'admin' },
  'delete /api/keys/{id}': { access: 'admin', param: (ids) => ids.keyId, mutates: true },
};

const PATH_A = 'matrix/tenant_a_only';
const CREDENTIAL_A = 'tenant_a_credential';
const SECRET_A = 'tenant-a-secret-6c1f0e2d';
const PLAYBOOK_B_LIKE = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: scratch, path: matrix/scratch}
workflow:
  - step: start
    tool: {kind: noop}
`;
const playbookA = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: tenant_a_only, path: ${PATH_A}}
workflow:
  - step: start
    tool: {kind: noop}
`;
const loopPlaybookA = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: tenant_a_loop, path: matrix/tenant_a_loop}
workflow:
  - step: each
    loop: {in: [1, 2], iterator: n, spec: {mode: parallel}}
    tool: {kind: noop}
`;

const ROLES: Role[] = ['viewer', 'developer', 'operator', 'admin', 'worker'];

describe('the authorization matrix', () => {
  let api: ApiTestApp;
  let database: Database;
  let ids: Ids;
  const keysOf: Record<'a' | 'b', Partial<Record<Role, string>>> = { a: {}, b: {} };
  /** Every answer to tenant B that carried something of tenant A's (must stay empty). */
  const leaks: string[] = [];
  let markersOfA: string[];

  const call = (method: Method, path: string, key: string | undefined, route: Route, body?: object): Promise<request.Response> => {
    let test = request(api.http)[method](path);
    if (key) test = test.set('Authorization', `Bearer ${key}`);
    if (route.query) test = test.query(route.query(ids));
    return body ? test.send(body) : test;
  };

  beforeAll(async () => {
    // No worker role: commands and frames stay claimable, so tenant B's worker key has real ids of A's to try.
    api = await startApiTestApp({
      NOETL_AUTH: 'on',
      NOETL_ROLES: 'api,scheduler',
      NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      NOETL_SWEEP_MS: '100',
    });
    database = await Database.connect(api.config.database.url!.reveal());
    const keys = api.app.get(ApiKeys);
    for (const [tenant, scope] of [
      ['a', { tenantId: 'tenant-a', organizationId: 'org-a' }],
      ['b', { tenantId: 'tenant-b', organizationId: 'org-b' }],
    ] as const) {
      for (const role of ROLES) keysOf[tenant][role] = (await keys.create({ scope, role, name: `${tenant} ${role}` })).key;
    }
    const asA = (role: Role) => ({ Authorization: `Bearer ${keysOf.a[role]}` });
    await request(api.http).post('/api/catalog/register').set(asA('developer')).send({ content: playbookA }).expect(201);
    await request(api.http).post('/api/catalog/register').set(asA('developer')).send({ content: loopPlaybookA }).expect(201);
    const execution = (await request(api.http).post('/api/execute').set(asA('developer')).send({ path: PATH_A }).expect(201)).body
      .execution_id as string;
    const loopExecution = (
      await request(api.http).post('/api/execute').set(asA('developer')).send({ path: 'matrix/tenant_a_loop' }).expect(201)
    ).body.execution_id as string;
    await request(api.http)
      .post('/api/credentials')
      .set(asA('operator'))
      .send({ name: CREDENTIAL_A, type: 'http', data: { token: SECRET_A } })
      .expect(201);
    await request(api.http)
      .post('/api/workers/worker-of-a/heartbeat')
      .set(asA('worker'))
      .send({ node: 'node-of-a', slots: 4, free_slots: 4, status: 'ACTIVE' })
      .expect(200);
    const command = await waitFor(async () => {
      const events = (await request(api.http).get(`/api/executions/${execution}/events`).set(asA('viewer')).expect(200)).body.events as {
        event_type: string;
        command_id: string | null;
      }[];
      return events.find((event) => event.event_type === EventType.CommandIssued)?.command_id ?? undefined;
    });
    const [frame] = await waitFor(async () => {
      const rows = await database.query<{ frame_id: string; stage_id: string }>(
        'SELECT frame_id::text, stage_id::text FROM noetl.frame WHERE execution_id = $1 ORDER BY frame_index LIMIT 1',
        [loopExecution],
      );
      return rows.length > 0 && rows;
    });
    const keyId = /^noetl_([0-9a-f]{16})_/.exec(keysOf.a.viewer!)![1]!;
    const schedule = (
      await request(api.http)
        .post('/api/schedules')
        .set(asA('developer'))
        .send({ path: PATH_A, interval_seconds: 3600, paused: true })
        .expect(201)
    ).body.schedule_id as string;
    ids = { execution, loopExecution, command, stage: frame!.stage_id, frame: frame!.frame_id, keyId, worker: 'worker-of-a', schedule };
    // Tenant B has work of its own, so its lists are not empty by accident.
    await request(api.http)
      .post('/api/catalog/register')
      .set('Authorization', `Bearer ${keysOf.b.developer}`)
      .send({ content: PLAYBOOK_B_LIKE })
      .expect(201);
    await request(api.http)
      .post('/api/execute')
      .set('Authorization', `Bearer ${keysOf.b.developer}`)
      .send({ path: 'matrix/scratch' })
      .expect(201);
    markersOfA = [
      schedule,
      execution,
      loopExecution,
      command,
      frame!.stage_id,
      frame!.frame_id,
      keyId,
      'worker-of-a',
      'node-of-a',
      PATH_A,
      'tenant_a_loop',
      CREDENTIAL_A,
      SECRET_A,
      'tenant-a',
      'org-a',
    ];
  });

  afterAll(async () => {
    await database?.close();
    await api?.close();
  });

  it('covers exactly the routes Swagger lists', async () => {
    const doc = await request(api.http).get('/docs-json').expect(200);
    const listed = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    expect(listed.sort()).toEqual(Object.keys(ROUTES).sort());
  });

  describe.each(Object.entries(ROUTES))('%s', (name, route) => {
    const [method, template] = name.split(' ') as [Method, string];
    // The first parameter names the resource; a second (a signal's name) is any name.
    const pathOf = (param: string | undefined): string =>
      param === undefined ? template : template.replace(/\{\w+\}/, encodeURIComponent(param)).replace(/\{\w+\}/, 'go');
    const ownRole = (): Role => (route.access === 'public' || route.access === 'authenticated' ? 'viewer' : route.access);

    it('answers no key and a malformed or unknown key with 401 (a public route answers)', async () => {
      const path = pathOf(route.param?.(ids));
      const body = route.body?.(ids);
      const unknownKey = `noetl_${'0'.repeat(16)}_${'A'.repeat(43)}`;
      const statuses = [
        (await call(method, path, undefined, route, body)).status,
        (await call(method, path, 'not-a-key', route, body)).status,
        (await call(method, path, unknownKey, route, body)).status,
      ];
      if (route.access === 'public') expect(statuses.every((status) => status < 400)).toBe(true);
      else expect(statuses).toEqual([401, 401, 401]);
    });

    it("answers tenant A's viewer as its role allows", async () => {
      const res = await call(method, pathOf(route.mutates ? '1' : route.param?.(ids)), keysOf.a.viewer, route, route.body?.(ids));
      if (allows('viewer', route.access)) expect([401, 403]).not.toContain(res.status);
      else expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'forbidden' });
    });

    it("lets another tenant's key of its role in, to find none of tenant A's resources and change nothing", async () => {
      const path = pathOf(route.param?.(ids));
      const res = await call(method, path, keysOf.b[ownRole()], route, route.body?.(ids));
      expect([401, 403]).not.toContain(res.status);
      if (route.param) expect({ name, status: res.status }).toEqual({ name, status: route.otherTenant ?? 404 });
      // The answer may repeat what the request itself said (an id it named, echoed back), nothing more of A's.
      const said = new Set([route.param?.(ids), ...Object.values(route.query?.(ids) ?? {}), ...stringsOf(route.body?.(ids))]);
      const answer = JSON.stringify(res.body ?? null) + (res.text ?? '');
      const found = markersOfA.filter((marker) => !said.has(marker) && answer.includes(marker));
      if (found.length > 0) leaks.push(`${name}: ${found.join(', ')}`);
      expect(found).toEqual([]);
    });

    it("lets tenant A's key of the route's role in", async () => {
      const res = await call(method, pathOf(route.mutates ? '1' : route.param?.(ids)), keysOf.a[ownRole()], route, route.body?.(ids));
      expect([401, 403]).not.toContain(res.status);
      if (!route.mutates && route.access !== 'public') expect(res.status).toBe(200);
    });
  });

  // Child describes run after the describe's own tests and in order: this one after every route's.
  describe('after every route was called', () => {
    it("kept tenant A's work as it was: 0 cross-tenant reads, and nothing another tenant's calls could change", async () => {
      expect(leaks).toEqual([]);
      const asA = { Authorization: `Bearer ${keysOf.a.viewer}` };
      const detail = (await request(api.http).get(`/api/executions/${ids.execution}`).set(asA).expect(200)).body;
      expect(detail.status).toBe('RUNNING');
      const events = (await request(api.http).get(`/api/executions/${ids.execution}/events`).set(asA).expect(200)).body.events as {
        event_type: string;
      }[];
      expect(events.map((event) => event.event_type)).not.toContain(EventType.CommandClaimed);
      expect((await request(api.http).get(`/api/executions/${ids.loopExecution}`).set(asA).expect(200)).body.status).toBe('RUNNING');
      const credentials = (await request(api.http).get('/api/credentials').set('Authorization', `Bearer ${keysOf.a.developer}`).expect(200))
        .body.credentials;
      expect(credentials.map((c: { name: string }) => c.name)).toContain(CREDENTIAL_A);
      const workers = await database.query<{ node: string; tenant_id: string }>(
        "SELECT node, tenant_id FROM noetl.worker WHERE worker_id = 'worker-of-a' ORDER BY tenant_id",
      );
      expect(workers).toEqual([
        { node: 'node-of-a', tenant_id: 'tenant-a' },
        { node: 'intruder', tenant_id: 'tenant-b' },
      ]);
      const schedule = (await request(api.http).get(`/api/schedules/${ids.schedule}`).set(asA).expect(200)).body;
      expect(schedule).toMatchObject({ schedule_id: ids.schedule, paused: true, path: PATH_A });
      expect(events.map((event) => event.event_type)).not.toContain(EventType.SignalReceived);
      await request(api.http).get('/api/auth/me').set(asA).expect(200);
    });
  });
});

/** Every string in a request body (what the caller said itself). */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(stringsOf);
}
