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

/** What the loop's listeners share. */
interface LoopState {
  /** The prompt asks a question (not for a command), so its answer is no history. */
  answering: boolean;
  /** The command now running, for Ctrl-C and closed output to abort. */
  running: AbortController | null;
}

type Read = (prompt: string) => Promise<string | null>;

/** Runs until `quit`, end of input, or stdout closing. */
export async function runRepl(options: ReplOptions): Promise<ReplResult> {
  const { session, out, terminal } = options;
  const state: LoopState = { answering: false, running: null };
  const saved = loadSavedHistory(options);
  const rl = openReadline(options, saved);
  out.attach(rl, terminal);
  keepCommandHistory(rl, state, options, saved);

  const queue = new LineQueue();
  takeInput(rl, queue, state, out);
  // Nobody reads the output any more (`mcp-client … | head`): stop, as a shell command would.
  out.onStdoutClosed(() => {
    state.running?.abort();
    queue.end();
  });

  const read = reader(rl, queue, state, options);
  session.askUser = read;
  const failed = await runCommands(read, state, options);
  session.askUser = undefined;
  out.attach(undefined, terminal);
  rl.close();
  if (terminal || failed === 0) return { exitCode: 0 };
  out.error(`mcp-client: ${failed} ${failed === 1 ? 'command' : 'commands'} failed (exit code 1).`);
  return { exitCode: 1 };
}

/** The readline interface, with the saved history and (on a terminal) tab completion. */
function openReadline(options: ReplOptions, saved: readonly string[]): readline.Interface {
  const { session, terminal, historySize = DEFAULT_HISTORY_SIZE } = options;
  return readline.createInterface({
    input: options.input,
    output: options.output,
    terminal,
    prompt: PROMPT,
    historySize,
    history: [...saved],
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
}

/** History persists on a terminal with a history file only. */
function historyFileOf(options: ReplOptions): string | undefined {
  return options.terminal ? options.historyFile : undefined;
}

function loadSavedHistory(options: ReplOptions): string[] {
  const file = historyFileOf(options);
  return file === undefined ? [] : loadHistory(file, options.historySize ?? DEFAULT_HISTORY_SIZE);
}

/**
 * Only command lines are history. readline adds every line entered, so an answer to a question
 * (a tool parameter, an approval, an elicitation field: maybe a password) is taken out again
 * before anything is saved, by restoring the history as the last command left it.
 */
function keepCommandHistory(
  rl: readline.Interface,
  state: LoopState,
  options: ReplOptions,
  saved: readonly string[],
): void {
  const { out, historySize = DEFAULT_HISTORY_SIZE } = options;
  const historyFile = historyFileOf(options);
  let commandHistory = saved;
  rl.on('history', (history: string[]) => {
    if (state.answering) {
      history.splice(0, history.length, ...commandHistory);
      return;
    }
    commandHistory = [...history];
    if (historyFile !== undefined) {
      try {
        saveHistory(historyFile, history, historySize);
      } catch (err) {
        out.error(`Could not save history to ${historyFile}: ${(err as Error).message}`);
      }
    }
  });
}

/** Feeds entered lines to `queue`; Ctrl-C answers a question, aborts, clears, or exits. */
function takeInput(
  rl: readline.Interface,
  queue: LineQueue,
  state: LoopState,
  out: ReplOutput,
): void {
  let exitOnNextCtrlC = false;
  rl.on('line', (line) => {
    exitOnNextCtrlC = false;
    queue.push(line);
  });
  rl.on('close', () => queue.end());
  rl.on('SIGINT', () => {
    if (queue.waiting && rl.getPrompt() !== PROMPT) return queue.interrupt(); // a question
    if (state.running) {
      state.running.abort();
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
}

/** Shows `prompt` and takes the next line: a command, or the answer to a question. */
function reader(
  rl: readline.Interface,
  queue: LineQueue,
  state: LoopState,
  options: ReplOptions,
): Read {
  const { out, terminal } = options;
  return async (prompt) => {
    rl.setPrompt(prompt);
    state.answering = prompt !== PROMPT;
    out.idle = true;
    if (!out.stdoutClosed) rl.prompt();
    try {
      const line = await queue.next();
      // Piped input is not echoed by a terminal; echoing it makes the output a readable
      // transcript (`mcp> echo hi` then `Echo: hi`) instead of results glued to prompts.
      if (!terminal) write(options, line === null ? '\n' : `${line}\n`);
      return line;
    } finally {
      out.idle = false;
      state.answering = false;
      rl.setPrompt(PROMPT);
    }
  };
}

/** Runs command lines until `quit`, end of input, or stdout closing; returns how many failed. */
async function runCommands(read: Read, state: LoopState, options: ReplOptions): Promise<number> {
  const { session, out, terminal } = options;
  let failed = 0;
  for (;;) {
    const line = await read(PROMPT);
    if (line === null) {
      if (terminal) write(options, '\n');
      break;
    }
    state.running = new AbortController();
    const result = await runLine(line, {
      session,
      out,
      ask: read,
      interactive: terminal,
      signal: state.running.signal,
    });
    state.running = null;
    if (result === 'quit') break;
    if (out.stdoutClosed) break; // a call cut short by the closed output is no failure
    if (result === 'failed') failed++;
  }
  return failed;
}

/** Writes to the loop's output stream, unless stdout can no longer be written. */
function write(options: ReplOptions, text: string): void {
  if (!options.out.stdoutClosed) options.output.write(text);
}
