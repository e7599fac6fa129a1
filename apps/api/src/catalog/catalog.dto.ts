import { ApiProperty } from '@nestjs/swagger';
import type { CatalogEntry, RegisteredPlaybook } from '@noetl/runtime';
import { IsNotEmpty, IsString } from 'class-validator';

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
