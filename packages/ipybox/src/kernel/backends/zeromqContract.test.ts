// The backend contract over ZeroMQ, on both transports.
import { runKernelBackendContract } from './backend.contract.ts';
import { zmqKernelBackend } from './zeromq.ts';

runKernelBackendContract('zeromq over tcp', async () => zmqKernelBackend({ transport: 'tcp' }));
runKernelBackendContract('zeromq over ipc', async () => zmqKernelBackend({ transport: 'ipc' }));
