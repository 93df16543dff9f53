/**
 * The one exception the configuration API throws: every problem found, one per line, each as
 * `<source>: <dotted.key>: <what was expected>`.
 *
 * @module
 */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  /** One line per problem, in the order found. */
  readonly issues: readonly string[];

  constructor(issues: readonly string[]) {
    super(
      issues.length === 1
        ? `invalid configuration: ${issues[0]}`
        : `invalid configuration (${issues.length} problems):\n  ${issues.join('\n  ')}`,
    );
    this.name = 'ConfigError';
    this.issues = issues;
  }
}
