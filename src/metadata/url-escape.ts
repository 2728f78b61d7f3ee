import type { TemplateVars } from './url-template.js';

/**
 * The values a URL template expands, percent-encoded when `LOG_URL_TEMPLATE_ESCAPE=true` (a value
 * with `/`, `&` or spaces then stays one path segment or query value). Returns a new object.
 */
export function escapeTemplateValues(vars: TemplateVars, escape: boolean): TemplateVars {
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, escape ? encodeURIComponent(v) : v]));
}
