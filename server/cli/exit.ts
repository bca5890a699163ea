/**
 * How the operator's commands (`npm run seller`, `npm run operator`) end: the exit code a script can test,
 * and one line on stderr. 2: the command was used wrongly (its usage follows) or the configuration is; 1: the
 * service refused (an unknown seller, a token that does not fit: its message alone) or failed.
 */
import { ConfigError } from '../config.ts'
import { isProblemError } from '../../core/shared/errors.ts'

/** The command line was wrong: exit 2 with the usage. */
export class UsageError extends Error {}

/** Runs a command and exits with its code, or with the code and the one line its error calls for. */
export function runCommand(run: () => Promise<number>, usage: string): void {
  run().then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (
        err instanceof UsageError ||
        (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
      ) {
        console.error(`error: ${err.message}\n\n${usage}`)
        process.exit(2)
      }
      if (err instanceof ConfigError) {
        console.error(err.message)
        process.exit(2)
      }
      // A refusal of the service (an unknown seller, a token that does not fit, no SIGNING_KEY_SECRET): one line.
      if (isProblemError(err) && err.status < 500) {
        console.error(`error: ${err.message}`)
        process.exit(1)
      }
      console.error('error:', err instanceof Error ? err.message : err)
      process.exit(1)
    },
  )
}
