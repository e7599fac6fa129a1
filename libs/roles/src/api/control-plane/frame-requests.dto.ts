import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Json } from '@noetl/event-kernel';
import type { CommitFrameRequest, FrameRowReport } from '@noetl/runtime';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsOptional, Min, ValidateNested } from 'class-validator';
import { HoldsRawJson, RawJson } from '../input/raw-json';
import { EventErrorDto, WorkerReportDto } from './control-plane-requests.dto';

export class FrameRowReportDto implements FrameRowReport {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Collection index of the row' })
  @IsInt()
  @Min(0)
  index!: number;

  @ApiProperty({ enum: ['ok', 'error'] })
  @IsIn(['ok', 'error'])
  status!: 'ok' | 'error';

  @ApiPropertyOptional({ description: "The row's result: any JSON value" })
  @RawJson({ optional: true })
  result?: Json;

  @ApiPropertyOptional({ type: EventErrorDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => EventErrorDto)
  error?: EventErrorDto;
}

export class CommitFrameDto extends WorkerReportDto implements CommitFrameRequest {
  @ApiProperty({ type: [FrameRowReportDto], description: 'One outcome per row of the frame' })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FrameRowReportDto)
  @HoldsRawJson(() => FrameRowReportDto)
  rows!: FrameRowReportDto[];
}
