import type { ForgeHost } from '../metadata/forge-route.js';
import type { Defaults } from '../metadata/resolve-target.js';
import type { ReportingConfig } from './load-config.js';

/** Controller-wide metadata defaults from configuration and where the forges live; shared by the server and `explain`. */
export function buildDefaults(config: ReportingConfig, controllerVersion: string, forges: readonly ForgeHost[]): Defaults {
  return {
    cluster: config.clusterName,
    ...(config.environment ? { environment: config.environment } : {}),
    ...(config.environmentUrl ? { environmentUrl: config.environmentUrl } : {}),
    routeScheme: config.environmentUrlScheme,
    ...(config.logUrlTemplate ? { logUrlTemplate: config.logUrlTemplate } : {}),
    description: config.description,
    forges,
    controllerVersion,
    repositorySource: config.repositorySource,
    allowedRepositories: config.allowedRepositories,
    transientEnvironments: config.transientEnvironments,
    escapeUrlValues: config.logUrlTemplateEscape,
  };
}
