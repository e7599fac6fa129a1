import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Json, JsonObject } from '@noetl/event-kernel';
import type { ClaimedCommand, HeartbeatResult, ResolvedCredential, ShardItem, StreamBacklog } from '@noetl/runtime';

/** The item a fan-out shard's command runs the loop body for (DSL.md s4.2). */
export class ShardItemDto implements ShardItem {
  @ApiProperty({ description: 'The fan-out loop' })
  loop_id!: string;

  @ApiProperty({ type: 'integer', description: 'Collection index of the item' })
  index!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Collection size' })
  total!: number | null;

  @ApiProperty({ description: 'The item: any JSON value' })
  item!: Json;
}

export class ClaimedCommandDto implements ClaimedCommand {
  @ApiProperty()
  command_id!: string;

  @ApiProperty({ description: 'The lease token: every report on this lease presents it; only the claimer receives it' })
  lease_token!: string;

  @ApiProperty()
  execution_id!: string;

  @ApiProperty()
  step!: string;

  @ApiProperty()
  run_id!: string;

  @ApiProperty({ description: 'The tool kind', example: 'http' })
  kind!: string;

  @ApiProperty()
  attempt!: number;

  @ApiProperty()
  max_attempts!: number;

  @ApiProperty({ format: 'date-time' })
  lease_until!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The command.issued spec, unrendered' })
  spec!: JsonObject;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The render scope as plain JSON' })
  scope!: JsonObject;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['step', 'loop'] },
    description: 'Scope names that are step results (a loop step: loop), so the worker restores their `.data`/`.result` views',
  })
  result_views!: Record<string, 'step' | 'loop'>;

  @ApiPropertyOptional({ type: ShardItemDto, description: 'A fan-out shard: run the loop body (the spec) for this one item' })
  shard?: ShardItemDto;
}

export class HeartbeatResultDto implements HeartbeatResult {
  @ApiProperty({ format: 'date-time' })
  lease_until!: string;

  @ApiProperty({ description: 'The command or its execution was cancelled: abort and report nothing' })
  cancelled!: boolean;
}

export class CommandReportedDto {
  @ApiProperty()
  command_id!: string;

  @ApiProperty({ enum: ['COMPLETED', 'FAILED', 'ISSUED'], description: 'ISSUED: released, claimable again' })
  status!: 'COMPLETED' | 'FAILED' | 'ISSUED';
}

export class ChildStartedDto {
  @ApiProperty({ description: 'The child execution' })
  execution_id!: string;
}

export class CallsRecordedDto {
  @ApiProperty()
  command_id!: string;

  @ApiProperty({ description: 'How many call reports were accepted' })
  recorded!: number;
}

export class PartialRecordedDto {
  @ApiProperty()
  command_id!: string;

  @ApiProperty({ type: 'integer', description: 'The chunk recorded as call.partial (a repeated report of it records nothing more)' })
  chunk_index!: number;

  @ApiProperty({ type: 'integer', description: "The stream's chunks not yet consumed, this one included (see stream-backlog)" })
  pending_chunks!: number;
}

export class StreamBacklogDto implements StreamBacklog {
  @ApiProperty({
    type: 'integer',
    description:
      'Chunks reported and not yet consumed: not yet routed by the scheduler, or with a step run of an `on: call.partial` arc still going. The worker reads no further while it is at NOETL_STREAM_MAX_PENDING_CHUNKS',
  })
  pending_chunks!: number;
}

export class ResolvedCredentialDto implements ResolvedCredential {
  @ApiProperty()
  type!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The decrypted data: for the leaseholder only, never logged' })
  data!: JsonObject;
}
