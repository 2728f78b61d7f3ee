/**
 * A bound on the size of `/state` (pure): its long lists are shortened, longest first, until the
 * answer fits, and the answer says what it left out. It stays valid JSON of the same shape.
 */

/** Largest `/state` answer, in bytes of JSON. */
export const MAX_STATE_BYTES = 1024 * 1024;

/** The lists of `/state` that grow with the cluster, by their path in the answer (a feature adds its own: `capState`'s `lists`). */
export const STATE_LISTS: readonly string[] = ['deployments', 'skipped', 'fluxObjects', 'queue.items'];
type ListPath = string;

type StateBody = Record<string, unknown>;

function listAt(body: StateBody, path: ListPath): unknown[] | undefined {
  const [head, tail] = path.split('.') as [string, string | undefined];
  const v = tail === undefined ? body[head] : (body[head] as Record<string, unknown> | undefined)?.[tail];
  return Array.isArray(v) ? v : undefined;
}

function setListAt(body: StateBody, path: ListPath, list: unknown[]): StateBody {
  const [head, tail] = path.split('.') as [string, string | undefined];
  if (tail === undefined) return { ...body, [head]: list };
  return { ...body, [head]: { ...(body[head] as Record<string, unknown>), [tail]: list } };
}

const size = (body: unknown): number => Buffer.byteLength(JSON.stringify(body));

/**
 * `body` when its JSON fits in `maxBytes`; otherwise a copy whose lists keep their first entries
 * (the largest list halved, again and again), with `truncated` naming the limit and how many
 * entries of each list were left out. The whole answer is serialised once: a list shortened in place
 * changes the answer's length by exactly the change of its own text, so only the halved list is
 * serialised again (an answer of many MiB, such as `dora` with `DORA_ENVIRONMENTS='*'`, was serialised
 * whole a dozen times per read).
 */
export function capState(body: StateBody, maxBytes = MAX_STATE_BYTES, lists: readonly string[] = STATE_LISTS): StateBody {
  const whole = size(body);
  if (whole <= maxBytes) return body;
  const omitted: Partial<Record<ListPath, number>> = {};
  const sizes = new Map(lists.map((p) => [p, size(listAt(body, p) ?? [])]));
  const original = new Map(sizes);
  let out = body;
  const withNote = () => ({ ...out, truncated: { maxBytes, omitted } });
  // `{...out, truncated}` appends `,"truncated":{…}` to out's JSON (out has other keys: it is over the limit).
  const noteBytes = () => size({ truncated: { maxBytes, omitted } }) - 1;
  const total = () => whole + lists.reduce((n, p) => n + (sizes.get(p) ?? 0) - (original.get(p) ?? 0), 0) + noteBytes();
  while (total() > maxBytes) {
    const longest = lists.map((p) => ({ p, n: sizes.get(p) ?? 0 })).sort((x, y) => y.n - x.n)[0];
    const list = longest === undefined ? undefined : listAt(out, longest.p);
    if (longest === undefined || list === undefined || list.length === 0) break;
    const kept = list.slice(0, Math.floor(list.length / 2));
    omitted[longest.p] = (omitted[longest.p] ?? 0) + list.length - kept.length;
    out = setListAt(out, longest.p, kept);
    sizes.set(longest.p, size(kept));
  }
  return withNote();
}
