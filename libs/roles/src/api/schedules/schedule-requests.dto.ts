import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OVERLAP_POLICIES, type OverlapPolicy } from '@noetl/dsl';
import type { JsonObject } from '@noetl/event-kernel';
import type { ScheduleInput } from '@noetl/runtime';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Min } from 'class-validator';
import { RawJson } from '../input/raw-json';

/** The schedule fields both a creation and a change may give (the service checks them together: cron, time zone, ranges). */
class ScheduleFieldsDto {
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    description: 'Pin a version of the playbook; absent or null: the latest at each fire',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  version?: number | null;

  @ApiPropertyOptional({
    description: '5 fields: minute hour day-of-month month day-of-week; exactly one of cron and interval_seconds',
    example: '*/15 * * * *',
  })
  @IsOptional()
  @IsString()
  cron?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'Fire every this many seconds (at the multiples since the Unix epoch); exactly one of cron and interval_seconds',
  })
  @IsOptional()
  @IsInt()
  interval_seconds?: number;

  @ApiPropertyOptional({ description: 'IANA time zone the cron expression is read in (default UTC)', example: 'Europe/Berlin' })
  @IsOptional()
  @IsString()
  timezone?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Deep-merged over the playbook workload of every execution',
  })
  @RawJson({ object: true, optional: true })
  payload?: JsonObject;

  @ApiPropertyOptional({
    enum: OVERLAP_POLICIES,
    description: 'While the last execution still runs: skip the fire time (default), hold one (buffer_one), or start anyway (allow)',
  })
  @IsOptional()
  @IsIn(OVERLAP_POLICIES)
  overlap?: OverlapPolicy;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 10,
    description: 'How late a fire time may still start (default 60); later ones (nothing ran) are missed',
  })
  @IsOptional()
  @IsInt()
  catchup_seconds?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 86400,
    description: 'Start each fire time up to this much later (a fixed amount per fire time)',
  })
  @IsOptional()
  @IsInt()
  jitter_seconds?: number;

  @ApiPropertyOptional({ description: 'A paused schedule fires nothing; resuming starts at the next fire time (no catch-up of the pause)' })
  @IsOptional()
  @IsBoolean()
  paused?: boolean;
}

export class CreateScheduleDto extends ScheduleFieldsDto implements ScheduleInput {
  @ApiProperty({ description: 'The registered playbook to start', example: 'etl/orders_sync' })
  @IsString()
  @IsNotEmpty()
  path!: string;
}

export class UpdateScheduleDto extends ScheduleFieldsDto implements ScheduleInput {
  @ApiPropertyOptional({ description: 'Another registered playbook' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  path?: string;
}

export class ListSchedulesQueryDto {
  @ApiPropertyOptional({ description: 'Only schedules of this playbook path' })
  @IsOptional()
  @IsString()
  path?: string;
}
