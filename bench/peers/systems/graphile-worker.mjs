// graphile-worker's side of a bench:peers task (protocol.ts): each step or
// item a job, run by a worker pool in this process; a chain's job adds the next.
import { Logger, makeWorkerUtils, run as runWorker, runMigrations } from 'graphile-worker';
import { countdown, serve, versionOf } from './kit.mjs';

const CONCURRENCY = 10;
/** Jobs one addJobs call enqueues. */
const ADD_BATCH = 1000;
/** The `local-queue` variant: jobs fetched (and locked) per query, completions batched (graphile-worker's batching guide). */
const LOCAL_QUEUE = { localQueue: { size: 500 }, completeJobBatchDelay: 0 };
/** Warnings and errors only: its default logs a line per job, which would be most of what is measured. */
const logger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') process.stderr.write(`graphile-worker ${level}: ${message}\n`);
});

/** Adds `count` jobs of `identifier`, ADD_BATCH per statement, payload i for the i-th. */
async function addAll(utils, identifier, count, payload) {
  for (let first = 0; first < count; first += ADD_BATCH) {
    const size = Math.min(ADD_BATCH, count - first);
    await utils.addJobs(Array.from({ length: size }, (_, i) => ({ identifier, payload: payload(first + i) })));
  }
}

async function start(task) {
  const { workload, variant, databaseUrl } = task;
  if (task.phase === 'prepare') {
    await runMigrations({ connectionString: databaseUrl, logger });
    return { stop: async () => undefined };
  }
  const done = countdown(workload.kind === 'executions' || workload.kind === 'items' ? workload.count : 1);
  const taskList = {
    step: async ({ execution, index, steps }, helpers) => {
      if (index + 1 < steps) await helpers.addJob('step', { execution, index: index + 1, steps });
      else done.tick();
    },
    item: async () => done.tick(),
  };
  const runner = await runWorker({
    connectionString: databaseUrl,
    concurrency: CONCURRENCY,
    noHandleSignals: true,
    logger,
    taskList,
    preset: variant === 'local-queue' ? { worker: LOCAL_QUEUE } : {},
  });
  const utils = await makeWorkerUtils({ connectionString: databaseUrl, logger });
  return {
    async run() {
      if (workload.kind === 'items') await addAll(utils, 'item', workload.count, (item) => ({ item }));
      else await addAll(utils, 'step', workload.kind === 'chain' ? 1 : workload.count, (execution) => ({ execution, index: 0, steps: workload.steps }));
      await done.finished;
      const queue = variant === 'local-queue' ? `, local queue of ${LOCAL_QUEUE.localQueue.size}` : '';
      return `${workload.kind === 'items' ? 'a job per item' : 'a job per step, each adding the next'}, concurrency ${CONCURRENCY}${queue}`;
    },
    async stop() {
      await utils.release();
      await runner.stop();
    },
  };
}

await serve({ version: `graphile-worker ${versionOf('graphile-worker')}`, start });
