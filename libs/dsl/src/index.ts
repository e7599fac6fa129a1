export * from './model';
export * from './policy';
