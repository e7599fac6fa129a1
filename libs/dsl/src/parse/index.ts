export { parsePlaybook, type ParseResult } from './parse-playbook';
export { formatProblem } from './format-problem';
