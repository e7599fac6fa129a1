export * from './event-types';
export * from './event-payloads';
export * from './canonical-json';
export * from './ids';
export * from './envelope';
export * from './upcasters';
export * from './reducers';
export * from './projection';
