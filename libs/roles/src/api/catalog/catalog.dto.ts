import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { CatalogEntry, GraphArc, GraphStep, PlaybookGraph, RegisteredPlaybook } from '@noetl/runtime';
import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, Min } from 'class-validator';

export class RegisterPlaybookDto {
  @ApiProperty({ description: 'The playbook as YAML text (or send the YAML itself with Content-Type: application/yaml)' })
  @IsString()
  @IsNotEmpty()
  content!: string;
}

export class CatalogVersionsQueryDto {
  @ApiProperty({ description: 'The playbook path', example: 'examples/hello' })
  @IsString()
  @IsNotEmpty()
  path!: string;
}

export class RegisteredPlaybookDto implements RegisteredPlaybook {
  @ApiProperty({ example: '512409623441637376' })
  catalog_id!: string;

  @ApiProperty({ example: 'examples/hello' })
  path!: string;

  @ApiProperty({ description: '1 for the first registration of a path; identical content keeps its version', example: 1 })
  version!: number;
}

export class CatalogEntryDto implements CatalogEntry {
  @ApiProperty()
  catalog_id!: string;

  @ApiProperty()
  path!: string;

  @ApiProperty()
  version!: number;

  @ApiProperty({ description: 'metadata.name, or the path' })
  name!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class CatalogListDto {
  @ApiProperty({ type: [CatalogEntryDto], description: 'The latest version of every path' })
  entries!: CatalogEntryDto[];
}

export class CatalogVersionsDto {
  @ApiProperty()
  path!: string;

  @ApiProperty({ type: [CatalogEntryDto], description: 'Every version, newest first' })
  versions!: CatalogEntryDto[];
}

export class PlaybookSourceQueryDto extends CatalogVersionsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'A version of `path` (default the latest)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  // Versions are PostgreSQL integers.
  @Max(2_147_483_647)
  version?: number;
}

export class GraphStepDto implements GraphStep {
  @ApiProperty()
  step!: string;

  @ApiProperty({ type: [String], description: 'The tool kinds it calls, in order (a pipeline has several)' })
  tools!: string[];

  @ApiProperty({ description: 'The step runs a loop' })
  loop!: boolean;
}

export class GraphArcDto implements GraphArc {
  @ApiProperty()
  from!: string;

  @ApiProperty()
  to!: string;

  @ApiPropertyOptional({ description: "The arc's condition, when it has one" })
  when?: string;
}

export class PlaybookGraphDto implements PlaybookGraph {
  @ApiProperty({ description: 'The entry step' })
  entry!: string;

  @ApiProperty({ type: [GraphStepDto] })
  steps!: GraphStepDto[];

  @ApiProperty({ type: [GraphArcDto], description: 'Every `next` arc' })
  arcs!: GraphArcDto[];
}

export class PlaybookSourceDto extends CatalogEntryDto {
  @ApiProperty({ description: 'The YAML as registered' })
  content!: string;

  @ApiProperty({ type: PlaybookGraphDto, description: 'Steps as nodes, next arcs as edges' })
  graph!: PlaybookGraphDto;
}
