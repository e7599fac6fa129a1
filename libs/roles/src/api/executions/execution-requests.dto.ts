import { ApiPropertyOptional } from '@nestjs/swagger';
import type { ExecutionStatus } from '@noetl/event-kernel';
import type { ListEventsQuery } from '@noetl/runtime';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { RawJson } from '../input/raw-json';

const STATUS_NAMES: Record<ExecutionStatus, true> = { RUNNING: true, COMPLETED: true, FAILED: true, CANCELLED: true };
export const EXECUTION_STATUSES = Object.keys(STATUS_NAMES) as ExecutionStatus[];
const EVENT_ID = /^\d{1,19}$/;
const MAX_PAGE = 1000;
/** Versions are PostgreSQL integers: `1e30` is an integer to JavaScript, not to the database. */
const MAX_VERSION = 2_147_483_647;

export class ExecuteDto {
  @ApiPropertyOptional({ description: 'The playbook path (latest version unless `version`); exactly one of path and catalog_id' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  path?: string;

  @ApiPropertyOptional({ description: 'A catalog id; exactly one of path and catalog_id' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  catalog_id?: string;

  @ApiPropertyOptional({ type: 'integer', description: 'A version of `path`', minimum: 1, maximum: MAX_VERSION })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_VERSION)
  version?: number;

  // Checked by the handler, not here: a payload that is not an object is 422 invalid_payload, not 400.
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Deep-merged over the playbook workload' })
  @RawJson({ optional: true })
  payload?: unknown;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'NoETL spelling of `payload`' })
  @RawJson({ optional: true })
  workload?: unknown;
}

export class RerunDto {
  @ApiPropertyOptional({
    description: "The step to run from: the original's results of the steps before it are copied. Absent: from the start",
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  from_step?: string;

  // Checked by the handler, as for execute: a payload that is not an object is 422 invalid_payload.
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "Deep-merged over the original's workload (and, from a step, its ctx)",
  })
  @RawJson({ optional: true })
  payload?: unknown;
}

/** What narrows a list of executions and its counts per status. */
export class ExecutionFilterDto {
  @ApiPropertyOptional({ description: 'Only executions of this playbook path' })
  @IsOptional()
  @IsString()
  path?: string;

  @ApiPropertyOptional({ description: 'Only the children of this execution' })
  @IsOptional()
  @Matches(EVENT_ID, { message: 'parent must be an execution id' })
  parent?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only executions started at or after this time (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  started_after?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only executions started before this time (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  started_before?: string;
}

export class ListExecutionsQueryDto extends ExecutionFilterDto {
  @ApiPropertyOptional({ enum: EXECUTION_STATUSES })
  @IsOptional()
  @IsIn(EXECUTION_STATUSES)
  status?: ExecutionStatus;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `next_cursor` of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

export class ListEventsQueryDto {
  @ApiPropertyOptional({ description: 'Only events after this event id (the `next_after` of the previous page)' })
  @IsOptional()
  @Matches(EVENT_ID, { message: 'after must be an event id' })
  after?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description: "Only events after this many of the execution's events (an event's `position`); not with `after`",
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  after_position?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  limit?: number;

  @ApiPropertyOptional({ type: [String], description: 'Only these event types; repeat the parameter or separate with commas' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => splitList(value))
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  type?: string[];
}

export function listEventsQueryOf({ after_position, ...query }: ListEventsQueryDto): ListEventsQuery {
  return { ...query, ...(after_position !== undefined ? { afterPosition: after_position } : {}) };
}

export class CancelDto {
  @ApiPropertyOptional({ description: 'Why, recorded on execution.cancelled', maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

export class SignalDto {
  // Any JSON value: it becomes the result of the step that waits for the signal.
  @ApiPropertyOptional({ description: 'Any JSON value (default {}): the result of the step that takes the signal', nullable: true })
  @RawJson({ optional: true })
  payload?: unknown;

  @ApiPropertyOptional({ description: 'Deliver at most once per key: a repeated request answers the first delivery', maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  idempotency_key?: string;
}

/** `?type=a&type=b,c` -> ['a', 'b', 'c']; anything else is left for the validators to reject. */
function splitList(value: unknown): unknown {
  const parts = Array.isArray(value) ? value : [value];
  if (!parts.every((part): part is string => typeof part === 'string')) return value;
  return parts
    .flatMap((part) => part.split(','))
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
