import { Inject, Injectable } from '@nestjs/common';
import { HealthCheckError, HealthIndicator, type HealthIndicatorFunction, type HealthIndicatorResult } from '@nestjs/terminus';
import type { NoetlConfig } from '@noetl/config';
import { NOETL_CONFIG } from '@noetl/platform';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

const TIMEOUT_MS = 2000;

/**
 * Readiness of Redis (the BullMQ delayed-retry lane), when REDIS_URL is set:
 * AUTH when the URL has a password, then PING, on a fresh connection.
 */
@Injectable()
export class RedisHealthIndicator extends HealthIndicator {
  constructor(@Inject(NOETL_CONFIG) private readonly config: NoetlConfig) {
    super();
  }

  /** The readiness check, or none when Redis is not configured. */
  checks(key = 'redis'): HealthIndicatorFunction[] {
    const url = this.config.redis?.url.reveal();
    return url === undefined ? [] : [() => this.check(key, url)];
  }

  private async check(key: string, url: string): Promise<HealthIndicatorResult> {
    try {
      await pingRedis(url, TIMEOUT_MS);
      return this.getStatus(key, true);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new HealthCheckError('redis is not reachable', this.getStatus(key, false, { message }));
    }
  }
}

/** Resolves on `+PONG`; rejects on a Redis error reply (e.g. NOAUTH), a socket error, or silence past `timeoutMs`. */
function pingRedis(url: string, timeoutMs: number): Promise<void> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  const port = Number(target.port || 6379);
  const username = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  const commands = [...(password ? [command('AUTH', ...(username ? [username] : []), password)] : []), command('PING')];
  const tls = target.protocol === 'rediss:';
  return new Promise((resolve, reject) => {
    const socket: Socket = tls ? tlsConnect({ host, port, servername: host }) : netConnect({ host, port });
    let received = '';
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    socket.once('error', finish);
    socket.once(tls ? 'secureConnect' : 'connect', () => socket.write(commands.join('')));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      // AUTH and PING answer with one-line replies: `+OK`, `+PONG` or `-ERR ...`.
      const replies = received.split('\r\n').slice(0, -1);
      const refused = replies.find((reply) => reply.startsWith('-'));
      if (refused) finish(new Error(refused.slice(1)));
      else if (replies.length >= commands.length)
        finish(replies.at(-1) === '+PONG' ? undefined : new Error(`unexpected reply ${replies.at(-1)}`));
    });
  });
}

/** One command in RESP, the Redis wire protocol. */
function command(...args: string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}
