/**
 * Name patterns in views and rules: a plain name matches itself, a glob (`tickets__*`,
 * `kb__search_{articles,faq}`) what picomatch says. Tool names hold no `/`, so `*` spans
 * everything; `__` is an ordinary pair of characters.
 *
 * A list's globs become one regular expression (picomatch's, joined): a listing tests every
 * rule's patterns against every tool, so one `RegExp.test` per list, not picomatch's matcher per
 * pattern (a 2,000-tool catalog with 50 rules lists in a fraction of the time).
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
  const glob =
    globs.length > 0
      ? new RegExp(globs.map((g) => picomatch().makeRe(g, { dot: true }).source).join('|'))
      : undefined;
  return (name) => exact.has(name) || (glob?.test(name) ?? false);
}
