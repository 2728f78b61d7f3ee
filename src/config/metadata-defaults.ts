import type { Defaults } from '../metadata/resolve-target.js';
import type { ReportingConfig } from './load-config.js';

/** Controller-wide metadata defaults from configuration; shared by the server and `explain` (which has no credentials: GitHub counts as enabled). */
export function buildDefaults(config: ReportingConfig, controllerVersion: string, githubEnabled = true): Defaults {
  return {
    cluster: config.clusterName,
    ...(config.environment ? { environment: config.environment } : {}),
    ...(config.environmentUrl ? { environmentUrl: config.environmentUrl } : {}),
    routeScheme: config.environmentUrlScheme,
    ...(config.logUrlTemplate ? { logUrlTemplate: config.logUrlTemplate } : {}),
    description: config.description,
    githubHost: config.githubHost,
    githubEnabled,
    ...(config.forgejoUrl ? { forgejoHost: new URL(config.forgejoUrl.webUrl).hostname } : {}),
    controllerVersion,
    repositorySource: config.repositorySource,
    allowedRepositories: config.allowedRepositories,
    transientEnvironments: config.transientEnvironments,
    escapeUrlValues: config.logUrlTemplateEscape,
  };
}
