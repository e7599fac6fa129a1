export * from './config';
export * from './key-files';
