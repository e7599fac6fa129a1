export { parsePlaybook, PLAYBOOK_MODEL_FORMAT, type ParseResult } from './parse-playbook';
export { formatProblem } from './format-problem';
export { MAX_CHUNK_ROWS, streamChunkRows } from './check-streaming';
export { DOCUMENT_LIMITS, storable } from './document-limits';
export { playbookSchema, PLAYBOOK_SCHEMA_ID } from './playbook-schema';
export { undefinedTemplateNames, type UndefinedNames } from './check-template-names';
