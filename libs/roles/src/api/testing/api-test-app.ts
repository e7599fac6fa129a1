import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { loadConfig, type NoetlConfig } from '@noetl/config';
import type { App } from 'supertest/types';
import { SUPERUSER_PLAYBOOKS_ENV } from '../../../../../test/support/postgres';
import { createTestDatabase } from '../../../../../test/support/test-database';
import { AppRootModule, listenForNotifications } from '@noetl/platform';
import { serverRoles } from '../../server-roles';
import { configureApi } from '../configure-api';

export interface ApiTestApp {
  app: NestExpressApplication;
  /** What supertest's `request()` takes. */
  http: App;
  config: NoetlConfig;
  close(): Promise<void>;
}

/**
 * The api app as `noetl server` builds it (configureApi + the role modules of NOETL_ROLES), on its own
 * clone of the migrated template database. `env` adds to a quiet test
 * environment: e.g. `NOETL_ROLES: 'api,scheduler'` leaves commands unclaimed
 * for a test that plays the worker over HTTP. Auth is off unless `env`
 * turns it on (`NOETL_AUTH: 'on'`): the auth specs and the authorization
 * matrix test it; the other specs test their routes as the process's own tenant.
 */
export async function startApiTestApp(env: Record<string, string> = {}): Promise<ApiTestApp> {
  const db = await createTestDatabase();
  try {
    const config = loadConfig({
      DATABASE_URL: db.url,
      LOG_LEVEL: 'silent',
      NOETL_PYTHON: 'off',
      NOETL_ROLES: 'api',
      NOETL_AUTH: 'off',
      ...SUPERUSER_PLAYBOOKS_ENV,
      ...env,
    });
    const moduleRef = await Test.createTestingModule({ imports: [AppRootModule.forRoot(config, serverRoles)] }).compile();
    const app = moduleRef.createNestApplication<NestExpressApplication>({ logger: false });
    configureApi(app, config);
    await listenForNotifications(app, config, 'api-test');
    await app.init();
    return {
      app,
      http: app.getHttpServer(),
      config,
      close: async () => {
        await app.close();
        await db.drop();
      },
    };
  } catch (error) {
    await db.drop();
    throw error;
  }
}

/** A valid playbook whose steps run the `noop` tool, one after another. */
export function noopPlaybook(path: string, steps: string[] = ['start']): string {
  const workflow = steps.map((step, index) => {
    const next = steps[index + 1];
    return [`  - step: ${step}`, '    tool: {kind: noop}', ...(next ? [`    next: ${next}`] : [])].join('\n');
  });
  return [
    'apiVersion: noetl.io/v2',
    'kind: Playbook',
    'metadata:',
    `  name: ${path.replace(/\W/g, '_')}`,
    `  path: ${path}`,
    'workflow:',
    ...workflow,
    '',
  ].join('\n');
}
