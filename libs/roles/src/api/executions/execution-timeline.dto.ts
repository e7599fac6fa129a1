import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { TimelineBar, TimelineKind, TimelinePoint } from '@noetl/runtime';

const KINDS: TimelineKind[] = ['command', 'frame', 'retry', 'wait'];

export class TimelinePointDto implements TimelinePoint {
  @ApiProperty({ type: 'integer', minimum: 1, description: "The event's position in the execution's ledger" })
  position!: number;

  @ApiProperty({ format: 'date-time' })
  time!: string;
}

export class TimelineBarDto implements TimelineBar {
  @ApiProperty({
    enum: KINDS,
    description:
      "A command's run, a loop frame's run (one bar per attempt), a retry's delay, or a wait (a timer, or a step waiting for a signal)",
  })
  kind!: TimelineKind;

  @ApiProperty({ description: 'The command id, `frame_id#attempt`, the timer id, or the waiting step run' })
  id!: string;

  @ApiProperty()
  step!: string;

  @ApiPropertyOptional({ type: 'integer' })
  attempt?: number;

  @ApiPropertyOptional({ type: 'integer' })
  max_attempts?: number;

  @ApiPropertyOptional({ type: 'integer', description: "A loop command's iteration, or a frame's index in its stage" })
  index?: number;

  @ApiPropertyOptional({ description: 'The worker that claimed it' })
  worker_id?: string;

  @ApiPropertyOptional({
    description: 'How it ended: COMPLETED, FAILED, ABANDONED, CANCELLED, COMMITTED, FIRED or SIGNALLED; absent while open',
  })
  status?: string;

  @ApiProperty({ type: TimelinePointDto, description: 'The event it began with' })
  begin!: TimelinePointDto;

  @ApiPropertyOptional({ type: TimelinePointDto, description: 'The claim of its worker' })
  claimed?: TimelinePointDto;

  @ApiPropertyOptional({ type: TimelinePointDto, description: 'The event it ended with; absent while open' })
  end?: TimelinePointDto;

  @ApiPropertyOptional({ format: 'date-time', description: 'When a retry or a timer is due' })
  due_at?: string;
}

export class ExecutionTimelineDto {
  @ApiProperty({
    type: [TimelineBarDto],
    description: 'In the order they began; a page showing position p draws those that began at or before p',
  })
  bars!: TimelineBarDto[];
}
