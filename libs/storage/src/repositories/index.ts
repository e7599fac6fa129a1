export * from './lock-stream';
export * from './stuck-row';
export * from './command.repository';
export * from './frame.repository';
export * from './stage.repository';
export * from './timer.repository';
export * from './execution.repository';
export * from './worker.repository';
