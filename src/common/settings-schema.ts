/**
 * The configuration schema's interpreter. A setting is declared once (variable, parser, default, doc line);
 * reading it here yields the typed value, its README row, and problems worded for a person, every one of them
 * collected so they are all fixed at once.
 */

/** Stands for a value that was set but is unusable; whoever returns it has recorded the problem. */
export const INVALID: unique symbol = Symbol('invalid');
export type Invalid = typeof INVALID;

/** One row of README's configuration table. */
export interface Row {
  /** The variables, as alternatives: `WEBHOOK_TOKEN` or `WEBHOOK_TOKEN_FILE`. */
  readonly names: readonly string[];
  /** The default column: the default itself, `required`, or words. */
  readonly shown: string;
  readonly doc: string;
}

/** What settings read: the environment, files, and the problem list. */
export interface Source {
  /** The value trimmed; unset, empty and blank are all undefined. */
  text(name: string): string | undefined;
  /** The value as given, for secrets used byte for byte; unset and empty are undefined. */
  raw(name: string): string | undefined;
  problem(message: string): Invalid;
  readFile(path: string): Buffer;
}

/** A parser's tools; problems are worded after `label`: `NAME="text"`, or a secret's name (never its value). */
export interface Check {
  readonly name: string;
  readonly label: string;
  /** Records `<label> <phrase>`. */
  invalid(phrase: string): Invalid;
  problem(message: string): Invalid;
  /** A file's bytes; an unreadable one is recorded as `<label> cannot be read (CODE)`. */
  read(path: string): Buffer | Invalid;
  /** Another variable's value, trimmed (a rule that depends on it, e.g. ALLOW_HTTP_FORGE_URLS); undefined when unset. */
  other(name: string): string | undefined;
}

/** Turns a set, trimmed value into the setting's type, or records why not. */
export type Parse<T> = (text: string, check: Check) => T | Invalid;

/** A declared setting: its README rows and how its value is read (undefined: unset, and optional). */
export interface Setting<T> {
  readonly rows: readonly Row[];
  read(source: Source): T | Invalid;
}

export type Schema = Readonly<Record<string, Setting<unknown>>>;
type ValueOf<S> = S extends Setting<infer T> ? T : never;
type OptionalKey<S extends Schema, K extends keyof S> = undefined extends ValueOf<S[K]> ? K : never;

/** What a schema reads into: read-only, and an optional setting that is unset is absent. */
export type ConfigOf<S extends Schema> = {
  readonly [K in keyof S as K extends OptionalKey<S, K> ? never : K]: ValueOf<S[K]>;
} & { readonly [K in keyof S as OptionalKey<S, K>]?: Exclude<ValueOf<S[K]>, undefined> };

/** Every value of a schema as read, unset and invalid ones included; for settings built of others. */
type Values<S extends Schema> = { [K in keyof S]: ValueOf<S[K]> | Invalid };

interface Doc {
  readonly doc: string;
  /** README's default column, when the default alone does not say it. */
  readonly shown?: string;
}
type Presence<T> =
  | { readonly default: string }
  | { readonly required: string }
  | { readonly fallback: (source: Source) => T | Invalid; readonly shown: string };
type Spec<T> = Doc & { readonly parse: Parse<T> };

/**
 * One variable. `default` is text, parsed like a value that was set (so README shows it as written);
 * `required` words why it is; `fallback` computes the value from other variables. Otherwise it is optional.
 */
export function setting<T>(name: string, spec: Spec<T> & Presence<T>): Setting<T>;
export function setting<T>(name: string, spec: Spec<T>): Setting<T | undefined>;
export function setting<T>(
  name: string,
  spec: Spec<T> & { readonly default?: string; readonly required?: string; readonly fallback?: (source: Source) => T | Invalid },
): Setting<T | undefined> {
  return {
    rows: [{ names: [name], shown: shownFor(spec), doc: spec.doc }],
    read(source) {
      const text = source.text(name) ?? spec.default;
      if (text !== undefined) return spec.parse(text, checkFor(name, `${name}="${text}"`, source));
      if (spec.required !== undefined) return source.problem(`${name} is required: ${spec.required}`);
      return spec.fallback?.(source);
    },
  };
}

interface SecretSpec<T> {
  readonly decode: (bytes: Buffer, check: Check) => T | Invalid;
  /** The file variable's suffix; `_FILE` unless the variable was named otherwise. */
  readonly file?: string;
  readonly raw?: boolean;
}

/**
 * A secret given inline or as a file (`NAME` or `NAME_FILE`, never both). The inline value is trimmed unless
 * `raw`; a file is used byte for byte. `decode` turns the bytes into the value; problems never echo a secret.
 */
export function secret<T>(name: string, spec: Doc & SecretSpec<T> & { readonly required: string }): Setting<T>;
export function secret<T>(name: string, spec: Doc & SecretSpec<T>): Setting<T | undefined>;
export function secret<T>(name: string, spec: Doc & SecretSpec<T> & { readonly required?: string }): Setting<T | undefined> {
  const fileName = `${name}${spec.file ?? '_FILE'}`;
  return {
    rows: [{ names: [name, fileName], shown: shownFor(spec), doc: spec.doc }],
    read(source) {
      const inline = spec.raw ? source.raw(name) : source.text(name);
      const path = source.text(fileName);
      if (inline !== undefined && path !== undefined) return source.problem(`set only one of ${name} and ${fileName}`);
      const check = path === undefined ? checkFor(name, name, source) : checkFor(fileName, `${fileName}="${path}"`, source);
      const bytes = path === undefined ? (inline === undefined ? undefined : Buffer.from(inline, 'utf8')) : check.read(path);
      if (bytes === INVALID) return INVALID;
      // An empty file holds no secret either.
      if (spec.required !== undefined && (bytes === undefined || bytes.length === 0))
        return source.problem(`${name} or ${fileName} is required: ${spec.required}`);
      return bytes === undefined ? undefined : spec.decode(bytes, check);
    },
  };
}

/** A value built from several settings (their rules across variables in `join`); README shows each part's row. */
export function combine<S extends Schema, T>(parts: S, join: (values: Values<S>, source: Source) => T | Invalid): Setting<T> {
  return {
    rows: Object.values(parts).flatMap((part) => part.rows),
    read: (source) => join(readEach(parts, source), source),
  };
}

/** Reads a whole schema: its typed, frozen value, or every problem found. */
export function readSettings<S extends Schema>(
  schema: S,
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => Buffer,
): { ok: true; config: ConfigOf<S> } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const source: Source = {
    text: (name) => env[name]?.trim() || undefined,
    raw: (name) => env[name] || undefined,
    problem(message) {
      problems.push(message);
      return INVALID;
    },
    readFile,
  };
  const values = readEach(schema, source);
  if (problems.length > 0) return { ok: false, problems };
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) config[key] = value;
  // Without problems no value is INVALID, and unset optional ones were left out: the shape ConfigOf<S> describes.
  return { ok: true, config: Object.freeze(config) as ConfigOf<S> };
}

function readEach<S extends Schema>(schema: S, source: Source): Values<S> {
  const values = Object.fromEntries(Object.entries(schema).map(([key, s]) => [key, s.read(source)]));
  // Each key holds what its own setting read: TypeScript cannot follow that through a loop over keys.
  return values as Values<S>;
}

function checkFor(name: string, label: string, source: Source): Check {
  return {
    name,
    label,
    invalid: (phrase) => source.problem(`${label} ${phrase}`),
    problem: (message) => source.problem(message),
    other: (other) => source.text(other),
    read(path) {
      try {
        return source.readFile(path);
      } catch (err) {
        const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : 'error';
        return source.problem(`${label} cannot be read (${code})`);
      }
    },
  };
}

function shownFor(spec: Doc & { readonly default?: string; readonly required?: string }): string {
  if (spec.shown !== undefined) return spec.shown;
  if (spec.required !== undefined) return 'required';
  return spec.default ? `\`${spec.default}\`` : '—';
}
