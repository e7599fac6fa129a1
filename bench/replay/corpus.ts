import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NoetlConfig } from '@noetl/config';
import { EventType } from '@noetl/event-kernel';
import { Engine } from '@noetl/runtime';
import type { Database } from '@noetl/storage';

/** One execution of the corpus and how it ended. */
export interface CorpusRun {
  name: string;
  executionId: string;
  status: string;
}

const LOOP = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: gate_loop, path: gate/loop}
workload: {items: [${Array.from({ length: 30 }, (_, i) => i + 1).join(', ')}]}
workflow:
  - step: start
    loop: {in: "{{ workload.items }}", iterator: item, spec: {mode: parallel, max_in_flight: 3, frame: {max_rows: 5}}}
    tool: {kind: javascript, input: {item: "{{ item }}"}, code: "if (item % 7 === 0) throw new Error('row ' + item + ' is bad'); return item * 2;"}
    retry: {max_attempts: 2, initial_delay: 0.05}
    next: end
  - step: end
    tool: {kind: noop}
`;

const SLEEPY = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: gate_sleepy, path: gate/sleepy}
workflow:
  - step: start
    tool: {kind: noop}
    next: nap
  - step: nap
    tool: {kind: sleep, seconds: 30}
`;

const RESUMED = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: gate_resumed, path: gate/resumed}
workflow:
  - step: start
    tool: {kind: noop}
    next: middle
  - step: middle
    tool: {kind: javascript, code: "return {resumed: true};"}
    next: end
  - step: end
    tool: {kind: noop}
`;

/**
 * The gate's own executions (issue 10 item 5): every example, a loop of
 * frames with row retries and failing rows, a cancelled run, a run
 * started by a process that stopped before its work ran and resumed by the
 * next, and a rerun of that one from its middle step (its copied state is
 * in its own first event).
 */
export async function runCorpus(config: NoetlConfig, database: Database, examplesDir: string): Promise<CorpusRun[]> {
  const runs: CorpusRun[] = [];
  // The resumed run: a scheduler alone issues its first command and stops; the next process finishes it.
  const first = await Engine.start({ config, database, roles: ['scheduler'] });
  let resumedId: string;
  try {
    await first.own.catalog.register(RESUMED);
    resumedId = (await first.own.executions.start({ path: 'gate/resumed' })).execution_id;
    await waitForEvent(first, resumedId, EventType.CommandIssued, 1);
  } finally {
    await first.stop();
  }
  const engine = await Engine.start({ config, database, roles: ['scheduler', 'worker'] });
  try {
    runs.push(await ended(engine, 'resumed after its process stopped', resumedId));
    const rerun = await engine.own.executions.rerun(resumedId, { from_step: 'middle', payload: { again: true } });
    runs.push(await ended(engine, 'rerun from a step', rerun.execution_id));
    for (const file of readdirSync(examplesDir)
      .filter((name) => name.endsWith('.yaml'))
      .sort()) {
      const { path } = await engine.own.catalog.register(readFileSync(join(examplesDir, file), 'utf8'));
      runs.push(await ended(engine, `example ${path}`, (await engine.own.executions.start({ path })).execution_id));
    }
    await engine.own.catalog.register(LOOP);
    runs.push(await ended(engine, 'loop of frames with retries', (await engine.own.executions.start({ path: 'gate/loop' })).execution_id));
    await engine.own.catalog.register(SLEEPY);
    const sleepy = (await engine.own.executions.start({ path: 'gate/sleepy' })).execution_id;
    // Cancelled while its nap's durable timer is armed.
    await waitForEvent(engine, sleepy, EventType.TimerScheduled, 1);
    await engine.own.executions.cancel(sleepy, { reason: 'the replay gate cancels it' });
    runs.push(await ended(engine, 'cancelled', sleepy));
  } finally {
    await engine.stop();
  }
  return runs;
}

async function ended(engine: Engine, name: string, executionId: string): Promise<CorpusRun> {
  const detail = await engine.waitForTerminal(executionId, { timeoutMs: 120_000 });
  return { name, executionId, status: detail.status };
}

async function waitForEvent(engine: Engine, executionId: string, type: string, count: number): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const { events } = await engine.own.executions.events(executionId, { type: [type], limit: 1000 });
    if (events.length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`execution ${executionId} had fewer than ${count} ${type} within 30 s`);
}
