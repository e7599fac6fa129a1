export * from './credential-types';
export * from './credential-name';
export * from './pg-credential-store';
