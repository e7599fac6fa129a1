import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { answerRenderRequest, CallError, ExpressionEngine, OffloadingRenderer } from '@noetl/dsl';
import { resolveKeychain, type KeychainDeps } from './keychain';

/** A token endpoint on loopback: answers `{access_token}` for the right client, 401 otherwise; records what it was sent. */
async function startTokenEndpoint(): Promise<{ url: string; sent: Array<{ type: string; body: string }>; close(): Promise<void> }> {
  const sent: Array<{ type: string; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      sent.push({ type: req.headers['content-type'] ?? '', body });
      const ok = body.includes('client_secret=s3cret') || body.includes('"client_secret":"s3cret"');
      res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(ok ? { access_token: 'tok-from-endpoint', expires_in: 60 } : { error: 'invalid_client' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    sent,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function failure(promise: Promise<unknown>): Promise<CallError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CallError) return error;
    throw error;
  }
  throw new Error('expected a CallError');
}

describe('resolveKeychain at the worker', () => {
  const engine = new ExpressionEngine({ now: () => new Date(), uuid: () => randomUUID() });
  const credentials: Record<string, Record<string, unknown>> = { api: { token: 'tok-stored' }, client: { id: 'app', secret: 's3cret' } };
  const deps: KeychainDeps = {
    render: new OffloadingRenderer(engine, { work: engine.limits.maxWork, ms: Infinity, clock: () => 0 }, async (request) =>
      answerRenderRequest(engine, request),
    ),
    signal: new AbortController().signal,
    resolveCredential: async (name) => {
      const data = credentials[name];
      if (!data) throw new Error(`no credential ${name}`);
      return data;
    },
  };
  let endpoint: Awaited<ReturnType<typeof startTokenEndpoint>>;

  beforeAll(async () => {
    endpoint = await startTokenEndpoint();
  });

  afterAll(() => endpoint?.close());

  it('resolves credential, static and bearer entries, each rendered against the workload and the entries before it', async () => {
    const keychain = await resolveKeychain(
      [
        { name: 'stored', kind: 'credential_ref', credential: 'api' },
        { name: 'mapped', kind: 'static', map: { region: '{{ region }}', copy: '{{ keychain.stored.token }}' } },
        { name: 'plain', kind: 'bearer', token: '{{ keychain.mapped.copy }}-2' },
      ],
      { region: 'eu' },
      deps,
    );
    expect(keychain).toEqual({
      stored: { token: 'tok-stored' },
      mapped: { region: 'eu', copy: 'tok-stored' },
      plain: { access_token: 'tok-stored-2', token_type: 'Bearer' },
    });
  });

  it('asks an oauth2 token endpoint, form-encoded by default and as JSON when the headers say so', async () => {
    const entry = (headers: Record<string, string>) => ({
      name: 'token',
      kind: 'oauth2',
      endpoint: endpoint.url,
      headers,
      data: { grant_type: 'client_credentials', client_id: '{{ keychain.client.id }}', client_secret: '{{ keychain.client.secret }}' },
    });
    const client = { name: 'client', credential: 'client' };
    expect((await resolveKeychain([client, entry({})], {}, deps)).token).toEqual({ access_token: 'tok-from-endpoint', expires_in: 60 });
    expect(endpoint.sent.at(-1)).toEqual({
      type: 'application/x-www-form-urlencoded',
      body: 'grant_type=client_credentials&client_id=app&client_secret=s3cret',
    });
    await resolveKeychain([client, entry({ 'Content-Type': 'application/json' })], {}, deps);
    expect(JSON.parse(endpoint.sent.at(-1)!.body)).toEqual({ grant_type: 'client_credentials', client_id: 'app', client_secret: 's3cret' });
  });

  it('fails the step clearly, without quoting a token, when the endpoint refuses', async () => {
    const err = await failure(
      resolveKeychain([{ name: 'token', kind: 'oauth2', endpoint: endpoint.url, data: { client_secret: 'wrong' } }], {}, deps),
    );
    expect(err.info).toMatchObject({ kind: 'auth', code: 'KEYCHAIN', retryable: false });
    expect(err.info.message).toBe(`keychain entry "token": the token request to ${new URL(endpoint.url).host} answered HTTP 401`);
  });

  it('names the entry for an unknown kind, a missing credential and a template error', async () => {
    expect((await failure(resolveKeychain([{ name: 'sm', kind: 'secret_manager', provider: 'gcp' }], {}, deps))).info.message).toContain(
      'keychain entry "sm": kind "secret_manager" cannot be resolved by this runtime',
    );
    expect((await failure(resolveKeychain([{ name: 'gone', credential: 'nope' }], {}, deps))).info.message).toBe(
      'keychain entry "gone": cannot resolve credential "nope": no credential nope',
    );
    const template = await failure(resolveKeychain([{ name: 'bad', kind: 'static', map: { x: '{{ 1 + }}' } }], {}, deps));
    expect(template.info.kind).toBe('template');
    expect(template.info.message).toMatch(/^keychain entry "bad": /);
  });
});
