// The golden scenarios (golden-scenarios.ts) with the npm install's launcher, bin/kubectl-haptic.
import { describe } from 'vitest';
import { goldenScenarios } from './golden-scenarios.ts';
import { runPlugin } from './support.ts';

describe('whole outputs on the real control plane', () => goldenScenarios(runPlugin));
