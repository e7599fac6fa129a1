import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, type HealthCheckResult, type HealthIndicatorFunction } from '@nestjs/terminus';
import { DatabaseHealthIndicator } from './database.health';
import { NatsHealthIndicator } from './nats.health';
import { RedisHealthIndicator } from './redis.health';
import { Access } from '../auth/access.decorator';

@ApiTags('health')
@Access('public')
@Controller('health')
export class HealthController {
  /** The database always; Redis and NATS only where the configuration uses them. */
  private readonly readiness: HealthIndicatorFunction[];

  constructor(
    private readonly health: HealthCheckService,
    database: DatabaseHealthIndicator,
    redis: RedisHealthIndicator,
    nats: NatsHealthIndicator,
  ) {
    this.readiness = [() => database.check(), ...redis.checks(), ...nats.checks()];
  }

  /** The process runs; no dependency is consulted (liveness is separate from readiness). */
  @Get('live')
  @HealthCheck()
  @ApiOperation({ summary: 'Liveness: the process answers' })
  live() {
    return this.health.check([]);
  }

  /** Every dependency answers within its deadline. */
  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: the database, and Redis and NATS when configured, answer within their deadlines' })
  async ready(): Promise<HealthCheckResult> {
    try {
      return await this.health.check(this.readiness);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      // Terminus answers 503 with its own result; the API's one error body names what is down.
      const result = error.getResponse() as HealthCheckResult;
      const down = Object.keys(result.error ?? {});
      throw new ServiceUnavailableException({ code: 'not_ready', message: `not ready: ${down.join(', ')} down`, details: result.details });
    }
  }
}
