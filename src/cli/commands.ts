/** The command line: `help`, `version`, `dora`, `explain`, or (no command) the server with the configuration read from the environment. */
import { errorMessage } from '../common/errors.js';
import { controllerVersion } from '../common/version.js';
import { ConfigError, loadConfig, type Config } from '../config/load-config.js';
import { doraMain } from './dora.js';
import { EXPLAIN_EXIT, explainMain } from './explain.js';
import { parseCommand, usage } from './usage.js';

/** Runs the command `argv` names; the server is `serve` (the composition root). */
export function runCommand(argv: readonly string[], env: NodeJS.ProcessEnv, serve: (config: Config) => Promise<void>): void {
  const command = parseCommand([...argv]);
  if (command.kind === 'help') {
    process.stdout.write(usage(controllerVersion()));
  } else if (command.kind === 'version') {
    process.stdout.write(`${controllerVersion()}\n`);
  } else if (command.kind === 'unknown') {
    process.stderr.write(`github-deployment-bridge: unknown command or argument '${command.arg}'\n\n${usage(controllerVersion())}`);
    process.exitCode = 2;
  } else if (command.kind === 'dora') {
    process.exitCode = doraMain(command.args, env);
  } else if (command.kind === 'explain') {
    explainMain(command.args, env).then(
      (code) => process.exit(code),
      (err: unknown) => {
        // Settings and usage errors are explain's own (exit 2); what is left could not be read.
        process.stderr.write(`github-deployment-bridge explain: ${errorMessage(err)}\n`);
        process.exit(EXPLAIN_EXIT.failed);
      },
    );
  } else {
    let config: Config | undefined;
    try {
      config = loadConfig(env);
    } catch (err) {
      process.stderr.write(`github-deployment-bridge: ${err instanceof ConfigError ? err.message : errorMessage(err)}\n`);
      process.exit(2);
    }
    serve(config).catch((err: unknown) => {
      process.stderr.write(`github-deployment-bridge: failed to start: ${errorMessage(err)}\n`);
      process.exit(1);
    });
  }
}
