export * from './model';
export * from './expressions';
export * from './policy';
export * from './parse';
export * from './scope';
export * from './planner';
export * from './interpreter';
export * from './schedule';
