// pg-boss's side of a bench:peers task (protocol.ts): each step or item a job,
// fetched in batches by one worker in this process; a chain's job sends the next.
import PgBoss from 'pg-boss';
import { countdown, serve, versionOf } from './kit.mjs';

const QUEUE = 'bench';
/** Jobs one fetch takes (pg-boss's batch work). */
const BATCH = 100;
/** Jobs one insert call enqueues. */
const INSERT_BATCH = 1000;

async function start(task) {
  const { workload, databaseUrl } = task;
  // No maintenance or state monitoring during a run: neither is part of the work measured.
  const boss = new PgBoss({ connectionString: databaseUrl, supervise: false, schedule: false });
  boss.on('error', (error) => process.stderr.write(`pg-boss error: ${error.stack ?? error}\n`));
  await boss.start();
  if (task.phase === 'prepare') {
    await boss.createQueue(QUEUE);
    return { stop: () => boss.stop({ graceful: false, wait: true }) };
  }
  const done = countdown(workload.kind === 'executions' || workload.kind === 'items' ? workload.count : 1);
  let workerId;
  const handler = async (jobs) => {
    await Promise.all(
      jobs.map(async ({ data }) => {
        if (data.index !== undefined && data.index + 1 < data.steps) await boss.send(QUEUE, { ...data, index: data.index + 1 });
        else done.tick();
      }),
    );
    // The next step is queued now: fetch again at once instead of after the polling interval.
    boss.notifyWorker(workerId);
  };
  workerId = await boss.work(QUEUE, { batchSize: BATCH, pollingIntervalSeconds: 0.5 }, handler);
  const insertAll = async (count, data) => {
    for (let first = 0; first < count; first += INSERT_BATCH) {
      const size = Math.min(INSERT_BATCH, count - first);
      await boss.insert(Array.from({ length: size }, (_, i) => ({ name: QUEUE, data: data(first + i) })));
    }
  };
  return {
    async run() {
      if (workload.kind === 'items') await insertAll(workload.count, (item) => ({ item }));
      else await insertAll(workload.kind === 'chain' ? 1 : workload.count, (execution) => ({ execution, index: 0, steps: workload.steps }));
      await done.finished;
      return `${workload.kind === 'items' ? 'a job per item' : 'a job per step, each sending the next'}, fetched ${BATCH} at a time`;
    },
    stop: () => boss.stop({ graceful: false, wait: true }),
  };
}

await serve({ version: `pg-boss ${versionOf('pg-boss')}`, start });
