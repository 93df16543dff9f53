export {
  configureLogging,
  createLogger,
  type LogExtra,
  type Logger,
  type LoggingOptions,
} from './logger.ts';
