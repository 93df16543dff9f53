/**
 * The client side of `mcp-proxy`: `status`, `list`, `tools`, `load|unload|reload NAME` and
 * `command [NAME]` — one per operation of `operations/table.ts` — talk to a running proxy's
 * management API. Output is readable by default and the raw JSON with `--json`. Failures print
 * one line to stderr and exit 1.
 *
 * @module
 */
import {
  ManagementClient,
  ManagementRequestError,
  ManagementUnauthorizedError,
  ManagementUnavailableError,
} from '../../management/client.ts';
import { OperandError } from '../../operations/cliText.ts';
import {
  type OperationArgs,
  type OperationSpec,
  operationNamed,
  restRequest,
  restRouteFor,
} from '../../operations/table.ts';
import { fail } from '../exit.ts';

export interface RemoteOptions {
  /** Default 12299. */
  mgmtPort?: number;
  /** Falls back to `MCP_MGMT_TOKEN`. */
  token?: string;
  json?: boolean;
  env?: Readonly<Record<string, string | undefined>>;
  /** Where output goes; default stdout. */
  write?: (text: string) => void;
}

/** A client command: which operation of the table, with the command's operands and flags. */
export interface RemoteAction {
  operation: string;
  operands: ReadonlyArray<string | undefined>;
  flags: Record<string, unknown>;
}

const DEFAULT_MGMT_PORT = 12299;

/** Sends the operation's REST request and renders the answer as the table says. */
async function perform(
  client: ManagementClient,
  action: RemoteAction,
): Promise<{ body: unknown; text: string }> {
  const operation = operationNamed(action.operation);
  const args = operandsOf(operation, action);
  const route = restRouteFor(operation, args);
  const request = restRequest(route, args);
  const body =
    route.method === 'GET'
      ? await client.get(request.path)
      : await client.post(request.path, request.body);
  return { body, text: operation.cli.text(body, args) };
}

/** The operation's arguments from the command line; an unusable operand fails the command. */
function operandsOf(operation: OperationSpec, action: RemoteAction): OperationArgs {
  try {
    return operation.cli.args(action.operands, action.flags);
  } catch (error) {
    if (error instanceof OperandError) throw fail(error.message);
    throw error;
  }
}

export async function runRemote(action: RemoteAction, options: RemoteOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const port = options.mgmtPort ?? DEFAULT_MGMT_PORT;
  const token = options.token ?? (env.MCP_MGMT_TOKEN || undefined);
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const client = new ManagementClient({ port, token });
  try {
    const { body, text } = await perform(client, action);
    write(`${options.json ? JSON.stringify(body, null, 2) : text}\n`);
  } catch (error) {
    if (
      error instanceof ManagementUnavailableError ||
      error instanceof ManagementUnauthorizedError
    ) {
      throw fail(error.message);
    }
    if (error instanceof ManagementRequestError) {
      if (options.json && error.body !== undefined)
        write(`${JSON.stringify(error.body, null, 2)}\n`);
      throw fail(error.message);
    }
    throw error;
  }
}
