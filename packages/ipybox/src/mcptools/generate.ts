/**
 * `generateMcpSources`: lists an MCP server's tools and writes their Python API to
 * `<rootDir>/mcptools/<package>/`, plus the shared runtime modules (`runtimeFiles.ts`).
 *
 * `mcptools/` itself gets no `__init__.py`: it stays a namespace package, so packages generated
 * into several roots (a workspace and a shared one) import side by side.
 *
 * The package is written to a temporary sibling directory and renamed into place, so a kernel
 * importing during a re-registration sees the old package or the new one, never half of each,
 * and tools that disappeared upstream lose their stale modules.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseUpstreamParams, UpstreamConnection } from '@mcpbox/framework';
import type { Tool } from '@modelcontextprotocol/server';
import { type GeneratedTool, renderPackage, type ToolDefinition } from './renderPackage.ts';
import { writeRuntimeModules } from './runtimeFiles.ts';

export interface GenerateOptions {
  /**
   * Lists the server's tools. Default: a one-off connection with `serverParams` (closed again
   * afterwards). Pass the tool server's cached connection instead —
   * `() => pool.get(name).listTools()` — to avoid starting the server twice.
   */
  listTools?: () => Promise<readonly ToolDefinition[]>;
  /** Where `${VAR}` placeholders in `serverParams` are looked up (default connection only). */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface GeneratedSources {
  /** The Python package: `from mcptools.<package> import <module>`. */
  package: string;
  /** Directory written, `<rootDir>/mcptools/<package>`. */
  directory: string;
  /** One entry per tool: its module name and its original name. */
  tools: GeneratedTool[];
}

/**
 * Generates the Python API of MCP server `serverName` under `rootDir`.
 *
 * `serverParams` are not written anywhere: generated code reaches the server only through the
 * tool server, which holds the params (with `${VAR}` placeholders expanded only at connect time).
 *
 * @example
 * const { tools } = await generateMcpSources('everything', params, workspace, {
 *   listTools: () => pool.get('everything').listTools(),
 * });
 * // kernel: from mcptools.everything import echo; echo.run({'message': 'hi'})
 */
export async function generateMcpSources(
  serverName: string,
  serverParams: unknown,
  rootDir: string,
  options: GenerateOptions = {},
): Promise<GeneratedSources> {
  const tools = await (
    options.listTools ?? (() => listToolsOnce(serverName, serverParams, options.env))
  )();
  const rendered = renderPackage(serverName, tools);
  const mcptoolsDir = join(rootDir, 'mcptools');
  await writeRuntimeModules(rootDir);

  const directory = join(mcptoolsDir, rendered.package);
  const staging = join(mcptoolsDir, `.${rendered.package}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(staging);
    for (const [file, source] of rendered.files) {
      await writeFile(join(staging, file), source, 'utf8');
    }
    await rm(directory, { recursive: true, force: true });
    await rename(staging, directory);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { package: rendered.package, directory, tools: rendered.tools };
}

/**
 * Connects once, lists the tools, disconnects. Invalid params fail with the framework's
 * `UpstreamError` (`INVALID_PARAMS`, naming the field); a server that cannot start, with its reason.
 */
export async function listToolsOnce(
  serverName: string,
  serverParams: unknown,
  env: GenerateOptions['env'],
): Promise<Tool[]> {
  const params = parseUpstreamParams(serverParams);
  const connection = new UpstreamConnection(serverName, params, { env });
  try {
    return await connection.listTools();
  } finally {
    await connection.close();
  }
}
