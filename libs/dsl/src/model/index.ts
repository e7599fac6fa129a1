export * from './json';
export * from './call-error';
export * from './set-op';
export * from './policy';
export * from './task';
export * from './loop';
export * from './playbook';
