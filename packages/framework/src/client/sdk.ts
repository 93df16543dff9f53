/**
 * The MCP client SDK, imported with the first upstream connection instead of at start-up.
 * Every server imports the framework's entry, which exports the upstream classes; a static
 * import of `@modelcontextprotocol/client` there cost each server about 35 ms of its cold start
 * (bench/startup.ts), also the many that never connect to an upstream (`mcp-factory -p echo`).
 *
 * {@link loadClientSdk} runs first thing in every connect; code that only runs with a client
 * (its request handlers, its errors) then reads the loaded module through {@link clientSdk}.
 * The error checks answer `false` before the load: without a client there are no client errors.
 *
 * @module
 */
import type * as ClientSdk from '@modelcontextprotocol/client';
import type * as ClientStdio from '@modelcontextprotocol/client/stdio';

interface LoadedSdk {
  sdk: typeof ClientSdk;
  stdio: typeof ClientStdio;
}

let loaded: LoadedSdk | undefined;
let loading: Promise<LoadedSdk> | undefined;

/** Imports the client SDK (once; later calls get the same modules). */
export function loadClientSdk(): Promise<LoadedSdk> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= Promise.all([
    import('@modelcontextprotocol/client'),
    import('@modelcontextprotocol/client/stdio'),
  ]).then(([sdk, stdio]) => {
    loaded = { sdk, stdio };
    return loaded;
  });
  return loading;
}

/** The loaded client SDK; only for code that runs after {@link loadClientSdk} (with a client). */
export function clientSdk(): LoadedSdk {
  if (!loaded) throw new Error('internal error: the MCP client SDK is used before it was loaded');
  return loaded;
}

/** The client SDK's `SdkError` with that code. */
export function isSdkError(
  error: unknown,
  code: keyof typeof ClientSdk.SdkErrorCode,
): error is ClientSdk.SdkError {
  return (
    loaded !== undefined &&
    error instanceof loaded.sdk.SdkError &&
    error.code === loaded.sdk.SdkErrorCode[code]
  );
}

/** The client SDK's `SdkHttpError` (an HTTP status the transport got). */
export function isSdkHttpError(error: unknown): error is ClientSdk.SdkHttpError {
  return loaded !== undefined && error instanceof loaded.sdk.SdkHttpError;
}

/** A JSON-RPC error an upstream answered (the client SDK's `ProtocolError`), of `code` if given. */
export function isProtocolError(
  error: unknown,
  code?: keyof typeof ClientSdk.ProtocolErrorCode,
): error is ClientSdk.ProtocolError {
  return (
    loaded !== undefined &&
    error instanceof loaded.sdk.ProtocolError &&
    (code === undefined || error.code === loaded.sdk.ProtocolErrorCode[code])
  );
}
