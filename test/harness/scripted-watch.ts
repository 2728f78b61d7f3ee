/** A watch transport for unit tests: its lists answer from a script, its watches are ended by hand. */
import { KubeError } from '../../src/common/errors.js';
import type { Listing, WatchEnd, WatchEvent, WatchTransport } from '../../src/kube/watch-stream.js';

export interface ScriptedWatch {
  path: string;
  query: Record<string, string>;
  emit: (e: WatchEvent) => void;
  end: (e: WatchEnd) => void;
  closed: boolean;
}

/** `lists` answers each list in turn (a KubeError is thrown); `calls` records `list <path>` and `watch <path> from <rv>`. */
export function scripted() {
  const lists: Array<Listing | KubeError> = [];
  const calls: string[] = [];
  const watches: ScriptedWatch[] = [];
  const transport: WatchTransport = {
    list(path) {
      calls.push(`list ${path}`);
      const next = lists.shift() ?? new KubeError('no listing scripted');
      return next instanceof KubeError ? Promise.reject(next) : Promise.resolve(next);
    },
    watch(path, query, onEvent) {
      calls.push(`watch ${path} from ${query.resourceVersion}`);
      let end: (e: WatchEnd) => void = () => undefined;
      const ended = new Promise<WatchEnd>((r) => (end = r));
      const w: ScriptedWatch = { path, query, emit: onEvent, end: (e) => end(e), closed: false };
      watches.push(w);
      return {
        ended,
        close: () => {
          w.closed = true;
          end({ reason: 'closed' });
        },
      };
    },
  };
  return { transport, lists, calls, watches };
}

/** Waits (polling every 2 ms, 4 s at most) until `cond` holds. */
export async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!cond()) throw new Error('condition never held');
}
