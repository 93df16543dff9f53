/**
 * The silent cell that gives a kernel on a Jupyter Server what a local kernel gets from its
 * process environment: the variables (the tool server's address and token among them), the
 * `PYTHONPATH` entries on `sys.path` (the variable alone is read only at interpreter start) and
 * the working directory when it exists there. `PATH` stays the server's: ours names this
 * machine's directories.
 *
 * @module
 */

/** Variables of this machine that mean nothing (or harm) on the kernel's. */
const LOCAL_ONLY = new Set(['PATH']);

/** Python source that applies `env` and `cwd` inside a running kernel, leaving no names behind. */
export function remoteEnvironmentCell(
  env: Record<string, string>,
  cwd: string | undefined,
): string {
  const variables = Object.fromEntries(Object.entries(env).filter(([key]) => !LOCAL_ONLY.has(key)));
  // JSON is a Python literal for strings and objects; json.loads keeps any character intact.
  const payload = JSON.stringify(JSON.stringify({ env: variables, cwd: cwd ?? null }));
  return [
    'def _mcpbox_apply_environment(payload):',
    '    import json, os, sys',
    '    settings = json.loads(payload)',
    '    os.environ.update(settings["env"])',
    '    paths = [p for p in settings["env"].get("PYTHONPATH", "").split(os.pathsep) if p]',
    '    for path in reversed(paths):',
    '        if path not in sys.path:',
    '            sys.path.insert(0, path)',
    '    if settings["cwd"] and os.path.isdir(settings["cwd"]):',
    '        os.chdir(settings["cwd"])',
    `_mcpbox_apply_environment(${payload})`,
    'del _mcpbox_apply_environment',
  ].join('\n');
}
