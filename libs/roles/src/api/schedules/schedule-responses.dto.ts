import { ApiProperty } from '@nestjs/swagger';
import { OVERLAP_POLICIES, type OverlapPolicy } from '@noetl/dsl';
import type { JsonObject } from '@noetl/event-kernel';
import type { ScheduleView, TriggeredSchedule } from '@noetl/runtime';

const TIME = { format: 'date-time', nullable: true, type: String } as const;

export class ScheduleViewDto implements ScheduleView {
  @ApiProperty()
  schedule_id!: string;

  @ApiProperty()
  path!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Null: the latest version at each fire' })
  version!: number | null;

  @ApiProperty({ enum: ['api', 'playbook'], description: "playbook: declared by the playbook's metadata.schedule" })
  source!: 'api' | 'playbook';

  @ApiProperty({ nullable: true, type: String })
  cron!: string | null;

  @ApiProperty({ nullable: true, type: String })
  timezone!: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  interval_seconds!: number | null;

  @ApiProperty({ type: 'object', additionalProperties: true })
  payload!: JsonObject;

  @ApiProperty({ enum: OVERLAP_POLICIES })
  overlap!: OverlapPolicy;

  @ApiProperty({ type: 'integer' })
  catchup_seconds!: number;

  @ApiProperty({ type: 'integer' })
  jitter_seconds!: number;

  @ApiProperty()
  paused!: boolean;

  @ApiProperty({ ...TIME, description: 'Null while paused' })
  next_fire_time!: string | null;

  @ApiProperty({ ...TIME, description: 'When the next fire time starts: its jitter added' })
  next_due_time!: string | null;

  @ApiProperty({ ...TIME, description: 'A fire time buffer_one holds until the running execution ends' })
  buffered_fire_time!: string | null;

  @ApiProperty(TIME)
  last_fire_time!: string | null;

  @ApiProperty({ nullable: true, type: String })
  last_execution_id!: string | null;

  @ApiProperty({ ...TIME, description: 'The latest fire time reached past the catch-up window (missed)' })
  last_missed_time!: string | null;

  @ApiProperty({ type: 'integer', description: 'Executions started, manual triggers included' })
  fired!: number;

  @ApiProperty({ type: 'integer', description: 'Fire times the overlap policy dropped' })
  skipped!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class ScheduleListDto {
  @ApiProperty({ type: [ScheduleViewDto] })
  schedules!: ScheduleViewDto[];
}

export class TriggeredScheduleDto implements TriggeredSchedule {
  @ApiProperty()
  schedule_id!: string;

  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ format: 'date-time' })
  fire_time!: string;
}
