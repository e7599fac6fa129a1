export type { Json } from '../model/json';
export type { ExpressionEnv } from './expression-env';
export { TemplateError } from './template-error';
export {
  ExpressionEngine, isTemplate, type ExpressionCacheStats, type ExpressionEngineOptions,
} from './expression-engine';
export type { TemplateProblem } from './validate-template';
