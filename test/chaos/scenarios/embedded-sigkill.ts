import { Client } from 'pg';
import { hold, type Scenario } from '../scenario';

/**
 * A `noetl server` running the api, a scheduler and a worker in one process
 * joins the deployment and takes its share of the work: its scheduler
 * claims commands for its worker in the transaction that issues them, and
 * its reports (and frame commits, with the stage's next frame claimed) are
 * planned in their own transaction. SIGKILLed at a moment the seed picks,
 * what it held is reaped and finished by the rest of the deployment.
 */
export const embeddedSigkill: Scenario = {
  name: 'embedded-sigkill',
  description:
    'SIGKILL a process running api, scheduler and worker together (claims made as commands are issued, reports planned in their own transaction) while it holds work',
  async inject({ cluster, services, random, log }) {
    const server = cluster.running('server')[0] ?? (await cluster.launch('server'));
    await hold(300 + Math.floor(random() * 1_200));
    const held = await leasesHeldBy(services.postgres.url, server.process.pid);
    log(`SIGKILL server ${server.process.pid} (its worker holds ${held.commands} command and ${held.frames} frame leases)`);
    await cluster.crash(server);
    await cluster.launch('server');
  },
};

/** Leases held by the worker of process `pid` (worker ids are `host-pid-random`), read just before the kill. */
async function leasesHeldBy(databaseUrl: string, pid: number): Promise<{ commands: number; frames: number }> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const pattern = `%-${pid}-%`;
    const [commands] = (
      await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM noetl.command WHERE status = 'RUNNING' AND worker_id LIKE $1`, [
        pattern,
      ])
    ).rows;
    const [frames] = (
      await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM noetl.frame WHERE status = 'RUNNING' AND owner_worker LIKE $1`, [
        pattern,
      ])
    ).rows;
    return { commands: commands?.n ?? 0, frames: frames?.n ?? 0 };
  } finally {
    await db.end();
  }
}
