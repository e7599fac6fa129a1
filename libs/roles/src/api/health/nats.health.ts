import { Inject, Injectable } from '@nestjs/common';
import { HealthCheckError, HealthIndicator, type HealthIndicatorFunction, type HealthIndicatorResult } from '@nestjs/terminus';
import type { NoetlConfig } from '@noetl/config';
import { NOETL_CONFIG } from '@noetl/platform';
import { connect } from 'nats';

const TIMEOUT_MS = 2000;

/** Readiness of NATS (the transport between roles), when NATS_URL is set: connect, flush a round trip, close. */
@Injectable()
export class NatsHealthIndicator extends HealthIndicator {
  constructor(@Inject(NOETL_CONFIG) private readonly config: NoetlConfig) {
    super();
  }

  /** The readiness check, or none when NATS is not configured. */
  checks(key = 'nats'): HealthIndicatorFunction[] {
    const servers = this.config.nats?.servers;
    return servers === undefined ? [] : [() => this.check(key, servers)];
  }

  private async check(key: string, servers: string[]): Promise<HealthIndicatorResult> {
    try {
      await pingNats(servers);
      return this.getStatus(key, true);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new HealthCheckError('nats is not reachable', this.getStatus(key, false, { message }));
    }
  }
}

/** Connects to any of the servers (a cluster is up while one node answers; bounded by the client's own `timeout`), then bounds the round trip itself. */
async function pingNats(servers: string[]): Promise<void> {
  const connection = await connect({ servers, timeout: TIMEOUT_MS, reconnect: false, name: 'noetl-api-health' });
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  try {
    await Promise.race([connection.flush(), silence]);
  } finally {
    clearTimeout(timer);
    await connection.close();
  }
}
