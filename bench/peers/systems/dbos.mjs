// DBOS Transact TS's side of a bench:peers task (protocol.ts): workflows and
// their steps are functions of this process, checkpointed in its system database.
import { DBOS } from '@dbos-inc/dbos-sdk';
import { serve, versionOf } from './kit.mjs';

/** Steps of the no-op fan-out started together inside the one workflow. */
const ITEMS_AT_ONCE = 100;

const noop = async () => undefined;

const chain = DBOS.registerWorkflow(
  async (steps) => {
    for (let i = 0; i < steps; i++) await DBOS.runStep(noop, { name: `s${i}` });
  },
  { name: 'chain' },
);

const items = DBOS.registerWorkflow(
  async (count) => {
    for (let first = 0; first < count; first += ITEMS_AT_ONCE) {
      const batch = Array.from({ length: Math.min(ITEMS_AT_ONCE, count - first) }, () => DBOS.runStep(noop, { name: 'item' }));
      await Promise.all(batch);
    }
  },
  { name: 'items' },
);

async function run(workload) {
  switch (workload.kind) {
    case 'chain':
      await (await DBOS.startWorkflow(chain)(workload.steps)).getResult();
      return 'one workflow, each step an in-process function';
    case 'executions': {
      const handles = await Promise.all(Array.from({ length: workload.count }, () => DBOS.startWorkflow(chain)(workload.steps)));
      await Promise.all(handles.map((handle) => handle.getResult()));
      return 'workflows started at once, each step an in-process function';
    }
    case 'items':
      await (await DBOS.startWorkflow(items)(workload.count)).getResult();
      return `one workflow, its steps ${ITEMS_AT_ONCE} at a time`;
  }
}

await serve({
  version: `@dbos-inc/dbos-sdk ${versionOf('@dbos-inc/dbos-sdk')}`,
  async start(task) {
    DBOS.setConfig({ name: 'bench-peers', systemDatabaseUrl: task.databaseUrl, logLevel: 'warn' });
    await DBOS.launch();
    return { run, stop: () => DBOS.shutdown() };
  },
});
