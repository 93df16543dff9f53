/**
 * The read-eval-print loop: node:readline for line editing, history and tab completion on a
 * terminal; the same loop reads piped input line by line and returns at end of input.
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
 */
export class ReplOutput implements Output {
  readonly #stdout: NodeJS.WritableStream;
  readonly #stderr: NodeJS.WritableStream;
  #rl: readline.Interface | undefined;
  #terminal = false;
  /** True while a prompt is shown and nothing runs. */
  idle = false;

  constructor(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream) {
    this.#stdout = stdout;
    this.#stderr = stderr;
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

/** Runs until `quit` or end of input. */
export async function runRepl(options: ReplOptions): Promise<void> {
  const { session, out, terminal, historyFile, historySize = DEFAULT_HISTORY_SIZE } = options;
  const useHistory = terminal && historyFile !== undefined;
  const rl = readline.createInterface({
    input: options.input,
    output: options.output,
    terminal,
    prompt: PROMPT,
    historySize,
    history: useHistory ? loadHistory(historyFile, historySize) : [],
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

  if (useHistory) {
    rl.on('history', (history: string[]) => {
      try {
        saveHistory(historyFile, history, historySize);
      } catch (err) {
        out.error(`Could not save history to ${historyFile}: ${(err as Error).message}`);
      }
    });
  }

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

  const read = async (prompt: string): Promise<string | null> => {
    rl.setPrompt(prompt);
    out.idle = true;
    rl.prompt();
    try {
      const line = await queue.next();
      // Piped input is not echoed by a terminal; echoing it makes the output a readable
      // transcript (`mcp> echo hi` then `Echo: hi`) instead of results glued to prompts.
      if (!terminal) options.output.write(line === null ? '\n' : `${line}\n`);
      return line;
    } finally {
      out.idle = false;
      rl.setPrompt(PROMPT);
    }
  };

  session.askUser = read;
  for (;;) {
    const line = await read(PROMPT);
    if (line === null) {
      if (terminal) options.output.write('\n');
      break;
    }
    running = new AbortController();
    const result = await runLine(line, { session, out, ask: read, signal: running.signal });
    running = null;
    if (result === 'quit') break;
  }
  session.askUser = undefined;
  out.attach(undefined, terminal);
  rl.close();
}
