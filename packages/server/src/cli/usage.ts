/** The help texts of the `mouthpiece` command and its sub-commands. */
import { DURATION_EXAMPLES } from './durations.js';
import { CodedError } from '@mouthpiece/protocol';

/** A mistake on the command line: exit 1 with the message and the command's usage. */
export class UsageError extends CodedError {
  static override code = 'ERR_USAGE';
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

export const MAIN_USAGE = `Usage: mouthpiece <command> [options]

Commands:
  serve                  start the service (configured by environment variables; see the README)
  credentials create     issue a session credential (its secret is shown once)
  credentials list       list credentials (never their secrets)
  credentials revoke     revoke a credential; a running server ends its sessions within 2 s
  avatars add|list|remove  add a photo avatar from a portrait, list avatars, remove an added one
  avatars encode-video   add browsers' VP9 frames to video avatars imported before they existed
  help [command]         this text, or a command's

Options:
  --help, -h             help (also after any command: mouthpiece credentials create --help)
  --version              the version

Run it from the repository root: it uses the same data directory as \`npm start\`
($MOUTHPIECE_DATA_DIR, default ./data).
`;

export const SERVE_USAGE = `Usage: mouthpiece serve

Starts the service: the HTTP API, the demo page at /, engine processes and, when coturn is
installed, a managed TURN server. Every setting is an environment variable (PORT,
MOUTHPIECE_DATA_DIR, MOUTHPIECE_PUBLIC_URL, ...; the README lists them all). Ctrl-C stops it.
`;

export const CREDENTIALS_USAGE = `Usage: mouthpiece credentials <create|list|revoke> [options]

  create --name NAME [options]   issue a session credential (shown once; stored only as a hash)
  list [--json]                  list credentials without their secrets
  revoke ID [--json]             revoke one (the id, or the whole secret)

Run \`mouthpiece credentials <command> --help\` for the options of each.
`;

export const CREATE_USAGE = `Usage: mouthpiece credentials create --name NAME [options]

Issues a session credential, the value a backend sends as "Authorization: KS <credential>".
Its secret is printed once and stored only as a hash.

Options:
  --name NAME                a label for it (required)
  --permissions LIST         comma list of session:create and admin (default session:create;
                             '' for none; admin does not imply session:create)
  --max-sessions N           sessions it may hold at once (default 10)
  --max-duration DURATION    longest session, at most 24d (default: MOUTHPIECE_SESSION_MAX_DURATION_MS, 1h)
  --max-text-length N        characters per say-text call (default 5000)
  --rps N                    requests per second for this credential (default 20; 0 = no limit)
  --expires-in DURATION      the credential stops working after this (default: never)
  --json                     print one JSON object {id, secret, name, permissions, expiresAt, maxSessions}
  --data-dir DIR             default $MOUTHPIECE_DATA_DIR, else ./data

Durations are a number with a unit: ${DURATION_EXAMPLES}.
`;

export const LIST_USAGE = `Usage: mouthpiece credentials list [--json] [--data-dir DIR]

Lists every credential: id, name, permissions, status (active, revoked, expired), when it was
created and when it expires. Never the secrets. --json prints an array.
`;

export const REVOKE_USAGE = `Usage: mouthpiece credentials revoke ID [--json] [--data-dir DIR]

Revokes a credential by its id (or its whole secret, mp_…). A running server ends its sessions
within 2 s. Revoking a revoked credential changes nothing. Exit codes: 0 done, 1 usage, 2 not found.
`;
