import { BadRequestException, ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { liftRawJson, RawJsonError, restoreRawJson, type Lifted } from './raw-json';

/**
 * The API's validation: class-validator over the DTO (unknown fields
 * refused), with its `@RawJson` fields lifted out before the transform and
 * put back untouched after it (see raw-json.ts).
 */
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({ whitelist: true, forbidNonWhitelisted: true, transform: true });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const lifted: Lifted[] = [];
    let rest: unknown;
    try {
      rest = liftRawJson(value, metadata.metatype, lifted);
    } catch (error) {
      if (error instanceof RawJsonError) throw new BadRequestException(error.message);
      throw error;
    }
    const dto: unknown = await super.transform(rest, metadata);
    restoreRawJson(dto, lifted);
    return dto;
  }
}
