import { readFileSync } from 'node:fs';
import { readSettings, type ConfigOf, type Schema } from '../common/settings-schema.js';
import { REPORTING_SETTINGS, SETTINGS } from './settings.js';

/** Typed, validated, frozen configuration, derived from the declarations in settings.ts. */
export type Config = ConfigOf<typeof SETTINGS>;
/** The part of it that shapes what is reported: all `explain` reads. */
export type ReportingConfig = ConfigOf<typeof REPORTING_SETTINGS>;

/** Thrown with every problem found, so a person fixes them all at once. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Reads and validates the server's configuration from environment variables; reports every problem at once. */
export function loadConfig(env: NodeJS.ProcessEnv, readFile: (path: string) => Buffer = readFileSync): Config {
  return load(SETTINGS, env, readFile);
}

/** Reads only what shapes a report, for `explain`: no webhook key, no forge credentials, nothing of the server's. */
export function loadReportingConfig(env: NodeJS.ProcessEnv, readFile: (path: string) => Buffer = readFileSync): ReportingConfig {
  return load(REPORTING_SETTINGS, env, readFile);
}

function load<S extends Schema>(schema: S, env: NodeJS.ProcessEnv, readFile: (path: string) => Buffer): ConfigOf<S> {
  const read = readSettings(schema, env, readFile);
  if (!read.ok) throw new ConfigError(read.problems);
  return read.config;
}
