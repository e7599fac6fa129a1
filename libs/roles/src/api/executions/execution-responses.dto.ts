import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ExecutionStatus, Json, JsonObject } from '@noetl/event-kernel';
import {
  STEP_VIEW_STATUSES,
  type DeliveredSignal,
  type EventPage,
  type EventView,
  type ExecutionDetail,
  type ExecutionPage,
  type ExecutionSummary,
  type LoopView,
  type StartedExecution,
  type StepView,
} from '@noetl/runtime';
import { EXECUTION_STATUSES } from './execution-requests.dto';

const ANY_JSON = { description: 'any JSON value', nullable: true } as const;

export class PayloadRefDto {
  @ApiProperty({ description: 'sha256 of the content (the key in the payload store)' })
  sha256!: string;

  @ApiProperty()
  media_type!: string;

  @ApiProperty()
  bytes!: number;

  @ApiPropertyOptional()
  rows?: number;

  @ApiPropertyOptional()
  schema_digest?: string;

  @ApiPropertyOptional()
  uri?: string;
}

export class StartedExecutionDto implements StartedExecution {
  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ enum: EXECUTION_STATUSES })
  status!: ExecutionStatus;
}

export class DeliveredSignalDto implements DeliveredSignal {
  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ description: 'The signal name' })
  signal!: string;

  @ApiProperty({ description: 'The signal.received event' })
  event_id!: string;
}

export class CancelledExecutionDto {
  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ enum: ['CANCELLED'], description: 'execution.cancelled is in the ledger; open commands are cancelled next' })
  status!: 'CANCELLED';
}

export class ExecutionErrorDto {
  @ApiProperty({ nullable: true, type: String })
  step!: string | null;

  @ApiProperty()
  kind!: string;

  @ApiProperty()
  message!: string;
}

export class StepViewDto implements StepView {
  @ApiProperty()
  step!: string;

  @ApiProperty({
    enum: STEP_VIEW_STATUSES,
    description:
      'PENDING: no worker claimed its command yet (or a retry is due); WAITING: for a signal or a sleep; CANCELLED: the execution ended while it ran',
  })
  status!: StepView['status'];

  @ApiProperty()
  attempts!: number;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  completed_at!: string | null;
}

export class LoopViewDto implements LoopView {
  @ApiProperty()
  step!: string;

  @ApiProperty()
  loop_id!: string;

  @ApiProperty({ nullable: true, type: Number, description: 'Size of the collection, when known' })
  total!: number | null;

  @ApiProperty()
  done!: number;

  @ApiProperty()
  failed!: number;

  @ApiProperty()
  completed!: boolean;
}

export class ExecutionScheduleDto {
  @ApiProperty()
  schedule_id!: string;

  @ApiProperty({
    format: 'date-time',
    description: 'The fire time that started the execution (for a manual trigger, the time of the trigger)',
  })
  fire_time!: string;

  @ApiProperty({ description: 'Started by POST /api/schedules/{id}/trigger' })
  manual!: boolean;
}

export class RerunOfDto {
  @ApiProperty({ description: 'The execution this one re-runs' })
  execution_id!: string;

  @ApiProperty({ nullable: true, type: String, description: 'The step it ran from; null: from the start' })
  from_step!: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    description: "The original's last event before that step: its replay there shows the state the rerun copied",
  })
  as_of_event_id!: string | null;
}

export class ExecutionDetailDto implements ExecutionDetail {
  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ nullable: true, type: String })
  parent_execution_id!: string | null;

  @ApiProperty()
  path!: string;

  @ApiProperty()
  version!: number;

  @ApiProperty({ enum: EXECUTION_STATUSES })
  status!: ExecutionStatus;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  completed_at!: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true })
  workload!: JsonObject;

  @ApiProperty(ANY_JSON)
  result!: Json | null;

  @ApiPropertyOptional({ type: PayloadRefDto, nullable: true, description: 'Where a large result is' })
  result_ref?: PayloadRefDto | null;

  @ApiProperty({ type: ExecutionErrorDto, nullable: true })
  error!: ExecutionErrorDto | null;

  @ApiProperty({ type: [StepViewDto] })
  steps!: StepViewDto[];

  @ApiProperty({ type: [LoopViewDto] })
  loops!: LoopViewDto[];

  @ApiProperty({
    type: ExecutionScheduleDto,
    nullable: true,
    description: 'The schedule and fire time that started the execution; null when something else did',
  })
  schedule!: ExecutionScheduleDto | null;

  @ApiProperty({
    type: RerunOfDto,
    nullable: true,
    description: 'The execution this one re-runs (POST /api/executions/{id}/rerun); null when it is no rerun',
  })
  rerun_of!: RerunOfDto | null;

  @ApiProperty({ type: [String], description: 'The executions that re-run this one, oldest first' })
  reruns!: string[];
}

export class ExecutionSummaryDto implements ExecutionSummary {
  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ nullable: true, type: String })
  parent_execution_id!: string | null;

  @ApiProperty({ nullable: true, type: String })
  path!: string | null;

  @ApiProperty({ nullable: true, type: Number })
  version!: number | null;

  @ApiProperty({ enum: EXECUTION_STATUSES })
  status!: ExecutionStatus;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  started_at!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  completed_at!: string | null;
}

export class ExecutionPageDto implements ExecutionPage {
  @ApiProperty({ type: [ExecutionSummaryDto] })
  executions!: ExecutionSummaryDto[];

  @ApiProperty({ nullable: true, type: String, description: 'Pass as `cursor` for the next page; null on the last one' })
  next_cursor!: string | null;
}

export class EventViewDto implements EventView {
  @ApiProperty()
  event_id!: string;

  @ApiProperty({ example: 'command.completed' })
  event_type!: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: "Its place in the execution's ledger, 1 for the first event (a replay's `as_of_position`)",
  })
  position!: number;

  @ApiProperty({ nullable: true, type: String })
  step!: string | null;

  @ApiProperty({ nullable: true, type: String })
  status!: string | null;

  @ApiProperty({ nullable: true, type: String })
  command_id!: string | null;

  @ApiProperty({ nullable: true, type: String })
  frame_id!: string | null;

  @ApiProperty({ nullable: true, type: String })
  loop_id!: string | null;

  @ApiProperty(ANY_JSON)
  payload!: Json;

  @ApiProperty({ type: PayloadRefDto, nullable: true })
  payload_ref!: PayloadRefDto | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class EventPageDto implements EventPage {
  @ApiProperty({ type: [EventViewDto], description: 'In ledger order' })
  events!: EventViewDto[];

  @ApiProperty({ nullable: true, type: String, description: 'Pass as `after` for the next page; null when this page was the last so far' })
  next_after!: string | null;
}

export class ExecutionCountsDto {
  @ApiProperty()
  RUNNING!: number;

  @ApiProperty()
  COMPLETED!: number;

  @ApiProperty()
  FAILED!: number;

  @ApiProperty()
  CANCELLED!: number;
}
