import { ALLOW_HTTP_SETTING } from '../forges/forge-url.js';
import { describePatterns, type RepositoryPattern } from '../metadata/repository-trust.js';

/** The settings the notices are about (the configuration satisfies it). */
export interface NoticeSettings {
  readonly allowedRepositories: readonly RepositoryPattern[];
  readonly repositorySource: string;
  readonly allowHttpForgeUrls: boolean;
  readonly stateToken?: unknown;
  /** Each configured forge's URL setting and value (`GITHUB_API_URL`, …), to name the plain-http ones. */
  readonly forgeUrls: ReadonlyArray<{ setting: string; url: string }>;
}

/** One start-up line: its level, message and fields. */
export interface Notice {
  level: 'warn' | 'info';
  msg: string;
  fields: Record<string, unknown>;
}

/** The lines a careless setting earns at start, said once (issue 22: open by default, but never silently). */
export function startupNotices(s: NoticeSettings): Notice[] {
  const out: Notice[] = [];
  if (s.allowedRepositories.length === 0)
    out.push({
      level: 'warn',
      msg: 'ALLOWED_REPOSITORIES is not set: a workload or image label may name any repository the forge credentials can write (docs/trust-boundary.md)',
      fields: { trust: 'open', repositorySource: s.repositorySource },
    });
  else out.push({ level: 'info', msg: 'trust boundary', fields: { allowedRepositories: describePatterns(s.allowedRepositories) } });
  if (s.stateToken === undefined)
    out.push({
      level: 'warn',
      msg: '/state is open: STATE_TOKEN is not set, so anyone who reaches the port reads repositories, commits and errors',
      fields: {},
    });
  const plain = s.forgeUrls.filter((u) => /^http:/i.test(u.url)).map((u) => u.setting);
  if (s.allowHttpForgeUrls)
    out.push({
      level: 'warn',
      msg: `${ALLOW_HTTP_SETTING}=true: forge URLs may be plain http, and their tokens cross the network in clear`,
      fields: { plainHttp: plain },
    });
  return out;
}
