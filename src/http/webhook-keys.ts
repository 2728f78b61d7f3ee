import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { errorMessage } from '../common/errors.js';
import { weakSecret } from '../common/secret-strength.js';
import { verifySignature } from './hmac.js';

/** A file name that is a namespace (DNS-1123 label); others (Kubernetes' `..data` links, dotfiles, README) are not keys. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** How long a directory read is reused when the directory itself did not change (a key edited in place). */
const REREAD_MS = 5_000;

/** Which key verified a body: the shared one (`namespace` null: any namespace) or a namespace's own. */
export type KeyCheck = { ok: true; namespace: string | null } | { ok: false; reason: string };

/** Namespace → key, read from a directory of files named by namespace (a Secret mounted as a volume). */
export function readNamespaceKeys(dir: string): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  for (const name of readdirSync(dir).sort()) {
    if (!NAMESPACE.test(name)) continue;
    const path = join(dir, name);
    if (!statSync(path).isFile()) continue;
    // Byte for byte, as WEBHOOK_TOKEN_FILE: a trailing newline is part of the key, as in Flux.
    const key = readFileSync(path);
    if (key.length > 0) keys.set(name, key);
  }
  return keys;
}

export interface WebhookKeyringOptions {
  /** WEBHOOK_TOKEN: verifies events of every namespace (as before per-namespace keys). */
  shared?: Buffer;
  /** WEBHOOK_TOKEN_DIR: one key per namespace; read again when the directory changes, and every few seconds. */
  dir?: string;
  /** Checks a key read from the directory (the same minimum as WEBHOOK_TOKEN): a reason to ignore it, or undefined. */
  weak?: (key: Buffer) => string | undefined;
  /** Told once per namespace whose key file is ignored, with the reason. */
  onIgnored?: (namespace: string, reason: string) => void;
  now: () => number;
}

/**
 * The webhook's keys. A body is tried against the shared key, then against the key of the namespace its event names
 * (never the others: with 300 namespaces, a bad signature cost 301 digests): the one that verifies it says which
 * namespace it may name. A directory that cannot be read keeps the keys last read.
 */
export class WebhookKeyring {
  private keys = new Map<string, Buffer>();
  private readAt = -Infinity;
  private dirMtime = -1;
  private readonly ignored = new Set<string>();

  constructor(private readonly o: WebhookKeyringOptions) {
    if (o.dir !== undefined) this.refresh(true);
  }

  /** How many namespace keys are in use (the start-up line). */
  get namespaces(): string[] {
    this.refresh();
    return [...this.keys.keys()];
  }

  /** Verifies `body` with the shared key, then with `namespace`'s own key (the namespace its event names, when it names one). */
  verify(body: Buffer, header: string | undefined, namespace?: string): KeyCheck {
    const first = this.o.shared === undefined ? undefined : verifySignature(this.o.shared, body, header);
    if (first?.ok) return { ok: true, namespace: null };
    this.refresh();
    const key = namespace === undefined ? undefined : this.keys.get(namespace);
    if (key !== undefined) {
      const check = verifySignature(key, body, header);
      if (check.ok) return { ok: true, namespace: namespace ?? null };
      return {
        ok: false,
        reason: `${check.reason} (tried ${first === undefined ? '' : 'the shared key and '}the key of namespace ${namespace})`,
      };
    }
    if (first !== undefined) return first;
    if (this.keys.size === 0) return { ok: false, reason: 'no webhook key is configured (WEBHOOK_TOKEN_DIR holds no key)' };
    return { ok: false, reason: `no webhook key for namespace ${namespace ?? '(none named)'} in WEBHOOK_TOKEN_DIR` };
  }

  /** Reads the directory again when it changed (a Secret's atomic update renames inside it) or the last read is old. */
  private refresh(atStart = false): void {
    const dir = this.o.dir;
    if (dir === undefined) return;
    const now = this.o.now();
    let mtime: number;
    try {
      mtime = statSync(dir).mtimeMs;
    } catch (err) {
      if (atStart) throw err;
      return;
    }
    if (mtime === this.dirMtime && now - this.readAt < REREAD_MS) return;
    let read: Map<string, Buffer>;
    try {
      read = readNamespaceKeys(dir);
    } catch (err) {
      if (atStart) throw err;
      return;
    }
    for (const [ns, key] of read) {
      const weak = this.o.weak?.(key);
      if (weak === undefined) continue;
      read.delete(ns);
      if (!this.ignored.has(ns)) this.o.onIgnored?.(ns, weak);
      this.ignored.add(ns);
    }
    this.keys = read;
    this.dirMtime = mtime;
    this.readAt = now;
  }
}

/** The namespace a parsed event names (`involvedObject.namespace`), to pick its key; undefined when it names none. */
export function claimedNamespace(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const io = (event as { involvedObject?: unknown }).involvedObject;
  const ns = typeof io === 'object' && io !== null ? (io as { namespace?: unknown }).namespace : undefined;
  return typeof ns === 'string' && NAMESPACE.test(ns) ? ns : undefined;
}

/** The keyring of the settings, with its start-up line; a directory that cannot be read stops the start with one line. */
export function openWebhookKeyring(keys: { shared?: Buffer; dir?: string }, o: { now: () => number; log: Logger }): WebhookKeyring {
  let ring: WebhookKeyring;
  try {
    ring = new WebhookKeyring({
      ...keys,
      now: o.now,
      // The same minimum as WEBHOOK_TOKEN's: a namespace's key signs that namespace's events.
      weak: weakSecret,
      onIgnored: (namespace, reason) => o.log.error({ namespace, reason }, 'webhook key ignored: events of this namespace answer 401'),
    });
  } catch (err) {
    throw new Error(`WEBHOOK_TOKEN_DIR="${keys.dir}" cannot be read (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})`, {
      cause: err,
    });
  }
  if (keys.dir !== undefined) {
    const namespaces = ring.namespaces;
    o.log.info({ dir: keys.dir, namespaces, shared: keys.shared !== undefined }, 'webhook keys per namespace');
    if (namespaces.length === 0 && keys.shared === undefined)
      o.log.warn({ dir: keys.dir }, 'WEBHOOK_TOKEN_DIR holds no key yet: every event answers 401 until one is added');
  }
  return ring;
}
