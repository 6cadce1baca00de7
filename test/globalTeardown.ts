/** After the last suite: the run's scratch folder goes, with everything the tests left in it (test/scratch.ts). */
import { closeScratch } from './scratch';

export default function globalTeardown(): void {
  closeScratch();
}
