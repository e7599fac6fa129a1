import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { operationId } from './openapi/operation-ids';

/** The OpenAPI document of the REST API: what /docs serves and what the web UI's typed client is generated from. */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  return SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('NoETL runtime')
      .setDescription('Durable, event-sourced playbook runtime. Every /api route takes Authorization: Bearer <API key or token>.')
      .setVersion('0.1')
      // bearerFormat is only a hint, and Nest's default says JWT: most callers present an API key.
      .addBearerAuth({
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'API key',
        description: 'An API key (noetl_<id>_<secret>) or, with OIDC configured, a JWT',
      })
      .build(),
    { operationIdFactory: operationId },
  );
}
