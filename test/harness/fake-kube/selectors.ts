/** Label and field selectors as the API server parses them (the subset the bridge and tests use). */

type Requirement =
  | { key: string; op: 'eq' | 'neq'; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'notexists' };

/** A parse failure; the server answers it with 400 BadRequest. */
export class SelectorError extends Error {}

/** Splits on commas outside parentheses: "a in (x,y),b=c" → ["a in (x,y)", "b=c"]. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms.map((t) => t.trim()).filter((t) => t !== '');
}

function parseTerm(term: string): Requirement {
  const set = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (set) {
    const values = set[3]!
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    return { key: set[1]!, op: set[2] as 'in' | 'notin', values };
  }
  const cmp = /^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/.exec(term);
  if (cmp) return { key: cmp[1]!, op: cmp[2] === '!=' ? 'neq' : 'eq', value: cmp[3]! };
  const exists = /^(!?)([\w./-]+)$/.exec(term);
  if (exists) return { key: exists[2]!, op: exists[1] ? 'notexists' : 'exists' };
  throw new SelectorError(`unable to parse requirement: ${term}`);
}

function matches(req: Requirement, fields: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(fields, req.key);
  const v = fields[req.key];
  switch (req.op) {
    case 'eq':
      return has && v === req.value;
    case 'neq':
      return !has || v !== req.value;
    case 'in':
      return has && req.values.includes(v!);
    case 'notin':
      return !has || !req.values.includes(v!);
    case 'exists':
      return has;
    case 'notexists':
      return !has;
  }
}

/** Compiles a label selector (equality, set-based and existence terms) to a predicate over labels. */
export function labelSelector(selector: string | null): (labels: Record<string, string>) => boolean {
  const reqs = selector ? splitTerms(selector).map(parseTerm) : [];
  return (labels) => reqs.every((r) => matches(r, labels));
}

const FIELDS = new Set(['metadata.name', 'metadata.namespace']);

/** Compiles a field selector; like the server, only metadata.name and metadata.namespace are supported. */
export function fieldSelector(selector: string | null): (meta: { name: string; namespace?: string }) => boolean {
  const reqs = selector ? splitTerms(selector).map(parseTerm) : [];
  for (const r of reqs) {
    if (!FIELDS.has(r.key) || (r.op !== 'eq' && r.op !== 'neq')) {
      throw new SelectorError(`field label not supported: ${r.key}`);
    }
  }
  return (meta) => {
    const fields: Record<string, string> = { 'metadata.name': meta.name, 'metadata.namespace': meta.namespace ?? '' };
    return reqs.every((r) => matches(r, fields));
  };
}
