/**
 * `MCP_*` environment variables and the configuration keys they set. They sit below the config
 * file: a key written in the file wins over the environment (see `load.ts` for the whole order).
 *
 * @module
 */
import type { WrittenConfig } from './types.ts';

/** Variable → key. Values are raw strings; the schema converts and checks them. */
export const ENVIRONMENT_KEYS: Readonly<Record<string, keyof WrittenConfig>> = {
  MCP_SERVER_NAME: 'server_name',
  MCP_LOG_LEVEL: 'log_level',
  MCP_LOG_FORMAT: 'log_format',
  MCP_HOST: 'host',
  MCP_PORT: 'port',
  MCP_HEALTH_PORT: 'health_port',
  MCP_TRANSPORT: 'transport',
  MCP_OAUTH_ENABLED: 'oauth_enabled',
  MCP_OAUTH_SERVER_URL: 'oauth_server_url',
  MCP_PUBLIC_URL: 'oauth_public_url',
  MCP_MGMT_TOKEN: 'management_token',
  MCP_SESSION_IDLE_TIMEOUT: 'session_idle_timeout',
  MCP_MAX_SESSIONS: 'max_sessions',
  MCP_MAX_SESSIONS_PER_CALLER: 'max_sessions_per_caller',
  MCP_MAX_LISTENS: 'max_listens',
  MCP_MAX_LISTENS_PER_CALLER: 'max_listens_per_caller',
  MCP_MAX_MESSAGE_SIZE: 'max_message_size',
  MCP_REDIS_URL: 'cluster',
  MCP_CODE_MODE: 'code_mode',
};

/** The `MCP_*` variables that are set, one entry per variable with the key it sets. */
export function environmentLayers(
  env: Readonly<Record<string, string | undefined>>,
): Array<{ variable: string; key: keyof WrittenConfig; value: string }> {
  return Object.entries(ENVIRONMENT_KEYS).flatMap(([variable, key]) => {
    const value = env[variable];
    return value === undefined ? [] : [{ variable, key, value }];
  });
}
