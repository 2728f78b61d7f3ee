/** The command line: which command the arguments name, and the text `--help` prints. */
import { DRIVERS } from '../forges/registry.js';

/** What `github-deployment-bridge [args]` is asked to do. */
export type Command =
  | { kind: 'serve' }
  | { kind: 'explain'; args: string[] }
  | { kind: 'dora'; args: string[] }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'unknown'; arg: string };

/** Reads the command from the arguments after the script; no arguments serve, as in the container. */
export function parseCommand(args: readonly string[]): Command {
  const [first, ...rest] = args;
  switch (first) {
    case undefined:
      return { kind: 'serve' };
    case 'serve':
      return rest.length ? { kind: 'unknown', arg: rest[0] ?? '' } : { kind: 'serve' };
    case 'explain':
      return { kind: 'explain', args: rest };
    case 'dora':
      return { kind: 'dora', args: rest };
    case 'help':
    case '--help':
    case '-h':
      return { kind: 'help' };
    case 'version':
    case '--version':
    case '-v':
      return { kind: 'version' };
    default:
      return { kind: 'unknown', arg: first };
  }
}

/** The `--help` text: commands, and where the settings are described. */
export function usage(version: string): string {
  const reports = DRIVERS.map((d) => d.reports);
  return `github-deployment-bridge ${version}: turns Flux CD reconciliations into ${reports.slice(0, -1).join(', ')}
and ${reports.at(-1)}.

usage:
  github-deployment-bridge [serve]        run the service (the default): POST /webhook, /healthz,
                                          /readyz, /state and /metrics, all on PORT
  github-deployment-bridge explain <Kustomization|HelmRelease>/<namespace>/<name>
                                          print what a reconcile would report for a Flux object, or
                                          why not; reads the cluster and registries, writes nothing;
                                          exit status 3 when the object does not exist (explain --help)
  github-deployment-bridge dora <owner/repo> [--days N] [--environments pattern,...]
                                          print the four DORA keys of a repository's production
                                          environments from the database (DATABASE_PATH), read only
  github-deployment-bridge --help         this text
  github-deployment-bridge --version      the version

Settings are environment variables only (WEBHOOK_TOKEN, each forge's credentials,
CLUSTER_NAME, ...); every one is described in docs/configuration.md. Invalid settings are
all reported at start, exit status 2.
`;
}
