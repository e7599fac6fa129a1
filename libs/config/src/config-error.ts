export class ConfigError extends Error {
  readonly code = 'config_invalid';
}
