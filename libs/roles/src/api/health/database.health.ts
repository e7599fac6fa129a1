import { Injectable } from '@nestjs/common';
import { HealthIndicator, HealthCheckError, type HealthIndicatorResult } from '@nestjs/terminus';
import { pingDatabase } from '@noetl/platform';
import { Database } from '@noetl/storage';

/** Readiness of the ledger database: `SELECT 1` within a deadline. */
@Injectable()
export class DatabaseHealthIndicator extends HealthIndicator {
  constructor(private readonly database: Database) {
    super();
  }

  async check(key = 'database'): Promise<HealthIndicatorResult> {
    const status = await pingDatabase(this.database);
    const result = this.getStatus(key, status === 'up');
    if (status === 'up') return result;
    throw new HealthCheckError('database is not reachable', result);
  }
}
