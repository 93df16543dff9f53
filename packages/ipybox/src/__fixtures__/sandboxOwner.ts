// A host process that owns a sandboxed kernel: prints `{"ready": true}` once the kernel ran a cell
// (which also started a `sleep` inside the sandbox), then idles until killed. Used to check that
// nothing of the sandbox outlives a SIGKILLed owner.
import { CodeExecutor } from '../executor.ts';

const executor = new CodeExecutor({ sandbox: true, workingDir: process.argv[2] });
await executor.execute("import subprocess\nchild = subprocess.Popen(['sleep', '600'])");
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
setInterval(() => {}, 60_000);
