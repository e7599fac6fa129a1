import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { loadConfig } from '@noetl/config';
import request from 'supertest';
import { createTestDatabase } from '../../../test/support/test-database';
import { ApiModule } from './api.module';
import { configureApi } from './configure-api';

describe('api app', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase();
    const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' });
    const moduleRef = await Test.createTestingModule({ imports: [ApiModule.forRoot(config)] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    configureApi(app);
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('answers liveness and readiness with the database up', async () => {
    await request(app.getHttpServer()).get('/health/live').expect(200);
    const ready = await request(app.getHttpServer()).get('/health/ready').expect(200);
    expect(ready.body.details).toEqual({ database: { status: 'up' } });
  });

  it('describes its routes in Swagger', async () => {
    const doc = await request(app.getHttpServer()).get('/docs-json').expect(200);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/health/live', '/health/ready']));
  });

  it('answers an unknown route with the one error body', async () => {
    const res = await request(app.getHttpServer()).get('/api/nowhere').expect(404);
    expect(res.body).toEqual({ code: 'not_found', message: 'Cannot GET /api/nowhere' });
  });
});
