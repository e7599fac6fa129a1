import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { JsonObject } from '@noetl/event-kernel';
import type { CredentialInput, CredentialSettings, CredentialSummary, CredentialUseView } from '@noetl/runtime';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, Max, Min } from 'class-validator';
import { RawJson } from '../input/raw-json';

export class PutCredentialDto implements CredentialInput {
  @ApiProperty({ description: '1-200 of A-Z a-z 0-9 _ . : -', example: 'pg_main', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  name!: string;

  @ApiProperty({ description: 'What the data is for', example: 'postgres' })
  @IsString()
  @IsNotEmpty()
  type!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Encrypted at rest; never returned by this API' })
  @RawJson({ object: true })
  data!: JsonObject;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    description:
      'Catalog paths (globs: etl/**) of the playbooks whose executions may use it; absent or null: any, unless the tenant requires binding',
    example: ['etl/**'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  allowed_paths?: string[] | null;
}

export class CredentialSummaryDto implements CredentialSummary {
  @ApiProperty()
  name!: string;

  @ApiProperty()
  type!: string;

  @ApiProperty({ type: [String], nullable: true, description: 'The playbook paths (globs) that may use it; null: any' })
  allowed_paths!: string[] | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class CredentialListDto {
  @ApiProperty({ type: [CredentialSummaryDto] })
  credentials!: CredentialSummaryDto[];
}

export class CredentialSettingsDto implements CredentialSettings {
  @ApiProperty({
    description: 'Every credential must name the playbook paths that may use it; one that names none is refused to every playbook',
  })
  @IsBoolean()
  require_binding!: boolean;
}

export class CredentialUseDto implements CredentialUseView {
  @ApiProperty()
  name!: string;

  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ description: "The execution's playbook path" })
  path!: string;

  @ApiProperty({ type: String, nullable: true })
  step!: string | null;

  @ApiProperty({ enum: ['command', 'frame'] })
  holder_kind!: 'command' | 'frame';

  @ApiProperty()
  holder_id!: string;

  @ApiProperty()
  worker_id!: string;

  @ApiProperty({ format: 'date-time' })
  used_at!: string;
}

export class CredentialUsesDto {
  @ApiProperty({ type: [CredentialUseDto] })
  uses!: CredentialUseDto[];
}

export class CredentialUsesQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}
