export { parsePlaybook, type ParseResult } from './parse-playbook';
export { formatProblem } from './format-problem';
export { DOCUMENT_LIMITS, storable } from './document-limits';
