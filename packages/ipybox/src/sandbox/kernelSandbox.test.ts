/** The confinement contract against a sandboxed and an ordinary kernel, in one run. */
import { confinementContract } from '../confinement.contract.ts';

confinementContract('sandboxed');
confinementContract('unsandboxed');
