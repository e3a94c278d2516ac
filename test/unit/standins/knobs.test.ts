import { expect, it } from 'vitest';
import { knobsDigest, parseKnobs } from '../../cluster/standins/knobs.ts';

it('reads no ConfigMap or no keys as all healthy', () => {
  const healthy = {
    leader: true,
    failDeployTo: '',
    refuseRender: false,
    gateFeature: true,
    secondInstallation: false,
    statusShape: 'gate',
    leaderElection: true,
    compressed: false,
    retainConfigs: 2,
    podComment: 'end',
    dataplaneRevision: 'release',
  };
  expect(parseKnobs(undefined)).toEqual(healthy);
  expect(parseKnobs({})).toEqual(healthy);
});

it('reads every knob', () => {
  expect(
    parseKnobs({
      leader: 'false',
      failDeployTo: 'first',
      refuseRender: 'true',
      gateFeature: 'off',
      secondInstallation: 'true',
      deployDelayMs: '2500',
      statusShape: 'dataplane',
      leaderElection: 'off',
      compressed: 'true',
      retainConfigs: '2',
      podComment: 'before',
      dataplaneRevision: 'head',
      agentMode: 'rejected',
    }),
  ).toEqual({
    leader: false,
    failDeployTo: 'first',
    refuseRender: true,
    gateFeature: false,
    secondInstallation: true,
    deployDelayMs: 2500,
    statusShape: 'dataplane',
    leaderElection: false,
    compressed: true,
    retainConfigs: 2,
    podComment: 'before',
    dataplaneRevision: 'head',
    agentMode: 'rejected',
  });
  const unknown = parseKnobs({ dataplaneRevision: 'v4', agentMode: 'sometimes' });
  expect(unknown.dataplaneRevision).toBe('release');
  expect(unknown).not.toHaveProperty('agentMode');
  expect(parseKnobs({ deployDelayMs: 'soon' }).deployDelayMs).toBeUndefined();
  expect(parseKnobs({ statusShape: 'v2', retainConfigs: '-1' })).toMatchObject({
    statusShape: 'gate',
    retainConfigs: 2,
  });
  expect(parseKnobs({ retainConfigs: '0' }).retainConfigs).toBe(0);
});

it('digests data independently of key order', () => {
  expect(knobsDigest({ a: '1', b: '2' })).toBe(knobsDigest({ b: '2', a: '1' }));
  expect(knobsDigest(undefined)).toBe(knobsDigest({}));
  expect(knobsDigest({ a: '1' })).not.toBe(knobsDigest({}));
});
