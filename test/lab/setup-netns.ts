// Runs in every lab test file: the worker must be inside the lab's network namespace (pool.ts), or nothing it
// connects to would be the lab's.
import { inject } from 'vitest';
import { insideNetns } from '../cluster/lab/netns.ts';

const netns = inject('cluster').lab?.netns;
if (!netns || !insideNetns(netns))
  throw new Error(`this lab test worker is not inside the lab's network namespace ${netns ?? '(none)'}`);
