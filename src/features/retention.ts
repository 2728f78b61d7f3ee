/**
 * The bridge's retention beyond the core tables, composed once from the owners' prune steps the way `schema.ts`
 * composes their migrations: each feature's (`features/<name>/<name>-retention.ts`), in the order their tables are
 * pruned. From the folders, not the running features: a feature's tables exist and are pruned whether or not it is
 * turned on. The runtime's prune passes it to `store/retention.ts`' `pruneStorage`, which runs it after the core tables.
 */
import { composeRetention } from '../store/retention.js';
import { COMMENTS_PRUNE_STEPS } from './comments/comments-retention.js';
import { DORA_PRUNE_STEPS } from './dora/dora-retention.js';

/** Each feature's prune steps (a new feature with tables that grow adds its `<name>-retention.ts` here). */
export const FEATURE_PRUNE_STEPS = composeRetention(COMMENTS_PRUNE_STEPS, DORA_PRUNE_STEPS);
