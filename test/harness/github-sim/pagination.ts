/**
 * GitHub's page-number pagination: `per_page` (default 30, at most 100), `page` (from 1) and a
 * `Link` header with rel="next"/"last" (and "prev"/"first" past page 1). GitLab pages the same way
 * with other bounds (default 20), given as `limits`.
 */

/** A forge's page sizes: when `per_page` is missing or not positive, and the largest it serves. */
export interface PageLimits {
  perPage: number;
  maxPerPage: number;
}

const GITHUB_LIMITS: PageLimits = { perPage: 30, maxPerPage: 100 };

function positiveInt(raw: string | undefined, fallback: number): number {
  const n = raw === undefined ? NaN : Number.parseInt(raw, 10);
  return Number.isFinite(n) && n >= 1 ? n : fallback;
}

/** One page of `items` and the Link header (absent when everything fits on one page). */
export function paginate<T>(
  items: T[],
  query: Record<string, string>,
  selfUrl: string,
  limits: PageLimits = GITHUB_LIMITS,
): { page: T[]; link?: string } {
  const perPage = Math.min(limits.maxPerPage, positiveInt(query.per_page, limits.perPage));
  const page = positiveInt(query.page, 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const at = (n: number): string => {
    const u = new URL(selfUrl);
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
    u.searchParams.set('per_page', String(perPage));
    u.searchParams.set('page', String(n));
    return `<${u.toString()}>`;
  };
  const rels: string[] = [];
  if (page > 1) rels.push(`${at(Math.min(page - 1, last))}; rel="prev"`);
  if (page < last) rels.push(`${at(page + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (page > 1) rels.push(`${at(1)}; rel="first"`);
  return rels.length === 0 ? { page: slice } : { page: slice, link: rels.join(', ') };
}
