import type { ImageCacheStore } from '../oci/cached-label-source.js';
import type { ImageMetadata } from '../oci/oci-types.js';
import type { Db } from './database.js';

/** A digest's last-read time is rewritten at most this often (a read writes a row once a day, not on every look-up). */
export const USED_AT_GRANULARITY_MS = 24 * 60 * 60_000;

interface ImageRow {
  digest: string;
  platform_digest: string | null;
  labels: string;
  used_at: number | null;
}

/**
 * The registry cache on SQLite: labels by digest (a digest's content never changes; kept while read,
 * retention.ts drops what no one read for a while) and tag → digest with the time it was checked, so a
 * restart does not cost a registry round-trip.
 */
export class ImageCache implements ImageCacheStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many digests (with their labels) and tags the cache holds, for /state. */
  counts(): { digests: number; tags: number } {
    const n = (table: string) => (this.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { digests: n('image_labels'), tags: n('image_tags') };
  }

  getImage(digest: string, platform: string): ImageMetadata | undefined {
    const row = this.db
      .prepare(`SELECT digest, platform_digest, labels, used_at FROM image_labels WHERE digest = ? AND platform = ?`)
      .get(digest, platform) as ImageRow | undefined;
    if (row === undefined) return undefined;
    this.touch(digest, platform, row.used_at);
    let labels: Record<string, string>;
    try {
      labels = JSON.parse(row.labels) as Record<string, string>;
    } catch {
      return undefined; // a damaged row is read again from the registry and overwritten
    }
    return row.platform_digest === null
      ? { digest: row.digest, labels }
      : { digest: row.digest, platformDigest: row.platform_digest, labels };
  }

  putImage(platform: string, meta: ImageMetadata, now: number): void {
    this.db
      .prepare(
        `INSERT INTO image_labels (digest, platform, platform_digest, labels, stored_at, used_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (digest, platform) DO UPDATE SET platform_digest = excluded.platform_digest, labels = excluded.labels,
        stored_at = excluded.stored_at, used_at = excluded.used_at`,
      )
      .run(meta.digest, platform, meta.platformDigest ?? null, JSON.stringify(meta.labels), now, now);
  }

  /** Keeps a digest that is read from being pruned as unused (best effort: a failed write only ages it sooner). */
  private touch(digest: string, platform: string, usedAt: number | null): void {
    const now = this.now();
    if (usedAt !== null && now - usedAt < USED_AT_GRANULARITY_MS) return;
    try {
      this.db.prepare(`UPDATE image_labels SET used_at = ? WHERE digest = ? AND platform = ?`).run(now, digest, platform);
    } catch {
      /* the storage tracker hears of failing writes from the queue and the webhook */
    }
  }

  getTag(reference: string): { digest: string; checkedAt: number } | undefined {
    return this.db.prepare(`SELECT digest, checked_at AS checkedAt FROM image_tags WHERE reference = ?`).get(reference) as
      { digest: string; checkedAt: number } | undefined;
  }

  putTag(reference: string, digest: string, now: number): void {
    this.db
      .prepare(
        `INSERT INTO image_tags (reference, digest, checked_at) VALUES (?, ?, ?)
      ON CONFLICT (reference) DO UPDATE SET digest = excluded.digest, checked_at = excluded.checked_at`,
      )
      .run(reference, digest, now);
  }
}
