// Reading manifests for static mode: documents, JSON, Lists, positions; bad input becomes notes, never a throw,
// and no note quotes a document's content (it may be a Secret's).
import { describe, expect, it } from 'vitest';
import { parseManifests } from '../../../../src/model/doctor/manifests.ts';
import { shapeProblem } from '../../../../src/model/doctor/manifest-shapes.ts';
import { manifestInputs } from '../../../../src/model/doctor/manifest-inputs.ts';

const deployment = (name: string, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}${extra}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: app, image: app:1}]`;

describe('parseManifests', () => {
  it('reads every document with the line it starts on (leading comments and markers skipped)', () => {
    const text = `# rendered\n---\n${deployment('a')}\n---\n# Source: chart/templates/b.yaml\n${deployment('b')}\n...\n`;
    const { objects, unreadable } = parseManifests(text, 'out.yaml');
    expect(unreadable).toEqual([]);
    expect(objects.map((o) => [o.object.metadata.name, o.source])).toEqual([
      ['a', { file: 'out.yaml', line: 3 }],
      ['b', { file: 'out.yaml', line: 15 }],
    ]);
  });

  it('flattens kind: List and *List, and reads JSON (one object, a List, or an array)', () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: Service, metadata: {name: s1}, spec: {}}\n  - {apiVersion: v1, kind: Service, metadata: {name: s2}, spec: {}}`;
    expect(parseManifests(list, 'l.yaml').objects.map((o) => o.object.metadata.name)).toEqual(['s1', 's2']);
    // the items share the List's line: each is told apart by its index (`-f -` of kubectl get -o yaml was STDIN:1 for all)
    expect(parseManifests(list, 'STDIN').objects.map((o) => o.source)).toEqual([
      { file: 'STDIN', line: 1, item: 1 },
      { file: 'STDIN', line: 1, item: 2 },
    ]);
    const json = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ServiceList',
      items: [{ kind: 'Service', metadata: { name: 'j' }, spec: {} }],
    });
    expect(
      parseManifests(`\n${json}`, 'l.json').objects.map((o) => [o.object.metadata.name, o.source.line, o.source.item]),
    ).toEqual([['j', 2, 1]]);
    expect(parseManifests(JSON.stringify([{ kind: 'Service', metadata: { name: 'x' } }]), '-').objects).toHaveLength(1);
  });

  it.each([
    [
      'a YAML syntax error, with its line but not the text around it',
      'kind: Secret\nmetadata: {name: s}\ndata:\n  password: "hunter2\n   bad: [',
      /^f\.yaml document 1 \(line 1\): not valid YAML \(.+ at line \d\); skipped$/,
    ],
    [
      'invalid JSON',
      '{"kind": "Secret", "data": {"password": "hunter2",}}',
      /^f\.yaml: not valid JSON( at line 1)?; skipped$/,
    ],
    ['a scalar', 'just text', /^f\.yaml document 1 \(line 1\): not a Kubernetes object \(a string\); skipped$/],
    ['no kind', 'metadata: {name: x}', /: no kind; skipped$/],
    ['no name', 'kind: Service\nmetadata: {}', /: Service without metadata\.name; skipped$/],
    [
      'an unrendered Helm template',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: "{{ .Release.Name }}-web"\nspec: {}',
      /^f\.yaml document 1 \(line 1\): an unrendered template \(\{\{ … \}\} left in it; render it first, e\.g\. helm template\); skipped$/,
    ],
    [
      'an unrendered image',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n      containers: [{name: w, image: "{{ .Values.image }}"}]',
      /: an unrendered template/,
    ],
    [
      'binary bytes',
      '\u0000\u0001\u0002PK\u0003\u0004',
      /^f\.yaml document 1 \(line 1\): not (valid YAML|a Kubernetes object)/,
    ],
  ])('%s is named as unreadable, never quoted', (_, text, note) => {
    const parsed = parseManifests(text, 'f.yaml');
    expect(parsed.objects).toEqual([]);
    expect(parsed.unreadable).toHaveLength(1);
    expect(parsed.unreadable[0]).toMatch(note);
    expect(parsed.unreadable[0]).not.toContain('hunter2');
  });

  it('a template in an annotation is its own content, not an unrendered manifest', () => {
    const text =
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations: {snippet: "{{ .Host }}"}\nspec: {}\n';
    expect(parseManifests(text, 'f.yaml')).toMatchObject({
      unreadable: [],
      objects: [{ object: { kind: 'Service' } }],
    });
  });

  it("Go templates inside a ConfigMap's data are content, not an unrendered manifest", () => {
    const text =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: alerts}\ndata:\n  rule: "{{ $labels.instance }} is down"\n';
    expect(parseManifests(text, 'f.yaml')).toMatchObject({
      unreadable: [],
      objects: [{ object: { kind: 'ConfigMap' } }],
    });
  });

  it('records where each block-scalar data key of a ConfigMap starts, for findings on a line of its text', () => {
    const text = `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: lb}\ndata:\n  other: one line\n  haproxy.cfg: |\n    global\n  "x.cfg": |-\n    defaults\n`;
    expect(parseManifests(text, 'f.yaml').objects[0]?.source).toEqual({
      file: 'f.yaml',
      line: 2,
      dataLines: { 'haproxy.cfg': 8, 'x.cfg': 10 },
    });
  });

  it('a bad document does not stop the others', () => {
    const parsed = parseManifests(`${deployment('a')}\n---\nkey: [unclosed\n---\n${deployment('b')}`, 'f.yaml');
    expect(parsed.objects.map((o) => o.object.metadata.name)).toEqual(['a', 'b']);
    expect(parsed.unreadable).toHaveLength(1);
  });
});

describe('shapeProblem: the fields the doctor reads have the shape the API would enforce', () => {
  const base = () => parseManifests(deployment('a'), 'f').objects[0]!.object as any;
  it.each([
    [
      'containers not a list',
      (d: any) => (d.spec.template.spec.containers = 'app'),
      'spec.template.spec.containers is not a list',
    ],
    [
      'a container without a name',
      (d: any) => delete d.spec.template.spec.containers[0].name,
      'spec.template.spec.containers[0].name is missing',
    ],
    [
      'a port that is not a number',
      (d: any) => (d.spec.template.spec.containers[0].ports = [{ containerPort: '80' }]),
      'spec.template.spec.containers[0].ports[0].containerPort is not a number',
    ],
    [
      'a probe header without a value',
      (d: any) =>
        (d.spec.template.spec.containers[0].readinessProbe = { httpGet: { port: 80, httpHeaders: [{ name: 'X' }] } }),
      'spec.template.spec.containers[0].readinessProbe.httpGet.httpHeaders[0].value is missing',
    ],
    [
      'a preStop command that is not a list of strings',
      (d: any) => (d.spec.template.spec.containers[0].lifecycle = { preStop: { exec: { command: 'sleep 5' } } }),
      'spec.template.spec.containers[0].lifecycle.preStop.exec.command is not a list',
    ],
    [
      'labels that are not strings',
      (d: any) => (d.spec.template.metadata.labels = { app: 1 }),
      'spec.template.metadata.labels.app is not a string',
    ],
    ['no selector', (d: any) => delete d.spec.selector, 'spec.selector is missing'],
  ])('%s', (_, spoil, problem) => {
    const d = base();
    expect(shapeProblem(d)).toBeUndefined();
    spoil(d);
    expect(shapeProblem(d)).toBe(problem);
  });

  it('other kinds are not checked; a ConfigMap needs string data', () => {
    expect(shapeProblem({ kind: 'Secret', data: 5 } as never)).toBeUndefined();
    expect(shapeProblem({ kind: 'ConfigMap', data: { 'haproxy.cfg': 1 } } as never)).toBe(
      'data.haproxy.cfg is not a string',
    );
  });
});

describe('manifestInputs', () => {
  it('places objects without a namespace in the default one, skips malformed ones and duplicates with a note, names the kinds it passes over', () => {
    const text = [
      deployment('a'),
      deployment('bad', '\n  namespace: x').replace('containers: [{name: app, image: app:1}]', 'containers: 3'),
      deployment('a'),
      'apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {k: dg==}',
    ].join('\n---\n');
    const inputs = manifestInputs([parseManifests(text, 'f.yaml')], 'shop');
    expect(inputs.targets.map((d) => `${d.metadata.namespace}/${d.metadata.name}`)).toEqual(['shop/a']);
    expect(inputs.unreadable).toEqual([
      'f.yaml:12: Deployment bad: spec.template.spec.containers is not a list; skipped',
    ]);
    expect(inputs.notes).toEqual([
      'f.yaml:24: Deployment shop/a is also at f.yaml:1; the first one is checked',
      '1 object of kinds the doctor does not check: Secret (1)',
    ]);
    expect(inputs.sources['Deployment/shop/a']).toEqual({ file: 'f.yaml', line: 1 });
  });

  it('every workload kind is a target; a Rollout with a workloadRef has no template of its own, and says so', () => {
    const sts = deployment('db').replace('kind: Deployment', 'kind: StatefulSet');
    const ds = deployment('proxy').replace('kind: Deployment', 'kind: DaemonSet');
    const ro = deployment('canary').replace(
      'apiVersion: apps/v1\nkind: Deployment',
      'apiVersion: argoproj.io/v1alpha1\nkind: Rollout',
    );
    const ref =
      'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: ref}\nspec:\n  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: a}';
    const inputs = manifestInputs(
      [parseManifests([deployment('a'), sts, ds, ro, ref].join('\n---\n'), 'f.yaml')],
      'shop',
    );
    expect(inputs.targets.map((t) => `${t.kind}/${t.metadata.name}`)).toEqual([
      'Deployment/a',
      'StatefulSet/db',
      'DaemonSet/proxy',
      'Rollout/canary',
    ]);
    expect(inputs.notes).toEqual([
      'f.yaml:45: Rollout ref has no pod template of its own (spec.workloadRef); check the workload it names',
    ]);
  });
});
