/**
 * The part of fetch's Response the bridge's clients read (octokit's fetch wrapper, the Forgejo and GitLab clients,
 * the registry client, readCapped), without the WHATWG classes: on Node 24 the first touch of the global
 * `Response`, `Headers` or `fetch` loads undici, about 25 MiB of a process's memory (BENCHMARKS.md §5). Built by
 * http-transport.ts over a node:http answer, and by cappedFetch over bytes already read.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { byText } from './text.js';

/** Header names lower-cased, values as fetch gives them: repeated ones joined with ", ". */
export class LightHeaders {
  private readonly map = new Map<string, string>();
  constructor(init?: IncomingHttpHeaders | Iterable<readonly [string, string]>) {
    const pairs = init === undefined ? [] : Symbol.iterator in init ? init : Object.entries(init);
    for (const [name, value] of pairs as Iterable<readonly [string, string | string[] | undefined]>) {
      if (value === undefined) continue;
      const key = name.toLowerCase();
      const joined = Array.isArray(value) ? value.join(', ') : value;
      const before = this.map.get(key);
      this.map.set(key, before === undefined ? joined : `${before}, ${joined}`);
    }
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  forEach(fn: (value: string, name: string) => void): void {
    for (const [name, value] of this) fn(value, name);
  }
  /** Sorted by name, as fetch's Headers iterate. */
  *entries(): IterableIterator<[string, string]> {
    yield* [...this.map].sort(([a], [b]) => byText(a, b));
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

interface Chunk {
  done: boolean;
  value?: Uint8Array;
}

/** The reader side of a body: the shape readCapped and octokit use of a ReadableStream. */
export class LightBody {
  private used = false;
  constructor(
    private readonly next: () => Promise<Chunk>,
    private readonly stop: () => void,
  ) {}
  getReader(): { read: () => Promise<Chunk>; cancel: () => Promise<void>; releaseLock: () => void } {
    if (this.used) throw new TypeError('the body is already being read');
    this.used = true;
    return { read: this.next, cancel: () => this.cancel(), releaseLock: () => undefined };
  }
  cancel(): Promise<void> {
    this.stop();
    return Promise.resolve();
  }
  /** The body of an answer still arriving: chunks as they come; cancelling closes its connection. */
  static of(message: IncomingMessage): LightBody {
    const it = message[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    return new LightBody(
      async () => {
        const r = await it.next();
        return r.done === true ? { done: true } : { done: false, value: r.value };
      },
      () => message.destroy(),
    );
  }
  /** A body already read. */
  static bytes(bytes: Uint8Array): LightBody {
    let left: Uint8Array | undefined = bytes.byteLength > 0 ? bytes : undefined;
    return new LightBody(
      () => {
        const value = left;
        left = undefined;
        return Promise.resolve(value === undefined ? { done: true } : { done: false, value });
      },
      () => {
        left = undefined;
      },
    );
  }
}

/** A Response's fields and readers as the bridge uses them; `body` is null for no body (204, 304, HEAD). */
export class LightResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  private consumed = false;
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: LightHeaders,
    readonly body: LightBody | null,
    readonly url = '',
  ) {
    this.ok = status >= 200 && status < 300;
  }
  get bodyUsed(): boolean {
    return this.consumed;
  }
  async bytes(): Promise<Uint8Array> {
    if (this.consumed) throw new TypeError('the body has already been read');
    this.consumed = true;
    if (this.body === null) return new Uint8Array(0);
    const reader = this.body.getReader();
    const chunks: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) if (r.value) chunks.push(r.value);
    return Buffer.concat(chunks);
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.bytes();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
  async text(): Promise<string> {
    return Buffer.from(await this.bytes()).toString('utf8');
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }
}
