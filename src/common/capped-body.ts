/**
 * Reading an HTTP answer with a bound (issue 22, item 8): a forge or registry that sends more than it should (a
 * 300 MiB answer grew the pod by 2.1 GB before) is cut at the cap, declared or read, instead of read whole.
 */

import { transportFetch } from './http-transport.js';
import { LightBody, LightHeaders, LightResponse } from './light-response.js';

/** Largest answer read from a forge's API: its pages are tens of KiB; 4 MiB is far above any, and far below the pod's memory. */
export const MAX_FORGE_ANSWER_BYTES = 4 * 1024 * 1024;

/** An answer larger than the cap; `declared` when its Content-Length said so before anything was read. */
export class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge';
  constructor(
    readonly maxBytes: number,
    readonly declared: number | undefined,
  ) {
    super(declared === undefined ? `more than ${maxBytes} bytes` : `${declared} bytes declared, more than the ${maxBytes} allowed`);
  }
}

/** The body's bytes, at most `maxBytes`; throws BodyTooLarge (the rest unread, the stream cancelled) past it. */
export async function readCapped(res: Response, maxBytes: number): Promise<Buffer> {
  if (res.body === null) return Buffer.alloc(0);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await res.body.cancel();
    throw new BodyTooLarge(maxBytes, declared);
  }
  // fetch bodies are byte streams; undici types them as ReadableStream<any>.
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new BodyTooLarge(maxBytes, undefined);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * A fetch whose answers are read here with the cap and handed on whole (for clients that read bodies themselves,
 * such as octokit): an answer past the cap fails as BodyTooLarge, as a network failure would.
 */
export function cappedFetch(maxBytes: number, inner: typeof fetch = transportFetch): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    const body = res.status === 204 || res.status === 304 ? null : LightBody.bytes(await readCapped(res, maxBytes));
    return new LightResponse(res.status, res.statusText, new LightHeaders(res.headers), body, res.url) as unknown as Response;
  };
}
