import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SURFACES, type Surface } from '@noetl/event-kernel';
import type { ReplayQuery } from '@noetl/runtime';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsISO8601, IsOptional, Matches, Min } from 'class-validator';

const ID = /^\d{1,19}$/;
const PROJECTIONS = [...SURFACES, 'all'] as const;

/** `a,b` or repeated `?projection=a&projection=b`. */
const list = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.split(',').map((item) => item.trim()) : value);
const flag = ({ value }: { value: unknown }): unknown => (value === 'true' ? true : value === 'false' ? false : value);

export class ReplayQueryDto {
  @ApiProperty({ description: 'The execution to replay' })
  @Matches(ID, { message: 'execution_id must be an execution id' })
  execution_id!: string;

  @ApiPropertyOptional({ description: 'The state after this event of the execution' })
  @IsOptional()
  @Matches(ID, { message: 'as_of_event_id must be an event id' })
  as_of_event_id?: string;

  @ApiPropertyOptional({ description: 'The state after the last event recorded at or before this time (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  as_of_time?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'The state after this many events of the execution' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  as_of_position?: number;

  @ApiPropertyOptional({ enum: PROJECTIONS, isArray: true, description: 'The surfaces to return (default all); checksums cover every one' })
  @IsOptional()
  @Transform(list)
  @IsIn(PROJECTIONS, { each: true })
  projection?: (Surface | 'all')[];

  @ApiPropertyOptional({ description: 'Also return the bodies of the payloads the state refers to' })
  @IsOptional()
  @Transform(flag)
  @IsBoolean()
  payloads?: boolean;

  @ApiPropertyOptional({
    description: 'Seed from a matching snapshot (default true); false folds from the first event. The answer is the same',
  })
  @IsOptional()
  @Transform(flag)
  @IsBoolean()
  snapshots?: boolean;
}

/** Two positions of one execution to compare. */
export class ReplayDiffQueryDto {
  @ApiProperty({ description: 'The execution to replay' })
  @Matches(ID, { message: 'execution_id must be an execution id' })
  execution_id!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The state after this many events: the "before" side' })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  from_position!: number;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The state after this many events: the "after" side' })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  to_position!: number;
}

export function replayQueryOf(dto: ReplayQueryDto): ReplayQuery {
  return {
    executionId: dto.execution_id,
    ...(dto.as_of_event_id !== undefined ? { asOfEventId: dto.as_of_event_id } : {}),
    ...(dto.as_of_time !== undefined ? { asOfTime: dto.as_of_time } : {}),
    ...(dto.as_of_position !== undefined ? { asOfPosition: dto.as_of_position } : {}),
    ...(dto.projection !== undefined ? { projection: dto.projection } : {}),
    ...(dto.payloads !== undefined ? { payloads: dto.payloads } : {}),
    ...(dto.snapshots !== undefined ? { snapshots: dto.snapshots } : {}),
  };
}
