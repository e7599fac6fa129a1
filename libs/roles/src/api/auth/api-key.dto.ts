import { ApiProperty } from '@nestjs/swagger';
import { API_KEY_ROLES, type ApiKeyRole } from '@noetl/storage';
import type { ApiKeyView, CreatedApiKey } from '@noetl/runtime';
import { IsIn, IsString, Matches } from 'class-validator';

export class CreateApiKeyDto {
  @ApiProperty({ description: 'What the key is for, shown in listings', example: 'ci pipeline', maxLength: 100 })
  @IsString()
  @Matches(/^[\w .@:/-]{1,100}$/, { message: 'name must be 1-100 letters, digits, spaces or . _ @ : / -' })
  name!: string;

  @ApiProperty({ enum: API_KEY_ROLES, description: 'viewer < developer < operator < admin; worker: the control plane only' })
  @IsIn(API_KEY_ROLES)
  role!: ApiKeyRole;
}

export class ApiKeyDto implements ApiKeyView {
  @ApiProperty({ example: '3f9a2c1d8e7b6a50' })
  key_id!: string;

  @ApiProperty()
  tenant_id!: string;

  @ApiProperty()
  organization_id!: string;

  @ApiProperty({ enum: API_KEY_ROLES })
  role!: ApiKeyRole;

  @ApiProperty()
  name!: string;

  @ApiProperty({ nullable: true, type: String, description: 'Who made it (a key, a token subject, or local)' })
  created_by!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  last_used_at!: string | null;

  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  revoked_at!: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto implements CreatedApiKey {
  @ApiProperty({ description: 'The key, shown this once: send it as Authorization: Bearer <key>', example: 'noetl_3f9a2c1d8e7b6a50_...' })
  key!: string;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto] })
  keys!: ApiKeyDto[];
}

export class PrincipalDto {
  @ApiProperty()
  tenant_id!: string;

  @ApiProperty()
  organization_id!: string;

  @ApiProperty({ enum: API_KEY_ROLES })
  role!: ApiKeyRole;

  @ApiProperty({ description: 'key:<key id>, token:<subject>, or local (auth off)' })
  subject!: string;
}
