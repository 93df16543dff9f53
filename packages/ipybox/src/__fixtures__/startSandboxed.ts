// Starts a sandboxed kernel with this process's PATH and prints the error's name and message as
// JSON (or {"started": true}); the preflight test runs it with a PATH that lacks a program.
import { CodeExecutor } from '../executor.ts';

const executor = new CodeExecutor({ sandbox: true, workingDir: process.argv[2] });
try {
  await executor.start();
  process.stdout.write(`${JSON.stringify({ started: true })}\n`);
} catch (error) {
  const { name, message } = error as Error;
  process.stdout.write(`${JSON.stringify({ name, message })}\n`);
} finally {
  await executor.stop();
}
