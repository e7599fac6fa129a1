import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Json, StateChange } from '@noetl/event-kernel';
import type { ReplayDiff } from '@noetl/runtime';

const ANY_JSON = { nullable: true } as const;

export class ReplayPositionDto {
  @ApiProperty()
  event_id!: string;

  @ApiProperty({ type: 'integer', description: 'How many events of the execution the state covers' })
  stream_version!: number;

  @ApiProperty({ format: 'date-time' })
  event_time!: string;
}

export class StateChangeDto implements StateChange {
  @ApiProperty({ example: 'steps.steps.fetch.status', description: 'The dotted path of the value, surface first' })
  path!: string;

  @ApiPropertyOptional({ ...ANY_JSON, description: 'Its value at `from`; absent when it did not exist yet' })
  before?: Json;

  @ApiPropertyOptional({ ...ANY_JSON, description: 'Its value at `to`; absent when it no longer exists' })
  after?: Json;
}

export class ReplayDiffDto implements ReplayDiff {
  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ type: ReplayPositionDto })
  from!: ReplayPositionDto;

  @ApiProperty({ type: ReplayPositionDto })
  to!: ReplayPositionDto;

  @ApiProperty({ type: [StateChangeDto], description: 'The leaves and subtrees that differ, in path order' })
  changes!: StateChangeDto[];
}
