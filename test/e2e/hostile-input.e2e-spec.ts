import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client } from 'pg';
import { apiReadinessTimeoutMs } from '../deploy/support/deploy-files';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { TEST_ENCRYPTION_KEY } from '../support/test-engine';
import { waitFor } from '../support/wait-for';

// About 160 hostile requests, each followed by a trivial execution, and a few bodies of 70 MB.
jest.setTimeout(300_000);

const CORPUS = join(__dirname, '..', 'hostile');
const TRIVIAL =
  'apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: trivial, path: hostile/trivial}\nworkflow:\n  - step: only\n    tool: {kind: noop}\n';
const PLAYBOOK_HEAD = 'apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: generated, path: hostile/generated}\n';

/** One request of the corpus (test/hostile/requests/*.json); `generate` builds a body too big or too deep to keep as a file. */
interface RequestCase {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  raw?: string;
  generate?: Generate;
  expect: number[];
  why?: string;
}

type Generate =
  | { json: 'nested-array' | 'nested-object'; depth: number; into: string; with?: Record<string, string> }
  | { json: 'long-string'; chars: number; into: string; with?: Record<string, string> }
  | { yaml: 'long-comment' | 'long-description'; chars: number }
  | { yaml: 'steps'; steps: number }
  | { yaml: 'flow-list'; values: number }
  | { bytes: string };

interface Sent {
  name: string;
  case: Pick<RequestCase, 'method' | 'path' | 'expect'>;
  body: Buffer;
  headers: Record<string, string>;
}

function generated(spec: Generate): Buffer {
  if ('bytes' in spec) return Buffer.from(spec.bytes, 'hex');
  if ('yaml' in spec) {
    if (spec.yaml === 'flow-list')
      return Buffer.from(`${PLAYBOOK_HEAD}workload: {a: [${'1,'.repeat(spec.values)}1]}\nworkflow:\n  - step: s\n    tool: {kind: noop}\n`);
    if (spec.yaml === 'steps') {
      const steps = Array.from({ length: spec.steps }, (_, i) => `  - step: s${i}\n    tool: {kind: noop}\n`).join('');
      return Buffer.from(`${PLAYBOOK_HEAD}workflow:\n${steps}`);
    }
    const filler = 'x'.repeat(spec.chars);
    return Buffer.from(
      spec.yaml === 'long-comment'
        ? `#${filler}\n${TRIVIAL}`
        : `${PLAYBOOK_HEAD}description: "${filler}"\nworkflow:\n  - step: s\n    tool: {kind: noop}\n`,
    );
  }
  const value =
    spec.json === 'nested-array'
      ? `${'['.repeat(spec.depth)}${']'.repeat(spec.depth)}`
      : spec.json === 'nested-object'
        ? `${'{"a":'.repeat(spec.depth)}1${'}'.repeat(spec.depth)}`
        : JSON.stringify('x'.repeat('chars' in spec ? spec.chars : 0));
  const fields = 'with' in spec && spec.with !== undefined ? spec.with : { path: 'hostile/trivial' };
  const head = Object.entries(fields)
    .map(([key, text]) => `${JSON.stringify(key)}:${JSON.stringify(text)},`)
    .join('');
  return Buffer.from(`{${head}${JSON.stringify(spec.into)}:${value}}`);
}

function corpus(): Sent[] {
  const requests = readdirSync(join(CORPUS, 'requests'))
    .sort()
    .map((file): Sent => {
      const spec = JSON.parse(readFileSync(join(CORPUS, 'requests', file), 'utf8')) as RequestCase;
      const body = spec.generate
        ? generated(spec.generate)
        : spec.raw !== undefined
          ? Buffer.from(spec.raw)
          : spec.body !== undefined
            ? Buffer.from(JSON.stringify(spec.body))
            : Buffer.alloc(0);
      return { name: file, case: spec, body, headers: spec.headers ?? {} };
    });
  const playbooks = readdirSync(join(CORPUS, 'playbooks'))
    .sort()
    .map((file): Sent => {
      const text = readFileSync(join(CORPUS, 'playbooks', file), 'utf8');
      const expect = (/^# expect: ([\d ]+)$/m.exec(text)?.[1] ?? '').split(' ').filter(Boolean).map(Number);
      return {
        name: file,
        case: { method: 'POST', path: '/api/catalog/register', expect },
        body: Buffer.from(text),
        headers: { 'content-type': 'application/yaml' },
      };
    });
  return [...requests, ...playbooks];
}

/** Sends exactly `path` (no URL normalisation: `%2e%2e` stays as it is) and the body as it is, as the admin. */
function send(base: URL, sent: Sent, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: sent.case.method,
        path: sent.case.path,
        headers: { authorization: `Bearer ${key}`, ...sent.headers, 'content-length': String(sent.body.length) },
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    // A server that refuses a huge body answers before reading it and may close the socket while the rest is written.
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    outgoing.end(sent.body);
  });
}

/** Polls /health/ready every 100 ms: the longest wait, and every answer that was not 200. */
function probeReadiness(base: string): { stop(): Promise<{ longestMs: number; failures: string[]; probes: number }> } {
  let stopped = false;
  let longestMs = 0;
  let probes = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      try {
        const response = await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(5_000) });
        if (response.status !== 200) failures.push(`HTTP ${response.status}`);
        await response.arrayBuffer();
      } catch (error) {
        failures.push(String(error));
      }
      const took = Date.now() - started;
      longestMs = Math.max(longestMs, took);
      probes += 1;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - took)));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { longestMs, failures, probes };
    },
  };
}

/**
 * Issue 15 defect 10 and issue 11 item 6: ordinary and hostile input (NUL
 * characters anywhere, lone surrogates, JSON and YAML nested 10,000 deep,
 * alias and merge bombs, absurd versions and step counts, oversized bodies,
 * path traversal in ids and names, keys named `constructor`) answered 500.
 * The corpus in test/hostile (requests as JSON, playbooks as YAML, each with
 * the statuses it may get) goes to a running `noetl server`, one by one:
 * no answer is a 5xx, a refusal is the one error body and writes nothing,
 * a trivial execution completes after every request, and a readiness probe
 * polled every 100 ms throughout never waits as long as the api's readiness
 * probe in k8s/ gives it (a probe past that fails and counts toward taking
 * the pod out of service). The longest wait is printed: it is a figure of
 * the machine's load as much as of the server, so the bound is the one the
 * deployment acts on, not a tighter one that a busy 2-core runner breaks.
 */
describe('hostile input against noetl server', () => {
  let database: TestDatabase;
  let server: CliServerProcess;
  let db: Client;
  let key: string;
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${key}` });

  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startCliServer({ DATABASE_URL: database.url, NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'warn' });
    db = new Client({ connectionString: database.url });
    await db.connect();
    if (!server.apiKey) throw new Error('noetl server wrote no admin key');
    key = server.apiKey;
    const registered = await fetch(`${server.url}/api/catalog/register`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/yaml' },
      body: TRIVIAL,
    });
    expect(registered.status).toBe(201);
  });

  afterAll(async () => {
    await db?.end();
    await server?.stop();
    await database?.drop();
  });

  const written = async (): Promise<string> =>
    JSON.stringify(
      (
        await db.query(
          'SELECT (SELECT count(*) FROM noetl.event) AS events, (SELECT count(*) FROM noetl.catalog) AS catalog, (SELECT count(*) FROM noetl.credential) AS credentials',
        )
      ).rows[0],
    );

  async function trivialCompletes(): Promise<void> {
    const started = await fetch(`${server.url}/api/execute`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'hostile/trivial' }),
    });
    const { execution_id: id } = (await started.json()) as { execution_id: string };
    await waitFor(
      async () =>
        ((await (await fetch(`${server.url}/api/executions/${id}`, { headers: auth() })).json()) as { status: string }).status ===
        'COMPLETED',
      {
        timeoutMs: 15_000,
        intervalMs: 20,
        description: `the trivial execution ${id} to complete`,
      },
    );
  }

  it('answers every request of the corpus 4xx (or takes it as data), writes nothing when it refuses, and stays ready', async () => {
    const cases = corpus();
    expect(cases.length).toBeGreaterThanOrEqual(100);
    const base = new URL(server.url);
    const probe = probeReadiness(server.url);
    const outcomes: { name: string; status: number; expected: number[]; body: string; wroteWhenRefused: boolean }[] = [];
    try {
      for (const sent of cases) {
        const before = await written();
        const { status, body } = await send(base, sent, key);
        const wroteWhenRefused = status >= 400 && (await written()) !== before;
        outcomes.push({ name: sent.name, status, expected: sent.case.expect, body: body.slice(0, 300), wroteWhenRefused });
        await trivialCompletes();
      }
    } finally {
      const readiness = await probe.stop();
      const byClass = (low: number) => outcomes.filter((o) => o.status >= low && o.status < low + 100).length;
      process.stdout.write(
        `hostile corpus: ${cases.length} cases (${cases.filter((c) => c.name.endsWith('.json')).length} requests, ${cases.filter((c) => c.name.endsWith('.yaml')).length} playbooks): ` +
          `${byClass(200)} 2xx, ${byClass(400)} 4xx, ${byClass(500)} 5xx; ${readiness.probes} readiness probes, longest ${readiness.longestMs} ms, ${readiness.failures.length} not ready\n`,
      );
      expect(readiness.failures).toEqual([]);
      expect(readiness.longestMs).toBeLessThan(apiReadinessTimeoutMs());
    }
    expect(outcomes.filter((o) => o.status >= 500)).toEqual([]);
    expect(outcomes.filter((o) => !o.expected.includes(o.status))).toEqual([]);
    expect(outcomes.filter((o) => o.wroteWhenRefused)).toEqual([]);
    for (const refused of outcomes.filter((o) => o.status >= 400)) {
      const body = JSON.parse(refused.body.length < 300 ? refused.body : '{"code":"x","message":"long"}') as {
        code?: unknown;
        message?: unknown;
      };
      expect({ name: refused.name, code: typeof body.code, message: typeof body.message }).toEqual({
        name: refused.name,
        code: 'string',
        message: 'string',
      });
    }
  });
});
