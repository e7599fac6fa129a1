import { connect } from 'node:net';

export const REDIS_START_COMMAND =
  'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log';
export const NATS_START_COMMAND =
  'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log';

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** REDIS_URL (default redis://127.0.0.1:6379), after checking something listens there. */
export function requireRedis(): Promise<string> {
  return requireService('Redis', process.env.REDIS_URL?.trim() || DEFAULT_REDIS_URL, 6379, REDIS_START_COMMAND);
}

/** NATS_URL (default nats://127.0.0.1:4222), after checking something listens there. */
export function requireNats(): Promise<string> {
  return requireService('NATS', process.env.NATS_URL?.trim() || DEFAULT_NATS_URL, 4222, NATS_START_COMMAND);
}

async function requireService(name: string, url: string, defaultPort: number, startCommand: string): Promise<string> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  const port = Number(parsed.port || defaultPort);
  try {
    await tcpProbe(host, port, 2_000);
  } catch (error) {
    throw new Error(
      `${name} is unreachable at ${host}:${port} (${String(error)}); tests do not skip without it. Start it with:\n  ${startCommand}`,
    );
  }
  return url;
}

function tcpProbe(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const fail = (error: Error): void => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no answer within ${timeoutMs} ms`)));
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
  });
}
