export * from './config.module';
export * from './logger';
export * from './probe-server';
