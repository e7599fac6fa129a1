export type { Json } from '../model/json';
export type { ExpressionEnv } from './expression-env';
export { TemplateError, type TemplateErrorCode } from './template-error';
export { DEFAULT_TEMPLATE_LIMITS, type TemplateLimits } from './template-limits';
export { ExpressionEngine, holdsTemplate, isTemplate, type ExpressionCacheStats, type ExpressionEngineOptions } from './expression-engine';
export type { TemplateProblem } from './validate-template';
export { TemplateRenderer } from './template-renderer';
export { InlineSlice, type InlineSliceOptions, type SettledRender, type SettledRenders } from './inline-slice';
export { RenderSliceExceeded } from './render-slice';
