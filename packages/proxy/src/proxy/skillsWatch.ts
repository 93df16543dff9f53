/**
 * The config's `skills_dir`: served as the `config` origin of `server.skills` (first, so its
 * names win over plugins'), and watched — a saved change rescans it, and clients hear
 * `resources/list_changed` when what they list changed. A rescan that fails keeps the last
 * read serving.
 *
 * @module
 */
import { errorMessage, type Logger, type McpboxServer } from '@mcpbox/framework';
import { type FolderWatch, watchFolder } from './folderWatch.ts';

/** The origin name of the config's skills. */
export const CONFIG_SKILLS = 'config';

/** Serves `folder` and watches it until the server closes; rejects if it cannot be read. */
export async function serveSkillsDir(
  server: McpboxServer,
  folder: string,
  logger: Logger,
  debounceMs = 300,
): Promise<FolderWatch> {
  const report = await server.skills.add(CONFIG_SKILLS, folder, { kind: 'config', label: folder });
  logger.info(`serving ${report.served.length} skill(s) from ${folder}`, {
    skills: report.served.join(', '),
  });
  const watch = watchFolder(folder, {
    debounceMs,
    onChange: () => {
      void server.skills.reload(CONFIG_SKILLS).then((again) => {
        logger.info(`skills in ${folder} read again: ${again?.served.join(', ') || 'none'}`);
      });
    },
    onError: (error) => logger.warn(`watching ${folder} failed: ${errorMessage(error)}`),
  });
  void server.closed.then(() => watch.close());
  await watch.ready;
  return watch;
}
