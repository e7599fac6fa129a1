import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Json, JsonObject } from '@noetl/event-kernel';
import type { ClaimedFrame } from '@noetl/runtime';

export class ClaimedFrameDto implements ClaimedFrame {
  @ApiProperty()
  frame_id!: string;

  @ApiProperty({ description: 'The lease token: every report on this lease presents it; only the claimer receives it' })
  lease_token!: string;

  @ApiProperty()
  stage_id!: string;

  @ApiProperty()
  loop_id!: string;

  @ApiProperty()
  execution_id!: string;

  @ApiProperty()
  step!: string;

  @ApiPropertyOptional({ description: "The loop step's run: the frame's trace span is a child of the run's" })
  run_id?: string;

  @ApiProperty({ type: 'integer' })
  frame_index!: number;

  @ApiProperty({ type: 'integer' })
  attempt!: number;

  @ApiProperty({ format: 'date-time' })
  lease_until!: string;

  @ApiProperty({ type: 'integer', description: 'The lease the frame was given; heartbeat well within it' })
  lease_ms!: number;

  @ApiProperty({
    type: 'array',
    items: {},
    description: "The frame's rows, in collection order (empty for a cursor loop: its claim SQL gives them)",
  })
  rows!: Json[];

  @ApiProperty({ type: 'integer', description: 'Collection index of the first row' })
  first_index!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Collection size; null for a cursor loop' })
  total!: number | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The loop body: tool, input, retry, iterator, process, sink, cursor',
  })
  spec!: JsonObject;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The render scope as plain JSON' })
  scope!: JsonObject;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string', enum: ['step', 'loop'] } })
  result_views!: Record<string, 'step' | 'loop'>;
}

export class FrameClaimDto {
  @ApiProperty({ type: ClaimedFrameDto, nullable: true, description: 'Null when no frame of the stage is claimable now' })
  frame!: ClaimedFrameDto | null;
}

export class FrameReportedDto {
  @ApiProperty()
  frame_id!: string;

  @ApiProperty({ enum: ['COMMITTED', 'FAILED', 'PENDING'], description: 'PENDING: released, claimable again' })
  status!: 'COMMITTED' | 'FAILED' | 'PENDING';
}
