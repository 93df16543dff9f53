/**
 * Tab completion for the prompt, in the shape node:readline's `completer` returns:
 * `[candidates, the fragment being completed]`.
 */

export interface CompletionWords {
  commands: string[];
  tools: string[];
  prompts: string[];
  resources: string[];
}

export function complete(line: string, words: CompletionWords): [string[], string] {
  const [hits, fragment] = candidates(line, words);
  // A unique match is completed with the space that must follow it, as shells do.
  return [hits.length === 1 ? [`${hits[0]} `] : hits, fragment];
}

function candidates(line: string, words: CompletionWords): [string[], string] {
  const match = /^(\S*)(\s+)(\S*)$/.exec(line);
  if (!match) {
    if (/\s/.test(line)) return [[], line];
    // The first word: a command or a tool (tool shorthand).
    const all = [...new Set([...words.commands, ...words.tools])].sort();
    return [all.filter((w) => w.startsWith(line)), line];
  }
  const [, command, , fragment] = match;
  const pool =
    command === 'call'
      ? words.tools
      : command === 'prompt'
        ? words.prompts
        : command === 'read'
          ? words.resources
          : [];
  return [pool.filter((w) => w.startsWith(fragment)).sort(), fragment];
}
