/**
 * Name patterns in views and rules: a plain name matches itself, a glob (`tickets__*`,
 * `kb__search_{articles,faq}`) what picomatch says. Tool names hold no `/`, so `*` spans
 * everything; `__` is an ordinary pair of characters.
 *
 * @module
 */
import { lazyRequire } from '../lazy.ts';

const picomatch = lazyRequire<typeof import('picomatch')>('picomatch');

/** One test over a list of patterns; undefined patterns match nothing. */
export function namesMatcher(patterns: readonly string[] | undefined): (name: string) => boolean {
  if (patterns === undefined || patterns.length === 0) return () => false;
  const exact = new Set(patterns.filter((p) => !/[*?[\]{}()!+@]/.test(p)));
  const globs = patterns.filter((p) => !exact.has(p));
  const glob = globs.length > 0 ? picomatch()(globs, { dot: true }) : undefined;
  return (name) => exact.has(name) || (glob?.(name) ?? false);
}
