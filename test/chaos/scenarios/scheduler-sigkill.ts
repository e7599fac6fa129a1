import type { Scenario } from '../scenario';

/** SIGKILL the scheduler mid-loop and start another: routing resumes from the ledger. */
export const schedulerSigkill: Scenario = {
  name: 'scheduler-sigkill',
  description: 'SIGKILL the scheduler mid-loop, then start a new one',
  async inject({ cluster, log }) {
    const [scheduler] = cluster.running('scheduler');
    log(`SIGKILL scheduler ${scheduler!.process.pid}`);
    await cluster.crash(scheduler!);
    await cluster.launch('scheduler');
  },
};
