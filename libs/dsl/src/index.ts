export * from './model';
export * from './policy';
export * from './parse';
