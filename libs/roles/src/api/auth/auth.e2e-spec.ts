import { ApiKeys } from '@noetl/runtime';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

const TENANT = { tenantId: 'acme', organizationId: 'eu' };

/** An OIDC issuer on loopback: its JWKS at /jwks.json, and tokens it signs. */
async function startIssuer(): Promise<{
  jwksUrl: string;
  sign(claims: Record<string, unknown>, options?: { expiresIn?: string; key?: KeyLike }): Promise<string>;
  close(): Promise<void>;
}> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    res.writeHead(req.url === '/jwks.json' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url === '/jwks.json' ? { keys: [jwk] } : {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    jwksUrl: `${base}/jwks.json`,
    sign: (claims, options = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer('https://issuer.test/')
        .setAudience('noetl')
        .setSubject('ada@example.test')
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m')
        .sign(options.key ?? privateKey),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('authentication over the API', () => {
  let api: ApiTestApp;
  let keys: ApiKeys;
  let issuer: Awaited<ReturnType<typeof startIssuer>>;

  beforeAll(async () => {
    issuer = await startIssuer();
    api = await startApiTestApp({
      NOETL_AUTH: 'on',
      NOETL_OIDC_JWKS_URL: issuer.jwksUrl,
      NOETL_OIDC_ISSUER: 'https://issuer.test/',
      NOETL_OIDC_AUDIENCE: 'noetl',
    });
    keys = api.app.get(ApiKeys);
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  it('refuses a call without a key with 401 and the one error body, and names what is missing', async () => {
    const res = await request(api.http).get('/api/executions').expect(401);
    expect(res.body).toEqual({ code: 'unauthenticated', message: expect.stringContaining('Authorization: Bearer') });
    const basic = await request(api.http).get('/api/executions').set('Authorization', 'Basic dXNlcjpwdw==').expect(401);
    expect(basic.body.message).toContain('must be "Bearer');
  });

  it('shows a key once, lists keys without their secrets, and refuses a revoked key at once', async () => {
    const admin = await keys.create({ scope: TENANT, role: 'admin', name: 'admin' });
    const made = await request(api.http)
      .post('/api/keys')
      .set('Authorization', `Bearer ${admin.key}`)
      .send({ name: 'ci', role: 'developer' })
      .expect(201);
    expect(made.body).toMatchObject({
      role: 'developer',
      name: 'ci',
      tenant_id: 'acme',
      organization_id: 'eu',
      created_by: `key:${admin.key_id}`,
    });
    expect(made.body.key).toMatch(/^noetl_[0-9a-f]{16}_[\w-]{43}$/);
    const developer = made.body.key as string;
    await request(api.http).get('/api/catalog').set('Authorization', `Bearer ${developer}`).expect(200);

    const listed = await request(api.http).get('/api/keys').set('Authorization', `Bearer ${admin.key}`).expect(200);
    expect(listed.text).not.toContain(developer.slice(-43));
    expect(listed.body.keys.map((key: { name: string }) => key.name)).toEqual(['admin', 'ci']);
    expect(listed.body.keys.every((key: object) => !('key' in key) && !('secret_sha256' in key))).toBe(true);

    await request(api.http).delete(`/api/keys/${made.body.key_id}`).set('Authorization', `Bearer ${admin.key}`).expect(200);
    const refused = await request(api.http).get('/api/catalog').set('Authorization', `Bearer ${developer}`).expect(401);
    expect(refused.body).toEqual({ code: 'unauthenticated', message: 'the API key is unknown or revoked' });
    await request(api.http).delete(`/api/keys/${made.body.key_id}`).set('Authorization', `Bearer ${admin.key}`).expect(404);
  });

  it('refuses a key whose secret is altered, even right after its owner used it', async () => {
    const viewer = await keys.create({ scope: TENANT, role: 'viewer', name: 'v' });
    await request(api.http).get('/api/executions').set('Authorization', `Bearer ${viewer.key}`).expect(200);
    const altered = viewer.key.slice(0, -1) + (viewer.key.endsWith('A') ? 'B' : 'A');
    await request(api.http).get('/api/executions').set('Authorization', `Bearer ${altered}`).expect(401);
  });

  it('answers a role that may not with 403 naming the role it needs', async () => {
    const viewer = await keys.create({ scope: TENANT, role: 'viewer', name: 'v2' });
    const res = await request(api.http).post('/api/execute').set('Authorization', `Bearer ${viewer.key}`).send({ path: 'x' }).expect(403);
    expect(res.body).toEqual({ code: 'forbidden', message: 'the viewer role may not POST /api/execute; it needs developer' });
  });

  it('offers the web UI no identity provider sign-in while NOETL_OIDC_CLIENT_ID is unset, and asks no key for that answer', async () => {
    expect((await request(api.http).get('/api/auth/sign-in-options').expect(200)).body).toEqual({ oidc: null });
  });

  it('takes tenant, organization and role from a JWT of the configured issuer', async () => {
    const token = await issuer.sign({ noetl_tenant: 'globex', noetl_organization: 'us', noetl_role: 'developer' });
    const me = await request(api.http).get('/api/auth/me').set('Authorization', `Bearer ${token}`).expect(200);
    expect(me.body).toEqual({ tenant_id: 'globex', organization_id: 'us', role: 'developer', subject: 'token:ada@example.test' });
    const registered = await request(api.http)
      .post('/api/catalog/register')
      .set('Authorization', `Bearer ${token}`)
      .send({
        content:
          'apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: jwt, path: jwt/one}\nworkflow:\n  - step: start\n    tool: {kind: noop}\n',
      })
      .expect(201);
    // The playbook is globex/us's: acme's keys do not see it.
    const acme = await keys.create({ scope: TENANT, role: 'viewer', name: 'v3' });
    const acmeCatalog = await request(api.http).get('/api/catalog').set('Authorization', `Bearer ${acme.key}`).expect(200);
    expect(JSON.stringify(acmeCatalog.body)).not.toContain(registered.body.catalog_id);
    const globexCatalog = await request(api.http).get('/api/catalog').set('Authorization', `Bearer ${token}`).expect(200);
    expect(JSON.stringify(globexCatalog.body)).toContain(registered.body.catalog_id);
  });

  it('refuses an expired token, one signed by another key, one for another audience and one without the tenant claim', async () => {
    const claims = { noetl_tenant: 'globex', noetl_organization: 'us', noetl_role: 'admin' };
    const other = await generateKeyPair('RS256');
    const cases: [Promise<string>, string][] = [
      [issuer.sign(claims, { expiresIn: '-1m' }), 'the bearer token is not valid: it has expired'],
      [issuer.sign(claims, { key: other.privateKey }), 'the bearer token is not valid: its signature does not verify'],
      [
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setIssuer('https://issuer.test/')
          .setAudience('someone-else')
          .setExpirationTime('5m')
          .sign(other.privateKey),
        'the bearer token is not valid',
      ],
      [issuer.sign({ noetl_organization: 'us', noetl_role: 'admin' }), 'the bearer token lacks the claim(s) noetl_tenant'],
      [
        issuer.sign({ ...claims, noetl_role: 'root' }),
        'the bearer token\'s role "root" is not one of admin, operator, developer, viewer, worker',
      ],
      [
        issuer.sign({ ...claims, noetl_tenant: 'a.b' }),
        'the bearer token names a tenant or organization that is not 1-64 letters, digits, _ or -',
      ],
    ];
    for (const [token, message] of cases) {
      const res = await request(api.http)
        .get('/api/executions')
        .set('Authorization', `Bearer ${await token}`)
        .expect(401);
      expect(res.body.message).toContain(message);
    }
  });

  it('keeps the health probes, the playbook schema and the sign-in options open and shows the bearer scheme on every other route in Swagger', async () => {
    await request(api.http).get('/health/live').expect(200);
    await request(api.http).get('/metrics').expect(200);
    const doc = (await request(api.http).get('/docs-json').expect(200)).body;
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [path, methods] of Object.entries(
      doc.paths as Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>,
    )) {
      for (const operation of Object.values(methods)) {
        // /metrics takes a key when NOETL_METRICS_AUTH=key, so it shows the scheme too; the probes, the playbook schema and the sign-in options are open.
        if (!path.startsWith('/health/') && path !== '/api/schema/playbook' && path !== '/api/auth/sign-in-options') {
          expect({ path, security: operation.security }).toEqual({ path, security: [{ bearer: [] }] });
          expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403']));
        } else expect({ path, security: operation.security }).toEqual({ path, security: undefined });
      }
    }
  });
});

describe('metrics behind a key', () => {
  let api: ApiTestApp;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_AUTH: 'on', NOETL_METRICS_AUTH: 'key' });
  });

  afterAll(async () => api?.close());

  it('asks any valid key of /metrics when NOETL_METRICS_AUTH=key, and none of the probes', async () => {
    await request(api.http).get('/metrics').expect(401);
    const worker = await api.app.get(ApiKeys).create({ scope: TENANT, role: 'worker', name: 'scraper' });
    await request(api.http).get('/metrics').set('Authorization', `Bearer ${worker.key}`).expect(200);
    await request(api.http).get('/health/ready').expect(200);
  });
});
