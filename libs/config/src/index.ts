export * from './config';
export * from './admin-key-file';
