export * from './config';
export * from './key-files';
export * from './database-url';
