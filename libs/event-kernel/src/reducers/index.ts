export * from './execution-state';
export * from './apply-event';
export * from './set-path';
export * from './tentative-fold';
export { liveWork, type LiveWork } from './live-work';
