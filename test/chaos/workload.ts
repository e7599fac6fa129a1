import { Client } from 'pg';
import type { NoetlHttpClient } from '../support/noetl-http-client';

const header = (path: string) => `apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: ${path.replace(/\W/g, '_')}, path: ${path}}\n`;

/** The credential every sink step writes with. */
export const SINK_CREDENTIAL = 'chaos_sink';

/**
 * Rows of a loop, two to a frame, each an http call to the flaky loopback
 * endpoint (every item's first call answers 503 and is retried in the frame)
 * whose sink INSERTs one row per run of the iteration: the sink counts
 * hits, it does not hide duplicates behind ON CONFLICT.
 */
const loop = (path: string, frames: { rows: number; inFlight: number }, sunk = 'item') => `${header(path)}workload: {items: 8, flaky: ""}
workflow:
  - step: each
    loop:
      in: "{{ range(items) | list }}"
      iterator: item
      spec: {mode: parallel, max_in_flight: ${frames.inFlight}, frame: {max_rows: ${frames.rows}, lease_seconds: 2, heartbeat_seconds: 1, max_attempts: 10}}
      sink:
        tool:
          kind: postgres
          auth: ${SINK_CREDENTIAL}
          command: "INSERT INTO chaos_sink (execution_id, item) VALUES ($1, $2)"
          params: ["{{ execution_id }}", "{{ ${sunk} }}"]
    tool: {kind: http, url: "{{ flaky }}/fail-first/i{{ execution_id }}-{{ item }}?times=1"}
    # As a user writes it: transient errors (the flaky 503s, a sink or credential lookup during an outage) retried in the frame.
    retry:
      - when: "{{ error.retryable }}"
        then: {max_attempts: 8, initial_delay: 0.1, backoff_multiplier: 2.0, max_delay: 2, jitter: false}
`;

export const PLAYBOOKS = {
  loop: loop('chaos/loop', { rows: 2, inFlight: 4 }),
  /** The same path with another body (it sinks other item numbers): an execution of version 1 that ran it would lose its items. */
  loopV2: loop('chaos/loop', { rows: 2, inFlight: 4 }, 'item + 1000'),
  /** One row a frame, 20 frames in flight at once: their commits race. */
  wide: loop('chaos/wide', { rows: 1, inFlight: 20 }),
  /** A sub-playbook (a small loop) and a durable sleep after it. */
  parent: `${header('chaos/parent')}workload: {flaky: ""}
workflow:
  - step: call
    tool: {kind: playbook, path: chaos/loop, input: {items: 4, flaky: "{{ flaky }}"}}
    next: [{step: nap}]
  - step: nap
    tool: {kind: sleep, seconds: 1}
`,
  /** A step whose first two calls answer 503: durable error retries (timer and BullMQ job) before it completes. */
  retry: `${header('chaos/retry')}workload: {flaky: ""}
workflow:
  - step: call
    tool: {kind: http, url: "{{ flaky }}/fail-first/r{{ execution_id }}?times=2"}
    retry:
      - when: "{{ error.status == 503 }}"
        then: {max_attempts: 5, initial_delay: 0.3, backoff_multiplier: 1.5, jitter: false}
`,
  /** A step that fails forever: its retries back off, then the execution fails (the retry storm). */
  storm: `${header('chaos/storm')}workload: {flaky: ""}
workflow:
  - step: call
    tool: {kind: http, url: "{{ flaky }}/fail-first/s{{ execution_id }}?times=1000000"}
    retry:
      - when: "{{ error.status == 503 }}"
        then: {max_attempts: 3, initial_delay: 0.2, backoff_multiplier: 2.0, jitter: true}
`,
  /** Success-side continuation over `of` pages, each sunk; the history must not grow with the pages. */
  pages: `${header('chaos/pages')}workload: {flaky: "", of: 100}
workflow:
  - step: fetch
    tool: {kind: http, url: "{{ flaky }}/page", params: {n: 1, of: "{{ of }}"}}
    retry:
      - when: "{{ response.has_more }}"
        then:
          max_attempts: 10000000
          next_call: {params: {n: "{{ response.n + 1 }}", of: "{{ of }}"}}
          collect: {strategy: replace, path: data}
          per_iteration:
            sink:
              tool:
                kind: postgres
                auth: ${SINK_CREDENTIAL}
                command: "INSERT INTO chaos_sink (execution_id, item) VALUES ($1, $2)"
                params: ["{{ execution_id }}", "{{ page.n }}"]
`,
};

export type PlaybookName = 'loop' | 'wide' | 'parent' | 'retry' | 'storm' | 'pages';

/** One execution the trial starts, and how it must end. */
export interface Planned {
  playbook: PlaybookName;
  payload?: Record<string, string | number>;
  expect: 'COMPLETED' | 'FAILED';
}

/** The fixed workload of a trial: loops with frames, a sub-playbook with a sleep, durable retries. */
export const DEFAULT_WORKLOAD: Planned[] = [
  { playbook: 'loop', payload: { items: 12 }, expect: 'COMPLETED' },
  { playbook: 'loop', payload: { items: 12 }, expect: 'COMPLETED' },
  { playbook: 'loop', payload: { items: 8 }, expect: 'COMPLETED' },
  { playbook: 'parent', expect: 'COMPLETED' },
  { playbook: 'retry', expect: 'COMPLETED' },
];

/** The smoke's lighter workload: one of each kind. */
export const SMOKE_WORKLOAD: Planned[] = [
  { playbook: 'loop', payload: { items: 8 }, expect: 'COMPLETED' },
  { playbook: 'parent', expect: 'COMPLETED' },
  { playbook: 'retry', expect: 'COMPLETED' },
];

/** Registers the playbooks, the sink's credential and its table (once per harness run). */
export async function prepareWorkload(client: NoetlHttpClient, sinkUrl: string): Promise<void> {
  const sink = new Client({ connectionString: sinkUrl });
  await sink.connect();
  try {
    await sink.query(
      'CREATE TABLE IF NOT EXISTS chaos_sink (execution_id text NOT NULL, item int NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())',
    );
  } finally {
    await sink.end();
  }
  const url = new URL(sinkUrl);
  await client.createCredential(SINK_CREDENTIAL, 'postgres', {
    db_host: url.hostname,
    db_port: Number(url.port),
    db_user: decodeURIComponent(url.username),
    db_password: decodeURIComponent(url.password),
    db_name: url.pathname.slice(1),
  });
  for (const name of ['loop', 'wide', 'parent', 'retry', 'storm', 'pages'] as const) await client.register(PLAYBOOKS[name]);
}

/** A started execution of the workload. */
export interface Started extends Planned {
  executionId: string;
}

/** Starts every planned execution; `flaky` is the loopback endpoint's base URL. */
export async function startWorkload(client: NoetlHttpClient, plan: Planned[], flaky: string): Promise<Started[]> {
  return Promise.all(plan.map(async (p) => ({ ...p, executionId: await client.execute(`chaos/${p.playbook}`, { flaky, ...p.payload }) })));
}
