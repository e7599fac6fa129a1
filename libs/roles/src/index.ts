// The Nest module of each role, found by its name (DESIGN.md s3): an app boots exactly its role's module, `noetl server` the modules of NOETL_ROLES.
export * from './api/api.module';
export * from './api/openapi-document';
export * from './api/start-api';
export * from './projector/projector.module';
export * from './scheduler/scheduler.module';
export * from './server-roles';
export * from './worker/worker.module';
