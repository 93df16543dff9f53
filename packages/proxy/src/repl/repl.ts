/**
 * The read-eval-print loop: node:readline for line editing, history and tab completion on a
 * terminal; the same loop reads piped input line by line as a script and returns at end of input
 * (or when whoever reads the output goes away, as `| head` does).
 */
import * as readline from 'node:readline';
import { COMMAND_NAMES, runLine } from './commands.ts';
import { complete } from './completion.ts';
import { DEFAULT_HISTORY_SIZE, loadHistory, saveHistory } from './history.ts';
import { LineQueue } from './lineQueue.ts';
import type { ClientSession, Output } from './session.ts';

export const PROMPT = 'mcp> ';

/**
 * Output that keeps the prompt intact: a notice arriving while the user is typing is printed
 * above the prompt, and the prompt is redrawn with what they had typed.
 *
 * A write error on either stream (EPIPE once the reader of a pipe has exited) closes that
 * stream quietly instead of crashing the client with an unhandled 'error' event; when stdout
 * closes, the listeners of `onStdoutClosed` end the session.
 */
export class ReplOutput implements Output {
  readonly #stdout: NodeJS.WritableStream;
  readonly #stderr: NodeJS.WritableStream;
  readonly #closed = new Set<NodeJS.WritableStream>();
  readonly #onStdoutClosed: (() => void)[] = [];
  #rl: readline.Interface | undefined;
  #terminal = false;
  /** True while a prompt is shown and nothing runs. */
  idle = false;

  constructor(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream) {
    this.#stdout = stdout;
    this.#stderr = stderr;
    for (const stream of new Set([stdout, stderr])) {
      stream.on('error', (err: NodeJS.ErrnoException) => this.#closeStream(stream, err));
    }
  }

  get stdoutClosed(): boolean {
    return this.#closed.has(this.#stdout);
  }

  /** Calls `listener` once stdout can no longer be written (at once if it already cannot). */
  onStdoutClosed(listener: () => void): void {
    if (this.stdoutClosed) listener();
    else this.#onStdoutClosed.push(listener);
  }

  #closeStream(stream: NodeJS.WritableStream, err: NodeJS.ErrnoException): void {
    if (this.#closed.has(stream)) return;
    this.#closed.add(stream);
    // A reader that went away is normal end of output; anything else is worth a line on the
    // other stream, if that one still works.
    if (err.code !== 'EPIPE') {
      const other = stream === this.#stdout ? this.#stderr : this.#stdout;
      if (!this.#closed.has(other))
        other.write(`mcp-client: cannot write output: ${err.message}\n`);
    }
    if (stream === this.#stdout) {
      for (const listener of this.#onStdoutClosed.splice(0)) listener();
    }
  }

  attach(rl: readline.Interface | undefined, terminal: boolean): void {
    this.#rl = rl;
    this.#terminal = terminal;
  }

  print(text: string): void {
    this.#write(this.#stdout, text);
  }

  error(text: string): void {
    this.#write(this.#stderr, text);
  }

  notice(text: string): void {
    this.#write(this.#stdout, text);
  }

  #write(stream: NodeJS.WritableStream, text: string): void {
    if (this.#closed.has(stream)) return;
    const rl = this.#rl;
    if (!rl || !this.idle) {
      stream.write(`${text}\n`);
      return;
    }
    if (this.#terminal) {
      readline.clearLine(this.#stdout, 0);
      readline.cursorTo(this.#stdout, 0);
    } else {
      this.#stdout.write('\n');
    }
    stream.write(`${text}\n`);
    rl.prompt(true);
  }
}

export interface ReplOptions {
  session: ClientSession;
  out: ReplOutput;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** A real terminal: line editing, completion, history, Ctrl-C handling. */
  terminal: boolean;
  /** Where history persists (terminal only); undefined keeps none. */
  historyFile?: string;
  historySize?: number;
}

export interface ReplResult {
  /**
   * 1 when a script (input not a terminal) had a command fail: an error printed, or a tool
   * result with `isError`. A person at a terminal saw each failure, so a session there exits 0.
   */
  exitCode: 0 | 1;
}

/** Runs until `quit`, end of input, or stdout closing. */
export async function runRepl(options: ReplOptions): Promise<ReplResult> {
  const { session, out, terminal, historyFile, historySize = DEFAULT_HISTORY_SIZE } = options;
  const useHistory = terminal && historyFile !== undefined;
  const initialHistory = useHistory ? loadHistory(historyFile, historySize) : [];
  const rl = readline.createInterface({
    input: options.input,
    output: options.output,
    terminal,
    prompt: PROMPT,
    historySize,
    history: [...initialHistory],
    removeHistoryDuplicates: true,
    completer: terminal
      ? (line: string) =>
          complete(line, {
            commands: COMMAND_NAMES,
            tools: session.knownTools.map((t) => t.name),
            prompts: session.knownPrompts.map((p) => p.name),
            resources: session.knownResources.map((r) => r.uri),
          })
      : undefined,
  });
  out.attach(rl, terminal);

  // Only command lines are history. readline adds every line entered, so an answer to a
  // question (a tool parameter, an approval, an elicitation field: maybe a password) is taken
  // out again before anything is saved, by restoring the history as the last command left it.
  let answering = false;
  let commandHistory = initialHistory;
  rl.on('history', (history: string[]) => {
    if (answering) {
      history.splice(0, history.length, ...commandHistory);
      return;
    }
    commandHistory = [...history];
    if (useHistory) {
      try {
        saveHistory(historyFile, history, historySize);
      } catch (err) {
        out.error(`Could not save history to ${historyFile}: ${(err as Error).message}`);
      }
    }
  });

  const queue = new LineQueue();
  let running: AbortController | null = null;
  let exitOnNextCtrlC = false;
  rl.on('line', (line) => {
    exitOnNextCtrlC = false;
    queue.push(line);
  });
  rl.on('close', () => queue.end());
  rl.on('SIGINT', () => {
    if (queue.waiting && rl.getPrompt() !== PROMPT) return queue.interrupt(); // a question
    if (running) {
      running.abort();
      return;
    }
    if (rl.line.length > 0) {
      rl.write(null, { ctrl: true, name: 'u' });
      return;
    }
    if (exitOnNextCtrlC) return queue.end();
    exitOnNextCtrlC = true;
    out.print('\n(To exit, press Ctrl-C again or Ctrl-D, or type quit)');
  });

  // Nobody reads the output any more (`mcp-client … | head`): stop, as a shell command would.
  out.onStdoutClosed(() => {
    running?.abort();
    queue.end();
  });

  const write = (text: string) => {
    if (!out.stdoutClosed) options.output.write(text);
  };
  const read = async (prompt: string): Promise<string | null> => {
    rl.setPrompt(prompt);
    answering = prompt !== PROMPT;
    out.idle = true;
    if (!out.stdoutClosed) rl.prompt();
    try {
      const line = await queue.next();
      // Piped input is not echoed by a terminal; echoing it makes the output a readable
      // transcript (`mcp> echo hi` then `Echo: hi`) instead of results glued to prompts.
      if (!terminal) write(line === null ? '\n' : `${line}\n`);
      return line;
    } finally {
      out.idle = false;
      answering = false;
      rl.setPrompt(PROMPT);
    }
  };

  session.askUser = read;
  let failed = 0;
  for (;;) {
    const line = await read(PROMPT);
    if (line === null) {
      if (terminal) write('\n');
      break;
    }
    running = new AbortController();
    const result = await runLine(line, {
      session,
      out,
      ask: read,
      interactive: terminal,
      signal: running.signal,
    });
    running = null;
    if (result === 'quit') break;
    if (out.stdoutClosed) break; // a call cut short by the closed output is no failure
    if (result === 'failed') failed++;
  }
  session.askUser = undefined;
  out.attach(undefined, terminal);
  rl.close();
  if (terminal || failed === 0) return { exitCode: 0 };
  out.error(`mcp-client: ${failed} ${failed === 1 ? 'command' : 'commands'} failed (exit code 1).`);
  return { exitCode: 1 };
}
