export * from './config';
export * from './config-error';
export * from './config-env-names';
export * from './secret';
export type { BootstrapKeys, OidcConfig } from './auth-config';
export type { S3PayloadConfig } from './payloads-config';
export type { TracingConfig } from './tracing-config';
export * from './key-files';
export * from './database-url';
