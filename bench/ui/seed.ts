import type { Engine } from '@noetl/runtime';
import { startAndAwait } from '../await-executions';
import { chainPlaybook } from '../chain-playbook';

const LIST_PATH = 'bench/ui/one-step';
const LOOP_PATH = 'bench/ui/loop';
/** Started this many at a time: all 10,000 at once would hold as many pending inserts in memory. */
const BATCH = 500;
const TIMEOUT_MS = 30 * 60_000;

/** A loop of one-row frames: about two events per item, so `items` of 3,000 makes an execution of about 6,000 events. */
function loopPlaybook(items: number): string {
  return `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: bench_ui_loop, path: ${LOOP_PATH}}
workload: {n: ${items}}
workflow:
  - step: start
    next: [{step: items}]
    tool: {kind: noop}
  - step: items
    loop: {in: "{{ range(workload.n) | list }}", iterator: item, spec: {mode: parallel, max_in_flight: 16, frame: {max_rows: 1}}}
    tool: {kind: noop}
    next: [{step: done}]
  - step: done
    tool: {kind: noop}
`;
}

export interface Seeded {
  /** The execution of thousands of events the page opens and scrubs. */
  bigExecutionId: string;
}

/** `executions` runs of a one-step playbook and one loop execution of `loopItems` items, each run to its end by the engine. */
export async function seed(engine: Engine, tenantId: string, executions: number, loopItems: number): Promise<Seeded> {
  await engine.own.catalog.register(chainPlaybook(1, LIST_PATH));
  await engine.own.catalog.register(loopPlaybook(loopItems));
  await startAndAwait(engine, tenantId, TIMEOUT_MS, async () => {
    const ids: string[] = [];
    for (let started = 0; started < executions; started += BATCH) {
      const batch = Math.min(BATCH, executions - started);
      const answers = await Promise.all(Array.from({ length: batch }, () => engine.own.executions.start({ path: LIST_PATH })));
      ids.push(...answers.map((a) => a.execution_id));
    }
    return ids;
  });
  const bigExecutionId = (await engine.own.executions.start({ path: LOOP_PATH })).execution_id;
  const ended = await engine.waitForTerminal(bigExecutionId, { timeoutMs: TIMEOUT_MS });
  if (ended.status !== 'COMPLETED') throw new Error(`the loop execution ended ${ended.status}`);
  return { bigExecutionId };
}
