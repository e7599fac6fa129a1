import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { EventCall, EventError, EventOutputLine, Json, JsonObject } from '@noetl/event-kernel';
import { OUTPUT_TAIL_LINES } from '@noetl/runtime';
import type {
  ClaimRequest,
  CompleteRequest,
  CredentialRequest,
  FailRequest,
  Holder,
  LeaseRequest,
  PartialRequest,
  RecordCallsRequest,
  StartChildRequest,
} from '@noetl/runtime';
import { Type } from 'class-transformer';
import { RawJson } from '../input/raw-json';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_CHUNK_ROWS, POOL_NAME } from '@noetl/dsl';

/** A day: longer leases would hide a dead worker for longer than any reaper cycle is worth. */
const MAX_LEASE_MS = 86_400_000;

/** Who holds a lease: its worker and the token its claim returned (a worker id alone is public and proves nothing). */
export class HolderDto implements Holder {
  @ApiProperty({ description: 'The worker that holds the lease' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  worker_id!: string;

  @ApiProperty({ description: 'The lease token its claim returned' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  lease_token!: string;
}

export class LeaseDto extends HolderDto implements LeaseRequest {
  @ApiPropertyOptional({ type: 'integer', description: 'Lease length (default 30 s)', minimum: 1, maximum: MAX_LEASE_MS })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_LEASE_MS)
  lease_ms?: number;

  @ApiPropertyOptional({ description: 'false: the command ran alone on its worker (run_alone) and from now on runs beside other work' })
  @IsOptional()
  @IsBoolean()
  alone?: boolean;
}

export class ClaimDto implements ClaimRequest {
  @ApiProperty({ description: 'The worker asking; the lease is its own' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  worker_id!: string;

  @ApiPropertyOptional({ type: 'integer', description: 'Lease length (default 30 s)', minimum: 1, maximum: MAX_LEASE_MS })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_LEASE_MS)
  lease_ms?: number;

  @ApiPropertyOptional({ description: 'The token of a lease this worker already holds: the claim then returns that lease' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  lease_token?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'The tool kinds the worker runs (NOETL_WORKER_TOOLS); work needing another is refused (403 tool_not_allowed)',
  })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  tools?: string[];

  @ApiPropertyOptional({
    description:
      'The worker pool it serves (NOETL_WORKER_POOL); work of another pool, or of a pool when it names none, is refused (403 wrong_pool)',
  })
  @IsOptional()
  @IsString()
  @Matches(POOL_NAME, { message: 'pool must be 1-63 of A-Z a-z 0-9 _ - (not starting with _ or -)' })
  pool?: string;
}

export class EventErrorDto implements EventError {
  @ApiProperty({ description: 'Classified kind, e.g. http_error, timeout, tool_error' })
  @IsString()
  @IsNotEmpty()
  kind!: string;

  @ApiProperty()
  @IsString()
  message!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  retryable?: boolean;

  @ApiPropertyOptional({ type: 'integer', description: 'HTTP status of a failed call' })
  @IsOptional()
  @IsInt()
  status?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  code?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  step?: string;

  @ApiPropertyOptional({ description: 'The expression that failed to evaluate' })
  @IsOptional()
  @IsString()
  expression?: string;
}

export class CallReportDto implements EventCall {
  @ApiProperty({ description: 'The task of the command (one per pipeline task)' })
  @IsString()
  @IsNotEmpty()
  task!: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  @IsInt()
  @Min(0)
  attempts!: number;

  @ApiProperty({ minimum: 0 })
  @IsNumber()
  @Min(0)
  duration_ms!: number;

  @ApiProperty({ enum: ['ok', 'error'] })
  @IsIn(['ok', 'error'])
  status!: 'ok' | 'error';

  @ApiPropertyOptional({ type: EventErrorDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => EventErrorDto)
  error?: EventErrorDto;
}

/** What every terminal report of a worker carries: who reports, the ctx writes and the calls. */
export class WorkerReportDto extends HolderDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: '`set: ctx.*` writes by dotted key, in order' })
  @RawJson({ object: true, optional: true })
  ctx?: JsonObject;

  @ApiPropertyOptional({ type: [CallReportDto] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => CallReportDto)
  calls?: CallReportDto[];
}

export class OutputLineDto implements EventOutputLine {
  @ApiProperty({ enum: ['stdout', 'stderr'] })
  @IsIn(['stdout', 'stderr'])
  stream!: 'stdout' | 'stderr';

  @ApiProperty({ maxLength: 4096 })
  @IsString()
  @MaxLength(4096)
  text!: string;
}

/** What complete and fail share: a worker report, the run time and what user code printed last. */
class CommandReportDto extends WorkerReportDto {
  @ApiPropertyOptional({ minimum: 0 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  duration_ms?: number;

  @ApiPropertyOptional({ type: [OutputLineDto], description: 'The last lines user code printed (scrubbed of secrets at the worker)' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(OUTPUT_TAIL_LINES + 1)
  @ValidateNested({ each: true })
  @Type(() => OutputLineDto)
  output?: OutputLineDto[];
}

export class CompleteDto extends CommandReportDto implements CompleteRequest {
  @ApiPropertyOptional({ description: 'The tool result: any JSON value (a large one goes to the payload store)' })
  @RawJson({ optional: true })
  result?: Json;
}

export class FailDto extends CommandReportDto implements FailRequest {
  @ApiProperty({ type: EventErrorDto })
  @ValidateNested()
  @Type(() => EventErrorDto)
  error!: EventErrorDto;
}

export class StartChildDto extends HolderDto implements StartChildRequest {
  @ApiProperty({ description: 'The child playbook path' })
  @IsString()
  @IsNotEmpty()
  path!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  version?: number;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @RawJson({ object: true, optional: true })
  payload?: JsonObject;
}

export class CredentialRequestDto extends HolderDto implements CredentialRequest {
  @ApiProperty({ description: 'The credential name' })
  @IsString()
  @IsNotEmpty()
  name!: string;
}

export class RecordCallsDto extends HolderDto implements RecordCallsRequest {
  @ApiProperty({ description: 'The command the calls belong to' })
  @IsString()
  @IsNotEmpty()
  command_id!: string;

  @ApiProperty({ type: [CallReportDto] })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => CallReportDto)
  calls!: CallReportDto[];
}

/** One chunk of a streamed result (DSL.md s3 `stream`), reported before the worker reads on. */
export class PartialDto extends HolderDto implements PartialRequest {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'From 0, in the order the chunks were read' })
  @IsInt()
  @Min(0)
  chunk_index!: number;

  @ApiProperty({ description: 'False for the last chunk' })
  @IsBoolean()
  has_more!: boolean;

  @ApiProperty({ type: [String], description: 'The column names' })
  @IsArray()
  @IsString({ each: true })
  columns!: string[];

  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: `The rows (at most ${MAX_CHUNK_ROWS}); they go to the payload store`,
  })
  @IsArray()
  @ArrayMaxSize(MAX_CHUNK_ROWS)
  @IsObject({ each: true })
  rows!: JsonObject[];
}
