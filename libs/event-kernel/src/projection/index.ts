export * from './surfaces';
export * from './diff';
