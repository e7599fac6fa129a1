export * from './execution-state';
export * from './apply-event';
export * from './set-path';
