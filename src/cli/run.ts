import { execute } from '@oclif/core';

export async function run(): Promise<void> {
  await execute({ dir: import.meta.url });
}
