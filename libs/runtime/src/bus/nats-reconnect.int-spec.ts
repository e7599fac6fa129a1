import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { freePort } from '../../../../test/support/cli-server-process';
import { waitFor } from '../../../../test/support/wait-for';
import { NATS_RECONNECT_FOREVER } from './nats-reconnect';

/** Ten reconnect attempts of this wait (the nats.js default count) take 1 s: the outage below lasts longer. */
const WAIT_MS = 100;
const OUTAGE_MS = 2_000;

/**
 * Found by the chaos harness (issue 14, nats-down): NATS down for longer
 * than nats.js's 10 reconnect attempts left every process's connection
 * closed for good. With the runtime's options a connection outlives an
 * outage of any length and delivers again once NATS is back.
 */
describe('a NATS connection across an outage longer than ten reconnect attempts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'noetl-nats-'));
  let port: number;
  let server: ChildProcess | undefined;
  let nc: NatsConnection | undefined;

  const startServer = async (): Promise<void> => {
    server = spawn('/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(port), '-sd', dir], { stdio: 'ignore' });
    await waitFor(async () => connect({ servers: `127.0.0.1:${port}`, reconnect: false }).then((probe) => probe.close().then(() => true)), {
      timeoutMs: 10_000,
      intervalMs: 50,
      description: 'the private nats-server',
    });
  };
  const stopServer = async (): Promise<void> => {
    const running = server!;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };

  beforeAll(async () => {
    port = await freePort();
    await startServer();
  });
  afterAll(async () => {
    await nc?.close();
    if (server && server.exitCode === null && server.signalCode === null) await stopServer();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reconnects and delivers again after the outage', async () => {
    nc = await connect({ servers: `127.0.0.1:${port}`, reconnectTimeWait: WAIT_MS, ...NATS_RECONNECT_FOREVER });
    const received: string[] = [];
    const subscription = nc.subscribe('noetl.test.reconnect');
    void (async () => {
      for await (const message of subscription) received.push(message.string());
    })();
    await stopServer();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    expect(nc.isClosed()).toBe(false);
    await startServer();
    await waitFor(
      async () => {
        nc!.publish('noetl.test.reconnect', 'back');
        await nc!.flush();
        return received.includes('back');
      },
      { timeoutMs: 10_000, intervalMs: 200, description: 'a message through the reconnected connection' },
    );
  });
});
