import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Json, JsonObject } from '@noetl/event-kernel';
import type { CommitFrameRequest, FrameRowReport } from '@noetl/runtime';
import { Type } from 'class-transformer';
import { Allow, IsArray, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { CallReportDto, EventErrorDto } from './control-plane-requests.dto';

export class FrameRowReportDto implements FrameRowReport {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Collection index of the row' })
  @IsInt()
  @Min(0)
  index!: number;

  @ApiProperty({ enum: ['ok', 'error'] })
  @IsIn(['ok', 'error'])
  status!: 'ok' | 'error';

  @ApiPropertyOptional({ description: "The row's result: any JSON value" })
  @Allow()
  result?: Json;

  @ApiPropertyOptional({ type: EventErrorDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => EventErrorDto)
  error?: EventErrorDto;
}

export class CommitFrameDto implements CommitFrameRequest {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  worker_id!: string;

  @ApiProperty({ type: [FrameRowReportDto], description: 'One outcome per row of the frame' })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FrameRowReportDto)
  rows!: FrameRowReportDto[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: '`set: ctx.*` writes of the rows by dotted key, in row order' })
  @IsOptional()
  @IsObject()
  ctx?: JsonObject;

  @ApiPropertyOptional({ type: [CallReportDto] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => CallReportDto)
  calls?: CallReportDto[];
}
