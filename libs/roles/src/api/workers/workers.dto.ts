import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WORKER_STATUSES, type WorkerReport, type WorkerStatus } from '@noetl/storage';
import { WORKER_VIEW_STATUSES, type PoolView, type WorkerView } from '@noetl/runtime';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { POOL_NAME } from '@noetl/dsl';

const MAX_SLOTS = 1024;

/** A worker's report of itself (its first one registers it). */
export class WorkerHeartbeatDto implements Omit<WorkerReport, 'worker_id'> {
  @ApiProperty({ description: 'Host or pod the worker runs on' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  node!: string;

  @ApiPropertyOptional({ description: "Its pool (NOETL_WORKER_POOL): it takes only that pool's work" })
  @IsOptional()
  @IsString()
  @Matches(POOL_NAME, { message: 'pool must be 1-63 of A-Z a-z 0-9 _ - (not starting with _ or -)' })
  pool?: string;

  @ApiPropertyOptional({ type: [String], description: 'The tool kinds it runs; absent: every kind' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  tools?: string[];

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_SLOTS })
  @IsInt()
  @Min(1)
  @Max(MAX_SLOTS)
  slots!: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_SLOTS })
  @IsInt()
  @Min(0)
  @Max(MAX_SLOTS)
  free_slots!: number;

  @ApiProperty({ enum: WORKER_STATUSES })
  @IsIn(WORKER_STATUSES)
  status!: WorkerStatus;
}

export class WorkerViewDto implements WorkerView {
  @ApiProperty()
  worker_id!: string;

  @ApiProperty()
  node!: string;

  @ApiProperty({ type: String, nullable: true })
  pool!: string | null;

  @ApiProperty({ type: [String], nullable: true, description: 'null: every tool kind' })
  tools!: string[] | null;

  @ApiProperty({ type: 'integer' })
  slots!: number;

  @ApiProperty({ type: 'integer' })
  free_slots!: number;

  @ApiProperty({ enum: ['active', 'draining', 'stale', 'stopped'], description: 'stale: stopped reporting without saying it stopped' })
  status!: WorkerView['status'];

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty({ format: 'date-time' })
  last_seen_at!: string;
}

export class WorkerListQueryDto {
  @ApiPropertyOptional({ enum: WORKER_VIEW_STATUSES, description: 'Only the workers of this status' })
  @IsOptional()
  @IsIn(WORKER_VIEW_STATUSES)
  status?: WorkerView['status'];
}

export class PoolBacklogDto {
  @ApiProperty({ type: 'integer', description: 'Commands issued to the pool and not claimed (ISSUED)' })
  commands!: number;

  @ApiProperty({ type: 'integer', description: "Frames of the pool's open stages waiting for a claim (PENDING)" })
  frames!: number;
}

export class PoolViewDto implements PoolView {
  @ApiProperty({ type: String, nullable: true, description: 'null: workers without NOETL_WORKER_POOL and work without a pool' })
  pool!: string | null;

  @ApiProperty({ type: 'integer', description: 'Its active workers' })
  workers!: number;

  @ApiProperty({ type: 'integer' })
  slots!: number;

  @ApiProperty({ type: 'integer' })
  free_slots!: number;

  @ApiProperty({ type: PoolBacklogDto })
  backlog!: PoolBacklogDto;
}

export class WorkerListDto {
  @ApiProperty({ type: [WorkerViewDto] })
  workers!: WorkerViewDto[];

  @ApiProperty({ type: [PoolViewDto], description: 'Per worker pool: its active workers and its backlog (every pool with either)' })
  pools!: PoolViewDto[];
}

export class WorkerReportedDto {
  @ApiProperty()
  worker_id!: string;
}

/** The ledger database as its server names it (libs/tools DatabaseIdentity): what a worker's postgres steps may not reach. */
export class LedgerIdentityDto {
  @ApiProperty({ type: String, nullable: true, description: "The cluster's system identifier; null when the API's role may not read it" })
  cluster!: string | null;

  @ApiProperty({ description: "The server's start time: tells the cluster apart when `cluster` is null" })
  started_at!: string;

  @ApiProperty({ description: "The database's oid" })
  oid!: string;

  @ApiProperty({ description: "The database's name" })
  name!: string;
}
