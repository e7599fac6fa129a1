export * from './config.module';
export * from './database.module';
export * from './logger';
export * from './probe-server';
export * from './role-context';
export * from './engine.module';
