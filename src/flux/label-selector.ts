/**
 * Label selectors (pure): a workload's `spec.selector` as the API's query string, and the same
 * selection evaluated locally against a pod's labels (for pods read by one list per namespace).
 */

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

type Labels = Readonly<Record<string, string>>;
type Term = (labels: Labels) => boolean;

/** Whether the pod has the label and its value is one of `values` (own keys only: `constructor` is no label). */
function valueIn(labels: Labels, key: string, values: readonly string[]): boolean {
  const value = Object.hasOwn(labels, key) ? labels[key] : undefined;
  return value !== undefined && values.includes(value);
}

/**
 * The selector's terms as query strings with their local meaning; undefined when it selects nothing
 * usable (absent or empty: every pod of the namespace would be wrong; or an operator we do not know:
 * better no digest than the wrong pods).
 */
function terms(selector: unknown): Array<{ query: string; test: Term }> | undefined {
  if (selector === null || typeof selector !== 'object') return undefined;
  const s = selector as LabelSelector;
  const out: Array<{ query: string; test: Term }> = [];
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) {
    if (typeof v === 'string') out.push({ query: `${k}=${v}`, test: (l) => l[k] === v });
  }
  for (const e of Array.isArray(s.matchExpressions) ? s.matchExpressions : []) {
    const values = e.values ?? [];
    const has = (l: Labels) => Object.hasOwn(l, e.key);
    if (e.operator === 'In') out.push({ query: `${e.key} in (${values.join(',')})`, test: (l) => valueIn(l, e.key, values) });
    else if (e.operator === 'NotIn') out.push({ query: `${e.key} notin (${values.join(',')})`, test: (l) => !valueIn(l, e.key, values) });
    else if (e.operator === 'Exists') out.push({ query: e.key, test: has });
    else if (e.operator === 'DoesNotExist') out.push({ query: `!${e.key}`, test: (l) => !has(l) });
    else return undefined;
  }
  return out.length > 0 ? out : undefined;
}

/** `spec.selector` as a label-selector query string; undefined when it selects nothing usable. */
export function selectorString(selector: unknown): string | undefined {
  return terms(selector)
    ?.map((t) => t.query)
    .join(',');
}

/** Whether labels match the selector as the API server would; false when it selects nothing usable. */
export function selectorMatches(selector: unknown, labels: Readonly<Record<string, string>>): boolean {
  const ts = terms(selector);
  return ts !== undefined && ts.every((t) => t.test(labels));
}
